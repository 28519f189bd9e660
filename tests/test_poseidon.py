"""Poseidon (cuzk.hash.poseidon) against neptune's published vectors and the PyPI `poseidon-hash`.

Vectors: neptune ``src/poseidon.rs`` test ``hash_values`` (input 0..arity−1, ``Poseidon::new`` with
``PoseidonConstants::new_with_strength`` → ``HashType::MerkleTree``, i.e. tag 2^arity − 1 plus
2^32 when strengthened), written there as four little-endian u64 limbs; here as integers.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from cuzk.field.arith import FR
from cuzk.hash import poseidon as P

R = FR.modulus

# neptune hash_values, Strength::Standard (FORMATS.md lists the first four).
NEPTUNE_STANDARD = {
    2: 0x396508D75E76A56B739E0FD902EFE161A6FBA9339D05A69D2E203C369A02E7FF,
    4: 0x58A54B10A9E5848A00DB3C6579229399FB6B4605BF1327EC019814FF6662075D,
    8: 0x2394611DA3A5DE5512010042116770774B682E9D9CC4AED92A9934F56D38A5E6,
    11: 0x0C0FC1B2E5227F286CA537E232EBE87A09F3DCD8CCB08FC1CEE3BBC32B693163,
    16: 0x2D3AE2663381AE8AC1C2FB5A6F871E635B8DBC6D30680A6F1291C74060266D37,
    24: 0x63BEB8831F11AE15066F39BF783F3D9FC3E779F6468815B1D7EF3569F585B321,
    36: 0x699303082A6E5D5F540A30E03C10BBAA75CD368DF8A8AC3C4473606DFA4E8140,
}
# neptune hash_values, Strength::Strengthened.
NEPTUNE_STRENGTHENED = {
    2: 0x5F3027EB2EF4F4B82A0AE894F850037331662BB49883A7DC3ABCCD9AFC5729B1,
    4: 0x40223B87A6BD45088F57E5AB121004CEAD9FC9EBBB1515E13FF99D0422E647EE,
    8: 0x1367E3CED3E2EDCBFDBBBD4B1B984B9B7E4929E97170E2AEFFFBCA3D9FFCDA00,
    11: 0x7344835BA9059929A8650443F7BF09C139062662A7311A7A29D77677FEF45927,
}
# neptune src/round_numbers.rs test_round_numbers_against_known_values: t -> R_P (R_F = 8).
NEPTUNE_PARTIAL_ROUNDS = {
    2: 55, 3: 55, 4: 56, 5: 56, 6: 56, 7: 56, 8: 57, 9: 57, 10: 57, 11: 57, 12: 57, 13: 57,
    14: 57, 15: 57, 16: 59, 17: 59, 25: 59, 37: 60, 65: 61,
}
# neptune src/lib.rs test_strengthened_round_numbers (first entries): arity -> R_P.
NEPTUNE_STRENGTHENED_PARTIAL = {1: 69, 2: 69, 3: 70, 4: 70, 5: 70, 6: 70, 7: 72}
# neptune parameters/round_constants-1-1-255-9-8-57-73EDA753…00000001.txt (the sage script's output
# for t = 9, R_F = 8, R_P = 57): first, second and last of its 585 constants.
GRAIN_T9 = (
    0x6CE90D12C4045FE08C3CADDB776DD84AC52B4AE7E48CD49443984154F2F4C2F9,
    0x0CCD9B480C84022B25A75B52C8E89D80B4FA6378D32E58F3A175504940BCEC39,
    0x3B3A75EB91B0F723BCC4AB7E449E4A011B8960063EFE74670C05E545519D9A8C,
)


@pytest.mark.parametrize("arity", sorted(NEPTUNE_STANDARD))
def test_neptune_vectors_standard(arity):
    expected = NEPTUNE_STANDARD[arity]
    assert P.poseidon_hash(list(range(arity))) == expected
    # the default tag is neptune's MerkleTree tag 2^arity − 1
    assert P.poseidon_hash(list(range(arity)), domain_tag=(1 << arity) - 1) == expected


@pytest.mark.parametrize("arity", sorted(NEPTUNE_STRENGTHENED))
def test_neptune_vectors_strengthened(arity):
    got = P.poseidon_hash(list(range(arity)), strength=P.STRENGTHENED)
    assert got == NEPTUNE_STRENGTHENED[arity]
    tag = (1 << arity) - 1 + (1 << 32)
    assert P.poseidon_hash(list(range(arity)), domain_tag=tag, strength=P.STRENGTHENED) == got


def test_round_numbers_match_neptune_table():
    for t, rp in NEPTUNE_PARTIAL_ROUNDS.items():
        assert P.calc_round_numbers(t) == (8, rp), t
        assert P.round_numbers(t - 1) == (8, rp)
    for arity, rp in NEPTUNE_STRENGTHENED_PARTIAL.items():
        assert P.round_numbers(arity, P.STRENGTHENED) == (8, rp)
    with pytest.raises(ValueError):
        P.round_numbers(2, "weak")


@pytest.mark.parametrize("arity, rp", [(2, 55), (4, 56), (8, 57), (11, 57)])
def test_params_shape(arity, rp):
    p = P.params(arity)
    assert p is P.params(arity)  # cached
    assert (p.t, p.full_rounds, p.partial_rounds) == (arity + 1, 8, rp)
    assert len(p.round_constants) == p.t * (p.full_rounds + p.partial_rounds)
    assert p.round_constants_array().shape == (p.rounds, p.t)
    assert all(0 <= c < R for c in p.round_constants)
    assert p.merkle_tag == (1 << arity) - 1
    assert [p.is_full_round(r) for r in range(p.rounds)].count(True) == 8


def test_round_constants_match_neptune_parameter_file():
    rc = P.params(8).round_constants
    assert len(rc) == 585
    assert (rc[0], rc[1], rc[-1]) == GRAIN_T9
    assert P.grain_round_constants(9, 8, 57) == [int(c) for c in rc]


@pytest.mark.parametrize("t", [3, 5, 9, 12])
def test_mds_is_cauchy(t):
    m = P.params(t - 1).mds
    for i in range(t):
        for j in range(t):
            assert m[i][j] * (i + (t + j)) % R == 1
            assert m[i][j] == m[j][i]


def test_domain_tags_match_neptune_hash_type():
    # neptune src/hash_type.rs test_domain_tags
    assert P.merkle_tree_tag(8) == 0xFF
    assert P.merkle_tree_tag(8, P.STRENGTHENED) == 0x1_0000_00FF
    for n in range(1, 15):
        assert P.constant_length_tag(n) == n << 64
        assert P.constant_length_tag(n, P.STRENGTHENED) == (n << 64) + (1 << 32)
    assert P.encryption_tag() == 1 << 32
    assert P.encryption_tag(P.STRENGTHENED) == 2 << 32
    # Custom(CType::Arbitrary(index)): limb 0 = 0x0000010000000000 * index, index 1..=256
    assert [P.custom_tag(i) for i in (1, 2, 256)] == [0x0000010000000000 * i for i in (1, 2, 256)]
    for bad in (0, 257):
        with pytest.raises(ValueError, match="1..256"):
            P.custom_tag(bad)


@pytest.mark.parametrize("arity", [2, 8, 11])
def test_vectorized_equals_one_at_a_time(arity):
    rng = np.random.default_rng(arity)
    k = 12
    cols = [FR.random(k, rng) for _ in range(arity)]
    cols[0][3] = 0
    cols[-1][5] = R - 1
    many_cols = P.poseidon_many(cols)
    many_rows = P.poseidon_many(np.stack(cols, axis=1))
    assert many_cols.shape == (k,) and many_cols.dtype == object
    singles = [P.poseidon_hash([int(c[i]) for c in cols]) for i in range(k)]
    assert [int(v) for v in many_cols] == singles
    assert [int(v) for v in many_rows] == singles


def test_small_integer_dtype_input_and_empty_batch():
    x = np.arange(16, dtype=np.uint64).reshape(2, 8)
    h = P.poseidon_many(x)
    assert int(h[0]) == NEPTUNE_STANDARD[8]
    assert int(h[1]) == P.poseidon_hash(list(range(8, 16)))
    assert P.poseidon_many(np.zeros((0, 8), dtype=object)).shape == (0,)


def test_rounds_compose_to_permutation():
    p = P.params(2)
    state = [np.array([3, 7], dtype=object), np.array([0, 1], dtype=object), np.array([1, 2], dtype=object)]
    s = state
    for r in range(p.rounds):
        s = P.apply_round(s, p, r)
    full = P.permute_many(state, p)
    assert all((a == b).all() for a, b in zip(s, full))
    assert int(full[1][0]) == NEPTUNE_STANDARD[2]


def test_constant_length_padding():
    tag = P.constant_length_tag(3)
    a = P.poseidon_hash([5, 6, 7], arity=4, domain_tag=tag)
    assert a == P.poseidon_hash([5, 6, 7, 0], domain_tag=tag)
    assert a != P.poseidon_hash([5, 6, 7, 0])
    with pytest.raises(ValueError, match="constant-length"):
        P.poseidon_hash([5, 6, 7], arity=4)
    with pytest.raises(ValueError):
        P.poseidon_hash([1, 2, 3], arity=2)


def test_rejects_non_canonical_inputs():
    with pytest.raises(ValueError, match="canonical"):
        P.poseidon_hash([R, 1])
    with pytest.raises(ValueError, match="canonical"):
        P.poseidon_hash([-1, 1])
    with pytest.raises(ValueError, match="canonical"):
        P.poseidon_hash([0, 1], domain_tag=R)
    with pytest.raises(ValueError):
        P.poseidon_many([np.array([1, 2], dtype=object), np.array([1], dtype=object)])


# --- agreement with the PyPI package `poseidon-hash` (ingonyama-zk), if installed ----------------

class _NumpyShim:
    """numpy with a gcd that accepts the 255-bit p − 1: poseidon-hash 0.1.4 calls
    ``np.gcd(np.ulonglong(alpha), p - 1)``, which numpy ≥ 2 rejects (OverflowError)."""

    def __getattr__(self, name):
        return getattr(np, name)

    @staticmethod
    def gcd(a, b):
        return math.gcd(int(a), int(b))


@pytest.fixture(scope="module")
def pypi_poseidon():
    poseidon = pytest.importorskip("poseidon", reason="the cross-check needs `pip install --no-deps -r requirements-crosscheck.txt`")
    if not hasattr(poseidon, "Poseidon") or not hasattr(poseidon, "OptimizedPoseidon"):
        pytest.skip("the importable `poseidon` is not the PyPI package poseidon-hash (requirements-crosscheck.txt)")
    galois = pytest.importorskip("galois")
    import poseidon.hash as ph

    # galois.GF(p) searches for a primitive element (~100 s for this p); give it Fr's generator 7.
    field = galois.GF(R, primitive_element=7, verify=False)
    mp = pytest.MonkeyPatch()
    mp.setattr(ph, "np", _NumpyShim())
    mp.setattr(ph, "galois", type("G", (), {"GF": staticmethod(lambda order, *a, **kw: field)}))
    try:
        # p, security level, alpha, input rate, t; R_P = 55 explicitly (its own rule gives 56 at t = 3)
        h = poseidon.Poseidon(R, 128, 5, 2, 3, full_round=8, partial_round=55)
    finally:
        mp.undo()
    return h


def test_pypi_poseidon_hash_agrees_arity2(pypi_poseidon):
    h = pypi_poseidon
    p = P.params(2)
    assert [int(c) for c in h.rc_field] == [int(c) for c in p.round_constants]
    assert [[int(v) for v in row] for row in h.mds_matrix] == [[int(v) for v in row] for row in p.mds]
    rng = np.random.default_rng(2024)
    xs = FR.random(6, rng), FR.random(6, rng)
    ours = P.poseidon_many(list(xs))
    for i in range(6):
        theirs = int(h.run_hash([3, int(xs[0][i]), int(xs[1][i])]))  # state = [tag 2^2 − 1, inputs]
        assert theirs == int(ours[i])
    assert int(h.run_hash([3, 0, 1])) == NEPTUNE_STANDARD[2]


def test_memo_hashes_each_preimage_once():
    memo = P.PoseidonMemo(chunk=2)
    pre = [[1, 2], [3, 4, 5], [1, 2], [6, 7], [8, 9], [R_MINUS_ONE := FR.modulus - 1, 0]]
    out = memo.many(pre)
    assert out == [P.poseidon_hash(p) for p in pre] and all(type(h) is int for h in out)
    assert len(memo) == 5 and memo([3, 4, 5]) == out[1] and len(memo) == 5
    assert memo((0, 1)) == P.poseidon_hash([0, 1]) and len(memo) == 6
    with pytest.raises(ValueError):
        memo.many([[R_MINUS_ONE + 1, 0]])



@pytest.mark.parametrize("arity", [2, 8, 11])
def test_optimized_constants_give_neptunes_vectors(arity):
    # neptune's compressed round constants and sparse matrices (what its circuit.rs is built from)
    # hash to the published vectors, as the plain algorithm does; one changed constant does not
    x = list(range(arity))
    assert P.hash_optimized(x, arity) == NEPTUNE_STANDARD[arity] == P.poseidon_hash(x, arity)
    oc = P.optimized_constants(arity)
    t, (rf, rp) = arity + 1, P.round_numbers(arity)
    assert len(oc.compressed) == t * rf + rp and len(oc.sparse) == rp
    assert all(len(w) == t and len(v) == t - 1 for w, v in oc.sparse)
    i = t * rf // 2 + rp // 2  # a partial round's constant
    bad = oc.compressed[:i] + ((oc.compressed[i] + 1) % R,) + oc.compressed[i + 1:]
    assert P.hash_optimized(x, arity, constants=P.OptimizedConstants(bad, oc.mds, oc.pre_sparse, oc.sparse)) \
        != NEPTUNE_STANDARD[arity]


def test_constants_kept_on_disk_are_read_back_and_recomputed_when_damaged(tmp_path, monkeypatch):
    """``_kept``: a fresh cache computes and writes the constants; a later process (per-process
    caches cleared) reads them without computing (the computations patched to fail), equal to
    the first; a damaged file is computed again, equal, and rewritten; the hashes still give
    neptune's published vectors."""
    monkeypatch.setenv("CUZK_CACHE_DIR", str(tmp_path))
    caches = (P.calc_round_numbers, P.params, P.optimized_constants)

    def fresh():
        for fn in caches:
            fn.cache_clear()

    arity = 4
    fresh()
    first = P.optimized_constants(arity), P.params(arity), P.round_numbers(arity)
    files = sorted(p.name.split("-")[0] for p in (tmp_path / "poseidon").glob("*.json"))
    assert files == ["grain", "optimized", "rounds"]
    fresh()
    with monkeypatch.context() as m:
        for name in ("_calc_round_numbers", "grain_round_constants", "_optimized"):
            m.setattr(P, name, lambda *a, name=name: pytest.fail(f"{name} computed, not read"))
        again = P.optimized_constants(arity), P.params(arity), P.round_numbers(arity)
    assert again == first
    (opt,) = (tmp_path / "poseidon").glob("optimized-*.json")
    opt.write_bytes(opt.read_bytes().replace(b"[", b"[1", 1))     # no longer its recorded digest
    fresh()
    assert P.optimized_constants(arity) == first[0]
    assert P.hash_optimized(list(range(8)), 8) == NEPTUNE_STANDARD[8] == P.poseidon_hash(list(range(8)), 8)
    fresh()
    with monkeypatch.context() as m:
        m.setattr(P, "_optimized", lambda *a: pytest.fail("rewritten file not read"))
        assert P.optimized_constants(arity) == first[0]
    fresh()
