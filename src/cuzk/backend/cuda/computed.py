"""A witness's values on the device where some are computed there (issue 17: the assignment on
the device): the SHA-256 compressions' bits of a ``synthesis_sha: prover`` file
(:func:`sha_bits_on_device`), and its wide values: a version 2 witness file (``witness_poseidon: inputs``, ``cuzk.r1cs.witness``)
holds its Poseidon hash calls' inputs (``cuzk.r1cs.poseidon.PoseidonWalks``, a
``cuzk.field.ComputedRows``), and the cuda backend's compact upload
(``CUDABackend._compact_upload``) makes their values with the Poseidon kernel
(``cuzk.backend.cuda.poseidon.legacy_limbs_device``) straight into the device array of wide values
that ``expand_compact`` reads: the values never exist on the host. No import of the runtime here:
the backend hands its CuPy module in.
"""

from __future__ import annotations

import numpy as np

from ...field import FR, ComputedRows, LimbRuns
from ...field.runs import CHUNK_ROWS, placed_positions


def _in_order(rows: np.ndarray, m: int) -> bool:
    """Whether a run's rows are 0, 1, …, m − 1 (each hash once, in order: no padding repeats)."""
    return rows.shape[0] == m and bool((rows == np.arange(m, dtype=rows.dtype)).all())


def computed_scratch_bytes(wide) -> int:
    """Device bytes :func:`wide_on_device` takes besides its output: the largest computed run
    that is not written in place (its distinct rows' values, gathered from there), and for
    placed runs one chunk of positions and the stored values' positions."""
    if not isinstance(wide, LimbRuns):
        return 0
    made = [32 * lm.shape[0] * lm.shape[1] for lm, rows in wide.runs
            if isinstance(lm, ComputedRows) and not _in_order(rows, lm.shape[0])]
    if wide.placed:
        made += [32 * lm.shape[0] * lm.shape[1] + 16 * CHUNK_ROWS for lm, _, _ in wide.placed]
        made = [max(made) + 8 * sum(lm.shape[0] for lm, _ in wide.runs)]   # stored positions beside
    return max(made + [0])


def wide_on_device(cp, wide, stream=None):
    """A ``CompactAssignment``'s wide values on the current device: an ``(num_wide, 4)`` uint64
    CuPy array of canonical limbs. The runs of a ``cuzk.field.LimbRuns`` that are
    ``ComputedRows`` (a witness file's Poseidon inputs, ``witness_poseidon: inputs``) are made
    there by their ``on_device`` (the Poseidon kernel: a 32 GiB WindowPoSt partition's 119.4 M
    values from 52 MB of inputs): in block order written in place when each row comes once in
    order, else computed once per distinct row and gathered; placed runs (rust-fil-proofs' order)
    computed likewise and scattered to their rows' offsets, the stored values to the positions
    left. The other values are copied up.

    Args:
        cp: the CuPy module (the backend's).
        wide: ``(num_wide, 4)`` uint64 host limbs, or a ``LimbRuns`` of them.
        stream: the CuPy stream of the copies (the kernels run on the current one).

    Raises:
        ValueError: a computed run's inputs are refused by its kernel (not below r).
    """
    out = cp.empty((len(wide), FR.limbs), dtype=cp.uint64)
    if isinstance(wide, LimbRuns) and wide.placed:
        stored = np.asarray(LimbRuns(wide.runs))
        if stored.shape[0]:
            out[cp.asarray(np.flatnonzero(~wide.covered()))] = cp.asarray(stored)
        for lm, rows, offsets in wide.placed:
            vals, idx = lm.on_device(), cp.asarray(rows.astype(np.int64))
            for lo, hi, pos in placed_positions(cp.asarray(offsets.astype(np.int64)), lm.shape[1], cp):
                out[pos] = vals[idx[lo:hi]].reshape(-1, FR.limbs)
        return out
    runs = wide.runs if isinstance(wide, LimbRuns) else [(np.asarray(wide), None)]
    at = 0
    for limbs, rows in runs:
        n = limbs.shape[0] if rows is None else rows.shape[0] * limbs.shape[1]
        dst = out[at:at + n]
        at += n
        if not n:
            continue
        if not isinstance(limbs, ComputedRows):
            dst.set(np.asarray(LimbRuns([(limbs, rows)])) if rows is not None else np.ascontiguousarray(limbs),
                    stream=stream)
        elif _in_order(rows, limbs.shape[0]):
            limbs.on_device(out=dst)
        else:
            idx = cp.asarray(rows.astype(np.int64))
            cp.take(limbs.on_device(), idx, axis=0, out=dst.reshape(rows.shape[0], limbs.shape[1], FR.limbs))
    return out


def sha_slots(cp, kernel, table, slots, block: int = 32):
    """The SHA-256 witness kernel (``sha_witness.cu``, one thread per lane of ``table``, a
    ``cuzk.backend.sha_host.ShaJobs``) writing the calls' bits into the uint8 device array
    ``slots`` (none at or past its length); returns the ``(L, 8)`` uint32 new state words.
    ``kernel``: the runtime's ``_kernel`` (handed in: the runtime imports this module).
    Asynchronous on the current stream (the table's small uploads aside)."""
    lanes = table.job_of.shape[0]
    outw = cp.empty((lanes, 8), dtype=cp.uint32)
    if lanes:
        jobs = cp.asarray(table.jobs.view(np.uint8))
        job_of, vals = cp.asarray(table.job_of), cp.asarray(table.vals)
        kernel("sha_witness.cu", "sha_witness")((-(-lanes // block),), (block,),
                                                (jobs, job_of, vals, slots, np.uint64(slots.size), outw, np.uint64(lanes)))
    return outw


def sha_bits_on_device(cp, kernel, table, mask, cumw, bits32) -> None:
    """``synthesis_sha: prover`` (issue 17: the assignment on the device): the job table's
    compressions' bits computed on the current device (:func:`sha_slots` into a ``(table.end,)``
    uint8 array that lives for the call) and set in a compact assignment's packed bit values
    there (``sha_fill_bits``): the bits never exist on the host. Asynchronous on the current stream.

    Args:
        table: the witness file's job table (``CompactAssignment.sha``).
        mask, cumw: the assignment's is-a-bit flags as uint32 words and the set flags before each
            (``runtime.CompactW``), at least ``ceil(table.end / 32)`` words.
        bits32: its packed bit values as uint32 words (little-endian: bit p is bit p % 32 of
            word p // 32), holding the file's bits (0 at the computed ones but output words').

    Raises:
        ValueError: mask shorter than the table's aux.
    """
    words = -(-table.end // 32)
    if mask.size < words or cumw.size < words:
        raise ValueError(f"sha fill: the mask has {mask.size} words, the table reaches aux {table.end}")
    if not words:
        return
    slots = cp.zeros(table.end, dtype=cp.uint8)
    sha_slots(cp, kernel, table, slots)
    kernel("sha_witness.cu", "sha_fill_bits")((-(-words // 256),), (256,),
                                              (slots, np.uint64(table.end), mask, cumw, bits32))


__all__ = ["computed_scratch_bytes", "sha_bits_on_device", "sha_slots", "wide_on_device"]
