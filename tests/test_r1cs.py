"""Tests of the vectorized constraint system (cuzk.r1cs)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cuzk.field import FR
from cuzk.r1cs import (
    LC,
    R1CS,
    ConstraintSystem,
    Unsatisfied,
    alloc_bits,
    boolean,
    enforce_equal,
    lc,
    num_to_bits,
    pack_bits,
    uint32_add,
)

R = FR.modulus
SETTINGS = settings(max_examples=12, deadline=None)


def col(cs_or_r1cs, ref: int) -> int:
    """Final column of a ref."""
    return -ref - 1 if ref < 0 else ref + cs_or_r1cs.num_inputs


def dense(m) -> list[list[int]]:
    """CSR → dense list of rows of Python ints."""
    rows, cols = m.shape
    out = [[0] * cols for _ in range(rows)]
    for r in range(rows):
        for p in range(m.indptr[r], m.indptr[r + 1]):
            out[r][int(m.indices[p])] = int(m.coeffs[m.coeff_ids[p]])
    return out


def u32_bits(values) -> np.ndarray:
    v = np.asarray(values, dtype=np.uint64)
    return (v[:, None] >> np.arange(32, dtype=np.uint64)) & np.uint64(1)


def bits_to_u32(bits) -> np.ndarray:
    return (np.asarray(bits, dtype=np.uint64) << np.arange(32, dtype=np.uint64)).sum(axis=1)


# --- a tiny hand-made circuit ---------------------------------------------------------------


def cubic(cs: ConstraintSystem, x: int | None):
    """x^3 + x + 5 = out, out public."""
    wit = cs.has_values
    out = cs.alloc_input(1, [x**3 + x + 5] if wit else None)
    xv = cs.alloc_aux(1, [x] if wit else None)
    sq = cs.alloc_aux(1, [x * x] if wit else None)
    cs.enforce(lc(xv), lc(xv), lc(sq), gadget="square")
    cu = cs.alloc_aux(1, [x**3] if wit else None)
    cs.enforce(lc(sq), lc(xv), lc(cu), gadget="cube")
    cs.enforce(lc(cu) + lc(xv) + lc(cs.one(1), 5), lc(cs.one(1)), lc(out), gadget="sum")
    return out, xv, sq, cu


def test_cubic_satisfied_and_tampered():
    cs = ConstraintSystem()
    out, xv, sq, cu = cubic(cs, 3)
    r1cs = cs.finalize()
    assert r1cs.num_inputs == 2 and r1cs.num_aux == 3
    assert r1cs.num_constraints == 3 + 2
    w = cs.full_assignment()
    assert w[0] == 1 and w[1] == 35
    assert r1cs.check(w) is None
    w[col(r1cs, int(cu[0]))] += 1  # breaks row 1 ("cube") first
    with pytest.raises(Unsatisfied) as ei:
        r1cs.check(w)
    assert ei.value.row == 1 and ei.value.gadget == "cube"
    assert isinstance(ei.value, ValueError)
    w = cs.full_assignment()
    w[1] = 36  # the public output
    with pytest.raises(Unsatisfied) as ei:
        r1cs.check(w)
    assert (ei.value.row, ei.value.gadget) == (2, "sum")
    assert r1cs.gadget_of(0) == "square" and r1cs.gadget_of(3) == "input"
    with pytest.raises(IndexError):
        r1cs.gadget_of(5)
    assert r1cs.stats() == {"inputs": 2, "aux": 3, "constraints": 5, "nnz_a": 7, "nnz_b": 3,
                            "nnz_c": 3, "coeffs": 2}


def test_inputs_between_constraints():
    cs = ConstraintSystem()
    a = cs.alloc_aux(2, [3, 4])
    x = cs.alloc_input(2, [9, 16])
    cs.enforce(lc(a), lc(a), lc(x), gadget="sq")
    b = cs.alloc_aux(1, [5])
    y = cs.alloc_input(1, [25])
    cs.enforce(lc(b), lc(b), lc(y), gadget="sq2")
    z = cs.alloc_input((), 7)
    assert list(x) == [-2, -3] and list(y) == [-4] and int(z) == -5
    r1cs = cs.finalize()
    ni = 5
    assert r1cs.num_inputs == ni and r1cs.num_aux == 3
    assert r1cs.num_constraints == 3 + ni
    C = dense(r1cs.C)
    assert C[0][1] == 1 and C[1][2] == 1 and C[2][3] == 1
    A = dense(r1cs.A)
    assert A[0][ni + 0] == 1 and A[1][ni + 1] == 1 and A[2][ni + 2] == 1
    for i in range(ni):  # appended rows input_i * 0 = 0
        row = 3 + i
        assert [c for c, v in enumerate(A[row]) if v] == [i] and A[row][i] == 1
        assert not any(dense(r1cs.B)[row]) and not any(C[row])
        assert r1cs.gadget_of(row) == "input"
    assert r1cs.density_a[:ni].all()
    assert not r1cs.density_b[1:ni].any()
    inputs, aux = cs.assignment()
    assert list(inputs) == [1, 9, 16, 25, 7] and list(aux) == [3, 4, 5]
    r1cs.check(np.concatenate([inputs, aux]))


# --- CSR against a naive dense construction -------------------------------------------------


def random_circuit(seed: int):
    """A random circuit with duplicates, zero/negative/array coefficients and inputs; returns
    (cs, terms) with terms a plain list of (row, matrix, ref, coeff) recorded independently."""
    rng = np.random.default_rng(seed)
    cs = ConstraintSystem(shape=True, witness=True)
    terms = []
    cs.alloc_input(2, rng.integers(0, 50, 2))
    cs.alloc_aux(5, rng.integers(0, 50, 5))
    for _ in range(6):
        if rng.random() < 0.4:
            cs.alloc_input(int(rng.integers(1, 3)), 1)
        cs.alloc_aux(int(rng.integers(1, 4)), rng.integers(0, 2**62, 1))
        k = int(rng.integers(1, 5))
        row0 = cs.num_constraints
        lcs = []
        for mat in range(3):
            x = LC.zero()
            for _ in range(int(rng.integers(0, 3))):
                m = int(rng.integers(1, 4))
                refs = rng.integers(-cs.num_inputs, cs.num_aux, size=(k, m))
                kind = rng.integers(0, 4)
                if kind == 0:
                    c = int(rng.integers(-3, 4))
                    co = np.full((k, m), c, dtype=object)
                    x = x + lc(refs, c)
                elif kind == 1:
                    row = [int(v) for v in rng.integers(-3, 4, m)]
                    co = np.array([row] * k, dtype=object)
                    x = x + lc(refs, row)
                elif kind == 2:
                    arr = rng.integers(-(2**40), 2**40, size=(k, m))
                    arr[rng.random((k, m)) < 0.3] = 0
                    co = arr.astype(object)
                    x = x + lc(refs, arr)
                else:  # negated block of big coefficients via scalar multiplication
                    big = np.array([[R - 1 - int(v) for v in rw] for rw in rng.integers(0, 9, (k, m))],
                                   dtype=object)
                    co = -1 * big
                    x = x - lc(refs, big)
                for i in range(k):
                    for j in range(m):
                        terms.append((row0 + i, mat, int(refs[i, j]), int(co[i, j])))
            if mat == 1 and rng.random() < 0.3:  # a bare one-term-per-row block
                refs = rng.integers(0, cs.num_aux, size=k)
                x = x + lc(refs)
                terms += [(row0 + i, 1, int(refs[i]), 1) for i in range(k)]
            lcs.append(x if x.terms or mat else lc(cs.one(k), 0))
        cs.enforce(*lcs, gadget=f"g{seed}")
    return cs, terms


@pytest.mark.parametrize("seed", range(8))
def test_csr_matches_naive_dense(seed):
    cs, terms = random_circuit(seed)
    r1cs = cs.finalize()
    nc, ni = cs.num_constraints, cs.num_inputs
    ncols = ni + cs.num_aux
    naive = [[[0] * ncols for _ in range(nc + ni)] for _ in range(3)]
    for row, mat, ref, co in terms:
        c = col(cs, ref)
        naive[mat][row][c] = (naive[mat][row][c] + co) % R
    for i in range(ni):
        naive[0][nc + i][i] = 1
    for mat, m in enumerate((r1cs.A, r1cs.B, r1cs.C)):
        assert m.shape == (nc + ni, ncols)
        assert m.indices.dtype == np.int64 and m.coeff_ids.dtype == np.int32
        assert m.indptr[0] == 0 and m.indptr[-1] == m.nnz
        for r in range(m.shape[0]):
            seg = m.indices[m.indptr[r] : m.indptr[r + 1]]
            assert (np.diff(seg) > 0).all()  # sorted, unique
        assert dense(m) == naive[mat]
        assert all(int(c) != 0 for c in m.coeffs)
    assert len(set(int(c) for c in r1cs.A.coeffs)) == len(r1cs.A.coeffs)
    for mat, d in ((0, r1cs.density_a), (1, r1cs.density_b)):
        assert list(d) == [any(naive[mat][r][c] for r in range(nc + ni)) for c in range(ncols)]
    w = cs.full_assignment()
    got = r1cs.evaluate(w)
    for mat in range(3):
        want = [sum(naive[mat][r][c] * int(w[c]) for c in range(ncols)) % R for r in range(nc + ni)]
        assert [int(v) for v in got[mat]] == want


# --- modes ----------------------------------------------------------------------------------


def mixed_circuit(cs: ConstraintSystem, seed: int = 5, k: int = 37):
    rng = np.random.default_rng(seed)
    wit = cs.has_values
    a = rng.integers(0, 2**32, k, dtype=np.uint64)
    b = rng.integers(0, 2**32, k, dtype=np.uint64)
    ab = alloc_bits(cs, (k, 32), u32_bits(a) if wit else None)
    pub = cs.alloc_input(k, (a + b) % 2**32 if wit else None)
    bb = alloc_bits(cs, (k, 32), u32_bits(b) if wit else None)
    s = uint32_add(cs, ab, bb, constant=7)
    t = uint32_add(cs, ab, bb)
    enforce_equal(cs, pack_bits(cs, t), pub)
    big = cs.alloc_aux(k, [int(v) * 2**200 + 3 for v in a] if wit else None)
    bits = num_to_bits(cs, big, 255)
    x = pack_bits(cs, bits)
    enforce_equal(cs, x, big)
    return s


def same_r1cs(r1: R1CS, r2: R1CS):
    assert r1.stats() == r2.stats()
    for m1, m2 in ((r1.A, r2.A), (r1.B, r2.B), (r1.C, r2.C)):
        assert np.array_equal(m1.indptr, m2.indptr)
        assert np.array_equal(m1.indices, m2.indices)
        assert np.array_equal(m1.coeff_ids, m2.coeff_ids)
        assert list(m1.coeffs) == list(m2.coeffs)
    assert np.array_equal(r1.density_a, r2.density_a) and np.array_equal(r1.density_b, r2.density_b)
    assert [r1.gadget_of(i) for i in range(r1.num_constraints)] == [
        r2.gadget_of(i) for i in range(r2.num_constraints)
    ]


def test_shape_only_and_witness_only_agree():
    both = ConstraintSystem(shape=True, witness=True)
    mixed_circuit(both)
    shape = ConstraintSystem(shape=True, witness=False)
    mixed_circuit(shape)
    wit = ConstraintSystem(shape=False, witness=True)
    mixed_circuit(wit)
    r_both, r_shape = both.finalize(), shape.finalize()
    same_r1cs(r_both, r_shape)
    for x, y in zip(both.assignment(), wit.assignment()):
        assert list(x) == list(y)
    assert wit.num_constraints == both.num_constraints and wit.num_aux == both.num_aux
    r_shape.check(wit.full_assignment())
    assert not shape.has_values
    with pytest.raises(RuntimeError):
        wit.finalize()
    with pytest.raises(RuntimeError):
        shape.value(np.arange(3))
    with pytest.raises(RuntimeError):
        shape.assignment()


def test_enforce_lazy_builds_only_with_shape_and_checks_the_row_count():
    built = []

    def rows(v):
        built.append(1)
        yield lc(v), lc(v), lc(v)

    wit = ConstraintSystem(shape=False, witness=True)
    v = wit.alloc_aux(4, [0, 1, 1, 0])
    wit.enforce_lazy(4, lambda: rows(v), gadget="b")
    assert wit.num_constraints == 4 and not built  # counted, nothing built
    both = ConstraintSystem()
    v = both.alloc_aux(4, [0, 1, 1, 0])
    both.enforce_lazy(4, lambda: rows(v), gadget="b")
    assert both.num_constraints == 4 and built == [1]
    both.finalize().check(both.full_assignment())
    with pytest.raises(ValueError, match="declared 3"):
        both.enforce_lazy(3, lambda: rows(v), gadget="b")


def test_big_values_and_shared_small_ints_in_the_assignment():
    cs = ConstraintSystem(shape=False, witness=True, aux_capacity=2)  # grows past the hint
    vals = [0, 1, 255, 256, 2**64 - 1, 2**64, R - 1, 3]
    a = cs.alloc_aux(len(vals), vals)
    b = cs.alloc_aux(2, [2**70, 1])  # a second big block after a gather of the first
    assert cs.value(a, dtype=object).tolist() == vals
    _, aux = cs.assignment()
    assert aux.dtype == object and [int(x) for x in aux] == vals + [2**70, 1]
    assert cs.value(b).tolist() == [2**70, 1]
    assert cs._aux_vals.all_ints(chunk=3).tolist() == vals + [2**70, 1]


def test_errors_and_values():
    with pytest.raises(ValueError):
        ConstraintSystem(shape=False, witness=False)
    cs = ConstraintSystem()
    with pytest.raises(ValueError):
        cs.alloc_aux(3)  # values required
    with pytest.raises(ValueError):
        cs.alloc_aux(3, [1, 2])
    with pytest.raises(TypeError):
        cs.alloc_aux(2, [1.5, 2.0])
    a = cs.alloc_aux(3, [-1, 2**64 + 5, 7])
    i = cs.alloc_input(2, np.array([5, 6], dtype=np.int32))
    v = cs.value(np.array([[a[0], i[1]], [a[1], cs.ONE]]))
    assert v.dtype == object and v.tolist() == [[R - 1, 6], [2**64 + 5, 1]]
    assert cs.value(a[2:]).dtype == np.uint64
    assert cs.value(i, dtype=object).dtype == object
    with pytest.raises(OverflowError):
        cs.value(a, dtype=np.uint64)
    with pytest.raises(IndexError):
        cs.value(np.array([3]))
    with pytest.raises(ValueError):
        cs.enforce(lc(a), lc(i), None)  # k = 3 vs 2
    with pytest.raises(ValueError):
        lc(a) + lc(i)
    with pytest.raises(ValueError):
        cs.enforce(None, LC.zero(), None)
    with pytest.raises(IndexError):
        cs.enforce(lc(np.array([0, 1, 99])), lc(a), lc(a))
    with pytest.raises(ValueError):
        lc(a, [1, 2])
    r1cs = cs.finalize()
    with pytest.raises(ValueError):
        r1cs.check(cs.full_assignment()[:-1])


def test_consume():
    cs = ConstraintSystem(witness=False)
    mixed_circuit(cs, k=5)
    r1 = cs.finalize()
    r2 = cs.finalize(consume=True)
    same_r1cs(r1, r2)
    with pytest.raises(RuntimeError):
        cs.finalize()


# --- gadgets against Python integers --------------------------------------------------------


@SETTINGS
@given(st.data())
def test_num_to_bits_and_pack(data):
    nbits = data.draw(st.sampled_from([1, 8, 32, 63, 64, 65, 130, 255]))
    k = data.draw(st.integers(1, 1000))
    seed = data.draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    limit = min(2**nbits, R)
    vals = [int.from_bytes(rng.bytes(32), "little") % limit for _ in range(k)]
    vals[0] = limit - 1
    cs = ConstraintSystem()
    x = cs.alloc_aux(k, vals)
    bits = num_to_bits(cs, x, nbits)
    assert bits.shape == (k, nbits)
    bv = cs.value(bits)
    want = [[(v >> i) & 1 for i in range(nbits)] for v in vals]
    assert bv.tolist() == want
    y = pack_bits(cs, bits)
    assert [int(v) for v in cs.value(y, dtype=object)] == vals
    r1cs = cs.finalize()
    w = cs.full_assignment()
    r1cs.check(w)
    # flip one bit: booleanity holds, the packing of num_to_bits fails
    j = int(rng.integers(0, k))
    b = int(rng.integers(0, nbits))
    c = col(cs, int(bits[j, b]))
    w[c] = 1 - w[c]
    with pytest.raises(Unsatisfied) as ei:
        r1cs.check(w)
    assert ei.value.gadget == "num_to_bits"
    assert ei.value.row == k * nbits + j


@SETTINGS
@given(st.data())
def test_uint32_add(data):
    nops = data.draw(st.sampled_from([2, 3]))
    k = data.draw(st.integers(1, 1000))
    with_const = data.draw(st.booleans())
    seed = data.draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    ops = [rng.integers(0, 2**32, k, dtype=np.uint64) for _ in range(nops)]
    for o in ops:
        o[0] = 2**32 - 1  # wrap-around in instance 0
    const = int(rng.integers(0, 2**32)) if with_const else None
    cs = ConstraintSystem()
    refs = [alloc_bits(cs, (k, 32), u32_bits(o)) for o in ops]
    out = uint32_add(cs, *refs, constant=const)
    assert out.shape == (k, 32)
    want = [(sum(int(o[i]) for o in ops) + (const or 0)) % 2**32 for i in range(k)]
    assert bits_to_u32(cs.value(out)).tolist() == want
    r1cs = cs.finalize()
    nterms = nops + with_const
    extra = 1 if nterms == 2 else 2
    assert cs.num_aux == nops * 32 * k + (32 + extra) * k
    w = cs.full_assignment()
    r1cs.check(w)
    j = int(rng.integers(0, k))
    c = col(cs, int(out[j, int(rng.integers(0, 32))]))
    w[c] = 1 - w[c]
    with pytest.raises(Unsatisfied) as ei:
        r1cs.check(w)
    assert ei.value.gadget == "uint32_add"


def test_uint32_add_repeated_operand_and_array_constant():
    """x + x + c merges duplicate terms in A; per-instance constants."""
    rng = np.random.default_rng(3)
    k = 50
    x = rng.integers(0, 2**32, k, dtype=np.uint64)
    c = rng.integers(0, 2**32, k, dtype=np.uint64)
    cs = ConstraintSystem()
    xb = alloc_bits(cs, (k, 32), u32_bits(x))
    out = uint32_add(cs, xb, xb, constant=c)
    assert bits_to_u32(cs.value(out)).tolist() == [(2 * int(a) + int(b)) % 2**32 for a, b in zip(x, c)]
    r1cs = cs.finalize()
    row = r1cs.num_constraints - r1cs.num_inputs - 1  # last packing row
    seg = r1cs.A.indices[r1cs.A.indptr[row] : r1cs.A.indptr[row + 1]]
    assert len(seg) == 33  # ONE + 32 merged bits
    r1cs.check(cs.full_assignment())


def test_booleanity_catches_two():
    cs = ConstraintSystem()
    bits = alloc_bits(cs, (4, 3), np.ones((4, 3), dtype=np.uint8))
    boolean(cs, cs.alloc_aux(2, [0, 1]))
    r1cs = cs.finalize()
    w = cs.full_assignment()
    r1cs.check(w)
    w[col(cs, int(bits[2, 1]))] = 2
    with pytest.raises(Unsatisfied) as ei:
        r1cs.check(w)
    assert ei.value.row == 7 and "boolean" in ei.value.gadget
    w = cs.full_assignment()
    w[-1] = R - 1  # -1 is not a bit either
    with pytest.raises(Unsatisfied) as ei:
        r1cs.check(w)
    assert ei.value.row == 13 and ei.value.gadget == "boolean"


def test_enforce_equal():
    cs = ConstraintSystem()
    x = cs.alloc_aux((2, 3), np.arange(6).reshape(2, 3))
    y = cs.alloc_aux((2, 3), np.arange(6).reshape(2, 3))
    enforce_equal(cs, x, y)
    r1cs = cs.finalize()
    w = cs.full_assignment()
    r1cs.check(w)
    w[col(cs, int(y[1, 0]))] += 1
    with pytest.raises(Unsatisfied) as ei:
        r1cs.check(w)
    assert (ei.value.row, ei.value.gadget) == (3, "enforce_equal")
    with pytest.raises(ValueError):
        enforce_equal(cs, x, y[0])


def test_coefficient_table_small():
    cs = ConstraintSystem(witness=False)
    k = 200
    a, b, c = (alloc_bits(cs, (k, 32)) for _ in range(3))
    uint32_add(cs, a, b, c)
    s = uint32_add(cs, a, b)
    pack_bits(cs, s)
    r1cs = cs.finalize()
    # 2^0..2^33 and -1
    assert len(r1cs.A.coeffs) <= 35
    assert r1cs.A.coeffs is r1cs.B.coeffs is r1cs.C.coeffs
    assert R - 1 in set(int(v) for v in r1cs.A.coeffs)
    assert r1cs.A.nnz > 100 * len(r1cs.A.coeffs)


def test_density_only_in_c():
    cs = ConstraintSystem()
    x = cs.alloc_aux(3, [2, 3, 4])
    y = cs.alloc_aux(3, [4, 9, 16])  # only in C
    z = cs.alloc_aux(3, [2, 3, 4])  # only in B
    cs.enforce(lc(x), lc(x) * 0 + lc(z), lc(y), gadget="sq")
    r1cs = cs.finalize()
    da, db = r1cs.density_a, r1cs.density_b
    ni = r1cs.num_inputs
    assert da[:ni].all()
    assert da[ni + x].all() and not da[ni + y].any() and not da[ni + z].any()
    assert db[ni + z].all() and not db[ni + y].any() and not db[ni + x].any()
    r1cs.check(cs.full_assignment())


def test_lc_arithmetic_and_bare_refs():
    cs = ConstraintSystem()
    x = cs.alloc_aux(4, [1, 2, 3, 4])
    y = cs.alloc_aux(4, [10, 20, 30, 40])
    z = cs.alloc_aux(4, [3 * 10 - 1 * 2, 3 * 20 - 2 * 2, 3 * 30 - 3 * 2, 3 * 40 - 4 * 2])
    one = cs.one(4)
    # (3y - 2x) * 1 = z + x·(2 - 2) written with sum(), unary minus, scalar products, array coeffs
    left = sum([3 * lc(y), -lc(x, 2)])
    cs.enforce(left, lc(one), lc(z) + lc(x, np.array([2, 2, 2, 2])) - lc(x) * 2, gadget="lin")
    cs.enforce(x, one, x, gadget="bare")  # bare ref arrays
    r1cs = cs.finalize()
    assert r1cs.C.indptr[1] - r1cs.C.indptr[0] == 1  # x terms cancelled and were dropped
    r1cs.check(cs.full_assignment())
    w = cs.full_assignment()
    w[col(cs, int(z[3]))] += 1
    with pytest.raises(Unsatisfied) as ei:
        r1cs.check(w)
    assert (ei.value.row, ei.value.gadget) == (3, "lin")
