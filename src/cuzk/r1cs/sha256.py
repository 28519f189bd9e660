"""SHA-256 (FIPS 180-4) as a vectorized R1CS gadget, constraint for constraint after bellman's.

All k instances of a call (every compression of a circuit at once) share one constraint shape:
each step below is one block of allocations and a few ``enforce`` calls over k·m rows, and in
witness mode one vectorized computation on ``cs.xp`` (numpy, or CuPy later). Python loops run
over the 64 rounds, the 48 schedule words and a handful of case groups, never over instances or
constraints.

**Bit literals.** Bits are int64 *literals*, a superset of variable refs (the form of bellman's
``Boolean``: ``Is`` / ``Not`` / ``Constant``):

- a ref ``r`` (aux ``j ≥ 0`` or input ``-(i+1)``, as in :mod:`cuzk.r1cs.system`): the variable's
  value, which must be boolean (the caller enforces it, e.g. with ``alloc_bits``/``num_to_bits``);
- ``r + NOT_OFFSET`` (see :func:`bit_not`): the negation ``1 − r``, free;
- :data:`BIT0` / :data:`BIT1`: the constants 0 and 1, free (padding, IV, shift fill).

Literals other than refs must never reach ``ConstraintSystem.enforce`` (they are out of the ref
range, so ``enforce`` would raise IndexError); the gadgets here turn them into linear
combinations (``1 − r``, a multiple of ``ONE``, or nothing). The kind of a bit (variable,
negation, constant 0, constant 1) is part of the circuit's shape, so it must be the same in all k
instances of a column (ValueError otherwise); only the variables differ between instances.

**Bit order.** Words are big-endian as SHA-256 reads them: a block is ``(k, 512)`` bits where bit
``32·j + t`` is bit ``31 − t`` (weight ``2^(31−t)``) of message word ``W_j``; equivalently, bit
``8·i + t`` is bit ``7 − t`` (MSB first) of message byte ``i`` (``np.unpackbits`` order). A state
is ``(k, 8, 32)``: ``state[:, j, t]`` is bit ``31 − t`` of ``H_j``, so ``state.reshape(k, 256)``
is the digest in SHA-256 byte/bit order (bit ``8·i + t`` = bit ``7 − t`` of digest byte ``i``).

**Constraint count.** Identical to bellman/bellperson (``gadgets::sha256``): the same boolean
gadgets (xor: ``(2a)·b = a + b − c``; ch: ``(b − c)·a = ch − c``; maj: ``b·c = bc`` and
``(2bc − b − c)·a = bc − maj``; the same special cases for constant and negated operands), the same
deferred additions (e and a summed once per round with up to 7 operands) and the same packing of
the additions' equalities into few constraints (bellman's ``MultiEq``: equalities share one
constraint while their total width stays below Fr's 254-bit capacity). One compression of 512
variable bits from the constant IV costs **25,840** constraints, as bellperson's
``test_full_block`` asserts; see :func:`sha256_compress` for the other cases.

Additions do not call :func:`~cuzk.r1cs.gadgets.uint32_add` (its operands must be plain refs and it
spends one constraint per addition); ``_Sha.add`` is the same construction (32 + carry result bits,
booleanity, one equality) over literals, with the equality deferred into the packed constraint.
"""

from __future__ import annotations

import numpy as np

from .gadgets import boolean
from .multieq import CAPACITY, MultiEq, col_key
from . import sha_calls
from .order import Replay
from .system import LC, ConstraintSystem, R, lc

NOT_OFFSET = 1 << 61
"""Literal of ``NOT r`` is ``r + NOT_OFFSET``."""
BIT0 = 1 << 62
"""Literal of the constant bit 0."""
BIT1 = BIT0 + 1
"""Literal of the constant bit 1."""
_NEG_MIN = 1 << 60  # literals in [_NEG_MIN, BIT0) are negations; refs lie in (-2^60, 2^60)

VAR, NEG, C0, C1 = 0, 1, 2, 3  # literal kinds
_MASK32 = 0xFFFFFFFF

# FIPS 180-4, 4.2.2 and 5.3.3
K = (
    0x428A2F98, 0x71374491, 0xB5C0FBCF, 0xE9B5DBA5, 0x3956C25B, 0x59F111F1, 0x923F82A4, 0xAB1C5ED5,
    0xD807AA98, 0x12835B01, 0x243185BE, 0x550C7DC3, 0x72BE5D74, 0x80DEB1FE, 0x9BDC06A7, 0xC19BF174,
    0xE49B69C1, 0xEFBE4786, 0x0FC19DC6, 0x240CA1CC, 0x2DE92C6F, 0x4A7484AA, 0x5CB0A9DC, 0x76F988DA,
    0x983E5152, 0xA831C66D, 0xB00327C8, 0xBF597FC7, 0xC6E00BF3, 0xD5A79147, 0x06CA6351, 0x14292967,
    0x27B70A85, 0x2E1B2138, 0x4D2C6DFC, 0x53380D13, 0x650A7354, 0x766A0ABB, 0x81C2C92E, 0x92722C85,
    0xA2BFE8A1, 0xA81A664B, 0xC24B8B70, 0xC76C51A3, 0xD192E819, 0xD6990624, 0xF40E3585, 0x106AA070,
    0x19A4C116, 0x1E376C08, 0x2748774C, 0x34B0BCB5, 0x391C0CB3, 0x4ED8AA4A, 0x5B9CCA4F, 0x682E6FF3,
    0x748F82EE, 0x78A5636F, 0x84C87814, 0x8CC70208, 0x90BEFFFA, 0xA4506CEB, 0xBEF9A3F7, 0xC67178F2,
)
"""Round constants K_0..K_63."""
IV = (0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19)
"""Initial hash value H(0)."""

_POW2_32 = tuple(1 << i for i in range(32))
_ROTR_IDX = tuple((np.arange(32) + n) % 32 for n in range(32))  # rotr by n: new bit i = old bit idx[i]


# --------------------------------------------------------------------------------------------
# literals
# --------------------------------------------------------------------------------------------


def literal_kinds(lits) -> np.ndarray:
    """Kind of each literal: int8 array of lits' shape, VAR (0), NEG (1), C0 (2) or C1 (3)."""
    x = np.asarray(lits, dtype=np.int64)
    out = np.zeros(x.shape, dtype=np.int8)
    out[x >= _NEG_MIN] = NEG
    out[x == BIT0] = C0
    out[x == BIT1] = C1
    return out


def _base(lits: np.ndarray) -> np.ndarray:
    """Underlying variable refs of VAR/NEG literals (constants map to ONE, -1)."""
    return np.where(lits >= BIT0, -1, np.where(lits >= _NEG_MIN, lits - NOT_OFFSET, lits))


def bit_not(lits) -> np.ndarray:
    """Negated literals (free): ref ↔ ref + NOT_OFFSET, BIT0 ↔ BIT1. Same shape, int64."""
    x = np.asarray(lits, dtype=np.int64)
    return np.where(x >= BIT0, x ^ 1, np.where(x >= _NEG_MIN, x - NOT_OFFSET, x + NOT_OFFSET))


def const_bits(bits) -> np.ndarray:
    """Constant literals: 0/1 values (any shape, e.g. ``np.unpackbits(...)``) → BIT0/BIT1."""
    return np.where(np.asarray(bits) != 0, BIT1, BIT0).astype(np.int64)


_ALL_COLS = np.arange(32)  # column indices of a whole (k, ≤ 32) block


def _no_constant(*kinds: np.ndarray) -> bool:
    """No column of these (m,) kind arrays is a constant: every ch/maj column is the general
    case (the common one once variables fill the words), so the case analysis can be skipped."""
    return bool((np.bitwise_or.reduce(kinds) <= NEG).all())


def _column_kinds(lits: np.ndarray, what: str) -> np.ndarray:
    """Kinds of a (k, n) literal block, checked to be the same in every row; (n,) int8."""
    kd = literal_kinds(lits)
    if kd.shape[0] and not (kd == kd[:1]).all():
        raise ValueError(
            f"{what}: the kind of a bit (variable / negated / constant 0 / constant 1) must be "
            "the same in all k instances (it is part of the circuit shape)"
        )
    return kd[0] if kd.shape[0] else np.zeros(lits.shape[1:], dtype=np.int8)


def literal_values(cs: ConstraintSystem, lits) -> np.ndarray:
    """Values of bit literals in a system with a witness (host numpy).

    Args:
        lits: int array of literals, any shape.

    Returns:
        uint8 array of lits' shape, 0/1.

    Raises:
        RuntimeError: no witness. ValueError: a referenced variable is not 0 or 1.
    """
    x = np.asarray(lits, dtype=np.int64)
    flat = x.reshape(-1)
    kd = literal_kinds(flat)
    out = (kd == C1).astype(np.uint8)
    var = kd <= NEG
    if var.any():
        v = cs.value(_base(flat[var]), dtype=np.uint64)
        if v.shape[0] and v.max() > 1:
            raise ValueError("literal_values: a referenced variable is not boolean")
        out[var] = v.astype(np.uint8) ^ (kd[var] == NEG).astype(np.uint8)
    return out.reshape(x.shape)


# --------------------------------------------------------------------------------------------
# bit blocks and words
# --------------------------------------------------------------------------------------------


def _kinds_of(l: np.ndarray) -> np.ndarray:
    """Column kinds of a (k, m) literal block (uniform over k, so row 0 decides): (m,) int8."""
    return literal_kinds(l[:1])[0] if l.shape[0] else np.full(l.shape[1], C0, np.int8)


class _Lits:
    """A (k, m) block of literals ``l`` (numpy int64, column kinds uniform over k), their values
    ``v`` in witness mode (None otherwise), and ``kd``: the (m,) int8 column kinds, given or
    computed once on first use (blocks are rotated, split and recombined often)."""

    __slots__ = ("l", "v", "_kd")

    def __init__(self, l, v, kd=None):
        self.l = l
        self.v = v
        self._kd = kd

    @property
    def kd(self) -> np.ndarray:
        if self._kd is None:
            self._kd = _kinds_of(self.l)
        return self._kd


class _Bits(_Lits):
    """Bits: ``v`` (k, m) uint32 0/1 values on xp."""

    __slots__ = ()


class _Word(_Lits):
    """A uint32 word: ``l`` (k, 32) literals, little-endian (column i has weight 2^i, as bellman's
    UInt32), ``v`` (k,) uint32 values on xp (None without witness)."""

    __slots__ = ("_terms",)

    def __init__(self, l, v, kd=None):
        super().__init__(l, v, kd)
        self._terms = None

    def is_const(self) -> bool:
        """All 32 bits are constants (no variable, no negation)."""
        return bool((self.kd >= C0).all())

    def terms(self):
        """(refs (k, m), coefficients (m,) ints, constant int): the word as Σ c·ref + constant."""
        if self._terms is None:
            kd = self.kd
            cols = np.flatnonzero(kd <= NEG)
            refs = _base(self.l[:, cols])
            coeffs = tuple(_POW2_32[i] if kd[i] == VAR else -_POW2_32[i] for i in cols)
            const = sum(_POW2_32[i] for i in range(32) if kd[i] in (NEG, C1))
            self._terms = (refs, coeffs, const)
        return self._terms


BIT_LOOP_LANES = 64
"""Lanes of a word op's bit loop per instance (upstream order, ``cuzk.r1cs.order``): 32 bits,
two lanes each (:func:`bit_lanes`)."""


def bit_lanes(k: int, pos, slot: int = 0) -> np.ndarray:
    """Upstream order (``cuzk.r1cs.order``): the bit-loop lane of each element of a
    (k, len(pos)) block (C order) whose columns are the word's bits ``pos`` (bellman's UInt32
    ops run bit by bit); each bit has two lanes, ``slot`` 0 and 1, for a bit whose calls come
    in another order than ours (maj's b ∧ c after maj). ``(k · len(pos),)`` int64."""
    return ((np.arange(k)[:, None] * 32 + np.asarray(pos)[None, :]) * 2 + slot).reshape(-1)


def bit_loop_name(gadget: str, what: str) -> str:
    """The name of a word op's bit loop (``cs.instances``), for errors."""
    return f"{gadget}/{what} bits"


class _Sha:
    """The gadget's steps for one call (k instances) on one constraint system."""

    def __init__(self, cs: ConstraintSystem, k: int, gadget: str):
        self.cs, self.k, self.g = cs, k, gadget
        self.xp = cs.xp
        self.wit = cs.has_values
        self.meq: MultiEq | None = None
        if self.wit:
            self._sh32 = self.xp.arange(32, dtype=np.uint32)

    # --- helpers -----------------------------------------------------------------------------

    def _u32(self, mask) -> object:
        """(m,) bool/int host array → xp uint32 (for xor-ing negation flags into values)."""
        return self.xp.asarray(np.asarray(mask).astype(np.uint32))

    def _expr(self, n: int, terms) -> LC:
        """Σ coeff·literal over n rows; terms: (literals (n,), kind, coeff) with one kind per
        term: VAR → coeff·v, NEG → coeff·(1 − v), C1 → coeff, C0 → nothing. Constants are folded
        into one ONE term."""
        const, out = 0, LC.zero()
        for lits, kind, c in terms:
            if kind == C1:
                const += c
            elif kind == NEG:
                const += c
                out = out + lc(lits - NOT_OFFSET, -c)
            elif kind == VAR:
                out = out + lc(lits, c)
        if const % R:
            out = lc(self.cs.one(n), const) + out
        return out

    @staticmethod
    def _groups(*kinds):
        """Columns grouped by their operands' kinds: yields (kinds tuple, column indices)."""
        sig = np.stack(kinds, axis=1)
        uniq, inv = np.unique(sig, axis=0, return_inverse=True)
        inv = inv.reshape(-1)
        for g, row in enumerate(uniq):
            yield tuple(int(x) for x in row), np.flatnonzero(inv == g)

    def _alloc(self, m: int, vals, lanes=None) -> np.ndarray:
        return self.cs.alloc_aux((self.k, m), vals if self.wit else None, lanes=lanes)

    def _lanes(self, pos, slot: int = 0) -> np.ndarray | None:
        """:func:`bit_lanes` of a (k, len(pos)) block in upstream's order, else None."""
        return bit_lanes(self.k, pos, slot) if self.cs.upstream_order else None

    def _bit_loop(self, what: str):
        """The loop over the 32 bits (two lanes each) of a word op, for all k instances."""
        return self.cs.instances(self.k * BIT_LOOP_LANES, bit_loop_name(self.g, what))

    def _sub(self, b: _Bits, cols) -> _Bits:
        return _Bits(b.l[:, cols], b.v[:, cols] if self.wit else None)

    @staticmethod
    def _kinds(b: _Bits) -> np.ndarray:
        return b.kd

    def _pick(self, sources, src, neg) -> _Bits:
        """Column j from sources[src[j]] (all (k, m) blocks), negated where neg[j]."""
        m = src.shape[0]
        lits = np.empty((self.k, m), dtype=np.int64)
        vals = self.xp.empty((self.k, m), dtype=np.uint32) if self.wit else None
        for i, s in enumerate(sources):
            cols = np.flatnonzero(src == i)
            if cols.shape[0]:
                lits[:, cols] = s.l[:, cols]
                if self.wit:
                    vals[:, cols] = s.v[:, cols]
        lits = np.where(neg, bit_not(lits), lits)
        if self.wit:
            vals = vals ^ self._u32(neg)
        return _Bits(lits, vals)

    # --- boolean gadgets on (k, m) blocks ------------------------------------------------------

    def xor(self, x: _Bits, y: _Bits) -> _Bits:
        """Bitwise xor; per column: constant operand → the other literal (negated for 1), free;
        else one new bit c and one constraint (2a)·b = a + b − c on the underlying variables
        (negations cancel in pairs: the result literal is NOT c if exactly one is negated)."""
        kx, ky = self._kinds(x), self._kinds(y)
        vx = (x.v ^ y.v) if self.wit else None  # the result's values, whatever the case
        cx = kx >= C0
        cy = (ky >= C0) & ~cx
        if not (cx.any() or cy.any()):
            # every column allocates (the common case once variables fill the words): no
            # column selection, and the result kinds follow from the negations
            flip = (kx == NEG) ^ (ky == NEG)
            anyflip = bool(flip.any())
            c = self._alloc(kx.shape[0], (vx ^ self._u32(flip)) if (self.wit and anyflip) else vx)
            self._xor_rows(x.l, y.l, c)
            out = np.where(flip, c + NOT_OFFSET, c) if anyflip else c
            return _Bits(out, vx, flip.astype(np.int8))  # VAR = 0, NEG = 1
        out = np.empty_like(x.l)
        if cx.any():
            out[:, cx] = np.where(kx[cx] == C1, bit_not(y.l[:, cx]), y.l[:, cx])
        if cy.any():
            out[:, cy] = np.where(ky[cy] == C1, bit_not(x.l[:, cy]), x.l[:, cy])
        gi = np.flatnonzero(~cx & (ky < C0))
        if gi.shape[0]:
            flip = (kx[gi] == NEG) ^ (ky[gi] == NEG)
            c = self._alloc(gi.shape[0], (vx[:, gi] ^ self._u32(flip)) if self.wit else None)
            self._xor_rows(x.l[:, gi], y.l[:, gi], c)
            out[:, gi] = np.where(flip, c + NOT_OFFSET, c)
        return _Bits(out, vx)

    def _xor_rows(self, xl: np.ndarray, yl: np.ndarray, c: np.ndarray) -> None:
        """xor's constraints (2a)·b = a + b − c for (k, m) operand literals (variables or
        negations) and their new bits c."""
        n = c.size

        def rows():
            a, b = _base(xl), _base(yl)
            # bellperson's Boolean::xor puts the plain variable of (Not, Is) first (2a in A)
            sw = (xl != a) & (yl == b)
            if sw.any():
                a, b = np.where(sw, b, a), np.where(sw, a, b)
            # C row sorted by final column (c is the newest variable): keeps enforce's fast path
            swap = col_key(a) > col_key(b)
            abc = np.stack([np.where(swap, b, a), np.where(swap, a, b), c], axis=-1).reshape(n, 3)
            yield lc(a.reshape(n), 2), lc(b.reshape(n)), lc(abc, (1, 1, -1))

        self.cs.enforce_lazy(n, rows, gadget=f"{self.g}/xor")

    def and_(self, x: _Bits, y: _Bits, pos=None, slot: int = 0) -> _Bits:
        """Bitwise and (bellman's Boolean::and): a constant 0 → 0, a constant 1 → the other
        literal; else one new bit r and one constraint lc(x)·lc(y) = r (and / and_not / nor).
        ``pos``, ``slot``: the word bit of each column and its lane for the new bit
        (:meth:`_lanes`), default bits 0, 1, …, lane 0."""
        kx, ky = self._kinds(x), self._kinds(y)
        pos = np.arange(kx.shape[0]) if pos is None else np.asarray(pos)
        out = np.empty_like(x.l)
        zero = (kx == C0) | (ky == C0)
        xone = (kx == C1) & ~zero
        yone = (ky == C1) & ~zero & ~xone
        out[:, zero] = BIT0
        out[:, xone] = y.l[:, xone]
        out[:, yone] = x.l[:, yone]
        gi = np.flatnonzero((kx <= NEG) & (ky <= NEG))
        if gi.shape[0]:
            vals = (x.v[:, gi] & y.v[:, gi]) if self.wit else None
            r = self._alloc(gi.shape[0], vals, self._lanes(pos[gi], slot))
            out[:, gi] = r

            def rows():
                xl, yl = x.l[:, gi], y.l[:, gi]
                for (ka, kb), cols in self._groups(kx[gi], ky[gi]):
                    n = self.k * cols.shape[0]
                    xs, ys = xl[:, cols].reshape(n), yl[:, cols].reshape(n)
                    if ka == NEG and kb == VAR:  # bellperson: and_not(is, not), the variable in A
                        xs, ys, ka, kb = ys, xs, kb, ka
                    yield (self._expr(n, [(xs, ka, 1)]), self._expr(n, [(ys, kb, 1)]),
                           lc(r[:, cols].reshape(n)), self._lanes(pos[gi][cols]))

            self.cs.enforce_lazy(r.size, rows, gadget=f"{self.g}/and")
        return _Bits(out, (x.v & y.v) if self.wit else None)

    def _via_and(self, cases, table, srcs, out):
        """Columns whose case is in ``table`` (case → (x source, x negated, y source, y negated,
        result negated)) become and(x, y), possibly negated."""
        sel = np.flatnonzero(np.isin(cases, list(table)))
        if not sel.shape[0]:
            return
        rows = np.array([table[int(c)] for c in cases[sel]], dtype=np.int64).reshape(-1, 5)
        sub = [self._sub(s, sel) for s in srcs]
        xb = self._pick(sub, rows[:, 0], rows[:, 1].astype(bool))
        yb = self._pick(sub, rows[:, 2], rows[:, 3].astype(bool))
        r = self.and_(xb, yb, pos=sel)
        out[:, sel] = np.where(rows[:, 4].astype(bool), bit_not(r.l), r.l)

    def ch(self, a: _Bits, b: _Bits, c: _Bits) -> _Bits:
        """(a ∧ b) ⊕ (¬a ∧ c), bellman's Boolean::sha256_ch: constant cases reduce to a literal
        or one ``and``; otherwise one new bit and one constraint (b − c)·a = ch − c."""
        with self._bit_loop("ch"):
            return self._ch(a, b, c)

    def _ch(self, a: _Bits, b: _Bits, c: _Bits) -> _Bits:
        ka, kb, kc = self._kinds(a), self._kinds(b), self._kinds(c)
        out = np.empty_like(a.l)
        if _no_constant(ka, kb, kc):
            gi = _ALL_COLS[: ka.shape[0]]
        else:
            allc = (ka >= C0) & (kb >= C0) & (kc >= C0)
            # bellman's match order; 0 = general (a constant 1 included, as in bellman)
            cases = np.select([allc, ka == C0, kb == C0, kc == C0, kc == C1, kb == C1],
                              [1, 2, 3, 4, 5, 6], default=0)
            if (cases == 1).any():
                s = cases == 1
                va, vb, vc = ka[s] == C1, kb[s] == C1, kc[s] == C1
                out[:, s] = np.where((va & vb) ^ (~va & vc), BIT1, BIT0)
            out[:, cases == 2] = c.l[:, cases == 2]
            # sources 0 = a, 1 = b, 2 = c
            table = {3: (0, 1, 2, 0, 0),   # ¬a ∧ c
                     4: (0, 0, 1, 0, 0),   # a ∧ b
                     5: (0, 0, 1, 1, 1),   # ¬(a ∧ ¬b)
                     6: (0, 1, 2, 1, 1)}   # ¬(¬a ∧ ¬c)
            self._via_and(cases, table, (a, b, c), out)
            gi = np.flatnonzero(cases == 0)
        if gi.shape[0]:
            vals = None
            if self.wit:
                av, bv, cv = a.v[:, gi], b.v[:, gi], c.v[:, gi]
                vals = (av & bv) ^ ((av ^ np.uint32(1)) & cv)
            h = self._alloc(gi.shape[0], vals, self._lanes(gi))
            out[:, gi] = h

            def rows():
                al, bl, cl = a.l[:, gi], b.l[:, gi], c.l[:, gi]
                for (xa, xb, xc), cols in self._groups(ka[gi], kb[gi], kc[gi]):
                    n = self.k * cols.shape[0]
                    la, lb, lcc = (z[:, cols].reshape(n) for z in (al, bl, cl))
                    # terms listed oldest variable first (g before f, ch last): rows usually sorted
                    yield (self._expr(n, [(lcc, xc, -1), (lb, xb, 1)]),
                           self._expr(n, [(la, xa, 1)]),
                           self._expr(n, [(lcc, xc, -1), (h[:, cols].reshape(n), VAR, 1)]),
                           self._lanes(gi[cols]))

            self.cs.enforce_lazy(h.size, rows, gadget=f"{self.g}/ch")
        vals = None
        if self.wit:
            vals = (a.v & b.v) ^ ((a.v ^ np.uint32(1)) & c.v)
        return _Bits(out, vals)

    def maj(self, a: _Bits, b: _Bits, c: _Bits) -> _Bits:
        """(a ∧ b) ⊕ (a ∧ c) ⊕ (b ∧ c), bellman's Boolean::sha256_maj: constant cases reduce to
        one ``and``; otherwise two new bits and two constraints b·c = bc, (2bc − b − c)·a = bc − maj
        (bellman allocates maj before bc: lane 1 of the bit puts our bc after it)."""
        with self._bit_loop("maj"):
            return self._maj(a, b, c)

    def _maj(self, a: _Bits, b: _Bits, c: _Bits) -> _Bits:
        ka, kb, kc = self._kinds(a), self._kinds(b), self._kinds(c)
        out = np.empty_like(a.l)
        if _no_constant(ka, kb, kc):
            gi = _ALL_COLS[: ka.shape[0]]
        else:
            allc = (ka >= C0) & (kb >= C0) & (kc >= C0)
            cases = np.select([allc, ka == C0, kb == C0, kc == C0, kc == C1, kb == C1, ka == C1],
                              [1, 2, 3, 4, 5, 6, 7], default=0)
            if (cases == 1).any():
                s = cases == 1
                va, vb, vc = ka[s] == C1, kb[s] == C1, kc[s] == C1
                out[:, s] = np.where((va & vb) ^ (va & vc) ^ (vb & vc), BIT1, BIT0)
            table = {2: (1, 0, 2, 0, 0),   # b ∧ c
                     3: (0, 0, 2, 0, 0),   # a ∧ c
                     4: (0, 0, 1, 0, 0),   # a ∧ b
                     5: (0, 1, 1, 1, 1),   # ¬(¬a ∧ ¬b)
                     6: (0, 1, 2, 1, 1),   # ¬(¬a ∧ ¬c)
                     7: (1, 1, 2, 1, 1)}   # ¬(¬b ∧ ¬c)
            self._via_and(cases, table, (a, b, c), out)
            gi = np.flatnonzero(cases == 0)
        if gi.shape[0]:
            sa, sb, sc = self._sub(a, gi), self._sub(b, gi), self._sub(c, gi)
            bc = self.and_(sb, sc, pos=gi, slot=1)  # b, c are variables or negations here: allocates
            vals = None
            if self.wit:
                vals = (sa.v & sb.v) ^ (sa.v & sc.v) ^ (sb.v & sc.v)
            mj = self._alloc(gi.shape[0], vals, self._lanes(gi))
            out[:, gi] = mj

            def rows():
                for (xa, xb, xc), cols in self._groups(ka[gi], kb[gi], kc[gi]):
                    n = self.k * cols.shape[0]
                    la, lb, lcc = (z.l[:, cols].reshape(n) for z in (sa, sb, sc))
                    lbc = bc.l[:, cols].reshape(n)
                    yield (self._expr(n, [(lcc, xc, -1), (lb, xb, -1), (lbc, VAR, 2)]),
                           self._expr(n, [(la, xa, 1)]),
                           self._expr(n, [(lbc, VAR, 1), (mj[:, cols].reshape(n), VAR, -1)]),
                           self._lanes(gi[cols], 1))

            self.cs.enforce_lazy(mj.size, rows, gadget=f"{self.g}/maj")
        vals = None
        if self.wit:
            vals = (a.v & b.v) ^ (a.v & c.v) ^ (b.v & c.v)
        return _Bits(out, vals)

    # --- words -------------------------------------------------------------------------------

    def bits(self, w: _Word) -> _Bits:
        vals = ((w.v[:, None] >> self._sh32) & np.uint32(1)) if self.wit else None
        return _Bits(w.l, vals, w.kd)

    def word(self, b: _Bits) -> _Word:
        vals = (b.v << self._sh32).sum(axis=1, dtype=np.uint32) if self.wit else None
        return _Word(b.l, vals, b._kd)

    def const_word(self, value: int) -> _Word:
        lits = np.broadcast_to(const_bits([(value >> i) & 1 for i in range(32)]), (self.k, 32))
        vals = self.xp.full(self.k, value, dtype=np.uint32) if self.wit else None
        return _Word(np.ascontiguousarray(lits), vals)

    def rotr(self, w: _Word, n: int) -> _Word:
        """Rotate right: new bit i = old bit (i + n) mod 32 (free)."""
        idx = _ROTR_IDX[n % 32]
        vals = ((w.v >> np.uint32(n)) | (w.v << np.uint32(32 - n))) if self.wit else None
        return _Word(w.l[:, idx], vals, w.kd[idx])

    def shr(self, w: _Word, n: int) -> _Word:
        """Shift right: new bit i = old bit i + n, constant 0 above (free)."""
        lits = np.concatenate([w.l[:, n:], np.full((self.k, n), BIT0, dtype=np.int64)], axis=1)
        kd = np.concatenate([w.kd[n:], np.full(n, C0, np.int8)])
        return _Word(lits, (w.v >> np.uint32(n)) if self.wit else None, kd)

    def xor3(self, x: _Word, y: _Word, z: _Word) -> _Word:
        return self.word(self.xor(self.xor(self.bits(x), self.bits(y)), self.bits(z)))

    def add(self, ops: list) -> _Word:
        """Sum mod 2^32 (bellman's UInt32::addmany): all-constant operands give a constant word;
        otherwise nbits = bit length of len(ops)·(2^32 − 1) new bits (sum, then carries) with
        booleanity, and the equality Σ operands = Σ 2^j·bits_j deferred into the MultiEq."""
        if all(o.is_const() for o in ops):
            total = sum(o.terms()[2] for o in ops) & _MASK32
            return self.const_word(total)
        nbits = (len(ops) * _MASK32).bit_length()
        vals = total = None
        if self.wit:
            total = ops[0].v.astype(np.uint64)
            for o in ops[1:]:
                total = total + o.v.astype(np.uint64)
            vals = (total[:, None] >> self.xp.arange(nbits, dtype=np.uint64)) & np.uint64(1)
        out = self._alloc(nbits, vals)
        boolean(self.cs, out, gadget=f"{self.g}/add_bits")
        self.meq.enforce_equal(nbits, ops, out)
        return _Word(out[:, :32], (total & np.uint64(_MASK32)).astype(np.uint32) if self.wit else None)

    # --- the compression function ------------------------------------------------------------

    def compress(self, H: list, W: list) -> list:
        """FIPS 180-4 6.2.2 steps 1–4 on words, in bellman's order (schedule, then rounds with
        the e and a additions deferred to where they are used, then the final additions).

        A witness-only system (numpy) takes :class:`_WordWitness`, which allocates the same
        variables with the same values (in upstream's order too: it replays the calls)."""
        if WORD_WITNESS and self.wit and not self.cs.has_shape and self.xp is np and self.k:
            return _WordWitness(self).compress(H, W)
        self.meq = MultiEq(self.cs, self.k, f"{self.g}/add")
        out = _compress_steps(self, H, W)
        self.meq.flush()
        self.meq = None
        return out

    def ch_words(self, e: _Word, f: _Word, g: _Word) -> _Word:
        return self.word(self.ch(self.bits(e), self.bits(f), self.bits(g)))

    def maj_words(self, a: _Word, b: _Word, c: _Word) -> _Word:
        return self.word(self.maj(self.bits(a), self.bits(b), self.bits(c)))

    # --- conversions -------------------------------------------------------------------------

    def words_from_be(self, lits: np.ndarray, what: str) -> list:
        """(k, 32·n) big-endian literal bits → n words (values gathered in witness mode)."""
        _column_kinds(lits, what)
        n = lits.shape[1] // 32
        le = lits.reshape(self.k, n, 32)[:, :, ::-1]
        vals = None
        if self.wit:
            try:
                bits = self.xp.asarray(literal_values(self.cs, le).astype(np.uint32))
            except ValueError as exc:
                raise ValueError(f"{what}: {exc}") from None
            vals = (bits << self._sh32).sum(axis=2, dtype=np.uint32)
        return [_Word(np.ascontiguousarray(le[:, j]), vals[:, j] if self.wit else None)
                for j in range(n)]

    def iv_words(self) -> list:
        return [self.const_word(v) for v in IV]

    @staticmethod
    def be_from_words(words: list) -> np.ndarray:
        """n words → (k, n, 32) big-endian literal bits."""
        return np.stack([w.l[:, ::-1] for w in words], axis=1)


def _compress_steps(sha, H: list, W: list) -> list:
    """FIPS 180-4 6.2.2 steps 1–4 in bellman's order (schedule, then rounds with the e and a
    additions deferred to where they are used, then the final additions), on the words of
    ``sha`` (:class:`_Sha`'s literal words, or :class:`_WordWitness`'s values): its ``xor3``,
    ``rotr``, ``shr``, ``add`` (of a list of words), ``ch_words``, ``maj_words``, ``const_word``."""
    w = list(W)
    for i in range(16, 64):
        x = w[i - 15]
        s0 = sha.xor3(sha.rotr(x, 7), sha.rotr(x, 18), sha.shr(x, 3))
        x = w[i - 2]
        s1 = sha.xor3(sha.rotr(x, 17), sha.rotr(x, 19), sha.shr(x, 10))
        w.append(sha.add([w[i - 16], s0, w[i - 7], s1]))
    a, b, c, d, e, f, g, h = H
    for i in range(64):
        ne = sha.add(e) if isinstance(e, list) else e
        s1 = sha.xor3(sha.rotr(ne, 6), sha.rotr(ne, 11), sha.rotr(ne, 25))
        ch = sha.ch_words(ne, f, g)
        temp1 = [h, s1, ch, sha.const_word(K[i]), w[i]]
        na = sha.add(a) if isinstance(a, list) else a
        s0 = sha.xor3(sha.rotr(na, 2), sha.rotr(na, 13), sha.rotr(na, 22))
        mj = sha.maj_words(na, b, c)
        h, g, f = g, f, ne
        e = temp1 + [d]
        d, c, b = c, b, na
        a = temp1 + [s0, mj]
    return [sha.add(a + [H[0]]), sha.add([H[1], b]), sha.add([H[2], c]), sha.add([H[3], d]),
            sha.add(e + [H[4]]), sha.add([H[5], f]), sha.add([H[6], g]), sha.add([H[7], h])]


WORD_WITNESS = True
"""Whether witness-only compressions take :class:`_WordWitness` (tests turn it off to compare
with the bit-level gadget)."""


class _WVal:
    """A word of :class:`_WordWitness`: ``v`` (k,) uint64 literal values (< 2^32); ``c`` and
    ``n``: 32-bit masks of its constant and negated columns (uniform over k, as the literals'
    kinds are); a constant column's value is its bit of ``v``."""

    __slots__ = ("v", "c", "n", "start", "nbits")

    def __init__(self, v, c: int = 0, n: int = 0):
        self.v, self.c, self.n = v, c, n
        self.start = self.nbits = 0   # an addition's result: where its bits are, how many


_POW2_I64 = np.left_shift(1, np.arange(32, dtype=np.int64))
_U64 = tuple(np.uint64(i) for i in range(33))   # shift counts as numpy scalars, made once
_U64_MASK32 = np.uint64(_MASK32)


def _rot_mask(m: int, n: int) -> int:
    return ((m >> n) | (m << (32 - n))) & _MASK32


class _WordWitness:
    """The compression of :meth:`_Sha.compress` in a witness-only system, on whole words: the
    same variables in the same order with the same values (each new variable is a bit of a word
    computed here: xor's new bits are those of x ⊕ y, ch's, maj's and the additions' likewise),
    and the same constraint count, without the literal arrays and the per-bit values the
    bit-level gadget carries (which only a recording system needs). The k·(variables) bits of
    one compression are expanded from the words in one gather and appended at once.

    State and message words may hold constants and negations: xor, ch and maj follow the
    bit-level gadget's per-column cases on column masks (a column with a constant operand is
    free or an ``and``; its literal is the other operand's, negated for a constant 1).
    """

    _plans: dict = {}   # _plan's and _replay's, by key: a few per circuit
    _MAX_PLANS = 128

    def __init__(self, sha: _Sha):
        self.sha, self.k = sha, sha.k
        self.vals: list = []    # per new block of variables: its words' values (k,) uint64
        self.masks: list = []   # and the columns that are new variables
        self.size = 0           # variables so far
        self.meq_bits = 0
        self.flushes = 0
        self.tags: list = []    # per block: None, or (first block, op, lane slot) of a ch/maj bit loop
        self._loop = None       # (first block, op) while ch_words or maj_words runs

    def _alloc(self, v, mask: int, slot: int = 0) -> int:
        self.vals.append(v)
        self.masks.append(mask)
        self.tags.append(None if self._loop is None else self._loop + (slot,))
        start = self.size
        self.size += self.k * mask.bit_count()
        return start

    @staticmethod
    def from_word(w: _Word) -> _WVal:
        kd = w.kd
        return _WVal(w.v.astype(np.uint64), int((kd >= C0) @ _POW2_I64), int((kd == NEG) @ _POW2_I64))

    def xor(self, x: _WVal, y: _WVal) -> _WVal:
        v = x.v ^ y.v
        new = ~(x.c | y.c) & _MASK32
        if new:
            flip = (x.n ^ y.n) & new   # a new bit is the xor of the underlying variables
            self._alloc(v ^ np.uint64(flip) if flip else v, new)
        c = x.c & y.c
        ones = (int(x.v[0]) & x.c) ^ (int(y.v[0]) & y.c)   # a constant 1 operand negates the other
        return _WVal(v, c, (x.n ^ y.n ^ ones) & ~c & _MASK32)

    def xor3(self, x: _WVal, y: _WVal, z: _WVal) -> _WVal:
        return self.xor(self.xor(x, y), z)

    @staticmethod
    def rotr(w: _WVal, n: int) -> _WVal:
        v = ((w.v >> _U64[n]) | (w.v << _U64[32 - n])) & _U64_MASK32
        return _WVal(v, _rot_mask(w.c, n), _rot_mask(w.n, n))

    @staticmethod
    def shr(w: _WVal, n: int) -> _WVal:
        return _WVal(w.v >> _U64[n], (w.c >> n) | (((1 << n) - 1) << (32 - n)), w.n >> n)

    def add(self, ops: list) -> _WVal:
        if all(o.c == _MASK32 for o in ops):
            return _WVal(np.full(self.k, sum(int(o.v[0]) for o in ops) & _MASK32, dtype=np.uint64), _MASK32)
        nbits = (len(ops) * _MASK32).bit_length()
        total = ops[0].v
        for o in ops[1:]:
            total = total + o.v
        start = self._alloc(total, (1 << nbits) - 1)
        if CAPACITY <= self.meq_bits + nbits:   # MultiEq's flush points
            self.flushes += 1
            self.meq_bits = 0
        self.meq_bits += nbits
        out = _WVal(total & _U64_MASK32)
        out.start, out.nbits = start, nbits
        return out

    @staticmethod
    def _lit(w: _WVal, neg: bool) -> tuple:
        """An operand of an and: (literal values, constant mask, constant-0 mask), negated."""
        one = int(w.v[0]) & w.c
        if neg:
            return w.v ^ _U64_MASK32, w.c, one
        return w.v, w.c, w.c & ~one

    def _via_and(self, cases: list) -> int:
        """:meth:`_Sha._via_and` (one ``and_`` over the columns of every case): ``cases`` as
        (column mask, (x word, x negated), (y word, y negated)); a column is a new bit when
        neither picked operand is a constant. Returns the mask of constant results."""
        new, const, v = 0, 0, None
        for mask, x, y in cases:
            if not mask:
                continue
            xv, xc, x0 = self._lit(*x)
            yv, yc, y0 = self._lit(*y)
            m = mask & ~xc & ~yc
            if m:
                part = xv & yv & np.uint64(m)
                v = part if v is None else v | part
                new |= m
            const |= mask & ((xc & yc) | x0 | y0)
        if new:
            self._alloc(v, new)
        return const

    @staticmethod
    def _cases(a: _WVal, b: _WVal, c: _WVal, order: tuple) -> tuple:
        """Column masks of bellman's case analysis: all three constant, then one mask per
        (operand, constant value) test of ``order`` in turn, then the rest (general)."""
        words = (a, b, c)
        allc = a.c & b.c & c.c
        rest = _MASK32 & ~allc
        out = []
        for i, bit in order:
            w = words[i]
            one = int(w.v[0]) & w.c
            m = rest & (one if bit else w.c & ~one)
            out.append(m)
            rest &= ~m
        return allc, out, rest

    # Outputs of ch and maj are only added (temp1, a): their values and constant columns count,
    # their negations do not (n = 0).
    def ch_words(self, a: _WVal, b: _WVal, c: _WVal) -> _WVal:
        """:meth:`_Sha.ch`: cases a = 0, b = 0, c = 0, c = 1, b = 1 (bellman's order)."""
        allc, (c2, c3, c4, c5, c6), gen = self._cases(a, b, c, ((0, 0), (1, 0), (2, 0), (2, 1), (1, 1)))
        self._loop = (len(self.tags), "ch")
        const = allc | (c2 & c.c) | self._via_and([
            (c3, (a, True), (c, False)), (c4, (a, False), (b, False)),
            (c5, (a, False), (b, True)), (c6, (a, True), (c, True))])
        v = (a.v & b.v) ^ (~a.v & _U64_MASK32 & c.v)
        if gen:
            self._alloc(v, gen)
        self._loop = None
        return _WVal(v, const)

    def maj_words(self, a: _WVal, b: _WVal, c: _WVal) -> _WVal:
        """:meth:`_Sha.maj`: cases a = 0, b = 0, c = 0, c = 1, b = 1, a = 1; the general
        columns allocate b ∧ c, then maj."""
        allc, (c2, c3, c4, c5, c6, c7), gen = self._cases(
            a, b, c, ((0, 0), (1, 0), (2, 0), (2, 1), (1, 1), (0, 1)))
        self._loop = (len(self.tags), "maj")
        const = allc | self._via_and([
            (c2, (b, False), (c, False)), (c3, (a, False), (c, False)), (c4, (a, False), (b, False)),
            (c5, (a, True), (b, True)), (c6, (a, True), (c, True)), (c7, (b, True), (c, True))])
        bc = b.v & c.v
        v = (a.v & b.v) ^ (a.v & c.v) ^ bc
        if gen:
            self._alloc(bc, gen, slot=1)   # bellman allocates maj first: lane 1 puts bc after it
            self._alloc(v, gen)
        self._loop = None
        return _WVal(v, const)

    def const_word(self, value: int) -> _WVal:
        return _WVal(np.full(self.k, value, dtype=np.uint64), _MASK32)

    def compress(self, H: list, W: list) -> list:
        """:meth:`_Sha.compress` on words; returns its 8 words (plain variables). Through
        :func:`cuzk.r1cs.sha_calls.compress` (recorded, or computed elsewhere)."""
        return sha_calls.compress(self, [self.from_word(x) for x in H], [self.from_word(x) for x in W], _Word)

    def _compress(self, hw: list, ww: list) -> list:   # the computation itself
        out = _compress_steps(self, hw, ww)
        if self.meq_bits:
            self.flushes += 1
        return self._commit(out, hw, ww)

    def _plan(self) -> np.ndarray:
        """Where each new bit is among the bits of the words (``(k, nwords)`` uint64 unpacked
        little-endian: 64 per word), in allocation order; cached per (k, column masks)."""
        return self._cached((self.k, tuple(self.masks)), self._make_plan)

    def _cached(self, key, make):
        """``make()`` for key, from the class's cache (cleared when full)."""
        got = self._plans.get(key)
        if got is None:
            if len(self._plans) >= self._MAX_PLANS:
                self._plans.clear()
            got = self._plans[key] = make()
        return got

    def _make_plan(self) -> np.ndarray:
        nw, idx = len(self.masks), []
        inst = np.arange(self.k, dtype=np.int64)[:, None] * (64 * nw)
        for j, m in enumerate(self.masks):
            cols = np.flatnonzero((m >> np.arange(m.bit_length())) & 1)
            idx.append((inst + (64 * j + cols)).reshape(-1))
        plan = np.concatenate(idx)
        if 64 * nw * self.k < 1 << 31:
            plan = plan.astype(np.int32)   # half the memory of the cached plans
        return plan

    def _replay(self) -> Replay:
        """:meth:`_calls` closed once per (k, column masks, loop tags, gadget name)."""
        return self._cached((self.k, tuple(self.masks), tuple(self.tags), self.sha.g), lambda: Replay(self._calls()))

    def _calls(self) -> list:
        """The bit-level gadget's allocation calls that the block stands for, grouped by the ch
        and maj bit loops (``cuzk.r1cs.order.OrderTracker.replay``): upstream's order."""
        groups, last = [], None
        for mask, tag in zip(self.masks, self.tags):
            m = self.k * mask.bit_count()
            if tag is None:
                groups.append((None, "", [(m, None)]))
                last = None
                continue
            cols = np.flatnonzero((mask >> np.arange(32)) & 1)
            if tag[:2] != last:
                groups.append((self.k * BIT_LOOP_LANES, bit_loop_name(self.sha.g, tag[1]), []))
                last = tag[:2]
            groups[-1][2].append((m, bit_lanes(self.k, cols, tag[2])))
        return groups

    def _commit(self, out: list, hw: list, ww: list) -> list:
        """Append every new bit (one block), count the constraints, record the call, return the words."""
        base = self.sha.cs.num_aux
        if self.vals:
            vals = np.stack(self.vals, axis=1).astype("<u8", copy=False)
            bits = np.unpackbits(vals.view(np.uint8), bitorder="little")
            self.sha.cs.alloc_aux_block(self.size, bits[self._plan()], calls=self._replay)
        # one constraint per new bit (xor, ch, and, maj; an addition's booleanity) and the
        # additions' packed equalities, k rows a flush
        self.sha.cs.enforce_lazy(self.size + self.k * self.flushes, lambda: (), gadget=f"{self.sha.g}/add")
        inst = np.arange(self.k, dtype=np.int64)[:, None]
        cols = np.arange(32, dtype=np.int64)
        words = []
        for o in out:
            if o.c:   # an addition of constants (a constant state and block): a constant word
                words.append(self.sha.const_word(int(o.v[0])))
            else:
                words.append(_Word(inst * o.nbits + (base + o.start + cols), o.v.astype(np.uint32),
                                   np.zeros(32, dtype=np.int8)))
        sha_calls.recorded(sha_calls.Compression(base, self.size, self.k, hw, ww, [o.v for o in out]))
        return words


# --------------------------------------------------------------------------------------------
# public gadgets
# --------------------------------------------------------------------------------------------


def _as_lits(x, k: int | None, width: int, what: str) -> np.ndarray:
    arr = np.asarray(x)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{what}: bit literals must be an integer array, got dtype {arr.dtype}")
    arr = arr.astype(np.int64, copy=False)
    if arr.ndim < 1 or (k is not None and arr.shape[0] != k):
        raise ValueError(f"{what}: expected {k} instances, got shape {arr.shape}")
    kk = arr.shape[0]
    if arr.size != kk * width:
        raise ValueError(f"{what}: expected {width} bits per instance, got shape {arr.shape}")
    return arr.reshape(kk, width)


def sha256_compress(cs: ConstraintSystem, state_bits, block_bits, gadget: str = "sha256") -> np.ndarray:
    """The SHA-256 compression function (FIPS 180-4 6.2.2) on k instances at once.

    Args:
        state_bits: ``(k, 8, 32)`` (or ``(k, 256)``) bit literals of H_0..H_7, big-endian
            (``[:, j, t]`` = bit 31 − t of H_j), or None for the constant IV (no variables).
        block_bits: ``(k, 512)`` bit literals of the message block, big-endian SHA-256 order
            (bit 8·i + t = bit 7 − t of block byte i). Variables must already be boolean.
        gadget: prefix of the constraint names (``"<gadget>/xor"``, ``/ch``, ``/maj``, ``/and``,
            ``/add_bits``, ``/add``).

    Returns:
        ``(k, 8, 32)`` int64 literals of the new state, same order as state_bits; its
        ``reshape(k, 256)`` is the digest in SHA-256 byte/bit order. Every bit is a new aux
        variable (a plain ref), unless state and block are all constants.

    Constraints per compression instance (as bellman's, input booleanity not included):
    25,840 from the IV with a variable block (bellperson's asserted count); 26,192 for a variable
    state and block; 19,034 for a variable state and a constant block (e.g. a padding-only block:
    the schedule is free). Aux variables: one per constraint except the packed equalities.

    Raises:
        ValueError: wrong shapes, k mismatch, a bit whose kind differs between instances, or (in
            witness mode) a referenced variable that is not boolean. TypeError: non-integer bits.
    """
    block = _as_lits(block_bits, None, 512, "sha256_compress: block_bits")
    k = block.shape[0]
    sha = _Sha(cs, k, gadget)
    if state_bits is None:
        H = sha.iv_words()
    else:
        H = sha.words_from_be(_as_lits(state_bits, k, 256, "sha256_compress: state_bits"),
                              "sha256_compress: state_bits")
    W = sha.words_from_be(block, "sha256_compress: block_bits")
    return sha.be_from_words(sha.compress(H, W))


def sha256_padding(nbits: int) -> np.ndarray:
    """FIPS 180-4 5.1.1 padding of an nbits-bit message as 0/1 uint8: a 1, zeros, the 64-bit
    big-endian length, up to a multiple of 512 bits."""
    z = (448 - nbits - 1) % 512
    length = [(nbits >> (63 - i)) & 1 for i in range(64)]
    return np.array([1] + [0] * z + length, dtype=np.uint8)


def sha256(cs: ConstraintSystem, message_bits, gadget: str = "sha256") -> np.ndarray:
    """SHA-256 of k messages of the same bit length (padding appended as constant bits).

    Args:
        message_bits: ``(k, L)`` bit literals in SHA-256 order (bit 8·i + t = bit 7 − t of byte
            i), any L ≥ 0 (L need not be a multiple of 8). Constants (BIT0/BIT1) cost nothing:
            a block made only of constants (e.g. a padding block) needs no schedule constraints.
        gadget: constraint name prefix.

    Returns:
        ``(k, 256)`` int64 literals of the digest, SHA-256 byte/bit order.
    """
    msg = np.asarray(message_bits)
    if msg.ndim != 2:
        raise ValueError(f"sha256: message_bits must have shape (k, L), got {msg.shape}")
    if msg.dtype.kind not in "iu":
        raise TypeError(f"sha256: bit literals must be an integer array, got dtype {msg.dtype}")
    k, nbits = msg.shape
    pad_bits = sha256_padding(nbits)
    pad = np.broadcast_to(const_bits(pad_bits), (k, pad_bits.shape[0]))
    padded = np.concatenate([msg.astype(np.int64), pad], axis=1)
    sha = _Sha(cs, k, gadget)
    W = sha.words_from_be(padded, "sha256: message_bits")
    H = sha.iv_words()
    for blk in range(len(W) // 16):
        H = sha.compress(H, W[16 * blk : 16 * blk + 16])
    return sha.be_from_words(H).reshape(k, 256)


__all__ = ["BIT0", "BIT1", "CAPACITY", "IV", "K", "NOT_OFFSET", "bit_not", "const_bits", "literal_kinds",
           "literal_values", "sha256", "sha256_compress", "sha256_padding"]
