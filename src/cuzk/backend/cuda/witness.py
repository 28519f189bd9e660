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

The job table and the host build are in ``cuzk.backend.sha_host`` (the CPU synthesis's
``synthesis_sha: native`` path uses them without CuPy); their names are re-exported here.

Bit identity: ``tests/test_sha_witness_host.py`` builds the same core with g++ and compares its
slots and output words byte for byte with the CPU path's ValueStore slots (real 2 KiB and
512 MiB PoRep partitions, and compressions with negated and constant columns), and whole
delegated partitions' witnesses with the CPU path's; ``tests/test_sha_witness_gpu.py`` does the
same for the kernel on a device (2 KiB); ``benchmarks/witness_gpu/bench_sha.py`` times it for a
32 GiB partition and checks both uses.
"""

from __future__ import annotations

from ..sha_host import JOB_DTYPE, ShaJobs, _one_call, host_compute, host_core, job_table
from .computed import sha_slots
from .runtime import _cupy, _kernel

# JOB_DTYPE, ShaJobs, job_table, host_core and host_compute live in ``cuzk.backend.sha_host``
# (no CuPy: the CPU synthesis uses them too); named here as well, as before
__all__ = ["JOB_DTYPE", "ShaJobs", "gpu_compute", "host_compute", "host_core", "job_table", "sha_aux"]

_BLOCK = 32
"""Threads per block (at most sha_witness's ``__launch_bounds__``, 128): a 32 GiB partition has
only 5,040 lanes, so small blocks spread them over more SMs."""


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
    return slots, sha_slots(cp, _kernel, table, slots, block)


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
