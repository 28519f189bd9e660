"""``LimbRuns``: an ``(n, limbs)`` uint64 limb array given as consecutive runs, some of them the
rows of a smaller array repeated by an index, so that it can be written out in chunks without
ever being made whole.

Why: a 32 GiB WindowPoSt partition's witness is 127 M Poseidon values (4 GB of limbs), and a
partition padded with repeated sectors (the last partition of a deadline; the workflow's
synthetic benchmarks) has few distinct ones. The value store (``cuzk.r1cs.values``) keeps each
Poseidon call's distinct results and their row index as such a run; the witness writer
(``cuzk.r1cs.witness.write_witness_compact``) streams them to the file. A run's rows may also be
:class:`ComputedRows`: values made from a few inputs each (a hash's every op value from its
preimage, ``cuzk.r1cs.poseidon.PoseidonWalks``) when they are read, so that a witness file can hold
the inputs only and the prover compute the values where it needs them (on the GPU, in place).
"""

from __future__ import annotations

from typing import Iterator

import numpy as np

from .arith import FR, Field, limbs_below_modulus

CHUNK_ROWS = 1 << 20
"""Rows per chunk of :meth:`LimbRuns.chunks` by default (32 MiB of Fr limbs)."""


class ComputedRows:
    """An ``(m, w, limbs)`` uint64 array of canonical limb rows made on demand (a run's ``limbs``
    in :class:`LimbRuns`): row i is w values computed from input row i of ``inputs`` (an
    ``(m, width, limbs)`` uint64 array). Subclasses set ``shape`` and ``inputs`` and define
    :meth:`take`, :meth:`below_modulus`, :meth:`spec` (what a witness file records to make them
    again) and ``on_device(out=None)`` (the rows on the current CUDA device, for the cuda backend)."""

    dtype = np.dtype(np.uint64)
    ndim = 3
    shape: tuple[int, int, int]
    inputs: np.ndarray

    def spec(self) -> dict:
        """What makes the rows besides the inputs (a JSON-able dict)."""
        raise NotImplementedError

    def take(self, idx: np.ndarray) -> np.ndarray:
        """``(len(idx), w, limbs)`` uint64: rows idx (1-D ints below m), computed now."""
        raise NotImplementedError

    def below_modulus(self) -> bool:
        """Whether every row the inputs make is canonical (checked on the inputs)."""
        raise NotImplementedError

    def at(self, r: np.ndarray, col: np.ndarray) -> np.ndarray:
        """``(len(r), limbs)``: value col[i] of row r[i] (each row needed computed once)."""
        u, inv = np.unique(r, return_inverse=True)
        return self.take(u)[inv.reshape(-1), col]


def _is_run(limbs, rows, width: int) -> bool:
    """``(limbs, rows)`` is a run :class:`LimbRuns` takes (see there)."""
    if isinstance(limbs, ComputedRows):
        return rows is not None and len(limbs.shape) == 3 and limbs.shape[-1] == width
    return (isinstance(limbs, np.ndarray) and limbs.dtype == np.uint64 and limbs.shape[-1] == width
            and limbs.ndim == (2 if rows is None else 3))


class LimbRuns:
    """The concatenation of runs, each ``(limbs, rows)``: ``limbs`` an ``(m, limbs)`` uint64
    array and rows None (its m rows), or ``limbs`` an ``(m, w, limbs)`` array and ``rows`` a 1-D
    int array of indices below m (the ``len(rows)·w`` rows ``limbs[rows]`` flattened); with rows,
    ``limbs`` may be :class:`ComputedRows` (computed where read). The arrays are kept, not copied:
    they must not change afterwards.

    Behaves as the ``(n, limbs)`` uint64 array where it is read whole (``numpy.asarray``) and
    has its ``shape``, ``dtype``, ``nbytes`` and ``len``.

    Raises (on construction):
        ValueError: a run that is not uint64 limbs of the field's width, or rows that are not
            1-D indices below m.
    """

    dtype = np.dtype(np.uint64)
    ndim = 2

    def __init__(self, runs, field: Field | None = None):
        self.field = field or FR
        width = self.field.limbs
        self.runs = []
        n = 0
        for limbs, rows in runs:
            if not _is_run(limbs, rows, width):
                raise ValueError(f"LimbRuns: a run must be uint64 limbs of width {width}, (m, {width}) without rows "
                                 f"or (m, w, {width}) (or ComputedRows) with them; got "
                                 f"{getattr(limbs, 'dtype', type(limbs))} {getattr(limbs, 'shape', '')}")
            if rows is not None:
                rows = np.asarray(rows)
                if rows.ndim != 1 or (rows.size and not (0 <= rows.min() and rows.max() < limbs.shape[0])):
                    raise ValueError(f"LimbRuns: rows must be 1-D indices below {limbs.shape[0]}")
                n += rows.shape[0] * limbs.shape[1]
            else:
                n += limbs.shape[0]
            self.runs.append((limbs, rows))
        self.shape = (n, width)

    def __len__(self) -> int:
        return self.shape[0]

    @property
    def nbytes(self) -> int:
        """Bytes of the whole array (what a file of it takes)."""
        return self.shape[0] * self.shape[1] * 8

    def below_modulus(self) -> bool:
        """Every value is below the field's modulus (each distinct row checked once)."""
        return all(lm.below_modulus() if isinstance(lm, ComputedRows)
                   else bool(limbs_below_modulus(lm.reshape(-1, self.shape[1]), self.field).all()) for lm, _ in self.runs)

    def computed(self) -> list[tuple[int, ComputedRows, np.ndarray]]:
        """The :class:`ComputedRows` runs as (first row in the whole array, limbs, rows)."""
        out, at = [], 0
        for lm, rows in self.runs:
            if isinstance(lm, ComputedRows):
                out.append((at, lm, rows))
            at += lm.shape[0] if rows is None else rows.shape[0] * lm.shape[1]
        return out

    def chunks(self, rows: int = CHUNK_ROWS, computed: bool = True) -> Iterator[np.ndarray]:
        """The rows in order, as C-contiguous ``(≤ rows', limbs)`` arrays: slices of a run without
        rows, else gathered into one buffer that is reused (use each chunk before asking for the
        next). A run whose w exceeds ``rows`` comes in chunks of one index (w rows). ``computed``
        False leaves the :class:`ComputedRows` runs out.

        Raises:
            ValueError: rows < 1.
        """
        if rows < 1:
            raise ValueError(f"LimbRuns.chunks: rows must be at least 1, not {rows}")
        width, buf = self.shape[1], None
        for limbs, idx in self.runs:
            if idx is None:
                for lo in range(0, limbs.shape[0], rows):
                    yield np.ascontiguousarray(limbs[lo:lo + rows])
                continue
            if not computed and isinstance(limbs, ComputedRows):
                continue
            w = limbs.shape[1]
            q = max(1, rows // max(w, 1))   # indices per chunk
            if buf is None or buf.shape[0] < q * w:
                buf = np.empty((q * w, width), dtype=np.uint64)
            for lo in range(0, idx.shape[0], q):
                part = idx[lo:lo + q]
                out = buf[: part.shape[0] * w]
                if isinstance(limbs, ComputedRows):
                    out.reshape(part.shape[0], w, width)[:] = limbs.take(part)
                else:   # mode "clip": with "raise" numpy buffers out; the indices were checked above
                    np.take(limbs, part, axis=0, out=out.reshape(part.shape[0], w, width), mode="clip")
                yield out

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        out = np.empty(self.shape, dtype=np.uint64)
        at = 0
        for c in self.chunks():
            out[at:at + c.shape[0]] = c
            at += c.shape[0]
        return out if dtype is None else out.astype(dtype, copy=False)
