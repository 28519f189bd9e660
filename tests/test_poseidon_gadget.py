"""Tests of the vectorized Poseidon and Poseidon-Merkle gadgets (cuzk.r1cs.poseidon) against the
native hash (cuzk.hash.poseidon_many), neptune's constraint counts and rust-fil-proofs' insert."""

from __future__ import annotations

import numpy as np
import pytest

from cuzk.field import FR
from cuzk.hash.poseidon import constant_length_tag, poseidon_many
from cuzk.r1cs import ConstraintSystem, Unsatisfied, alloc_bits, enforce_equal
from cuzk.r1cs.poseidon import (
    hash_constraints,
    insert,
    insert_constraints,
    merkle_path_poseidon,
    poseidon_hash,
)

R = FR.modulus


def rand_fr(rng, shape):
    n = int(np.prod(shape))
    return FR.random(n, rng).reshape(shape)


def build_hash(arity, k, vals, shape=True, witness=True, n=None):
    cs = ConstraintSystem(shape=shape, witness=witness)
    n = arity if n is None else n
    x = cs.alloc_aux((k, n), vals if witness else None)
    tag = None if n == arity else constant_length_tag(n)
    out = poseidon_hash(cs, x, arity, domain_tag=tag)
    return cs, x, out


# --- the hash --------------------------------------------------------------------------------


@pytest.mark.parametrize("arity", [2, 8, 11])
@pytest.mark.parametrize("k", [1, 5])
def test_hash_matches_native_and_is_satisfied(arity, k):
    rng = np.random.default_rng(1000 * arity + k)
    vals = rand_fr(rng, (k, arity))
    cs, _, out = build_hash(arity, k, vals)
    assert list(cs.value(out, dtype=object)) == list(poseidon_many(vals, arity))
    assert cs.num_constraints == k * hash_constraints(arity)
    cs.finalize().check(cs.full_assignment())


def test_constraint_counts_match_neptune():
    # neptune circuit2::test_poseidon_hash: poseidon_hash_num costs 3·(t·R_F + R_P) (237 for U2,
    # 387 for U8); poseidon_hash_allocated one more. Arity 11: t = 12, R_P = 57.
    assert hash_constraints(2) == 237 + 1
    assert hash_constraints(8) == 387 + 1
    assert hash_constraints(11) == 3 * (12 * 8 + 57) + 1 == 460


def test_hash_of_public_inputs_and_edge_values():
    vals = np.array([[0, R - 1], [1, 2]], dtype=object)
    cs = ConstraintSystem()
    x = cs.alloc_input((2, 2), vals)
    out = poseidon_hash(cs, x, 2)
    assert list(cs.value(out, dtype=object)) == list(poseidon_many(vals, 2))
    cs.finalize().check(cs.full_assignment())


def test_constant_length_padding():
    rng = np.random.default_rng(7)
    vals = rand_fr(rng, (3, 5))
    cs, _, out = build_hash(8, 3, vals, n=5)
    assert list(cs.value(out, dtype=object)) == list(poseidon_many(vals, 8, domain_tag=constant_length_tag(5)))
    assert cs.num_constraints == 3 * hash_constraints(8)
    cs.finalize().check(cs.full_assignment())
    with pytest.raises(ValueError):
        poseidon_hash(ConstraintSystem(), np.zeros((1, 5), np.int64), 8)


@pytest.mark.parametrize("which", ["first_sbox", "partial_sbox", "digest"])
def test_tampered_witness_is_unsatisfied(which):
    arity, k = 8, 2
    vals = rand_fr(np.random.default_rng(3), (k, arity))
    cs, x, out = build_hash(arity, k, vals)
    r1 = cs.finalize()
    w = cs.full_assignment()
    t = arity + 1
    base = r1.num_inputs + k * arity  # aux columns start after the inputs; hash inputs first
    if which == "first_sbox":
        col = base + 2 * k * t + 1  # round 0: x2 (k, t), x4 (k, t), x5 (k, t); x5 of instance 0, element 1
    elif which == "partial_sbox":
        col = base + 4 * 3 * k * t + 10 * 3 * k + 2 * k + 1  # 11th partial round, x5 of instance 1
    else:
        col = r1.num_inputs + int(out[1])
    w = w.copy()
    w[col] = (w[col] + 1) % R
    with pytest.raises(Unsatisfied) as exc:
        r1.check(w)
    assert exc.value.gadget.startswith("poseidon/")


def test_shape_only_and_witness_only_agree_with_combined():
    arity, k = 8, 3
    vals = rand_fr(np.random.default_rng(5), (k, arity))
    both, _, out_b = build_hash(arity, k, vals)
    shape, _, out_s = build_hash(arity, k, None, shape=True, witness=False)
    wit, _, out_w = build_hash(arity, k, vals, shape=False, witness=True)
    assert (out_b == out_s).all() and (out_b == out_w).all()
    assert both.num_constraints == shape.num_constraints == wit.num_constraints
    assert both.num_aux == shape.num_aux == wit.num_aux
    rb, rs = both.finalize(), shape.finalize()
    for mb, ms in ((rb.A, rs.A), (rb.B, rs.B), (rb.C, rs.C)):
        assert np.array_equal(mb.indptr, ms.indptr)
        assert np.array_equal(mb.indices, ms.indices)
        assert list(mb.coeffs[mb.coeff_ids]) == list(ms.coeffs[ms.coeff_ids])
    assert list(both.full_assignment()) == list(wit.full_assignment())
    rs.check(wit.full_assignment())


# --- insertion -------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [2, 4, 8, 16])
def test_insert_every_position(size):
    nb = size.bit_length() - 1
    k = size  # one instance per position
    rng = np.random.default_rng(size)
    el = rand_fr(rng, (k,))
    others = rand_fr(rng, (k, size - 1))
    pos = np.arange(k)
    bits = (pos[:, None] >> np.arange(nb)) & 1
    cs = ConstraintSystem()
    e = cs.alloc_aux(k, el)
    o = cs.alloc_aux((k, size - 1), others)
    b = alloc_bits(cs, (k, nb), bits)
    c0 = cs.num_constraints
    res = insert(cs, e, b, o)
    assert (cs.num_constraints - c0) == k * insert_constraints(size)
    got = cs.value(res, dtype=object)
    for i in range(k):
        expect = list(others[i, :i]) + [el[i]] + list(others[i, i:])
        assert list(got[i]) == expect
    cs.finalize().check(cs.full_assignment())


@pytest.mark.parametrize("size", [2, 4, 8])
def test_insert_values_follow_the_gadget_formulas(size):
    """The witness ``insert`` computes (node rows picked as limbs) against its program run on
    Python ints: pick ``c == 1 ? a : b``, nor ``(1 − u)(1 − v)``, and ``u·v`` mod r. Bits that are
    not boolean (2, and a value of 2^64 or more: an unsatisfied witness, as a bad input makes) and
    nodes 0 and 1 (kept as bytes by the value store) included; no instances at all too."""
    from cuzk.r1cs.poseidon import _insert_program

    nb = size.bit_length() - 1
    rng = np.random.default_rng(size + 100)
    k = 6
    el = rand_fr(rng, (k,))
    el[:2] = [0, 1]
    others = rand_fr(rng, (k, size - 1))
    others[2, 0] = 1
    bits = rng.integers(0, 2, (k, nb)).astype(object)
    for col in range(nb):
        bits[3, col] = 2
        bits[4, col] = (1 << 70) + col
    cs = ConstraintSystem()
    res = insert(cs, cs.alloc_aux(k, el), cs.alloc_aux((k, nb), bits), cs.alloc_aux((k, size - 1), others))
    steps, result = _insert_program(size)
    got = cs.value(res, dtype=object)
    for i in range(k):
        v = {"x": int(el[i]), **{f"e{j}": int(others[i, j]) for j in range(size - 1)},
             **{f"c{j}": int(bits[i, j]) for j in range(nb)}}
        for op, out, a, b, *rest in steps:
            v[out] = (v[b] if v[a] == 1 else v[rest[0]]) if op == "pick" else \
                (1 - v[a]) * (1 - v[b]) % R if op == "nor" else v[a] * v[b] % R
        assert [int(x) for x in got[i]] == [v[nm] for nm in result], i
    cs0 = ConstraintSystem()
    none = np.empty(0, dtype=np.uint64)
    empty = insert(cs0, cs0.alloc_aux(0, none), cs0.alloc_aux((0, nb), none.reshape(0, nb)),
                   cs0.alloc_aux((0, size - 1), none.reshape(0, size - 1)))
    assert empty.shape == (0, size) and cs0.num_aux == 0


def test_insert_constraint_counts_match_rust_fil_proofs():
    # insert_2: 2 picks; insert_4: 8 picks; insert_8: nor + and + 20 picks
    assert [insert_constraints(s) for s in (2, 4, 8)] == [2, 8, 22]


# --- Merkle paths ----------------------------------------------------------------------------


def native_tree(leaves, arity):
    """Levels of a Poseidon tree (leaves first), each an int array."""
    levels = [leaves]
    while len(levels[-1]) > 1:
        cur = levels[-1]
        levels.append(poseidon_many(cur.reshape(-1, arity), arity))
    return levels


def native_path(levels, arity, index):
    sib, bits = [], []
    nb = arity.bit_length() - 1
    for lvl in levels[:-1]:
        parent, pos = divmod(index, arity)
        group = list(lvl[parent * arity:(parent + 1) * arity])
        del group[pos]
        sib.append(group)
        bits.append([(pos >> i) & 1 for i in range(nb)])
        index = parent
    return sib, bits


def build_merkle(levels, arity, idx, paths, bits_vals, leaves_vals):
    k = len(idx)
    height = len(levels) - 1
    nb = arity.bit_length() - 1
    cs = ConstraintSystem()
    root_in = cs.alloc_input(k, [levels[-1][0]] * k)
    leaf = cs.alloc_aux(k, leaves_vals)
    path = cs.alloc_aux((k, height, arity - 1), np.array(paths, dtype=object))
    bits = alloc_bits(cs, (k, height, nb), np.array(bits_vals, dtype=np.uint64))
    c0 = cs.num_constraints
    root = merkle_path_poseidon(cs, leaf, path, bits, arity)
    per_level = (cs.num_constraints - c0) // (k * height)
    enforce_equal(cs, root, root_in, gadget="root")
    return cs, root, per_level


@pytest.mark.parametrize("arity,height", [(8, 2), (2, 3)])
def test_merkle_path(arity, height):
    rng = np.random.default_rng(arity * 10 + height)
    leaves = rand_fr(rng, (arity ** height,))
    levels = native_tree(leaves, arity)
    idx = [0, 5, arity ** height - 1, int(rng.integers(arity ** height))]
    paths, bits = zip(*(native_path(levels, arity, i) for i in idx))
    cs, root, per_level = build_merkle(levels, arity, idx, paths, bits, leaves[idx])
    assert per_level == insert_constraints(arity) + hash_constraints(arity)  # 410 (8-ary), 240 (2-ary)
    assert all(v == levels[-1][0] for v in cs.value(root, dtype=object))
    r1 = cs.finalize()
    r1.check(cs.full_assignment())

    # a wrong index (bits of another leaf) or a wrong sibling: the root differs
    bad_bits = [list(b) for b in bits]
    bad_bits[1] = native_path(levels, arity, idx[1] + 1)[1]
    cs2, _, _ = build_merkle(levels, arity, idx, paths, bad_bits, leaves[idx])
    with pytest.raises(Unsatisfied) as exc:
        cs2.finalize().check(cs2.full_assignment())
    assert exc.value.gadget == "root"

    bad_paths = [[list(s) for s in p] for p in paths]
    bad_paths[2][height - 1][0] = (bad_paths[2][height - 1][0] + 1) % R
    cs3, _, _ = build_merkle(levels, arity, idx, bad_paths, bits, leaves[idx])
    with pytest.raises(Unsatisfied) as exc:
        cs3.finalize().check(cs3.full_assignment())
    assert exc.value.gadget == "root"


def test_merkle_tampered_pick_is_unsatisfied():
    arity, height = 8, 2
    rng = np.random.default_rng(11)
    leaves = rand_fr(rng, (arity ** height,))
    levels = native_tree(leaves, arity)
    idx = [3, 42]
    paths, bits = zip(*(native_path(levels, arity, i) for i in idx))
    cs, _, _ = build_merkle(levels, arity, idx, paths, bits, leaves[idx])
    r1 = cs.finalize()
    w = cs.full_assignment().copy()
    # aux: leaf (2), path (2·2·7), bits (2·2·3), then level 0's insert: nor (2), and (2), picks...
    col = r1.num_inputs + 2 + 28 + 12 + 4 + 1  # first pick, instance 1
    w[col] = (w[col] + 1) % R
    with pytest.raises(Unsatisfied) as exc:
        r1.check(w)
    assert exc.value.gadget == "merkle_poseidon/insert"


def test_legacy_hash_of_repeated_preimages():
    """Rows with the same preimage (Merkle paths through one node) are hashed once and their
    values copied: every row's op values still satisfy neptune's constraints and give the
    native digest, in the rows' own order."""
    rng = np.random.default_rng(77)
    distinct = rand_fr(rng, (3, 8))
    vals = distinct[[0, 1, 0, 2, 1, 0]]
    cs = ConstraintSystem()
    out = poseidon_hash(cs, cs.alloc_aux((6, 8), vals), 8, legacy=True)
    cs.finalize().check(cs.full_assignment())
    assert list(cs.value(out, dtype=object)) == list(poseidon_many(vals, 8))
