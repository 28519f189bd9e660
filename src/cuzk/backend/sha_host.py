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


def _library(out_dir):
    """The host build of the core (``sha_witness_host.cpp``), built once per machine and loaded."""
    return load_library(build_library("sha_witness_host", SOURCES, HEADERS, [_SRC], root=out_dir))


def host_core(out_dir: str | os.PathLike | None = None):
    """The kernel's core built for the host (``sha_witness_host.cpp``; :func:`cuzk.backend.native.build_library`,
    cached under ``out_dir``, default ``$CUZK_CACHE_DIR/native``): a function
    ``run(table, num_aux) -> (slots, outw)`` with ``cuzk.backend.cuda.witness.sha_aux``'s
    results as numpy arrays (``(num_aux,)`` uint8 slots, ``(L, 8)`` uint32 state words),
    computed lane after lane by the same ``sha_witness_lane`` the kernel's threads run.
    ``run(table, bits=False)``: the words alone (slots None: the core writes no bit; a 32 GiB
    partition's 5,040 lanes in 26 ms against 0.37 s with the bits, on the 2-core box).

    Raises:
        NativeBuildError: no C++ compiler, the build failed, or the library cannot be loaded.
    """
    fn = _library(out_dir).sha_witness_host
    fn.restype = None
    fn.argtypes = [ctypes.c_void_p] * 4 + [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_uint64]

    def run(table: ShaJobs, num_aux: int | None = None, bits: bool = True):
        lanes = table.job_of.shape[0]
        slots = np.zeros(table.end if num_aux is None else num_aux, dtype=np.uint8) if bits else None
        if bits and slots.shape[0] < table.end:
            raise ValueError(f"host_core: num_aux {slots.shape[0]} is below the calls' end {table.end}")
        outw = np.zeros((lanes, 8), dtype=np.uint32)
        jobs, job_of, vals = (np.ascontiguousarray(a) for a in (table.jobs, table.job_of, table.vals))
        fn(jobs.ctypes.data, job_of.ctypes.data, vals.ctypes.data, None if slots is None else slots.ctypes.data,
           0 if slots is None else slots.shape[0], outw.ctypes.data, lanes)
        return slots, outw

    return run


def deferred_compute(run, calls: list):
    """A delegate for ``cuzk.r1cs.sha_calls.delegate_compressions`` that leaves the bits to later
    (``synthesis_sha: prover``): each call gives no bits (``delegate_compressions`` sets its output
    words' bits and leaves the others 0: flagged as bits, packed as 0 in the witness file) and its
    words come from ``run`` (:func:`host_core`'s, without bits); the call, with its words, is
    appended to ``calls`` (also the delegate's ``calls``), whose :func:`job_table` the witness file
    keeps so that the prover computes the bits (:func:`fill_bits`, or the GPU kernel on the device)."""

    def compute(call):
        _, out = run(_one_call(call), bits=False)
        calls.append(call._replace(out=[out[:, j].astype(np.uint64) for j in range(8)]))
        return None, out   # bits later: the delegation sets the output words' bits alone

    compute.calls = calls
    return compute


_FILL_PIECE = 1 << 22   # aux values per piece of fill_bits (a multiple of 8: whole mask bytes)


def fill_bits(mask: np.ndarray, bits: np.ndarray, num_aux: int, num_bits: int, table: ShaJobs, run) -> np.ndarray:
    """The packed bit values of a compact assignment (``cuzk.backend.CompactAssignment``'s
    ``mask``/``bits``, little bit order) with the bits of ``table``'s compressions set, computed
    on the host by ``run`` (:func:`host_core`): what the GPU does on the device for ``synthesis_sha:
    prover`` files (``cuzk.backend.cuda.computed.sha_bits_on_device``). ``bits`` holds 0 at those
    positions but the output words' (set already: setting them again changes nothing).

    Returns a new ``(ceil(num_bits / 8),)`` uint8 array. Host memory: the slots (1 B an aux to
    ``table.end``) and the unpacked bits (1 B each) beside pieces of ``_FILL_PIECE``.

    Raises:
        ValueError: the table reaches past ``num_aux``, or a computed bit falls on an aux value
            that the mask does not flag as a bit.
    """
    if table.end > num_aux:
        raise ValueError(f"sha job table: its calls end at aux {table.end}, past the {num_aux} aux values")
    slots, _ = run(table, table.end)
    vals = np.unpackbits(bits, bitorder="little", count=num_bits)
    before = 0   # bit-valued aux before the piece
    for lo in range(0, table.end, _FILL_PIECE):   # pieces: a 32 GiB partition's ranks are not made whole
        hi = min(table.end, lo + _FILL_PIECE)
        flags = np.unpackbits(mask[lo // 8: -(-hi // 8)], bitorder="little", count=hi - lo)
        ones = np.flatnonzero(slots[lo:hi])
        if not flags[ones].all():
            raise ValueError("sha job table: a computed bit falls on an aux value not flagged as a bit")
        rank = np.cumsum(flags, dtype=np.int64)   # 1 + position among the piece's bit-valued aux
        vals[before + rank[ones] - 1] = 1
        before += int(rank[-1])
    return np.packbits(vals, bitorder="little")


__all__ = ["HEADERS", "JOB_DTYPE", "SOURCES", "ShaJobs", "deferred_compute", "fill_bits", "host_compute", "host_core",
           "job_table"]
