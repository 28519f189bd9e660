"""``LimbRuns``: an ``(n, limbs)`` uint64 limb array given as consecutive runs, some of them the
rows of a smaller array repeated by an index, so that it can be written out in chunks without
ever being made whole.

Why: a 32 GiB WindowPoSt partition's witness is 127 M Poseidon values (4 GB of limbs), and a
partition padded with repeated sectors (the last partition of a deadline; the workflow's
synthetic benchmarks) has few distinct ones. The value store (``cuzk.r1cs.values``) keeps each
Poseidon call's distinct results and their row index as such a run; the witness writer
(``cuzk.r1cs.witness.write_witness_compact``) streams them to the file.
"""

from __future__ import annotations

from typing import Iterator

import numpy as np

from .arith import FR, Field, limbs_below_modulus

CHUNK_ROWS = 1 << 20
"""Rows per chunk of :meth:`LimbRuns.chunks` by default (32 MiB of Fr limbs)."""


class LimbRuns:
    """The concatenation of runs, each ``(limbs, rows)``: ``limbs`` an ``(m, limbs)`` uint64
    array and rows None (its m rows), or ``limbs`` an ``(m, w, limbs)`` array and ``rows`` a 1-D
    int array of indices below m (the ``len(rows)·w`` rows ``limbs[rows]`` flattened). The
    arrays are kept, not copied: they must not change afterwards.

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
            if not (isinstance(limbs, np.ndarray) and limbs.dtype == np.uint64 and limbs.shape[-1] == width
                    and limbs.ndim == (2 if rows is None else 3)):
                raise ValueError(f"LimbRuns: a run must be uint64 limbs of width {width}, (m, {width}) without rows "
                                 f"or (m, w, {width}) with them; got {getattr(limbs, 'dtype', type(limbs))} "
                                 f"{getattr(limbs, 'shape', '')}")
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
        return all(bool(limbs_below_modulus(lm.reshape(-1, self.shape[1]), self.field).all()) for lm, _ in self.runs)

    def chunks(self, rows: int = CHUNK_ROWS) -> Iterator[np.ndarray]:
        """The rows in order, as C-contiguous ``(≤ rows', limbs)`` arrays: slices of a run without
        rows, else gathered into one buffer that is reused (use each chunk before asking for the
        next). A run whose w exceeds ``rows`` comes in chunks of one index (w rows).

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
            w = limbs.shape[1]
            q = max(1, rows // max(w, 1))   # indices per chunk
            if buf is None or buf.shape[0] < q * w:
                buf = np.empty((q * w, width), dtype=np.uint64)
            for lo in range(0, idx.shape[0], q):
                part = idx[lo:lo + q]
                out = buf[: part.shape[0] * w]
                # mode "clip": with "raise" numpy buffers out; the indices were checked above
                np.take(limbs, part, axis=0, out=out.reshape(part.shape[0], w, width), mode="clip")
                yield out

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        out = np.empty(self.shape, dtype=np.uint64)
        at = 0
        for c in self.chunks():
            out[at:at + c.shape[0]] = c
            at += c.shape[0]
        return out if dtype is None else out.astype(dtype, copy=False)
