"""Sparse matrices over Fr in CSR form (the R1CS matrices A, B, C).

Here, in the lowest layer, so the constraint system, file formats and backends share one type
without the R1CS or format code importing a backend.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class CSRMatrix:
    """A sparse matrix over Fr in CSR form with a coefficient table.

    Attributes:
        indptr: ``(rows + 1,)`` int64 row offsets into ``indices``.
        indices: ``(nnz,)`` int64 column indices (variable numbers, inputs first then aux).
        coeff_ids: ``(nnz,)`` int32 indices into ``coeffs``.
        coeffs: ``(ncoeffs,)`` int array (object dtype) of distinct Fr coefficients.
        shape: (rows, cols).
    """

    indptr: np.ndarray
    indices: np.ndarray
    coeff_ids: np.ndarray
    coeffs: np.ndarray
    shape: tuple[int, int]

    @property
    def nnz(self) -> int:
        """Number of stored non-zeros."""
        return int(self.indices.shape[0])

    def row_ids(self) -> np.ndarray:
        """``(nnz,)`` int64 row index of every stored entry."""
        return np.repeat(np.arange(self.shape[0], dtype=np.int64), np.diff(self.indptr))

    def transpose(self) -> "CSRMatrix":
        """Mᵀ in CSR form (M's CSC form), sharing the coefficient table; entries of a row of Mᵀ
        keep M's row order (stable sort by column)."""
        order = np.argsort(self.indices, kind="stable")
        counts = np.bincount(self.indices, minlength=self.shape[1]) if self.nnz else np.zeros(self.shape[1], np.int64)
        indptr = np.zeros(self.shape[1] + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
        return CSRMatrix(indptr, self.row_ids()[order], np.asarray(self.coeff_ids)[order], self.coeffs,
                         (self.shape[1], self.shape[0]))
