"""Upstream's variable and row order (``cuzk.r1cs.order``) against naive sequential builders.

The naive builders below follow bellperson/bellpepper and rust-fil-proofs line by line, one
instance after another, one bit at a time (``Boolean``, ``AllocatedBit::{xor, and, and_not,
nor}``, ``Boolean::sha256_ch/maj``, ``UInt32::{xor, rotr, shr, addmany}``, ``MultiEq``,
``sha256_compression_function``; ``insert_8``/``insert_4``/``insert_2``, ``select`` and
``SubPath::synthesize`` / ``por_no_challenge_input`` of por.rs; neptune 11.x ``circuit.rs``
``poseidon_hash``; ``AllocatedNum::to_bits_le``; ``multipack::pack_bits``; ``Sha256Function::
hash2_circuit``; whole ``FallbackPoStCircuit`` and ``EmptySectorUpdateCircuit`` partitions),
written from reading those sources, sharing no code with cuzk's vectorized gadgets. The vectorized
build with ``upstream_order=True`` must give the very same matrices (rows, columns,
coefficients).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from cuzk.circuits import porep
from cuzk.hash import poseidon as NP
from cuzk.r1cs import ConstraintSystem, alloc_bits
from cuzk.r1cs.gadgets import num_to_bits, pack_bits
from cuzk.r1cs.order import OrderError
from cuzk.r1cs.poseidon import hash_constraints, insert, poseidon_hash
from cuzk.r1cs.sha256 import BIT0, BIT1, IV, K, bit_not, sha256
from cuzk.r1cs.system import R
from cuzk.sector import update as su

CAPACITY = 254


class NaiveCS:
    """bellperson's recording: variable 0 is ONE, aux j is 1 + j, rows are dicts {variable:
    coefficient}; public input i (``alloc_input``, i ≥ 1) is recorded as −i until ``finish``
    numbers the columns as bellperson's matrices do (ONE, the inputs, the aux) and appends one
    row ``input · 0 = 0`` per input, ONE first. ``vals`` keeps each variable's value where the
    builder gives one (None otherwise)."""

    def __init__(self):
        self.n = 1
        self.ni = 0
        self.rows = []
        self.vals = {0: 1}

    def alloc(self, value=None) -> int:
        self.n += 1
        self.vals[self.n - 1] = value
        return self.n - 1

    def alloc_input(self, value=None) -> int:
        self.ni += 1
        self.vals[-self.ni] = value
        return -self.ni

    def value(self, lc: dict):
        """The value of a linear combination (None when a term's value is unknown)."""
        total = 0
        for v, x in lc.items():
            t = self.vals.get(v)
            if t is None:
                return None
            total += t * x
        return total % R

    def enforce(self, a: dict, b: dict, c: dict) -> None:
        self.rows.append(tuple({v: x % R for v, x in d.items() if x % R} for d in (a, b, c)))

    def satisfied(self, rows=None) -> bool:
        """Every row (of ``rows``, default all) holds under ``vals`` (all values known)."""
        return all(self.value(a) * self.value(b) % R == self.value(c) for a, b, c in rows or self.rows)

    def finish(self):
        if self.ni:
            col = {v: (-v if v < 0 else v + self.ni if v else 0) for v in self.vals}
            self.rows = [tuple({col[v]: x for v, x in d.items()} for d in row) for row in self.rows]
            self.vals = {col[v]: x for v, x in self.vals.items()}
        self.rows += [({i: 1}, {}, {}) for i in range(self.ni + 1)]
        self.n += self.ni
        return self


def add(*lcs) -> dict:
    out: dict = {}
    for d, s in lcs:
        for v, x in d.items():
            out[v] = (out.get(v, 0) + s * x) % R
    return out


# --- bellpepper Boolean / AllocatedBit ---------------------------------------------------------


def alloc_bit(cs, value=None) -> tuple:
    v = cs.alloc(value)
    cs.enforce({0: 1, v: -1}, {v: 1}, {})  # (1 - v) * v = 0
    return ("is", v)


def blc(b, coeff=1) -> dict:  # Boolean::lc(one, coeff)
    kind, x = b
    if kind == "c":
        return {0: coeff} if x else {}
    if kind == "is":
        return {x: coeff}
    return {0: coeff, x: -coeff}


def bval(cs, b):
    """A Boolean's value (None when its variable has none)."""
    return cs.value(blc(b))


def _op(f, *xs):
    return None if any(x is None for x in xs) else f(*xs)


def bnot(b):
    kind, x = b
    return ("c", not x) if kind == "c" else (("not", x) if kind == "is" else ("is", x))


def ab_xor(cs, a, b):  # AllocatedBit::xor
    c = cs.alloc(_op(lambda x, y: x ^ y, cs.vals[a], cs.vals[b]))
    cs.enforce({a: 2}, {b: 1}, add(({a: 1}, 1), ({b: 1}, 1), ({c: 1}, -1)))
    return c


def b_xor(cs, a, b):
    if a == ("c", False):
        return b
    if b == ("c", False):
        return a
    if a == ("c", True):
        return bnot(b)
    if b == ("c", True):
        return bnot(a)
    if a[0] == "is" and b[0] == "not":
        return bnot(b_xor(cs, a, bnot(b)))
    if a[0] == "not" and b[0] == "is":
        return bnot(b_xor(cs, b, bnot(a)))
    return ("is", ab_xor(cs, a[1], b[1]))


def b_and(cs, a, b):
    if a == ("c", False) or b == ("c", False):
        return ("c", False)
    if a == ("c", True):
        return b
    if b == ("c", True):
        return a
    r = cs.alloc(_op(lambda x, y: x & y, bval(cs, a), bval(cs, b)))
    if a[0] == "is" and b[0] == "not":
        cs.enforce({a[1]: 1}, {0: 1, b[1]: -1}, {r: 1})  # and_not(is, not)
    elif a[0] == "not" and b[0] == "is":
        cs.enforce({b[1]: 1}, {0: 1, a[1]: -1}, {r: 1})
    elif a[0] == "not":
        cs.enforce({0: 1, a[1]: -1}, {0: 1, b[1]: -1}, {r: 1})  # nor
    else:
        cs.enforce({a[1]: 1}, {b[1]: 1}, {r: 1})
    return ("is", r)


def b_ch(cs, a, b, c):
    if a[0] == b[0] == c[0] == "c":
        return ("c", (a[1] and b[1]) ^ ((not a[1]) and c[1]))
    if a == ("c", False):
        return c
    if b == ("c", False):
        return b_and(cs, bnot(a), c)
    if c == ("c", False):
        return b_and(cs, a, b)
    if c == ("c", True):
        return bnot(b_and(cs, a, bnot(b)))
    if b == ("c", True):
        return bnot(b_and(cs, bnot(a), bnot(c)))
    ch = cs.alloc(_op(lambda x, y, z: (x & y) ^ ((1 - x) & z), bval(cs, a), bval(cs, b), bval(cs, c)))
    cs.enforce(add((blc(b), 1), (blc(c), -1)), blc(a), add(({ch: 1}, 1), (blc(c), -1)))
    return ("is", ch)


def b_maj(cs, a, b, c):
    if a[0] == b[0] == c[0] == "c":
        return ("c", (a[1] and b[1]) ^ (a[1] and c[1]) ^ (b[1] and c[1]))
    if a == ("c", False):
        return b_and(cs, b, c)
    if b == ("c", False):
        return b_and(cs, a, c)
    if c == ("c", False):
        return b_and(cs, a, b)
    if c == ("c", True):
        return bnot(b_and(cs, bnot(a), bnot(b)))
    if b == ("c", True):
        return bnot(b_and(cs, bnot(a), bnot(c)))
    if a == ("c", True):
        return bnot(b_and(cs, bnot(b), bnot(c)))
    maj = cs.alloc(_op(lambda x, y, z: (x & y) ^ (x & z) ^ (y & z), bval(cs, a), bval(cs, b), bval(cs, c)))
    bc = b_and(cs, b, c)
    cs.enforce(add((blc(bc), 2), (blc(b), -1), (blc(c), -1)), blc(a), add((blc(bc), 1), ({maj: 1}, -1)))
    return ("is", maj)


# --- bellperson UInt32, MultiEq, SHA-256 --------------------------------------------------------


def u32_const(v):
    return [("c", bool((v >> i) & 1)) for i in range(32)]


def rotr(w, n):
    return [w[(i + n) % 32] for i in range(32)]


def shr(w, n):
    return [w[i + n] if i + n < 32 else ("c", False) for i in range(32)]


class MultiEq:
    def __init__(self, cs):
        self.cs, self.bits, self.lhs, self.rhs = cs, 0, {}, {}

    def enforce_equal(self, nbits, lhs, rhs):
        if CAPACITY <= self.bits + nbits:
            self.flush()
        s = 1 << self.bits
        self.lhs, self.rhs = add((self.lhs, 1), (lhs, s)), add((self.rhs, 1), (rhs, s))
        self.bits += nbits

    def flush(self):
        if self.bits:
            self.cs.enforce(self.lhs, {0: 1}, self.rhs)
        self.bits, self.lhs, self.rhs = 0, {}, {}


def addmany(cs, meq, ops):
    lhs, const = {}, True
    for op in ops:
        for i, b in enumerate(op):
            for v, x in blc(b, 1 << i).items():  # add() in place: one pass, not a copy per bit
                lhs[v] = (lhs.get(v, 0) + x) % R
            const &= b[0] == "c"
    if const:
        return u32_const(sum(sum(1 << i for i, b in enumerate(op) if b[1]) for op in ops) & 0xFFFFFFFF)
    nbits = (len(ops) * 0xFFFFFFFF).bit_length()
    total = cs.value(lhs)
    out = [alloc_bit(cs, _op(lambda t: (t >> i) & 1, total)) for i in range(nbits)]
    meq.enforce_equal(nbits, lhs, add(*[(blc(b, 1 << i), 1) for i, b in enumerate(out)]))
    return out[:32]


def compression(cs, block, hv):
    w = [block[32 * j: 32 * j + 32][::-1] for j in range(16)]  # UInt32::from_bits_be
    meq = MultiEq(cs)

    def xor(x, y):
        return [b_xor(cs, p, q) for p, q in zip(x, y)]

    for i in range(16, 64):
        s0 = xor(xor(rotr(w[i - 15], 7), rotr(w[i - 15], 18)), shr(w[i - 15], 3))
        s1 = xor(xor(rotr(w[i - 2], 17), rotr(w[i - 2], 19)), shr(w[i - 2], 10))
        w.append(addmany(cs, meq, [w[i - 16], s0, w[i - 7], s1]))
    a, (b, c, d), e, (f, g, h) = ("c", hv[0]), hv[1:4], ("c", hv[4]), hv[5:8]

    def compute(m, others=()):
        return m[1] if m[0] == "c" else addmany(cs, meq, m[1] + list(others))

    for i in range(64):
        ne = compute(e)
        s1 = xor(xor(rotr(ne, 6), rotr(ne, 11)), rotr(ne, 25))
        ch = [b_ch(cs, x, y, z) for x, y, z in zip(ne, f, g)]
        temp1 = [h, s1, ch, u32_const(K[i]), w[i]]
        na = compute(a)
        s0 = xor(xor(rotr(na, 2), rotr(na, 13)), rotr(na, 22))
        mj = [b_maj(cs, x, y, z) for x, y, z in zip(na, b, c)]
        h, g, f = g, f, ne
        e = ("d", temp1 + [d])
        d, c, b = c, b, na
        a = ("d", temp1 + [s0, mj])
    out = [compute(a, [hv[0]]), addmany(cs, meq, [hv[1], b]), addmany(cs, meq, [hv[2], c]),
           addmany(cs, meq, [hv[3], d]), compute(e, [hv[4]]), addmany(cs, meq, [hv[5], f]),
           addmany(cs, meq, [hv[6], g]), addmany(cs, meq, [hv[7], h])]
    meq.flush()  # MultiEq's drop
    return out


def naive_sha256(cs, bits):
    n = len(bits)
    padded = list(bits) + [("c", True)]
    while (len(padded) + 64) % 512:
        padded.append(("c", False))
    padded += [("c", bool((n >> i) & 1)) for i in range(63, -1, -1)]
    cur = [u32_const(v) for v in IV]
    for blk in range(len(padded) // 512):
        cur = compression(cs, padded[512 * blk: 512 * blk + 512], cur)
    return cur


# --- comparison --------------------------------------------------------------------------------


def rows_of(r1cs):
    """Our finalized matrices as the naive rows (column j of ours is variable j: ONE, then aux)."""
    per = []
    for m in (r1cs.A, r1cs.B, r1cs.C):
        ptr, cols = m.indptr.tolist(), m.indices.tolist()
        coeffs = [int(c) for c in m.coeffs]
        vals = [coeffs[c] for c in m.coeff_ids.tolist()]
        per.append([dict(zip(cols[lo:hi], vals[lo:hi])) for lo, hi in zip(ptr[:-1], ptr[1:])])
    return list(zip(*per))


def assert_same(r1cs, naive: NaiveCS):
    assert (r1cs.num_inputs, r1cs.num_vars) == (1 + naive.ni, naive.n)
    got = rows_of(r1cs)
    assert len(got) == len(naive.rows)
    bad = [i for i, (x, y) in enumerate(zip(got, naive.rows)) if x != y]
    assert not bad, f"{len(bad)} rows differ, first {bad[0]}: ours {got[bad[0]]}, upstream {naive.rows[bad[0]]}"


def test_sha256_two_blocks_in_bellpersons_order():
    """Two instances of SHA-256 over 512 allocated bits: a compression from the IV with a
    variable block (the constant cases of ch/maj in its first rounds) and one with a variable
    state and the constant padding block (the general ch/maj, maj's bit before its b∧c)."""
    k = 2
    cs = ConstraintSystem(shape=True, witness=False, upstream_order=True)
    with cs.instances(k, "messages"):
        bits = alloc_bits(cs, (k, 512))
        sha256(cs, bits)
    r1cs = cs.finalize()
    naive = NaiveCS()
    for _ in range(k):
        msg = [alloc_bit(naive) for _ in range(512)]
        naive_sha256(naive, msg)
    assert_same(r1cs, naive.finish())
    # the vectorized order alone is not upstream's (the test can fail)
    plain = ConstraintSystem(shape=True, witness=False)
    plain_bits = alloc_bits(plain, (k, 512))
    sha256(plain, plain_bits)
    assert rows_of(plain.finalize()) != naive.rows


def naive_pick(cs, cond, x, y):
    """rust-fil-proofs ``pick`` (insertion.rs): c = cond ? x : y, row (y − x)·cond = y − c."""
    cv = cs.vals[cond]
    c = cs.alloc(None if cv is None else cs.vals[x] if cv else cs.vals[y])
    cs.enforce(add(({y: 1}, 1), ({x: 1}, -1)), {cond: 1}, add(({y: 1}, 1), ({c: 1}, -1)))
    return c


def naive_insert_8(cs, a, bits, el):
    """rust-fil-proofs insert_8 (insertion.rs)."""
    pick = functools.partial(naive_pick, cs)
    b0, b1, b2 = bits
    b, c, d, e, f, g, h = el
    v0, v1 = cs.vals[b0], cs.vals[b1]
    nor = cs.alloc(None if v0 is None else (1 - v0) * (1 - v1))
    cs.enforce({0: 1, b0: -1}, {0: 1, b1: -1}, {nor: 1})
    and_ = cs.alloc(None if v0 is None else v0 * v1)
    cs.enforce({b0: 1}, {b1: 1}, {and_: 1})
    p0 = pick(b2, b, pick(nor, a, b))
    p1 = pick(b2, c, pick(b1, c, pick(b0, a, b)))
    p2 = pick(b2, d, pick(b1, pick(b0, d, a), c))
    p3 = pick(b2, e, pick(and_, a, d))
    p4 = pick(b2, pick(nor, a, f), e)
    p5 = pick(b2, pick(b1, g, pick(b0, a, f)), f)
    p6 = pick(b2, pick(b1, pick(b0, h, a), g), g)
    p7 = pick(b2, pick(and_, a, h), h)
    return [p0, p1, p2, p3, p4, p5, p6, p7]


def naive_insert_2(cs, a, bits, el):
    """rust-fil-proofs insert_2: pick(bit, el[0], a), pick(bit, a, el[0])."""
    return [naive_pick(cs, bits[0], el[0], a), naive_pick(cs, bits[0], a, el[0])]


def naive_insert_4(cs, a, bits, el):
    """rust-fil-proofs insert_4 (insertion.rs): two picks per position, b0's first."""
    pick = functools.partial(naive_pick, cs)
    b0, b1 = bits
    b, c, d = el
    return [pick(b1, b, pick(b0, b, a)), pick(b1, c, pick(b0, a, b)),
            pick(b1, pick(b0, d, a), c), pick(b1, pick(b0, a, d), d)]


def naive_insert(cs, a, bits, el):
    """rust-fil-proofs ``insert`` for the arities the trees use (2, 4, 8)."""
    return {2: naive_insert_2, 4: naive_insert_4, 8: naive_insert_8}[len(el) + 1](cs, a, bits, el)


def test_merkle_step_index_bits_siblings_insert_8_in_upstreams_order():
    """One 8-ary path level (por.rs SubPath::synthesize: 3 index bits, 7 siblings, insert_8)
    for 3 leaves in a loop, as the PoRep circuit marks it."""
    k = 3
    cs = ConstraintSystem(shape=True, witness=False, upstream_order=True)
    leaves = cs.alloc_aux(k)
    with cs.instances(k, "paths"):
        bits = alloc_bits(cs, (k, 3))
        sib = cs.alloc_aux((k, 7))
        insert(cs, leaves, bits, sib)
    naive = NaiveCS()
    nl = [naive.alloc() for _ in range(k)]
    for i in range(k):
        nb = [alloc_bit(naive)[1] for _ in range(3)]
        ns = [naive.alloc() for _ in range(7)]
        naive_insert_8(naive, nl[i], nb, ns)
    assert_same(cs.finalize(), naive.finish())


# --- neptune circuit.rs poseidon_hash, bellpepper to_bits_le, por.rs SubPath -----------------------


def naive_poseidon(cs, preimage, arity, tag=None):
    """neptune 11.x ``circuit.rs`` ``poseidon_hash`` (``PoseidonCircuit::hash``), which
    rust-fil-proofs' ``hash2_circuit``, ``hash_multi_leaf_circuit`` and ``hash_single_column``
    call with the Merkle-tree constants. State elements are an allocated variable (int) or a
    linear combination (``Elt::Num``, a dict); an S-box allocates its input first
    (``ensure_allocated``: lc · ONE = v), then ``square``, ``square``, ``mul_sum``; round 0 adds
    the pre-round key inside ``square_sum``/``mul_sum`` and computes the tag's S-box as a
    constant; the MDS, pre-sparse and sparse products stay linear combinations; the digest is
    state[1] allocated. Constants: ``optimized_constants`` (neptune's compressed round keys and
    matrices, checked against neptune's vectors in test_poseidon.py). ``tag``: the domain tag
    (default the Merkle tree's; SnapDeals' ``POSEIDON_CONSTANTS_GEN_RANDOMNESS`` differ only in it)."""
    p, oc = NP.params(arity), NP.optimized_constants(arity)
    t, half, rp = arity + 1, p.full_rounds // 2, p.partial_rounds
    keys = [int(c) for c in oc.compressed]
    st = {"off": 0, "round": 0, "els": [{0: p.merkle_tag if tag is None else tag}] + list(preimage)}

    def lc_of(e):
        return {e: 1} if isinstance(e, int) else e

    def new(value, a, b, c):  # alloc, then the one row that defines it (C = c + v)
        v = cs.alloc(value % R)
        cs.enforce(a, b, add((c, 1), ({v: 1}, 1)))
        return v

    def ensure(e):  # Elt::ensure_allocated(enforce = true)
        return e if isinstance(e, int) else new(cs.value(e), e, {0: 1}, {})

    def sbox(e, pre, post):  # quintic_s_box / quintic_s_box_pre_add
        x = ensure(e)
        xa = {x: 1} if pre is None else {x: 1, 0: pre}
        x2 = new(cs.value(xa) ** 2, xa, xa, {})   # square_sum / square
        x4 = new(cs.vals[x2] ** 2, {x2: 1}, {x2: 1}, {})
        return new(cs.value(xa) * cs.vals[x4] + (post or 0), xa, {x4: 1}, {} if post is None else {0: -post})

    def product(els, cols):  # scalar_product per output column
        return [add(*[(lc_of(e), c) for e, c in zip(els, col)]) for col in cols]

    def mds():
        r, els = st["round"], st["els"]
        if r == half - 1:
            st["els"] = product(els, [[int(oc.pre_sparse[i][j]) for i in range(t)] for j in range(t)])
        elif half - 1 < r < half + rp:
            w_hat, v_rest = oc.sparse[r - half]
            st["els"] = product(els, [[int(w) for w in w_hat]]) + [
                add((lc_of(els[j]), 1), (lc_of(els[0]), int(v_rest[j - 1]))) for j in range(1, t)]
        else:
            st["els"] = product(els, [[int(oc.mds[i][j]) for i in range(t)] for j in range(t)])
        st["round"] += 1

    def full_round(first, last):
        o = st["off"]
        pre = keys[o:o + t] if first else None
        o += t if first else 0
        post = keys[o:o + t] if first or not last else None
        o += 0 if post is None else t
        els = st["els"]
        for i in range(t):
            if first and i == 0:
                els[0] = {0: (pow(els[0][0] + pre[0], 5, R) + post[0]) % R}
            else:
                els[i] = sbox(els[i], pre[i] if first else None, None if post is None else post[i])
        st["off"] = o
        mds()

    full_round(True, False)
    for _ in range(1, half):
        full_round(False, False)
    for _ in range(rp):
        st["els"][0] = sbox(st["els"][0], None, keys[st["off"]])
        st["off"] += 1
        mds()
    for _ in range(half - 1):
        full_round(False, False)
    full_round(False, True)
    assert st["off"] == len(keys)
    return ensure(st["els"][1])


def naive_to_bits_le(cs, x):
    """bellpepper-core ``AllocatedNum::to_bits_le`` (num.rs; bellperson 0.26 re-exports it):
    ``field_into_allocated_bits_le`` allocates Fr::NUM_BITS = 255 bits little-endian, each
    ``AllocatedBit::alloc`` (its boolean row right after it), then the unpacking row
    0 · 0 = Σ 2^i·b_i − x."""
    xv = cs.vals[x]
    bits = [alloc_bit(cs, None if xv is None else (xv >> i) & 1)[1] for i in range(255)]
    cs.enforce({}, {}, add(*[({b: 1 << i}, 1) for i, b in enumerate(bits)], ({x: 1}, -1)))
    return bits


def naive_pack_bits(cs, bits):
    """rust-fil-proofs ``multipack::pack_bits`` (storage-proofs-core) of allocated bits, at most
    Fr::CAPACITY = 254 (create_label's ``result_num``): alloc the number, then the row
    Σ 2^i·b_i · ONE = num."""
    num = add(*[({b: 1 << i}, 1) for i, b in enumerate(bits[:254])])
    x = cs.alloc(cs.value(num))
    cs.enforce(num, {0: 1}, {x: 1})
    return x


def naive_inclusion(cs, leaf, arities, index, siblings, root):
    """por.rs ``PoRCircuit::synthesize`` with a private root (params.rs ``enforce_inclusion``):
    per level (``SubPath::synthesize``) log2(arity) index bits, the arity − 1 siblings,
    ``insert``, the Poseidon hash; then ``pack_into_inputs`` of all index bits (one input, its
    row Σ 2^i·b_i · ONE = input) and ``constraint::equal`` (computed root · ONE = root)."""
    cur, bits, off = leaf, [], 0
    for a, sib in zip(arities, siblings):
        nb = a.bit_length() - 1
        lb = [alloc_bit(cs, (index >> (off + j)) & 1)[1] for j in range(nb)]
        off += nb
        el = [cs.alloc(v) for v in sib]
        cur = naive_poseidon(cs, naive_insert(cs, cur, lb, el), a)
        bits += lb
    inp = cs.alloc_input(index)
    cs.enforce(add(*[({b: 1 << i}, 1) for i, b in enumerate(bits)]), {0: 1}, {inp: 1})
    cs.enforce({cur: 1}, {0: 1}, {root: 1})


def _fr(rng, shape):
    return np.array([int.from_bytes(rng.bytes(32), "little") % R for _ in range(int(np.prod(shape)))],
                    dtype=object).reshape(shape)


def _assert_same_witness(cs, naive: NaiveCS):
    ins, aux = cs.assignment()
    assert [int(x) for x in ins] == [naive.vals[i] for i in range(1 + naive.ni)]
    assert [int(x) for x in aux] == [naive.vals[j] for j in range(1 + naive.ni, naive.n)]


@pytest.mark.parametrize("arity", [2, 8, 11])
def test_poseidon_hashes_in_neptunes_order(arity):
    """k = 3 hashes of allocated inputs in a loop (hash2_circuit / Merkle nodes / the 11-layer
    column hash): our legacy gadget gives neptune's matrices and witness in its order; the naive
    build is satisfied and its digests are the native Poseidon's; without upstream_order the
    rows are op-major across the 3 hashes (not upstream's)."""
    k = 3
    vals = _fr(np.random.default_rng(arity), (k, arity))
    cs = ConstraintSystem(shape=True, witness=True, upstream_order=True)
    with cs.instances(k, "hashes"):
        x = cs.alloc_aux((k, arity), vals)
        poseidon_hash(cs, x, arity, legacy=True)
    naive = NaiveCS()
    for i in range(k):
        d = naive_poseidon(naive, [naive.alloc(int(v)) for v in vals[i]], arity)
        assert naive.vals[d] == NP.poseidon_hash([int(v) for v in vals[i]], arity)
    assert naive.satisfied()
    assert len(naive.rows) == k * hash_constraints(arity, legacy=True)
    assert_same(cs.finalize(), naive.finish())
    _assert_same_witness(cs, naive)
    plain = ConstraintSystem(shape=True, witness=False)
    poseidon_hash(plain, plain.alloc_aux((k, arity)), arity, legacy=True)
    assert rows_of(plain.finalize()) != naive.rows


def test_to_bits_le_and_pack_bits_in_bellpersons_order():
    """The labeling's bit gadgets: the replica_id's ``to_bits_le``, then per challenge (3) per
    parent (2) ``to_bits_le`` of full-width values (params.rs), and per challenge
    ``multipack::pack_bits`` of 254 bits (create_label's ``result_num``; here the first
    parent's bits stand in for the digest's): matrices and witness in bellperson's order."""
    k, p = 3, 2
    vals = _fr(np.random.default_rng(7), (1 + k * p,))
    cs = ConstraintSystem(shape=True, witness=True, upstream_order=True)
    rid = cs.alloc_aux(1, vals[:1])
    num_to_bits(cs, rid, 255)
    with cs.instances(k, "challenges"):
        nums = cs.alloc_aux((k, p), vals[1:].reshape(k, p))
        with cs.instances(k * p, "parents"):
            bits = num_to_bits(cs, nums.reshape(-1), 255).reshape(k, p, 255)
        pack_bits(cs, bits[:, 0, :254])
    naive = NaiveCS()
    naive_to_bits_le(naive, naive.alloc(int(vals[0])))
    for i in range(k):
        ns = [naive.alloc(int(v)) for v in vals[1 + p * i: 1 + p * i + p]]
        nb = [naive_to_bits_le(naive, n) for n in ns]
        naive_pack_bits(naive, nb[0])
    assert naive.satisfied()
    assert_same(cs.finalize(), naive.finish())
    _assert_same_witness(cs, naive)


def test_poseidon_inclusion_in_upstreams_order():
    """porep's tree_c/tree_r_last inclusion (``_poseidon_inclusion``) for 3 paths over levels of
    arity 8, 8, 2 (the 64 GiB tree's base, sub and top arities): index bits, siblings,
    insert_8/insert_2, neptune's hash per level, the path input and the root equality, path
    after path; matrices and witness as por.rs builds them."""
    k, arities = 3, [8, 8, 2]
    rng = np.random.default_rng(3)
    leaves = _fr(rng, (k,))
    index = [int(i) for i in rng.integers(0, 8 * 8 * 2, k)]
    sibs = [[[int(v) for v in _fr(rng, (a - 1,))] for a in arities] for _ in range(k)]

    def root_of(i):
        cur, off = int(leaves[i]), 0
        for a, s in zip(arities, sibs[i]):
            nb = a.bit_length() - 1
            pos = (index[i] >> off) & (a - 1)
            off += nb
            cur = NP.poseidon_hash(s[:pos] + [cur] + s[pos:], a)
        return cur

    root = root_of(0)   # one root (comm_c); paths 1, 2 do not reach it: all but their root rows hold
    cs = ConstraintSystem(shape=True, witness=True, upstream_order=True)
    ins = cs.alloc_input(k, index)
    rt = cs.alloc_aux(1, [root])
    with cs.instances(k, "challenges"):
        lf = cs.alloc_aux(k, leaves)
        porep._poseidon_inclusion(cs, lf, arities, index, sibs, rt, ins, "tree")
    naive = NaiveCS()
    nrt = naive.alloc(root)
    for i in range(k):
        naive_inclusion(naive, naive.alloc(int(leaves[i])), arities, index[i], sibs[i], nrt)
    roots = [r for r in naive.rows if r[2] == {nrt: 1}]
    assert len(roots) == k and naive.satisfied(roots[:1])
    assert naive.satisfied([r for r in naive.rows if r[2] != {nrt: 1}])
    assert_same(cs.finalize(), naive.finish())
    _assert_same_witness(cs, naive)


def test_porep_rows_follow_upstreams_loops():
    """A partition's rows, grouped by the top-level step of params.rs/proof.rs that enforced
    them, come in upstream's sequence: globals, then per challenge the comm_d path, the 14
    parents (column hash, tree_c path, one parent at a time), the challenge, the labels layer
    by layer, the encoding and its path, the column hash of the labels and its path;
    bellperson's input rows last. Two challenges of the one-layer 256 B shape (the 2 KiB
    partition's structure at half its build time)."""
    shape = porep.PoRepShape("test-only-porep-256B-1L-2c", 256, 1, 2, 1, test_only=True)
    cs = ConstraintSystem(shape=True, witness=False, upstream_order=True)
    porep.synthesize(cs, shape)
    r1cs = cs.finalize(consume=True)
    names = ["/".join(r1cs.gadget_names[g].split("/")[:2]) for g in r1cs.gadget_ids]
    runs = [n for i, n in enumerate(names) if i == 0 or names[i - 1] != n]
    per_challenge = (["porep/comm_d_inclusion"] + ["porep/column_hash", "porep/tree_c_parents"] * porep.PARENTS
                     + ["porep/challenge_bits", "porep/challenge_input"]
                     + [f"porep/labeling_{layer}" for layer in range(1, shape.layers + 1)]
                     + ["porep/encode", "porep/tree_r_last", "porep/c_x_column_hash", "porep/tree_c_c_x"])
    expected = (["porep/replica_id", "porep/replica_id_bits", "porep/comm_d", "porep/comm_r", "porep/comm_r_hash",
                 "porep/comm_r"] + per_challenge * shape.challenges + ["input"])
    assert runs == expected
    assert r1cs.stats() == {k: v for k, v in shape.stats().items() if k in r1cs.stats()} | {"coeffs": r1cs.stats()["coeffs"]}


def test_unmarked_loop_is_refused():
    cs = ConstraintSystem(shape=True, witness=False, upstream_order=True)
    with pytest.raises(OrderError, match="does not split into 4 instances"):
        with cs.instances(4, "bad"):
            cs.alloc_aux(6)


def test_word_level_witness_in_upstreams_order(monkeypatch):
    """A witness-only system's whole-word compressions (``_WordWitness``) replay the bit-level
    gadget's calls, ch's and maj's bit loops included: the same upstream-order witness as the
    bit-level build, and it satisfies the upstream-order matrices. Messages of 1200 bits mixing
    variables, negations and constants (bellman's constant cases of ch and maj), 3 blocks."""
    from cuzk.r1cs import sha256 as S

    rng = np.random.default_rng(11)
    k, nbits = 2, 1200
    bits = rng.integers(0, 2, (k, nbits))
    kinds = rng.choice(4, nbits, p=[0.7, 0.1, 0.1, 0.1])   # variable, negated, constant 0, 1

    def build(cs):
        with cs.instances(k, "messages"):
            x = alloc_bits(cs, (k, nbits), bits)
            lits = x.copy()
            lits[:, kinds == 1] = bit_not(x[:, kinds == 1])
            lits[:, kinds == 2], lits[:, kinds == 3] = BIT0, BIT1
            sha256(cs, lits)
        return cs

    taken = []
    monkeypatch.setattr(S._WordWitness, "compress", (lambda f: lambda self, H, W: taken.append(1) or f(self, H, W))(
        S._WordWitness.compress))
    full = build(ConstraintSystem(shape=True, witness=True, upstream_order=True))
    words = build(ConstraintSystem(shape=False, witness=True, upstream_order=True))
    assert len(taken) == 3   # the word-level path ran (the recording system takes the bit-level one)
    plain = build(ConstraintSystem(shape=False, witness=True))
    w_full, w_words = full.full_assignment(), words.full_assignment()
    assert np.array_equal(w_full, w_words)
    assert not np.array_equal(w_words, plain.full_assignment())
    full.finalize().check(w_words)


def test_value_store_in_an_order_is_the_store_of_the_permuted_values():
    """``ValueStore.compact``/``all_ints`` with an order equal a store filled with the values
    already permuted (bits, small values, 64-bit and full-width ones; chunks smaller than n)."""
    from cuzk.r1cs.values import ValueStore

    rng = np.random.default_rng(5)
    n = 1000
    vals = np.array([int(x) for x in rng.integers(0, 2, n)], dtype=object)
    pick = rng.choice(n, 300, replace=False)
    vals[pick[:100]] = [int(x) for x in rng.integers(2, 255, 100)]
    vals[pick[100:200]] = [int(x) for x in rng.integers(255, 1 << 63, 100)]
    vals[pick[200:]] = [int(rng.integers(0, 1 << 62)) * (1 << 190) % R for _ in range(100)]
    order = rng.permutation(n)
    ours, ref = ValueStore(16), ValueStore(16)
    ours.append(vals)
    ref.append(vals[order])
    got, want = ours.compact(chunk=64, order=order), ref.compact(chunk=64)
    assert got[2] == want[2] and all(np.array_equal(x, y) for x, y in zip(got[:2] + got[3:], want[:2] + want[3:]))
    # the order as consecutive pieces (OrderTracker.aux_pieces), cut across chunk boundaries
    pieces = np.split(order, [5, 6, 64, 200, 203, 777])
    got = ours.compact(chunk=64, order=pieces)
    assert got[2] == want[2] and all(np.array_equal(x, y) for x, y in zip(got[:2] + got[3:], want[:2] + want[3:]))
    assert (ours.all_ints(chunk=100, order=order) == vals[order]).all()
    assert not np.array_equal(ours.compact(chunk=64)[3], want[3])
    # no value from 2 to 254 (a PoSt store): its limb rows as they are, the values of the path
    # that gathers the slots in an order (here the identity)
    post = ValueStore(16)
    post.append(np.where((vals >= 2) & (vals < 255), 0, vals))
    direct, gathered = post.compact(chunk=64), post.compact(chunk=64, order=np.arange(n))
    assert np.shares_memory(direct[3], post._wl) and not np.shares_memory(gathered[3], post._wl)
    assert direct[2] == gathered[2] and all(np.array_equal(x, y) for x, y in zip(direct, gathered))


def test_workflow_steps_build_and_follow_the_upstream_order(tmp_path, monkeypatch):
    """``pce_extract(upstream_order=True)`` records the order in the PCE header, and the
    synthesize steps follow the PCE they are given: each witness satisfies its own PCE, the two
    PCEs differ, and a block-order witness fails the upstream-order matrices (the order is not
    cosmetic). A circuit whose loops are not marked (the comm_d-only one) is refused before any
    work; SnapDeals is accepted (its upstream order: test_update_partition_in_upstreams_order)."""
    from cuzk import pipeline
    from cuzk.circuits.registry import ShapeMismatchError, shape_by_name
    from cuzk.memory.model import predict_step_bytes
    from cuzk.r1cs import Unsatisfied
    from cuzk.r1cs.pce import read_pce
    from cuzk.r1cs.witness import read_witness

    monkeypatch.setenv("CUZK_CACHE_DIR", str(tmp_path / "cache"))
    shape = "test-only-porep-256B"
    c1, rec = tmp_path / "1.c1.json", tmp_path / "1.checked.json"
    pipeline.prepare({"id": 1, "synthetic": True}, c1, shape, "upstream-order", "00" * 32)
    pipeline.check_input(c1, rec, shape)
    got = {}
    for upstream in (False, True):
        pce = tmp_path / f"{upstream}.pce"
        pipeline.pce_extract(shape, pce, upstream_order=upstream)
        assert pipeline.pce_upstream_order(pce) is upstream
        wit = pipeline.synthesize_partition(c1, rec, pce, 0, tmp_path / f"{upstream}.wit")
        r1cs, _ = read_pce(pce)
        ins, aux = read_witness(wit, pce_digest=pipeline.pce_digest(pce))
        w = np.concatenate([ins, aux])
        r1cs.check(w)
        got[upstream] = (r1cs, w)
    (block, wb), (up, wu) = got[False], got[True]
    assert sorted(wb.tolist()) == sorted(wu.tolist()) and not np.array_equal(wb, wu)
    assert not np.array_equal(block.A.indices, up.A.indices)
    with pytest.raises(Unsatisfied):
        up.check(wb)
    assert predict_step_bytes("pce_extract", shape_by_name("porep-32GiB").stats(), upstream_order=True) > \
        1.5 * predict_step_bytes("pce_extract", shape_by_name("porep-32GiB").stats())
    with pytest.raises(ShapeMismatchError, match="upstream order"):
        pipeline.pce_extract("porep-commd-2KiB", tmp_path / "commd.pce", upstream_order=True)
    assert not (tmp_path / "commd.pce").exists()


def naive_post_partition(cs, doc, partition):
    """One partition of rust-fil-proofs' ``FallbackPoStCircuit`` (storage-proofs-post
    ``fallback/circuit.rs``, ``synthesize_default``: sector after sector) read straight from a
    vanilla proof dict. ``Sector::synthesize``: alloc comm_r_last, comm_c, comm_r; ``inputize``
    comm_r (input · ONE = comm_r); ``hash2_circuit(comm_c, comm_r_last)``; ``constraint::equal``
    (comm_r · ONE = hash); then per challenge ``PoRCircuit::synthesize`` with the leaf allocated
    (``Root::Val``) and comm_r_last as the private root (:func:`naive_inclusion`). comm_r's value
    is the native Poseidon of the two (the sector's own commitment)."""
    fr = lambda b: int.from_bytes(bytes(b), "little")  # noqa: E731
    for e in doc["partitions"][partition]:
        c_last, c_c = fr(e["comm_r_last"]), fr(e["comm_c"])
        rl, cc = cs.alloc(c_last), cs.alloc(c_c)
        cr = cs.alloc(NP.poseidon_hash([c_c, c_last], 2))
        cs.enforce({cs.alloc_input(cs.vals[cr]): 1}, {0: 1}, {cr: 1})
        h = naive_poseidon(cs, [cc, rl], 2)
        cs.enforce({cr: 1}, {0: 1}, {h: 1})
        for pr in e["inclusion_proofs"]:
            levels = pr["path"]
            arities = [len(el["hashes"]) + 1 for el in levels]
            index, off = 0, 0
            for el, a in zip(levels, arities):
                index += el["index"] << off
                off += a.bit_length() - 1
            naive_inclusion(cs, cs.alloc(fr(pr["leaf"])), arities, index,
                            [[fr(x) for x in el["hashes"]] for el in levels], rl)


@pytest.mark.parametrize("size,sectors,challenges", [(2 << 10, 2, 2), (4 << 10, 1, 2)])
def test_post_partition_in_upstreams_order(size, sectors, challenges, tmp_path, monkeypatch):
    """A WindowPoSt partition over synthetic sectors (2 KiB: tree_r_last levels [8, 8], two
    sectors of two challenges, the sector loop around the challenge loop; 4 KiB: [8, 8, 2]):
    ``cuzk.circuits.post.synthesize`` with ``upstream_order`` gives the naive sequential build's
    matrices, public inputs and witness, so does the workflow's ``pce_extract`` and the
    witness-only build; the naive build is satisfied; the block order is not upstream's."""
    from cuzk import pipeline
    from cuzk.circuits import post as cp
    from cuzk.r1cs.pce import read_pce
    from cuzk.sector import post as sp
    from cuzk.sector.post_synthetic import SyntheticSector

    secs = [SyntheticSector(5 + i, size, rng_seed=i) for i in range(sectors)]
    doc = sp.generate_post("window", secs, bytes(range(32)), bytes(32), sector_count=sectors,
                           challenge_count=challenges)
    shape = cp.shape_of(doc)
    cs = ConstraintSystem(shape=True, witness=True, upstream_order=True)
    cp.synthesize(cs, shape, cp.values(doc, 0))
    naive = NaiveCS()
    naive_post_partition(naive, doc, 0)
    assert naive.satisfied()
    assert [naive.vals[-i] for i in range(1, naive.ni + 1)] == cp.public_inputs(doc, 0)
    assert_same(cs.finalize(), naive.finish())
    _assert_same_witness(cs, naive)
    ws = ConstraintSystem(shape=False, witness=True, upstream_order=True)
    cp.synthesize(ws, shape, cp.values(doc, 0))
    assert np.array_equal(ws.full_assignment(), cs.full_assignment())
    monkeypatch.setenv("CUZK_CACHE_DIR", str(tmp_path / "cache"))
    pipeline.pce_extract(shape.name, tmp_path / "post.pce", upstream_order=True)
    assert pipeline.pce_upstream_order(tmp_path / "post.pce")
    assert_same(read_pce(tmp_path / "post.pce")[0], naive)
    plain = ConstraintSystem(shape=True, witness=False)
    cp.synthesize(plain, shape)
    assert rows_of(plain.finalize()) != naive.rows


# --- SnapDeals: storage-proofs-update circuit.rs / gadgets.rs ----------------------------------


def naive_sha254_hash2(cs, a, b):
    """filecoin-hashers ``Sha256Function::hash2_circuit`` (and ``hash_multi_leaf_circuit`` of two
    leaves): ``to_bits_le`` of each number, padded to 256 bits with constant zeros and each byte's
    bits reversed; bellperson's ``sha256``; its big-endian digest bits, each byte reversed, the
    first Fr::CAPACITY packed (``multipack::pack_bits``)."""
    pre = []
    for x in (a, b):
        lb = [("is", v) for v in naive_to_bits_le(cs, x)] + [("c", False)]
        pre += [bit for i in range(0, 256, 8) for bit in lb[i:i + 8][::-1]]
    be = [bit for word in naive_sha256(cs, pre) for bit in word[::-1]]  # UInt32::into_bits_be
    le = [bit for i in range(0, 256, 8) for bit in be[i:i + 8][::-1]][:CAPACITY]
    assert all(kind == "is" for kind, _ in le)
    return naive_pack_bits(cs, [v for _, v in le])


def naive_por_no_challenge_input(cs, bits, leaf, path, root, sha=False):
    """storage-proofs-core por.rs ``por_no_challenge_input``: the siblings allocated by the
    caller, per level ``insert`` by the next log2(arity) challenge bits and the tree's hash
    (Poseidon of the arity, or SHA-254 for TreeD), then computed root · ONE = root."""
    cur, off = leaf, 0
    for sib in path:
        nb = len(sib).bit_length()
        nodes = naive_insert(cs, cur, bits[off:off + nb], sib)
        off += nb
        cur = naive_sha254_hash2(cs, *nodes) if sha else naive_poseidon(cs, nodes, len(nodes))
    assert off == len(bits)
    cs.enforce({cur: 1}, {0: 1}, {root: 1})


def naive_select(cs, table, bits):
    """storage-proofs-core insertion.rs ``select``: most significant bit first, halving the
    candidates with ``pick(bit, upper half, lower half)``."""
    state = list(table)
    for bit in bits[::-1]:
        half = len(state) // 2
        state = [naive_pick(cs, bit, state[half + j], state[j]) for j in range(half)]
    return state[0]


def naive_allocated_bits(cs, x, n):
    """``AllocatedBit::alloc`` of x's n low bits, then Σ 2^i·b_i · ONE = x (gadgets.rs
    ``allocated_num_to_allocated_bits``; circuit.rs splits ``k_and_h_select`` so too)."""
    bits = [alloc_bit(cs, (cs.vals[x] >> i) & 1)[1] for i in range(n)]
    cs.enforce(add(*[({b: 1 << i}, 1) for i, b in enumerate(bits)]), {0: 1}, {x: 1})
    return bits


def naive_gen_challenge_bits(cs, comm_r_new, partition, challenges, bits_per_challenge):
    """gadgets.rs ``gen_challenge_bits``: per digest j, digest_index = k·D + j (alloc, one row),
    its Poseidon with comm_r_new (``POSEIDON_CONSTANTS_GEN_RANDOMNESS``) and that digest's 255
    bits; each challenge takes the next ``bits_per_challenge`` of them."""
    per = CAPACITY // bits_per_challenge
    digests = -(-challenges // per)
    gen = []
    for j in range(digests):
        di = cs.alloc((cs.vals[partition] * digests + j) % R)
        cs.enforce({partition: digests, 0: j}, {0: 1}, {di: 1})
        dbits = naive_allocated_bits(cs, naive_poseidon(cs, [comm_r_new, di], 2, tag=su.GEN_RANDOMNESS_TAG), 255)
        take = challenges - len(gen) if j == digests - 1 else per
        gen += [dbits[i * bits_per_challenge:(i + 1) * bits_per_challenge] for i in range(take)]
    return gen


def naive_update_partition(cs, proof, *, nodes, partitions, challenges, hs, h, k, comm_r_old, comm_d_new,
                           comm_r_new):
    """rust-fil-proofs ``EmptySectorUpdateCircuit::synthesize`` (storage-proofs-update
    ``circuit.rs``, gadgets from ``gadgets.rs``) for partition k of a vanilla
    ``PartitionProof`` (``challenges`` of its challenge proofs), statement by statement."""
    fr = lambda b: int.from_bytes(bytes(b), "little")  # noqa: E731
    tag = su.GEN_RANDOMNESS_TAG
    cbl, pbl, abl = nodes.bit_length() - 1, partitions.bit_length() - 1, len(proof.apex_leafs).bit_length() - 1
    cps = proof.challenge_proofs[:challenges]

    def inputize(value):  # AllocatedNum::alloc, inputize
        x = cs.alloc(value)
        cs.enforce({cs.alloc_input(value): 1}, {0: 1}, {x: 1})
        return x

    khs = inputize(k | (1 << hs.index(h)) << pbl)  # PublicInputs::new: k | h_select << pbl
    kbits = naive_allocated_bits(cs, khs, pbl + len(hs))
    pbits, hsel = kbits[:pbl], kbits[pbl:]
    partition = naive_pack_bits(cs, pbits)
    old, d_new, new = (inputize(fr(c)) for c in (comm_r_old, comm_d_new, comm_r_new))
    phi = naive_poseidon(cs, [d_new, old], 2, tag=tag)
    comm_c, root_old, root_new = cs.alloc(fr(proof.comm_c)), cs.alloc(cps[0].root_r_old), cs.alloc(cps[0].root_r_new)
    apex = [cs.alloc(fr(x)) for x in proof.apex_leafs]
    ppath = [[cs.alloc(fr(x))] for x in cps[0].path_d_new[cbl - pbl:]]
    for root, comm_r in ((root_old, old), (root_new, new)):
        calc = naive_poseidon(cs, [comm_c, root], 2)  # hash2_circuit of TreeR's hasher
        cs.enforce({calc: 1}, {0: 1}, {comm_r: 1})
    row = apex  # apex_por
    while len(row) > 1:
        row = [naive_sha254_hash2(cs, row[i], row[i + 1]) for i in range(0, len(row), 2)]
    naive_por_no_challenge_input(cs, pbits, row[0], ppath, d_new, sha=True)
    gen = naive_gen_challenge_bits(cs, new, partition, challenges, cbl - pbl)
    for i, cp in enumerate(cps):
        c_bits = gen[i] + pbits
        highs = []  # get_challenge_high_bits
        for hh, sel in zip(hs, hsel):
            c_high = naive_pack_bits(cs, c_bits[len(c_bits) - hh:])
            z = cs.alloc(cs.vals[c_high] * cs.vals[sel] % R)
            cs.enforce({c_high: 1}, {sel: 1}, {z: 1})
            highs.append(z)
        high = cs.alloc(sum(cs.vals[z] for z in highs) % R)
        cs.enforce(add(*[({z: 1}, 1) for z in highs]), {0: 1}, {high: 1})
        rho = naive_poseidon(cs, [phi, high], 2, tag=tag)
        leaf_old, leaf_d = cs.alloc(cp.leaf_r_old), cs.alloc(fr(cp.leaf_d_new))
        prod = cs.alloc(cs.vals[leaf_d] * cs.vals[rho] % R)  # label_r_new: AllocatedNum::mul, then the sum
        cs.enforce({leaf_d: 1}, {rho: 1}, {prod: 1})
        leaf_new = cs.alloc((cs.vals[leaf_old] + cs.vals[prod]) % R)
        cs.enforce({leaf_old: 1, prod: 1}, {0: 1}, {leaf_new: 1})
        assert cs.vals[leaf_new] == cp.leaf_r_new
        for leaf, path, root in ((leaf_old, cp.path_r_old, root_old), (leaf_new, cp.path_r_new, root_new)):
            sibs = [[cs.alloc(x) for x in level[0]] for level in path]
            naive_por_no_challenge_input(cs, c_bits, leaf, sibs, root)
        apex_leaf = naive_select(cs, apex, c_bits[cbl - pbl - abl:cbl - pbl])
        d = cbl - pbl - abl
        sibs = [[cs.alloc(fr(x))] for x in cp.path_d_new[:d]]
        naive_por_no_challenge_input(cs, c_bits[:d], leaf_d, sibs, apex_leaf, sha=True)


@pytest.mark.slow  # about 13 s: the 7 apex-tree and 4 path SHA-254 hashes (500k rows) are the floor
def test_update_partition_in_upstreams_order(tmp_path, monkeypatch):
    """A SnapDeals partition (1 KiB sector: tree_r levels [8, 4], 8 apex leaves, a random CC
    replica and random deal data; its first 2 challenges, so the challenge loop runs twice at a
    quarter of the 1 KiB circuit): ``cuzk.circuits.update.synthesize`` with ``upstream_order``
    gives the naive sequential build's matrices, public inputs and witness, so do the
    witness-only build and the workflow's ``pce_extract``; the naive build is satisfied (its
    SHA-256 and Poseidon values reach the vanilla proof's roots); the block order is not
    upstream's."""
    from cuzk import pipeline
    from cuzk.circuits import registry
    from cuzk.circuits import update as cu
    from cuzk.r1cs.pce import read_pce
    from cuzk.sector.fr32 import pad_sector, unpadded_size
    from cuzk.sector.replica import build_tree

    size, k, h = 1024, 2, 1
    rng = np.random.default_rng(15)
    key = b"".join(int(x).to_bytes(32, "little") for x in _fr(rng, (size // 32,)))
    tree_r_old = build_tree(key, su.tree_r_shape(size))
    comm_c = int(_fr(rng, (1,))[0]).to_bytes(32, "little")
    data = pad_sector(rng.bytes(unpadded_size(size)), size)
    out = su.encode(key, data, comm_c, int(tree_r_old[-1][0]).to_bytes(32, "little"), h, size)
    pub = dict(sector_size=size, h=h, comm_r_old=out["comm_r_old"], comm_d_new=out["comm_d_new"],
               comm_r_new=out["comm_r_new"])
    proof = su.prove_partition(0, sector_size=size, comm_c=comm_c, comm_r_new=out["comm_r_new"], tree_r_old=tree_r_old,
                               tree_d_new=out["tree_d_new"], tree_r_new=out["tree_r_new"])
    su.verify_partition(proof, 0, **pub)
    shape = cu.UpdateShape(f"test-only-update-1KiB-{k}c", size, 1, k, test_only=True)
    vals = cu.values(proof, 0, **pub)
    for name in ("leaf_r_old", "leaf_d_new", "path_d_new"):
        vals[name] = vals[name][:k]
    for name in ("path_r_old", "path_r_new"):
        vals[name] = [lv[:k] for lv in vals[name]]

    cs = ConstraintSystem(shape=True, witness=True, upstream_order=True)
    cu.synthesize(cs, shape, vals)
    naive = NaiveCS()
    naive_update_partition(naive, proof, nodes=size // 32, partitions=1, challenges=k, hs=list(su.hs(size)),
                                   h=h, k=0, **{n: out[n] for n in ("comm_r_old", "comm_d_new", "comm_r_new")})
    assert naive.satisfied()
    assert [naive.vals[-i] for i in range(1, naive.ni + 1)] == cu.public_inputs(0, **pub)
    r1cs = cs.finalize()
    assert_same(r1cs, naive.finish())
    _assert_same_witness(cs, naive)
    ws = ConstraintSystem(shape=False, witness=True, upstream_order=True)
    cu.synthesize(ws, shape, vals)
    assert np.array_equal(ws.full_assignment(), cs.full_assignment())
    monkeypatch.setenv("CUZK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setitem(registry.SHAPES, shape.name, shape)
    pipeline.pce_extract(shape.name, tmp_path / "update.pce", upstream_order=True)
    assert pipeline.pce_upstream_order(tmp_path / "update.pce")
    pce = read_pce(tmp_path / "update.pce")[0]
    for m, want in ((pce.A, r1cs.A), (pce.B, r1cs.B), (pce.C, r1cs.C)):
        assert np.array_equal(m.indptr, want.indptr) and np.array_equal(m.indices, want.indices)
        assert [m.coeffs[i] for i in m.coeff_ids] == [want.coeffs[i] for i in want.coeff_ids]
    plain = ConstraintSystem(shape=True, witness=False)
    cu.synthesize(plain, shape)
    block = plain.finalize()  # the same matrix up to the order (r1cs is the naive build's)
    assert block.stats() == r1cs.stats() and not np.array_equal(block.A.indices, r1cs.A.indices)


def test_update_challenge_digests_in_upstreams_order():
    """``gen_challenge_bits`` of a 512 MiB partition (8 digests of 12 challenges of 20 bits, 86
    challenges), partition 5 of 16: the digest loop's matrices and witness in upstream's order,
    and the bits (with the partition's on top) are the vanilla challenges."""
    from cuzk.circuits import update as cu

    shape = cu.shape_by_name("update-512MiB")
    k, comm_r_new = 5, int(_fr(np.random.default_rng(16), (1,))[0])
    cs = ConstraintSystem(shape=True, witness=True, upstream_order=True)
    x = cs.alloc_aux(2, [comm_r_new, k])
    rand = cu._challenge_bits(cs, shape, x[:1], x[1:], {"inputs": [cu.k_and_h_select(k, shape.hs[0], shape.sector_size)]})
    naive = NaiveCS()
    nx = [naive.alloc(comm_r_new), naive.alloc(k)]
    gen = naive_gen_challenge_bits(naive, nx[0], nx[1], shape.challenges, shape.rand_bits)
    assert naive.satisfied() and shape.digests == 8
    assert [sum(naive.vals[b] << i for i, b in enumerate(bits)) + (k << shape.rand_bits) for bits in gen] == \
        su.challenges(comm_r_new.to_bytes(32, "little"), shape.sector_size, k).tolist()
    assert_same(cs.finalize(), naive.finish())
    _assert_same_witness(cs, naive)
    assert rand.shape == (shape.challenges, shape.rand_bits)
