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

    ``placed``: runs ``(limbs, rows, offsets)`` of :class:`ComputedRows` whose row i (w values)
    sits at positions ``offsets[i] … offsets[i] + w − 1`` of the whole array (rust-fil-proofs'
    variable order keeps each hash's values together but not its calls); the concatenation of
    ``runs`` (then none of them computed) fills the other positions, in order.

    Behaves as the ``(n, limbs)`` uint64 array where it is read whole (``numpy.asarray``) and
    has its ``shape``, ``dtype``, ``nbytes`` and ``len``.

    Raises (on construction):
        ValueError: a run that is not uint64 limbs of the field's width, rows that are not 1-D
            indices below m, or placed runs that overlap, leave the array, or sit beside
            computed runs.
    """

    dtype = np.dtype(np.uint64)
    ndim = 2

    def __init__(self, runs, field: Field | None = None, placed=()):
        self.field = field or FR
        width = self.field.limbs
        self.runs, self.placed = [], []
        n = 0
        for limbs, rows, offsets in placed:
            rows, offsets = self._rows(limbs, rows, width), np.asarray(offsets)
            if not isinstance(limbs, ComputedRows) or offsets.shape != rows.shape or offsets.dtype.kind not in "iu":
                raise ValueError("LimbRuns: a placed run is ComputedRows with one integer offset per row")
            n += rows.shape[0] * limbs.shape[1]
            self.placed.append((limbs, rows, offsets))
        for limbs, rows in runs:
            if rows is not None:
                rows = self._rows(limbs, rows, width)
                n += rows.shape[0] * limbs.shape[1]
            elif not _is_run(limbs, rows, width):
                self._rows(limbs, rows, width)   # raises
            else:
                n += limbs.shape[0]
            if self.placed and isinstance(limbs, ComputedRows):
                raise ValueError("LimbRuns: computed runs are either all placed or none")
            self.runs.append((limbs, rows))
        self.shape = (n, width)
        if self.placed:
            start = np.concatenate([o for _, _, o in self.placed]).astype(np.int64)
            end = start + np.concatenate([np.full(o.shape[0], lm.shape[1]) for lm, _, o in self.placed])
            order = np.argsort(start, kind="stable")
            start, end = start[order], end[order]
            if start.size and (start[0] < 0 or end[-1] > n or (start[1:] < end[:-1]).any()):
                raise ValueError("LimbRuns: placed runs overlap or leave the array")

    @staticmethod
    def _rows(limbs, rows, width: int) -> np.ndarray:
        """rows as a checked array (ValueError: not a run :class:`LimbRuns` takes)."""
        if not _is_run(limbs, rows, width):
            raise ValueError(f"LimbRuns: a run must be uint64 limbs of width {width}, (m, {width}) without rows "
                             f"or (m, w, {width}) (or ComputedRows) with them; got "
                             f"{getattr(limbs, 'dtype', type(limbs))} {getattr(limbs, 'shape', '')}")
        rows = np.asarray(rows)
        if rows.ndim != 1 or (rows.size and not (0 <= rows.min() and rows.max() < limbs.shape[0])):
            raise ValueError(f"LimbRuns: rows must be 1-D indices below {limbs.shape[0]}")
        return rows

    def __len__(self) -> int:
        return self.shape[0]

    @property
    def nbytes(self) -> int:
        """Bytes of the whole array (what a file of it takes)."""
        return self.shape[0] * self.shape[1] * 8

    def below_modulus(self) -> bool:
        """Every value is below the field's modulus (each distinct row checked once)."""
        return all(lm.below_modulus() if isinstance(lm, ComputedRows)
                   else bool(limbs_below_modulus(lm.reshape(-1, self.shape[1]), self.field).all())
                   for lm in [r[0] for r in self.runs] + [r[0] for r in self.placed])

    def computed(self) -> list[tuple[np.ndarray, ComputedRows, np.ndarray]]:
        """The :class:`ComputedRows` runs as (offsets: each row's first position in the whole
        array, int64; limbs; rows), placed or not."""
        out, at = [(o.astype(np.int64, copy=False), lm, rows) for lm, rows, o in self.placed], 0
        for lm, rows in self.runs:
            if isinstance(lm, ComputedRows):
                out.append((at + lm.shape[1] * np.arange(rows.shape[0], dtype=np.int64), lm, rows))
            at += lm.shape[0] if rows is None else rows.shape[0] * lm.shape[1]
        return out

    def chunks(self, rows: int = CHUNK_ROWS, computed: bool = True) -> Iterator[np.ndarray]:
        """The rows in order, as C-contiguous ``(≤ rows', limbs)`` arrays: slices of a run without
        rows, else gathered into one buffer that is reused (use each chunk before asking for the
        next). A run whose w exceeds ``rows`` comes in chunks of one index (w rows). ``computed``
        False leaves the :class:`ComputedRows` runs out (placed ones too); with placed runs and
        ``computed`` the whole array is made first (:meth:`__array__`).

        Raises:
            ValueError: rows < 1.
        """
        if rows < 1:
            raise ValueError(f"LimbRuns.chunks: rows must be at least 1, not {rows}")
        if computed and self.placed:
            whole = np.asarray(self)
            for lo in range(0, whole.shape[0], rows):
                yield whole[lo:lo + rows]
            return
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

    def covered(self) -> np.ndarray:
        """``(n,)`` bool: the positions of placed runs' values."""
        mask = np.zeros(self.shape[0], dtype=bool)
        for lm, _, offsets in self.placed:
            for _, _, pos in placed_positions(offsets, lm.shape[1]):
                mask[pos] = True
        return mask

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        out = np.empty(self.shape, dtype=np.uint64)
        free = None if not self.placed else np.flatnonzero(~self.covered())
        at = 0
        for c in self.chunks(computed=not self.placed):
            if free is None:
                out[at:at + c.shape[0]] = c
            else:
                out[free[at:at + c.shape[0]]] = c
            at += c.shape[0]
        for lm, rows, offsets in self.placed:
            for lo, hi, pos in placed_positions(offsets, lm.shape[1]):
                out[pos] = lm.take(rows[lo:hi]).reshape(-1, self.shape[1])
        return out if dtype is None else out.astype(dtype, copy=False)


def placed_positions(offsets, w: int, xp=np):
    """(first row, end row, positions) of a placed run's rows (:class:`LimbRuns`), about
    :data:`CHUNK_ROWS` values at a time: the int64 positions of their values, row by row. ``xp``:
    the array module of ``offsets`` (numpy, or CuPy for device arrays)."""
    q = max(1, CHUNK_ROWS // max(w, 1))
    for lo in range(0, offsets.shape[0], q):
        hi = min(lo + q, offsets.shape[0])
        yield lo, hi, (offsets[lo:hi].astype(xp.int64)[:, None] + xp.arange(w, dtype=xp.int64)).reshape(-1)
