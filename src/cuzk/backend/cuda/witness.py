"""Witness generation on the GPU, phase 1 (issue 17): the SHA-256 compressions' aux bits.

Why this piece: in a PoRep partition nearly every aux value is a bit of a SHA-256 compression
(``benchmarks/witness_gpu/``: porep-32GiB partition 0 in block order, 127,508,904 of 130,169,893
aux from 280 calls of k = 18 instances, 5,040 compressions; porep-2KiB 2,624,832 of 2,685,673).
The CPU computes them with ``cuzk.r1cs.sha256._WordWitness`` (numpy over k lanes: about 3,000
small array calls per compression call, ~2.9 s of the 32 GiB partition's synthesis).

What the device computes: for every lane (instance) of every compression call, the whole
compression of ``_WordWitness`` (same ops, same order, same per-column case analysis of
constant and negated columns: ``sha_witness.cuh``), writing each new bit's value as one byte into
a uint8 device array of the partition's aux slots (the code ``cuzk.r1cs.values.ValueStore`` keeps
per variable: a bit's slot is its value), and the lane's 8 new state words.

Host inputs (uploaded): a job table of one 208-byte :data:`JOB_DTYPE` row per call (base aux
index, k, first lane, the 32-bit constant/negated column masks of the 8 state and 16 message
words: uniform over k, the circuit's shape), a uint32 job index per lane and the lane's 24
input word values (96 bytes). For porep-32GiB: 280 rows + 5,040 lanes, about 560 KB, against
127.5 MB of bits produced on the device.

Positions (block order, the workflow's default): a call's ops allocate, in order, blocks of
k·popcount(mask) bits, instance-major; bit r of lane i of op j is at base + Σ_{j' < j}
k·popcount(mask_j') + i·popcount(mask_j) + r. Each thread follows its own op sequence and
counts, so no index table is needed; the masks are the same in every lane of a call, so the
threads of a call take the same branches. Upstream order (``upstream_order: true``) permutes the
ch/maj bit loops (``cuzk.r1cs.order.Replay``): not done here (phase 2: a per-call-kind index
table from the same ``Replay``).

Two uses. (1) All calls of a partition at once (:func:`job_table` of the recorded calls,
:func:`sha_aux`): 5,040 threads, ~560 KB up, the bits stay on the device. (2) Inside the CPU
synthesis (:func:`gpu_compute`, or :func:`host_compute` with the g++ build of the same core):
``cuzk.r1cs.sha_calls.delegate_compressions`` hands each call's input words over, one launch
per call, and appends the bits and words it gets back, so the rest of the synthesis and the
witness file are unchanged; the CPU skips the numpy compressions but for one call per kind.

What stays on the CPU in phase 1: the C1 parse, every other gadget (Poseidon, bit decompositions,
packing: 2.7 M aux of the 32 GiB partition) and the compressions' input words (from the CPU
path's values). Next: chain a message's blocks in one thread (a label's 20, so the state stays
on the device), pack the slots into the compact witness the prover uploads (``CompactW``: mask,
bits, wide; ``runtime._compact_upload``) instead of downloading them, and Poseidon's values.

Bit identity: ``tests/test_sha_witness_host.py`` builds the same core with g++ and compares its
slots and output words byte for byte with the CPU path's ValueStore slots (real 2 KiB and
512 MiB PoRep partitions, and compressions with negated and constant columns), and whole
delegated partitions' witnesses with the CPU path's; ``tests/test_sha_witness_gpu.py`` does the
same for the kernel on a device (2 KiB); ``benchmarks/witness_gpu/bench_sha.py`` times it for a
32 GiB partition and checks both uses.
"""

from __future__ import annotations

import ctypes
import shutil
import subprocess
from pathlib import Path
from typing import NamedTuple, Sequence

import numpy as np

from ..base import BackendUnavailableError
from .runtime import _cupy, _grid, _kernel, _u64

JOB_DTYPE = np.dtype([("base", "<u8"), ("k", "<u4"), ("first", "<u4"), ("hc", "<u4", 8), ("hn", "<u4", 8),
                      ("wc", "<u4", 16), ("wn", "<u4", 16)])
"""One compression call: ``struct shaw::Job`` of ``sha_witness.cuh`` (208 bytes, no padding)."""

_BLOCK = 32
"""Threads per block (at most sha_witness's ``__launch_bounds__``, 128): a 32 GiB partition has
only 5,040 lanes, so small blocks spread them over more SMs."""


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


def sha_aux(table: ShaJobs, num_aux: int | None = None, slots=None, block: int = _BLOCK):
    """The compressions' aux bits on the current CUDA device.

    Args:
        table: :func:`job_table` of the calls.
        num_aux: length of the slots array made when ``slots`` is None (default ``table.end``).
        slots: a CuPy uint8 device array of the partition's aux slots to write into (positions
            outside the calls' ranges are left alone).
        block: threads per block, 1 to 128 (the kernel's ``__launch_bounds__``).

    Returns:
        (slots, outw): the CuPy uint8 ``(num_aux,)`` slots (zeros outside the calls' bits when
        made here) and the ``(L, 8)`` uint32 new state words of every lane. Asynchronous on the
        current stream.

    Raises:
        BackendUnavailableError: no CuPy or no device. ValueError: slots too short, or block
            out of range.
    """
    if not 1 <= block <= 128:
        raise ValueError(f"sha_aux: block must be 1 to 128 threads, not {block}")
    cp = _cupy()
    n = table.end if num_aux is None else num_aux
    if slots is None:
        slots = cp.zeros(n, dtype=cp.uint8)
    if slots.dtype != cp.uint8 or slots.size < table.end:
        raise ValueError(f"sha_aux: slots must be uint8 with at least {table.end} entries, "
                         f"got {slots.dtype} ({slots.size})")
    lanes = table.job_of.shape[0]
    outw = cp.empty((lanes, 8), dtype=cp.uint32)
    if lanes:
        jobs = cp.asarray(table.jobs.view(np.uint8))
        job_of, vals = cp.asarray(table.job_of), cp.asarray(table.vals)
        _kernel("sha_witness.cu", "sha_witness")((_grid(lanes, block),), (block,),
                                                 (jobs, job_of, vals, slots, outw, _u64(lanes)))
    return slots, outw


def _one_call(call) -> ShaJobs:
    """The job table of one call alone, its bits from index 0."""
    return job_table([call._replace(base=0)])


def host_compute(run):
    """A delegate for ``cuzk.r1cs.sha_calls.delegate_compressions`` from :func:`host_core`'s
    ``run``: each call's bits and words from the kernel's core on the host."""
    return lambda call: run(_one_call(call), call.size)


def gpu_compute(block: int = _BLOCK):
    """A delegate for ``cuzk.r1cs.sha_calls.delegate_compressions`` on the current device: one
    :func:`sha_aux` launch per call, its bits and words downloaded (the CPU's value store keeps
    them, so the rest of the synthesis is unchanged).

    Raises:
        BackendUnavailableError: no CuPy or no device.
    """
    cp = _cupy()

    def compute(call):
        slots, outw = sha_aux(_one_call(call), call.size, block=block)
        return cp.asnumpy(slots), cp.asnumpy(outw)

    return compute


def host_core(out_dir):
    """The kernel's core built for the host (``sha_witness_host.cpp`` with g++ into ``out_dir``):
    a function ``run(table, num_aux) -> (slots, outw)`` with :func:`sha_aux`'s results as numpy
    arrays, computed lane after lane by the same ``sha_witness_lane`` the kernel's threads run.
    For checks and benchmarks without a GPU.

    Raises:
        BackendUnavailableError: no g++ (or c++). subprocess.CalledProcessError: the build failed.
    """
    cxx = shutil.which("g++") or shutil.which("c++")
    if cxx is None:
        raise BackendUnavailableError("host_core: no C++ compiler (g++ or c++) on PATH")
    src = Path(__file__).resolve().parent
    lib = Path(out_dir) / "sha_witness_host.so"
    subprocess.run([cxx, "-O2", "-std=c++17", "-shared", "-fPIC", f"-I{src}", str(src / "sha_witness_host.cpp"),
                    "-o", str(lib)], check=True, capture_output=True, text=True)
    fn = ctypes.CDLL(str(lib)).sha_witness_host
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
