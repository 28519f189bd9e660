"""The index side of the blocked transposed product (``spmv_t_blocks`` of the cuda backend,
setup under a device limit), run with numpy on the CPU: row blocks cover the rows within their
bounds, a column filter and ``transpose_split``'s virtual rows give Mᵀ·x when the sums they
describe are done in Python integers, compared with Mᵀ·x from the (row, column, coefficient)
triples directly and with the CPU backend's ``spmv_t``."""

from __future__ import annotations

import random

import numpy as np
import pytest

from cuzk.backend import CSRMatrix, get_backend
from cuzk.backend.cuda.spmv import column_filter, row_blocks, transpose_split
from cuzk.field import FR, int_array

R = FR.modulus


def _csr(rng, rows, cols, long_col=0):
    """Random CSR; column ``long_col`` in most rows (as the ONE variable is)."""
    indptr, idx = [0], []
    for _ in range(rows):
        k = rng.choice([0, 1, 2, 3, 7])
        row = [rng.randrange(cols) for _ in range(k)]
        if rng.random() < 0.8:
            row.append(long_col)
        idx += row
        indptr.append(len(idx))
    coeffs = [1, R - 1] + [rng.randrange(R) for _ in range(5)]
    ids = [rng.randrange(len(coeffs)) for _ in idx]
    return CSRMatrix(np.array(indptr, np.int64), np.array(idx, np.int64), np.array(ids, np.int32),
                     int_array(coeffs), (rows, cols))


def _naive_t(m, x):
    y = [0] * m.shape[1]
    for r in range(m.shape[0]):
        for e in range(m.indptr[r], m.indptr[r + 1]):
            y[m.indices[e]] = (y[m.indices[e]] + int(m.coeffs[m.coeff_ids[e]]) * x[r]) % R
    return y


def _via_blocks(m, x, rows, nnz, cols, K):
    """Mᵀ·x the way ``spmv_t_blocks`` orders it: column slices, row blocks, filter, transpose."""
    C = m.shape[1]
    y = [0] * C
    for c0 in range(0, C, cols):
        c1 = min(C, c0 + cols)
        for r0, r1 in row_blocks([m], rows, nnz):
            e0, e1 = int(m.indptr[r0]), int(m.indptr[r1])
            ip = m.indptr[r0 : r1 + 1] - e0
            idx, ids = m.indices[e0:e1].astype(np.uint32), m.coeff_ids[e0:e1].astype(np.uint32)
            ip, idx, ids = column_filter(ip, idx, ids, c0, c1)
            if not len(idx):
                continue
            vptr, t_rows, t_ids, vstart = transpose_split(ip, idx, ids, c1 - c0, K)
            assert np.all(np.diff(vptr) <= K) and vstart[-1] == len(vptr) - 1
            part = [sum(int(m.coeffs[t_ids[e]]) * x[r0 + t_rows[e]] for e in range(vptr[v], vptr[v + 1])) % R
                    for v in range(len(vptr) - 1)]
            for c in range(c1 - c0):
                y[c0 + c] = (y[c0 + c] + sum(part[vstart[c] : vstart[c + 1]])) % R
    return y


def test_row_blocks_cover_within_bounds():
    rng = random.Random(1)
    a, b = _csr(rng, 200, 30), _csr(rng, 200, 30, long_col=5)
    for rows, nnz in ((1, 1), (7, 10), (50, 40), (1000, 10**6)):
        blocks = list(row_blocks([a, b], rows, nnz))
        assert blocks[0][0] == 0 and blocks[-1][1] == 200
        assert all(blocks[i][1] == blocks[i + 1][0] for i in range(len(blocks) - 1))
        for r0, r1 in blocks:
            assert r1 - r0 <= rows
            for m in (a, b):
                assert r1 - r0 == 1 or m.indptr[r1] - m.indptr[r0] <= nnz


@pytest.mark.parametrize("rows,nnz,cols,K", [(1000, 10**6, 10**6, 4096), (9, 25, 7, 3), (1, 4, 40, 2), (64, 100, 13, 1)])
def test_blocked_transpose_equals_naive(rows, nnz, cols, K):
    rng = random.Random(rows * 7 + cols)
    m = _csr(rng, 120, 40)
    x = [rng.randrange(R) for _ in range(120)]
    want = _naive_t(m, x)
    assert _via_blocks(m, x, rows, nnz, cols, K) == want
    with get_backend("cpu", threads=1) as bk:   # the default spmv_t_blocks: the whole product
        assert [int(v) for v in bk.spmv_t_blocks(m, int_array(x), rows, nnz, cols)] == want


def test_column_filter_keeps_only_its_columns():
    ip = np.array([0, 3, 3, 6], np.int64)
    idx = np.array([4, 0, 9, 5, 4, 1], np.uint32)
    ids = np.arange(6, dtype=np.uint32)
    p, i, d = column_filter(ip, idx, ids, 4, 6)
    assert p.tolist() == [0, 1, 1, 3] and i.tolist() == [0, 1, 0] and d.tolist() == [0, 3, 4]
