"""The SHA-256 witness core (``cuda/sha_witness.cuh``) built for the host: the job table of
compression calls that both builds take, and the g++ build (``cuda/sha_witness_host.cpp``,
through :mod:`cuzk.backend.native`: compiled once per machine and cached) run lane after lane on
one CPU core.

Two users: the GPU witness (``cuzk.backend.cuda.witness``: :func:`job_table` feeds its kernel,
and the host build checks it without a device), and the CPU synthesis
(``cuzk.r1cs.sha_path``, ``synthesis_sha: native``): :func:`host_compute` hands each
compression's bits to ``cuzk.r1cs.sha_calls.delegate_compressions`` in place of the numpy
gadget, bit for bit the same (``tests/test_sha_witness_host.py``, ``tests/test_sha_path.py``).
No CuPy here.
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path
from typing import NamedTuple, Sequence

import numpy as np

from .native import build_library, load_library

_SRC = Path(__file__).resolve().parent / "cuda"
SOURCES = (_SRC / "sha_witness_host.cpp",)
HEADERS = (_SRC / "sha_witness.cuh",)
"""What the host build compiles and includes (both hashed into the cached library's key)."""

JOB_DTYPE = np.dtype([("base", "<u8"), ("k", "<u4"), ("first", "<u4"), ("hc", "<u4", 8), ("hn", "<u4", 8),
                      ("wc", "<u4", 16), ("wn", "<u4", 16)])
"""One compression call: ``struct shaw::Job`` of ``sha_witness.cuh`` (208 bytes, no padding)."""

class ShaJobs(NamedTuple):
    """The device inputs of :func:`sha_aux`: ``jobs`` ``(J,)`` :data:`JOB_DTYPE`, ``job_of``
    ``(L,)`` uint32 (the call of each lane), ``vals`` ``(L, 24)`` uint32 (8 state then 16 message
    word values of each lane), ``end``: one past the last aux index written."""

    jobs: np.ndarray
    job_of: np.ndarray
    vals: np.ndarray
    end: int


def _mask32(m: int, what: str) -> int:
    if not 0 <= m < 1 << 32:
        raise ValueError(f"sha job table: {what} mask {m:#x} is not a 32-bit mask")
    return m


def job_table(calls: Sequence) -> ShaJobs:
    """The job table of compression calls (``cuzk.r1cs.sha_calls.Compression``, as
    :func:`~cuzk.r1cs.sha_calls.record_compressions` yields them), in their order.

    Raises:
        ValueError: a call without instances, fewer or more than 8 state / 16 message words,
            a word value of 2^32 or more, or masks wider than 32 bits.
    """
    jobs = np.zeros(len(calls), dtype=JOB_DTYPE)
    lanes = sum(c.k for c in calls)
    vals = np.empty((lanes, 24), dtype=np.uint32)
    job_of = np.empty(lanes, dtype=np.uint32)
    first, end = 0, 0
    for j, c in enumerate(calls):
        if c.k <= 0 or len(c.H) != 8 or len(c.W) != 16:
            raise ValueError(f"sha job table: call {j} has k={c.k}, {len(c.H)} state and {len(c.W)} message words")
        row = jobs[j]
        row["base"], row["k"], row["first"] = c.base, c.k, first
        for name, words, at in (("h", c.H, 0), ("w", c.W, 8)):
            row[name + "c"] = [_mask32(w.c, f"call {j} constant") for w in words]
            row[name + "n"] = [_mask32(w.n, f"call {j} negated") for w in words]
            for i, w in enumerate(words):
                v = np.asarray(w.v)
                if v.shape != (c.k,) or (v >> np.uint64(32)).any():
                    raise ValueError(f"sha job table: call {j} word {at + i}: values must be (k,) below 2^32")
                vals[first:first + c.k, at + i] = v
        job_of[first:first + c.k] = j
        first += c.k
        end = max(end, c.base + c.size)
    return ShaJobs(jobs, job_of, vals, end)


def _one_call(call) -> ShaJobs:
    """The job table of one call alone, its bits from index 0."""
    return job_table([call._replace(base=0)])


def host_compute(run):
    """A delegate for ``cuzk.r1cs.sha_calls.delegate_compressions`` from :func:`host_core`'s
    ``run``: each call's bits and words from the kernel's core on the host."""
    return lambda call: run(_one_call(call), call.size)


def host_core(out_dir: str | os.PathLike | None = None):
    """The kernel's core built for the host (``sha_witness_host.cpp``; :func:`cuzk.backend.native.build_library`,
    cached under ``out_dir``, default ``$CUZK_CACHE_DIR/native``): a function
    ``run(table, num_aux) -> (slots, outw)`` with ``cuzk.backend.cuda.witness.sha_aux``'s
    results as numpy arrays (``(num_aux,)`` uint8 slots, ``(L, 8)`` uint32 state words),
    computed lane after lane by the same ``sha_witness_lane`` the kernel's threads run.

    Raises:
        NativeBuildError: no C++ compiler, the build failed, or the library cannot be loaded.
    """
    lib = build_library("sha_witness_host", SOURCES, HEADERS, [_SRC], root=out_dir)
    fn = load_library(lib).sha_witness_host
    fn.restype = None
    fn.argtypes = [ctypes.c_void_p] * 5 + [ctypes.c_uint64]

    def run(table: ShaJobs, num_aux: int | None = None):
        lanes = table.job_of.shape[0]
        slots = np.zeros(table.end if num_aux is None else num_aux, dtype=np.uint8)
        if slots.shape[0] < table.end:
            raise ValueError(f"host_core: num_aux {slots.shape[0]} is below the calls' end {table.end}")
        outw = np.zeros((lanes, 8), dtype=np.uint32)
        jobs, job_of, vals = (np.ascontiguousarray(a) for a in (table.jobs, table.job_of, table.vals))
        fn(jobs.ctypes.data, job_of.ctypes.data, vals.ctypes.data, slots.ctypes.data, outw.ctypes.data, lanes)
        return slots, outw

    return run


__all__ = ["HEADERS", "JOB_DTYPE", "SOURCES", "ShaJobs", "host_compute", "host_core", "job_table"]
