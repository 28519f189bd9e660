"""Tests of the vectorized SHA-256 gadget (cuzk.r1cs.sha256) against hashlib and a FIPS 180-4
reference, its constraint counts against bellman's, and the soundness of its constraints."""

from __future__ import annotations

import hashlib
import struct

import numpy as np
import pytest

from cuzk.field import FR
from cuzk.r1cs import ConstraintSystem, Unsatisfied, alloc_bits, num_to_bits, pack_bits
from cuzk.r1cs.sha256 import (
    BIT0,
    BIT1,
    IV,
    K,
    bit_not,
    const_bits,
    literal_kinds,
    literal_values,
    sha256,
    sha256_compress,
    sha256_padding,
)

from cuzk.r1cs.sha254 import sha254_node

R = FR.modulus
M32 = 0xFFFFFFFF
BELLMAN_COMPRESS = 25840  # bellperson gadgets::sha256 test_full_block: num_constraints() - 512


# --- a plain FIPS 180-4 reference (checked against hashlib below) ----------------------------


def rotr(x: int, n: int) -> int:
    return ((x >> n) | (x << (32 - n))) & M32


def ref_compress(state, block: bytes) -> list[int]:
    w = list(struct.unpack(">16I", block))
    for i in range(16, 64):
        s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)
        s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10)
        w.append((w[i - 16] + s0 + w[i - 7] + s1) & M32)
    a, b, c, d, e, f, g, h = state
    for i in range(64):
        t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]
        t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))
        h, g, f, e, d, c, b, a = g, f, e, (d + t1) & M32, c, b, a, (t1 + t2) & M32
    return [(x + y) & M32 for x, y in zip(state, (a, b, c, d, e, f, g, h))]


def ref_sha256_bits(bits) -> bytes:
    """SHA-256 of a bit string (0/1 sequence, any length)."""
    padded = np.concatenate([np.asarray(bits, dtype=np.uint8), sha256_padding(len(bits))])
    data = np.packbits(padded).tobytes()
    state = list(IV)
    for i in range(0, len(data), 64):
        state = ref_compress(state, data[i : i + 64])
    return struct.pack(">8I", *state)


def words_to_bits(words) -> np.ndarray:
    """(k, 8) uint32 → (k, 256) bits, big-endian per word."""
    return np.unpackbits(np.asarray(words, dtype=">u4").view(np.uint8), axis=1)


def bits_to_words(bits) -> np.ndarray:
    return np.packbits(np.asarray(bits, dtype=np.uint8).reshape(-1, 256), axis=1).view(">u4").astype(np.uint64)


def test_reference_matches_hashlib():
    rng = np.random.default_rng(0)
    for n in (0, 3, 55, 56, 64, 119, 200):
        data = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        assert ref_sha256_bits(np.unpackbits(np.frombuffer(data, np.uint8))) == hashlib.sha256(data).digest()


# --- values against hashlib / the reference ---------------------------------------------------


@pytest.mark.parametrize("k", [1, 7, 64])
def test_compress_and_sha256_match(k):
    """Random states and blocks (all variables) and a 64-byte message (2 compressions), k at once;
    the k = 64 case runs witness-only (no shape)."""
    rng = np.random.default_rng(k)
    cs = ConstraintSystem(shape=k < 64, witness=True)
    data = rng.integers(0, 256, (k, 64), dtype=np.uint8)
    states = rng.integers(0, 1 << 32, (k, 8), dtype=np.uint64)
    blk = alloc_bits(cs, (k, 512), np.unpackbits(data, axis=1))
    st = alloc_bits(cs, (k, 8, 32), words_to_bits(states).reshape(k, 8, 32))
    out = sha256_compress(cs, st, blk)
    out_iv = sha256_compress(cs, None, blk)
    digest = sha256(cs, blk)
    assert out.shape == (k, 8, 32) and digest.shape == (k, 256)
    assert (literal_kinds(out) == 0).all() and (literal_kinds(digest) == 0).all()  # plain refs
    got = bits_to_words(literal_values(cs, out).reshape(k, 256))
    got_iv = bits_to_words(literal_values(cs, out_iv).reshape(k, 256))
    got_digest = np.packbits(literal_values(cs, digest), axis=1)
    for i in range(k):
        block = data[i].tobytes()
        assert list(got[i]) == ref_compress([int(x) for x in states[i]], block)
        assert list(got_iv[i]) == ref_compress(IV, block)
        assert got_digest[i].tobytes() == hashlib.sha256(block).digest()
    if cs.has_shape:
        cs.finalize().check(cs.full_assignment())


def test_sha256_message_lengths():
    """Padding as constant bits: byte lengths around the block boundaries (hashlib) and two bit
    lengths (447: padding fits in one block, 448: it does not)."""
    rng = np.random.default_rng(1)
    k = 3
    cs = ConstraintSystem()
    cases = []
    for nbytes in (0, 1, 32, 55, 56, 64, 65, 100):
        data = rng.integers(0, 256, (k, nbytes), dtype=np.uint8)
        bits = alloc_bits(cs, (k, 8 * nbytes), np.unpackbits(data, axis=1))
        cases.append((sha256(cs, bits), [hashlib.sha256(data[i].tobytes()).digest() for i in range(k)]))
    for nbits in (447, 448):
        vals = rng.integers(0, 2, (k, nbits), dtype=np.uint8)
        bits = alloc_bits(cs, (k, nbits), vals)
        cases.append((sha256(cs, bits), [ref_sha256_bits(vals[i]) for i in range(k)]))
    for digest, want in cases:
        got = np.packbits(literal_values(cs, digest), axis=1)
        assert [got[i].tobytes() for i in range(k)] == want
    cs.finalize().check(cs.full_assignment())


def test_constant_message_is_free():
    """All-constant input: no constraints, constant digest (bellman's test_blank_hash)."""
    cs = ConstraintSystem()
    msg = np.broadcast_to(const_bits(np.unpackbits(np.frombuffer(b"abc", np.uint8))), (2, 24))
    digest = sha256(cs, msg)
    assert cs.num_constraints == 0 and cs.num_aux == 0
    assert set(np.unique(digest)) <= {BIT0, BIT1}
    want = np.unpackbits(np.frombuffer(hashlib.sha256(b"abc").digest(), np.uint8))
    assert (literal_values(cs, digest) == want).all()


@pytest.mark.parametrize("order", ["le", "sha"])
def test_sha254_node(order):
    rng = np.random.default_rng(2)
    k = 5
    left = rng.integers(0, 256, (k, 32), dtype=np.uint8)
    right = rng.integers(0, 256, (k, 32), dtype=np.uint8)
    bitorder = "little" if order == "le" else "big"
    cs = ConstraintSystem()
    lb = alloc_bits(cs, (k, 256), np.unpackbits(left, axis=1, bitorder=bitorder))
    rb = alloc_bits(cs, (k, 256), np.unpackbits(right, axis=1, bitorder=bitorder))
    n0 = cs.num_constraints
    out = sha254_node(cs, lb, rb, order=order)
    assert (cs.num_constraints - n0) == k * 44874
    cleared = [254, 255] if order == "le" else [248, 249]
    assert (out[:, cleared] == BIT0).all()
    assert (literal_kinds(np.delete(out, cleared, axis=1)) == 0).all()
    got = np.packbits(literal_values(cs, out), axis=1, bitorder=bitorder)
    for i in range(k):
        h = bytearray(hashlib.sha256(left[i].tobytes() + right[i].tobytes()).digest())
        h[31] &= 0x3F
        assert got[i].tobytes() == bytes(h)
    cs.finalize().check(cs.full_assignment())


def test_sha254_node_of_field_elements():
    """Fr elements → num_to_bits (255 little-endian bits) → sha254_node → pack_bits of the first
    254 output bits is the node as an Fr element (Filecoin's hash2_circuit)."""
    rng = np.random.default_rng(3)
    k = 4
    xs = [int.from_bytes(rng.bytes(32), "little") % R for _ in range(2 * k)]
    cs = ConstraintSystem()
    vals = cs.alloc_aux(2 * k, np.array(xs, dtype=object))
    bits = num_to_bits(cs, vals, 255)
    out = sha254_node(cs, bits[:k], bits[k:])
    node = pack_bits(cs, out[:, :254])
    got = [int(v) for v in cs.value(node, dtype=object)]
    for i in range(k):
        h = bytearray(hashlib.sha256(xs[i].to_bytes(32, "little") + xs[k + i].to_bytes(32, "little")).digest())
        h[31] &= 0x3F
        assert got[i] == int.from_bytes(h, "little") < R
    cs.finalize().check(cs.full_assignment())


# --- constraint counts -----------------------------------------------------------------------


def test_constraint_counts_match_bellman():
    cs = ConstraintSystem(shape=True, witness=False)
    blk = alloc_bits(cs, (1, 512))
    n0 = cs.num_constraints
    assert n0 == 512
    sha256_compress(cs, None, blk)
    assert cs.num_constraints - n0 == BELLMAN_COMPRESS  # exactly bellperson's count
    st = alloc_bits(cs, (1, 256))
    n1 = cs.num_constraints
    sha256_compress(cs, st, blk)
    assert cs.num_constraints - n1 == 26192  # variable state: round 0-2 constant cases gone
    n2 = cs.num_constraints
    sha256(cs, blk)  # 64-byte message: the padding block has a constant schedule
    assert cs.num_constraints - n2 == 44874
    # vectorized: k instances cost k times as much
    cs = ConstraintSystem(shape=True, witness=False)
    blk = alloc_bits(cs, (9, 512))
    sha256_compress(cs, None, blk)
    assert cs.num_constraints == 9 * (512 + BELLMAN_COMPRESS)


# --- soundness: satisfied, and every single-bit change is caught -----------------------------


def unsatisfied_by_flip(r1cs, w) -> np.ndarray:
    """For every column j, whether setting w_j to 1 − w_j breaks some row (vectorized over all
    (row, column) non-zeros of A, B, C at once, from the satisfied a, b, c)."""
    a, b, c = r1cs.evaluate(w)
    keys, coefs = [], []
    for mat in (r1cs.A, r1cs.B, r1cs.C):
        rows = np.repeat(np.arange(mat.shape[0]), np.diff(mat.indptr))
        keys.append(rows * mat.shape[1] + mat.indices)
        coefs.append(mat.coeffs[mat.coeff_ids])
    uniq, inv = np.unique(np.concatenate(keys), return_inverse=True)
    per = [np.zeros(uniq.shape[0], dtype=object) for _ in range(3)]
    start = 0
    for m in range(3):
        n = keys[m].shape[0]
        per[m][inv[start : start + n]] = coefs[m]
        start += n
    rows, cols = uniq // r1cs.num_vars, uniq % r1cs.num_vars
    delta = 1 - 2 * w[cols]
    a2 = a[rows] + per[0] * delta
    b2 = b[rows] + per[1] * delta
    c2 = c[rows] + per[2] * delta
    bad = np.mod(a2 * b2 - c2, R) != 0
    out = np.zeros(r1cs.num_vars, dtype=bool)
    out[cols[bad]] = True
    return out


def build_mixed(k: int, seed: int, shape: bool = True, iv: bool = False):
    """A compression whose state and block mix every literal kind per column: variables,
    negated variables, constants 0 and 1 (the same kinds in all k instances); ``iv``: from the
    constant IV instead of the mixed state."""
    rng = np.random.default_rng(seed)
    cs = ConstraintSystem(shape=shape, witness=True)
    values = rng.integers(0, 2, (k, 768), dtype=np.uint8)
    kinds = rng.integers(0, 4, 768)
    kinds[256:320] = 0  # some block words fully variable as well
    consts = kinds >= 2
    values[:, consts] = (kinds[consts] == 3).astype(np.uint8)
    lits = np.empty((k, 768), dtype=np.int64)
    var_cols = np.flatnonzero(~consts)
    neg = kinds[var_cols] == 1
    v = values[:, var_cols] ^ neg.astype(np.uint8)  # the variable holds the negated value
    refs = alloc_bits(cs, (k, var_cols.shape[0]), v)
    lits[:, var_cols] = np.where(neg, bit_not(refs), refs)
    lits[:, consts] = const_bits(kinds[consts] == 3)
    out = sha256_compress(cs, None if iv else lits[:, :256].reshape(k, 8, 32), lits[:, 256:])
    return cs, out, values


def test_mixed_literals_match_reference_and_satisfy():
    k = 4
    cs, out, values = build_mixed(k, 8)  # seed 8 reaches every case of bellman's ch and maj
    got = bits_to_words(literal_values(cs, out).reshape(k, 256))
    for i in range(k):
        state = [int(x) for x in bits_to_words(values[i, :256])[0]]
        assert list(got[i]) == ref_compress(state, np.packbits(values[i, 256:]).tobytes())
    r1cs = cs.finalize()
    w = cs.full_assignment()
    r1cs.check(w)
    assert unsatisfied_by_flip(r1cs, w)[r1cs.num_inputs :].all()


def test_every_single_flip_is_caught():
    """k = 1: the system holds; flipping any one aux bit (input, internal or output) breaks some
    constraint — exhaustively through the vectorized analysis, and through R1CS.check on
    samples (all kinds: output bits, schedule/round bits, carries)."""
    rng = np.random.default_rng(6)
    cs = ConstraintSystem()
    blk = alloc_bits(cs, (1, 512), rng.integers(0, 2, (1, 512)))
    st = alloc_bits(cs, (1, 256), rng.integers(0, 2, (1, 256)))
    out = sha256_compress(cs, st, blk)
    out_iv = sha256_compress(cs, None, blk)
    r1cs = cs.finalize()
    w = cs.full_assignment()
    r1cs.check(w)
    ni = r1cs.num_inputs
    caught = unsatisfied_by_flip(r1cs, w)
    assert caught[ni:].all()
    out_cols = np.concatenate([out.reshape(-1), out_iv.reshape(-1)]) + ni
    internal = rng.choice(np.arange(ni, r1cs.num_vars), 12, replace=False)
    sample = np.concatenate([rng.choice(out_cols, 12, replace=False), internal, [ni + 3, r1cs.num_vars - 1]])
    for col in sample:
        w2 = w.copy()
        w2[col] = 1 - w2[col]
        with pytest.raises(Unsatisfied) as ei:
            r1cs.check(w2)
        assert ei.value.gadget.startswith("sha256/")


def test_modes_agree():
    """Shape-only, witness-only and both give the same counts, matrices and values."""
    rng = np.random.default_rng(7)
    bits = rng.integers(0, 2, (2, 512 + 256), dtype=np.uint8)

    def build(shape, witness):
        cs = ConstraintSystem(shape=shape, witness=witness)
        x = alloc_bits(cs, (2, 768), bits if witness else None)
        sha256_compress(cs, x[:, 512:], x[:, :512])
        sha254_node(cs, x[:, :256], x[:, 256:512])
        return cs

    both, shape, wit = build(True, True), build(True, False), build(False, True)
    assert both.num_constraints == shape.num_constraints == wit.num_constraints
    assert both.num_aux == shape.num_aux == wit.num_aux
    r1, r2 = both.finalize(), shape.finalize()
    for m1, m2 in ((r1.A, r2.A), (r1.B, r2.B), (r1.C, r2.C)):
        assert (m1.indptr == m2.indptr).all() and (m1.indices == m2.indices).all()
        assert list(m1.coeffs[m1.coeff_ids]) == list(m2.coeffs[m2.coeff_ids])
    assert (both.full_assignment() == wit.full_assignment()).all()


# --- errors ----------------------------------------------------------------------------------


def test_errors():
    cs = ConstraintSystem()
    blk = alloc_bits(cs, (2, 512), np.zeros((2, 512), dtype=np.uint8))
    mixed = blk.copy()
    mixed[0, 5] = BIT1  # a constant in one instance, a variable in the other
    with pytest.raises(ValueError, match="same in all k instances"):
        sha256_compress(cs, None, mixed)
    with pytest.raises(ValueError, match="512 bits"):
        sha256_compress(cs, None, blk[:, :500])
    with pytest.raises(ValueError, match="instances"):
        sha256_compress(cs, blk[:1, :256], blk)
    with pytest.raises(TypeError):
        sha256_compress(cs, None, blk.astype(float))
    with pytest.raises(ValueError, match="order"):
        sha254_node(cs, blk[:, :256], blk[:, 256:], order="be")
    nb = cs.alloc_aux((2, 512), 2)  # not boolean
    with pytest.raises(ValueError, match="boolean"):
        sha256_compress(cs, None, nb)


def test_word_level_witness_is_the_bit_level_one(monkeypatch):
    """A witness-only system computes compressions on whole words (``_WordWitness``): the same
    variables, values, constraint count and output literals as the bit-level gadget, for states
    and blocks mixing every literal kind (bellman's ch and maj cases), from the IV, for a block of
    constants only, and for a 3-block message with variable, negated and constant bits."""
    from cuzk.r1cs import sha256 as S

    rng = np.random.default_rng(11)
    k, nbits = 3, 1200
    bits = rng.integers(0, 2, (k, nbits))
    kinds = rng.choice(4, nbits, p=[0.7, 0.1, 0.1, 0.1])   # variable, negated, constant 0, 1

    def message(cs):
        x = alloc_bits(cs, (k, nbits), bits)
        lits = x.copy()
        lits[:, kinds == 1] = bit_not(x[:, kinds == 1])
        lits[:, kinds == 2], lits[:, kinds == 3] = BIT0, BIT1
        return cs, sha256(cs, lits), None

    def constant(cs):
        return cs, sha256_compress(cs, None, const_bits(np.tile(bits[:1, :512], (k, 1)))), None

    builds = [lambda: message(ConstraintSystem(shape=False, witness=True)),
              lambda: constant(ConstraintSystem(shape=False, witness=True))]
    builds += [(lambda s=s, iv=iv: build_mixed(2, s, shape=False, iv=iv)) for s in (8, 9, 10) for iv in (False, True)]
    taken = []
    monkeypatch.setattr(S._WordWitness, "compress", (lambda f: lambda self, H, W: taken.append(1) or f(self, H, W))(
        S._WordWitness.compress))
    for build in builds:
        got = []
        for word_level in (False, True):
            monkeypatch.setattr(S, "WORD_WITNESS", word_level)
            cs, out, _ = build()
            got.append((cs.num_aux, cs.num_constraints, out, cs.assignment()[1]))
        (na, nc, oa, va), (nb, ncb, ob, vb) = got
        assert (na, nc) == (nb, ncb) and np.array_equal(oa, ob) and (va == vb).all()
    assert len(taken) == 3 + 1 + 6
    want = [ref_sha256_bits(np.where(kinds == 3, 1, np.where(kinds == 2, 0, bits[i] ^ (kinds == 1)))) for i in range(k)]
    monkeypatch.setattr(S, "WORD_WITNESS", True)
    cs, out, _ = message(ConstraintSystem(shape=False, witness=True))
    assert [bytes(np.packbits(literal_values(cs, out[i]))) for i in range(k)] == want
