"""Poseidon over BLS12-381 Fr exactly as filecoin-project/neptune defines it, many hashes at once.

The permutation (Grassi, Khovratovich, Rechberger, Roy, Schofnegger, "Poseidon: A New Hash Function
for Zero-Knowledge Proof Systems", USENIX Security 2021, eprint 2019/458), instantiated as neptune
does (facts taken from neptune's sources; file names below are in that repository):

* width ``t = arity + 1``; S-box ``x^5`` (``quintic_s_box`` in ``src/lib.rs``);
* rounds ``R_F = 8`` full and ``R_P`` partial, from ``calc_round_numbers(t, security_margin=true)``
  (``src/round_numbers.rs``, a port of the paper's ``calc_round_numbers.py`` for a 256-bit prime
  and 128-bit security, computed in f32; with the margin R_F += 2 and R_P = ceil(1.075·R_P)).
  Standard strength gives R_P = 55 (t = 2, 3), 56 (t = 4..7), 57 (t = 8..15), 59 (t = 16..25);
  ``Strength::Strengthened`` uses ceil(1.25·R_P) (``round_numbers_strengthened`` in ``src/lib.rs``);
* round constants from the Grain LFSR in self-shrinking mode (``src/round_constants.rs``, after the
  paper's ``create_rcs_grain.sage``): an 80-bit initial state of field type 1 (2 bits), S-box 1
  (4 bits), field size 255 (12 bits), t (12 bits), R_F (10 bits), R_P (10 bits), then 30 ones;
  ``b[i+80] = b[i+62] ^ b[i+51] ^ b[i+38] ^ b[i+23] ^ b[i+13] ^ b[i]``; the first 160 bits are
  discarded; bits are then taken in pairs and the second one kept when the first is 1; each
  candidate is 255 kept bits read most significant first, rejected when ≥ r; t·(R_F + R_P)
  constants, consumed t per round in order;
* MDS: the Cauchy matrix ``M[i][j] = 1 / (x_i + y_j)`` with ``x_i = i`` and ``y_j = t + j``
  (``generate_mds`` in ``src/mds.rs``), so ``M[i][j] = 1/(i + j + t)``, symmetric;
* hashing (``hash_correct`` in ``src/poseidon_alt.rs``; ``src/poseidon.rs``): state =
  ``[domain tag, x_1, …, x_arity]``; R_F/2 full rounds (add the round's t constants, S-box on every
  element, multiply by M), R_P partial rounds (add t constants, S-box on element 0 only, multiply
  by M), R_F/2 full rounds; the digest is state element 1.

neptune's default hash mode ("OptimizedStatic": compressed round constants, a pre-sparse matrix and
sparse matrices in the partial rounds) is an algebraic rewrite that yields the same digest; neptune's
own tests assert equality with the plain "Correct" mode. This module implements the plain algorithm;
:func:`optimized_constants` derives neptune's rewritten constants (what its ``circuit.rs`` gadget,
used by rust-fil-proofs, is built from) and is checked against the plain digest in the tests.

Domain tags (``HashType::domain_tag`` in ``src/hash_type.rs``), with ``s = 0`` for
``Strength::Standard`` and ``s = 2^32`` for ``Strength::Strengthened``:

* ``MerkleTree``: ``2^arity − 1 + s`` — the default of ``PoseidonConstants::new()``, hence the tag of
  every Filecoin tree hash (tree_c, tree_r_last, ``hash_single_column``, comm_r = H(comm_c,
  comm_r_last) in rust-fil-proofs) and of neptune's published test vectors (``hash_values`` in
  ``src/poseidon.rs``: input 0..arity−1, both strengths). It is this module's default;
* ``ConstantLength(n)``: ``n · 2^64 + s`` (independent of the arity); the preimage of n ≤ arity
  elements is padded with zeros to the width — pass ``domain_tag=constant_length_tag(n)`` and the
  n inputs with ``arity=`` the width's arity;
* ``Encryption``: ``2^32 + s``; ``VariableLength`` (``2^64 + s``) is declared but unsupported there;
* ``Custom(CType::Arbitrary(id))``: ``id · 2^40`` for 1 ≤ id ≤ 256 (``CType::domain_tag``); Filecoin's
  SnapDeals randomness uses id 1 at standard strength (``HASH_TYPE_GEN_RANDOMNESS`` in
  rust-fil-proofs ``storage-proofs-update/src/constants.rs``).

Kept on disk: the round numbers, the Grain round constants and the optimized constants are pure
functions of (arity, strength) that cost about 1 s of Python per process (a 32 GiB PoRep partition
job uses three arities); :func:`_kept` stores each under ``cache_dir()/poseidon``, its name
carrying this file's SHA-256 (an edited module computes afresh) and its bytes' SHA-256 beside it
(a damaged file is computed again), so a machine computes them once.

Values are "int arrays" as in :mod:`cuzk.field.arith`: numpy object arrays of ``gmpy2.mpz``,
canonical (0 ≤ v < r). A state is a list of t int arrays of shape (k,), one per state element, so
each round step is one vectorized operation per state element over all k hashes.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import gmpy2
import numpy as np

from ..field.arith import FR
from ..fileio import cache_dir, recorded_bytes, write_recorded

_MPZ = gmpy2.mpz
R = FR.modulus
_P = _MPZ(R)

STANDARD = "standard"
STRENGTHENED = "strengthened"
_STRENGTH_TAG = {STANDARD: 0, STRENGTHENED: 1 << 32}

FULL_ROUNDS = 8

__all__ = [
    "FULL_ROUNDS",
    "PoseidonMemo",
    "PoseidonParams",
    "R",
    "STANDARD",
    "STRENGTHENED",
    "apply_round",
    "calc_round_numbers",
    "cauchy_mds",
    "constant_length_tag",
    "encryption_tag",
    "grain_round_constants",
    "merkle_tree_tag",
    "params",
    "permute_many",
    "poseidon_hash",
    "poseidon_many",
    "round_numbers",
]


# --- constants kept on disk ----------------------------------------------------------------------

@functools.cache
def _source_digest() -> str:
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:24]


def _kept(name: str, compute: Callable[[], Any]) -> Any:
    """``compute()`` (ints, lists and dicts: JSON), stored as ``cache_dir()/poseidon/<name>-<this
    file's SHA-256>.json`` with its SHA-256 beside it (``fileio.write_recorded``), read back by
    later processes; a missing, damaged or unreadable file is computed again (and rewritten where
    the cache is writable).
    Returns the value as JSON gives it back (lists, not tuples), the same in every process."""
    path = cache_dir() / "poseidon" / f"{name}-{_source_digest()}.json"
    raw = recorded_bytes(path)
    if raw is not None:
        return json.loads(raw)
    raw = json.dumps(compute(), separators=(",", ":")).encode()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_recorded(path, raw)
    except OSError:
        pass   # a read-only cache only costs the computation next time
    return json.loads(raw)


# --- round numbers -------------------------------------------------------------------------------

def _f32(x) -> np.float32:
    return np.float32(x)


def _secure(t: int, rf: int, rp: int) -> bool:
    """neptune's ``round_numbers_are_secure`` for n = 256, M = 128, evaluated in f32 as in Rust."""
    with np.errstate(all="ignore"):
        rp32, t32, n, m = _f32(rp), _f32(t), _f32(256), _f32(128)
        rf_stat = _f32(6.0) if m <= (n - _f32(3.0)) * (t32 + _f32(1.0)) else _f32(10.0)
        rf_interp = _f32(0.43) * m + np.log2(t32) - rp32
        rf_grob_1 = _f32(0.21) * n - rp32
        rf_grob_2 = (_f32(0.14) * n - _f32(1.0) - rp32) / (t32 - _f32(1.0))
    return rf >= max(int(np.ceil(v)) for v in (rf_stat, rf_interp, rf_grob_1, rf_grob_2))


@functools.lru_cache(maxsize=None)
def calc_round_numbers(t: int, security_margin: bool = True) -> tuple[int, int]:
    """(R_F, R_P) for width t ≥ 2: neptune's ``calc_round_numbers`` (``src/round_numbers.rs``),
    kept on disk (:func:`_kept`).

    Minimizes the S-box count t·R_F + R_P over R_F ∈ {2, 4, …, 1000}, R_P ∈ [4, 200) subject to the
    paper's security inequalities for a 256-bit prime and 128-bit security; with the margin, a
    secure (R_F, R_P) becomes (R_F + 2, ceil(1.075·R_P)) before costing. Ties go to the smaller R_F.
    The inequalities only weaken as R_P grows, so for each R_F only the smallest secure R_P counts.
    """
    if t < 2:
        raise ValueError(f"Poseidon width t must be ≥ 2, got {t}")
    rf, rp = _kept(f"rounds-{t}-{int(security_margin)}", lambda: list(_calc_round_numbers(t, security_margin)))
    return rf, rp


def _calc_round_numbers(t: int, security_margin: bool) -> tuple[int, int]:
    best = None
    for rf_test in range(2, 1001, 2):
        for rp_test in range(4, 200):
            if _secure(t, rf_test, rp_test):
                rf, rp = rf_test, rp_test
                if security_margin:
                    rf += 2
                    rp = int(np.ceil(_f32(1.075) * _f32(rp_test)))
                key = (t * rf + rp, rf)
                if best is None or key < best[0]:
                    best = (key, rf, rp)
                break
    assert best is not None
    return best[1], best[2]


def round_numbers(arity: int, strength: str = STANDARD) -> tuple[int, int]:
    """(R_F, R_P) for an arity, as neptune's ``round_numbers(arity, strength)`` (``src/lib.rs``)."""
    rf, rp = calc_round_numbers(arity + 1, True)
    if strength == STANDARD:
        return rf, rp
    if strength == STRENGTHENED:
        return rf, -(-rp * 5 // 4)  # ceil(1.25·R_P), exact in integers
    raise ValueError(f"strength must be {STANDARD!r} or {STRENGTHENED!r}, got {strength!r}")


# --- round constants (Grain LFSR) ----------------------------------------------------------------

_TAPS = (62, 51, 38, 23, 13, 0)
_CHUNK = 18  # new bits computable at once: the nearest tap (62) lies 18 bits behind the new bit


def _grain_raw_bits(state: int, nbits: int) -> tuple[np.ndarray, int]:
    """``nbits`` (rounded up to a multiple of 18) raw LFSR output bits and the new state.

    The 80-bit window is an int whose bit i is b[n+i]; 18 new bits b[n+80 .. n+97] follow at once
    from the recurrence, since every tap index + 18 ≤ 80.
    """
    mask = (1 << _CHUNK) - 1
    chunks = []
    for _ in range(-(-nbits // _CHUNK)):
        new = (state >> 62 ^ state >> 51 ^ state >> 38 ^ state >> 23 ^ state >> 13 ^ state) & mask
        chunks.append(new)
        state = (state >> _CHUNK) | (new << (80 - _CHUNK))
    arr = np.asarray(chunks, dtype=np.uint32)
    bits = ((arr[:, None] >> np.arange(_CHUNK, dtype=np.uint32)) & 1).astype(np.uint8).reshape(-1)
    return bits, state


def grain_round_constants(t: int, r_f: int, r_p: int, field_size: int = 255,
                          modulus: int = R, field: int = 1, sbox: int = 1) -> list[int]:
    """t·(R_F + R_P) round constants from the Grain LFSR, as neptune's ``generate_constants``.

    Source: ``src/round_constants.rs`` (neptune), after ``create_rcs_grain.sage`` of the Poseidon
    authors. Returns Python ints in consumption order (round by round, t per round).
    """
    init = [(field, 2), (sbox, 4), (field_size, 12), (t, 12), (r_f, 10), (r_p, 10), ((1 << 30) - 1, 30)]
    seq = "".join(format(v, f"0{n}b") for v, n in init)
    assert len(seq) == 80
    state = sum(1 << i for i, c in enumerate(seq) if c == "1")  # bit i = b[i]
    # Neptune discards b[80..239]; 162 bits are generated here (9 chunks), so the last two,
    # b[240] and b[241], open the output stream.
    bits, state = _grain_raw_bits(state, 160)
    pending = bits[160:]
    num = t * (r_f + r_p)
    out: list[int] = []
    kept = np.zeros(0, dtype=np.uint8)
    while len(out) < num:
        need = (num - len(out)) * field_size * 5
        raw, state = _grain_raw_bits(state, need)
        raw = np.concatenate([pending, raw])
        if len(raw) % 2:
            pending, raw = raw[-1:], raw[:-1]
        else:
            pending = np.zeros(0, dtype=np.uint8)
        pairs = raw.reshape(-1, 2)
        kept = np.concatenate([kept, pairs[pairs[:, 0] == 1, 1]])
        ncand = len(kept) // field_size
        words = np.packbits(kept[: ncand * field_size].reshape(ncand, field_size), axis=1, bitorder="big")
        for row in words:
            v = int.from_bytes(row.tobytes(), "big") >> (8 * len(row) - field_size)
            if v < modulus:
                out.append(v)
                if len(out) == num:
                    break
        kept = kept[ncand * field_size:]
    return out


# --- MDS ---------------------------------------------------------------------------------------

def cauchy_mds(t: int) -> list[list[int]]:
    """neptune's MDS matrix (``generate_mds`` in ``src/mds.rs``): M[i][j] = 1/(i + (t + j)) mod r."""
    return [[pow(i + t + j, -1, R) for j in range(t)] for i in range(t)]


# --- tags ----------------------------------------------------------------------------------------

def merkle_tree_tag(arity: int, strength: str = STANDARD) -> int:
    """neptune's ``HashType::MerkleTree`` tag: 2^arity − 1 (+ 2^32 when strengthened)."""
    return (1 << arity) - 1 + _STRENGTH_TAG[strength]


def constant_length_tag(length: int, strength: str = STANDARD) -> int:
    """neptune's ``HashType::ConstantLength(length)`` tag: length·2^64 (+ 2^32 when strengthened)."""
    if length < 1:
        raise ValueError(f"constant-length tag needs length ≥ 1, got {length}")
    return (length << 64) + _STRENGTH_TAG[strength]


def custom_tag(identifier: int) -> int:
    """neptune's ``HashType::Custom(CType::Arbitrary(identifier))`` tag: identifier·2^40.

    ``identifier`` in 1..256, else ValueError (neptune asserts the same range). neptune v11 adds no
    strength term to this tag (``PoseidonConstants::new_with_strength_and_type`` keeps
    ``hash_type.domain_tag()``).
    """
    if not 1 <= identifier <= 256:
        raise ValueError(f"custom domain tag identifier must be in 1..256, got {identifier}")
    return identifier << 40


def encryption_tag(strength: str = STANDARD) -> int:
    """neptune's ``HashType::Encryption`` tag: 2^32 (+ 2^32 when strengthened)."""
    return (1 << 32) + _STRENGTH_TAG[strength]


# --- parameters ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class PoseidonParams:
    """Constants of one Poseidon instance (one arity and strength), as neptune's ``PoseidonConstants``.

    Attributes:
        arity: inputs per hash; t = arity + 1.
        t: state width.
        strength: ``"standard"`` (neptune's default) or ``"strengthened"``.
        full_rounds: R_F (8).
        partial_rounds: R_P.
        round_constants: t·(R_F + R_P) gmpy2.mpz, flat, in consumption order (round r uses
            ``round_constants[r*t:(r+1)*t]``).
        mds: t×t tuple of tuples of gmpy2.mpz, ``mds[i][j] = 1/(i + j + t)``; the new state is
            ``s'[i] = Σ_j mds[i][j]·s[j]`` (symmetric, so neptune's row-vector product is the same).
        merkle_tag: the default domain tag 2^arity − 1 (+ 2^32 when strengthened).
    """

    arity: int
    t: int
    strength: str
    full_rounds: int
    partial_rounds: int
    round_constants: tuple
    mds: tuple
    merkle_tag: int

    @property
    def rounds(self) -> int:
        """R_F + R_P."""
        return self.full_rounds + self.partial_rounds

    def is_full_round(self, r: int) -> bool:
        """Whether round r (0-based) is a full round (the first and last R_F/2 rounds)."""
        half = self.full_rounds // 2
        return r < half or r >= half + self.partial_rounds

    def round_constants_array(self) -> np.ndarray:
        """The round constants as an int array of shape (R_F + R_P, t) (a fresh copy)."""
        return self._rc_columns[:, :, 0].copy()

    def mds_array(self) -> np.ndarray:
        """The MDS matrix as a (t, t) int array (a fresh copy)."""
        return self._mds.copy()

    @functools.cached_property
    def _rc_columns(self) -> np.ndarray:
        out = np.empty(len(self.round_constants), dtype=object)
        out[:] = list(self.round_constants)
        return out.reshape(self.rounds, self.t, 1)

    @functools.cached_property
    def _mds(self) -> np.ndarray:
        out = np.empty((self.t, self.t), dtype=object)
        out[:] = [list(row) for row in self.mds]
        return out


@functools.lru_cache(maxsize=None)
def params(arity: int, strength: str = STANDARD) -> PoseidonParams:
    """The (cached) Poseidon constants for an arity ≥ 1 and strength, built once per process.

    Building costs tens of milliseconds (Grain LFSR in 18-bit chunks, t² modular inverses).
    """
    if arity < 1:
        raise ValueError(f"Poseidon arity must be ≥ 1, got {arity}")
    t = arity + 1
    rf, rp = round_numbers(arity, strength)
    rc = _kept(f"grain-{t}-{rf}-{rp}", lambda: [int(c) for c in grain_round_constants(t, rf, rp)])
    mds = cauchy_mds(t)
    return PoseidonParams(
        arity=arity,
        t=t,
        strength=strength,
        full_rounds=rf,
        partial_rounds=rp,
        round_constants=tuple(_MPZ(c) for c in rc),
        mds=tuple(tuple(_MPZ(v) for v in row) for row in mds),
        merkle_tag=merkle_tree_tag(arity, strength),
    )


# --- neptune's optimized ("OptimizedStatic") constants -------------------------------------------


def _inv_matrix(m: list[list[int]]) -> list[list[int]]:
    """Inverse of a square matrix over Fr (Gauss-Jordan; the inverse is unique, so the algorithm
    need not be neptune's ``matrix::invert``). Raises ValueError if singular."""
    n = len(m)
    a = [[int(x) % R for x in row] + [int(i == j) for j in range(n)] for i, row in enumerate(m)]
    for c in range(n):
        piv = next((r for r in range(c, n) if a[r][c]), None)
        if piv is None:
            raise ValueError("singular matrix")
        a[c], a[piv] = a[piv], a[c]
        inv = pow(a[c][c], -1, R)
        a[c] = [x * inv % R for x in a[c]]
        for r in range(n):
            if r != c and a[r][c]:
                f = a[r][c]
                a[r] = [(x - f * y) % R for x, y in zip(a[r], a[c])]
    return [row[n:] for row in a]


def _mat_mul(a, b) -> list[list[int]]:
    return [[sum(x * y for x, y in zip(row, col)) % R for col in zip(*b)] for row in a]


def _left_apply(m, v) -> list[int]:
    """M·v, v a column vector (neptune ``matrix::left_apply_matrix``)."""
    return [sum(x * y for x, y in zip(row, v)) % R for row in m]


@dataclass(frozen=True)
class OptimizedConstants:
    """neptune's ``PoseidonConstants`` fields its circuit uses (``src/poseidon.rs``
    ``new_from_parameters``, ``src/preprocessing.rs``, ``src/mds.rs``), as canonical ints.

    Attributes:
        compressed: ``compressed_round_constants``: t·R_F + R_P constants (the first round's t
            pre-round keys, then t "post" keys per full round but the last, one per partial round).
        mds: M (t×t), applied as a row vector times M (neptune ``product_mds_with_matrix``).
        pre_sparse: ``pre_sparse_matrix`` (t×t), used instead of M after the last first-half
            full round.
        sparse: ``sparse_matrixes``: R_P pairs (w_hat (t,), v_rest (t − 1,)), one per partial
            round: new[0] = Σ_i w_hat[i]·s[i], new[j] = s[j] + v_rest[j − 1]·s[0].
    """

    compressed: tuple
    mds: tuple
    pre_sparse: tuple
    sparse: tuple


def _derive(m):
    """(m_prime, m_double_prime) of neptune ``derive_mds_matrices``."""
    t = len(m)
    m_hat_inv = _inv_matrix([row[1:] for row in m[1:]])
    prime = [[int(j == 0) for j in range(t)]] + [[0] + list(row[1:]) for row in m[1:]]
    v = list(m[0][1:])
    w = [row[0] for row in m[1:]]
    w_hat = _left_apply(m_hat_inv, w)
    dprime = [[m[0][0]] + v] + [[w_hat[i - 1]] + [int(j == i) for j in range(1, t)] for i in range(1, t)]
    return prime, dprime


@functools.lru_cache(maxsize=None)
def optimized_constants(arity: int, strength: str = STANDARD) -> OptimizedConstants:
    """neptune's optimized constants for ``params(arity, strength)`` (cached per process, and on
    disk: :func:`_kept`).

    ``compress_round_constants`` with every partial round preprocessed (rust-fil-proofs' constants
    come from ``PoseidonConstants::new``, which preprocesses all R_P), and
    ``factor_to_sparse_matrixes(transpose(M), R_P)``.
    """
    p = params(arity, strength)
    d = _kept(f"optimized-{arity}-{strength}", lambda: _optimized(p).__dict__)
    return OptimizedConstants(tuple(d["compressed"]), tuple(map(tuple, d["mds"])), tuple(map(tuple, d["pre_sparse"])),
                              tuple((tuple(w), tuple(v)) for w, v in d["sparse"]))


def _optimized(p: PoseidonParams) -> OptimizedConstants:
    t, rf, rp = p.t, p.full_rounds, p.partial_rounds
    m = [[int(x) for x in row] for row in p.mds]
    m_inv = _inv_matrix(m)
    rk = [[int(c) for c in p.round_constants[r * t:(r + 1) * t]] for r in range(rf + rp)]
    half = rf // 2
    res = list(rk[0])
    for i in range(half - 1):  # every partial round preprocessed: end = half − 1
        res += _left_apply(m_inv, rk[i + 1])
    final = half + rp
    acc = list(rk[final])
    partial = []
    for i in range(rp):
        inv = _left_apply(m_inv, acc)
        partial.append(inv[0])
        inv[0] = 0
        acc = [(x + y) % R for x, y in zip(rk[final - i - 1], inv)]
    res += _left_apply(m_inv, acc)
    res += partial[::-1]
    for i in range(1, half):
        res += _left_apply(m_inv, rk[i + final])
    assert len(res) == t * rf + rp
    base = [list(col) for col in zip(*m)]  # transpose(M)
    cur, dps = base, []
    for _ in range(rp):
        prime, dprime = _derive(cur)
        dps.append(dprime)
        cur = _mat_mul(base, prime)
    dps.reverse()
    sparse = tuple((tuple(row[0] for row in d), tuple(d[0][1:])) for d in dps)
    return OptimizedConstants(tuple(res), tuple(map(tuple, m)), tuple(map(tuple, cur)), sparse)


def hash_optimized(inputs: Sequence[int], arity: int, domain_tag: int | None = None,
                   strength: str = STANDARD, constants: OptimizedConstants | None = None) -> int:
    """One digest computed neptune's optimized way (the order of operations of its ``circuit.rs``,
    one element at a time) from ``constants`` (default :func:`optimized_constants`): a reference
    for the circuit built from them; it equals :func:`poseidon_hash` (the plain algorithm)."""
    p = params(arity, strength)
    oc = constants or optimized_constants(arity, strength)
    t, half = p.t, p.full_rounds // 2
    s = [p.merkle_tag if domain_tag is None else int(domain_tag)] + [int(x) % R for x in inputs]
    s += [0] * (t - len(s))
    s = [(x + c) % R for x, c in zip(s, oc.compressed[:t])]
    k = t

    def mul(m, v):
        return [sum(v[i] * m[i][j] for i in range(t)) % R for j in range(t)]

    for r in range(p.full_rounds + p.partial_rounds):
        full = r < half or r >= half + p.partial_rounds
        last = r == p.full_rounds + p.partial_rounds - 1
        if full:
            s = [pow(x, 5, R) for x in s]
            if not last:
                s = [(x + c) % R for x, c in zip(s, oc.compressed[k:k + t])]
                k += t
        else:
            s[0] = (pow(s[0], 5, R) + oc.compressed[k]) % R
            k += 1
        if r == half - 1:
            s = mul(oc.pre_sparse, s)
        elif half - 1 < r < half + p.partial_rounds:
            w_hat, v_rest = oc.sparse[r - half]
            s = [sum(w * x for w, x in zip(w_hat, s)) % R] + [(s[j] + v_rest[j - 1] * s[0]) % R for j in range(1, t)]
        else:
            s = mul(oc.mds, s)
    return s[1]


# --- the permutation -----------------------------------------------------------------------------

def _sbox(x: np.ndarray) -> np.ndarray:
    x2 = np.mod(x * x, _P)
    x4 = np.mod(x2 * x2, _P)
    return np.mod(x4 * x, _P)


def _round(s: np.ndarray, p: PoseidonParams, r: int) -> np.ndarray:
    """Round r on a (t, k) int array: add constants, S-box (all rows or row 0), MDS, reduce."""
    x = s + p._rc_columns[r]
    if p.is_full_round(r):
        x = _sbox(x)
    else:
        x[0] = _sbox(x[0])
    # One object matmul: C loops over the t² products per column (measured ~1.7x faster than t²
    # separate array multiply-adds); the sums (< t·(2r)·r) are reduced once.
    return np.mod(p._mds @ x, _P)


def _as_state(state, p: PoseidonParams) -> np.ndarray:
    if len(state) != p.t:
        raise ValueError(f"Poseidon state must have t = {p.t} elements, got {len(state)}")
    rows = [np.asarray(row, dtype=object).reshape(-1) for row in state]
    out = np.empty((p.t, len(rows[0])), dtype=object)
    for i, row in enumerate(rows):
        out[i] = row
    return out


def apply_round(state, p: PoseidonParams, r: int) -> list:
    """One round (0-based index r) on a state of t int arrays of shape (k,); returns a new state.

    Round r adds ``round_constants[r*t:(r+1)*t]``, applies x^5 to every element (full round, the
    first and last R_F/2 rounds) or to element 0 only (partial round), then multiplies by the MDS
    matrix. The state may also be a (t, k) int array; inputs must be non-negative and below r
    (outputs are canonical). Exposed so gadgets can trace the intermediate states.
    """
    return list(_round(_as_state(state, p), p, r))


def permute_many(state, p: PoseidonParams) -> list:
    """The Poseidon permutation on a state of t int arrays of shape (k,) (or a (t, k) int array).

    Returns the new state as a list of t int arrays of shape (k,).
    """
    s = _as_state(state, p)
    for r in range(p.rounds):
        s = _round(s, p, r)
    return list(s)


# --- hashing ---------------------------------------------------------------------------------------

def _column(values, k: int | None, what: str) -> np.ndarray:
    vals = values.reshape(-1).tolist() if isinstance(values, np.ndarray) else list(values)
    col = np.empty(len(vals), dtype=object)
    col[:] = [_MPZ(int(v)) for v in vals]
    if k is not None and len(col) != k:
        raise ValueError(f"poseidon_many: {what} has {len(col)} values, expected {k}")
    if len(col) and (min(col) < 0 or max(col) >= _P):
        raise ValueError(f"poseidon_many: {what} holds a value outside [0, r) (not a canonical Fr element)")
    return col


def poseidon_many(inputs, arity: int | None = None, domain_tag: int | None = None,
                  strength: str = STANDARD) -> np.ndarray:
    """k Poseidon hashes at once; returns an int array of shape (k,) (object dtype, gmpy2.mpz).

    Args:
        inputs: either a 2-D numpy array of shape (k, n) — object dtype of ints/mpz, or an integer
            dtype for small values — one row per hash; or a list/tuple of n 1-D int arrays (or
            sequences) of length k, one per input position (columns). Values must be canonical Fr
            elements (0 ≤ v < r), else ValueError.
        arity: the Poseidon arity (width − 1); defaults to n. n < arity pads each preimage with
            zeros (neptune's constant-length mode) and is only accepted with an explicit
            ``domain_tag``.
        domain_tag: state element 0; defaults to the Merkle-tree tag 2^arity − 1 (+ 2^32 when
            strengthened), which neptune's published vectors and Filecoin's trees use. For neptune's
            constant-length hashing of n inputs pass ``constant_length_tag(n)``.
        strength: ``"standard"`` (neptune's default, R_P = 55/56/57…) or ``"strengthened"``.

    Cost: per round one (t, t) @ (t, k) object matmul plus O(t) elementwise mpz operations, i.e.
    about (R_F + R_P)·t² multiplications per hash, single-threaded. Measured on the project's 2-core
    AMD EPYC box (k = 100,000, arity 8): 62.7 s, about 1,600 hashes/s (arity 2: ~8,100/s; arity 11:
    ~1,200/s), peak RSS ~0.75 GiB. Partial rounds (R_P of R_F + R_P) dominate; neptune's sparse-matrix
    form would cut them from t² to 2t − 1 products each, with identical output.
    """
    if isinstance(inputs, np.ndarray):
        if inputs.ndim != 2:
            raise ValueError(f"poseidon_many: array input must be 2-D (k, arity), got shape {inputs.shape}")
        k, n = inputs.shape
        cols = [_column(inputs[:, j], k, f"column {j}") for j in range(n)]
    else:
        cols_in = list(inputs)
        n = len(cols_in)
        if n == 0:
            raise ValueError("poseidon_many: no input columns")
        first = _column(cols_in[0], None, "column 0")
        k = len(first)
        cols = [first] + [_column(c, k, f"column {j}") for j, c in enumerate(cols_in[1:], 1)]
    if arity is None:
        arity = n
    if n > arity:
        raise ValueError(f"poseidon_many: {n} inputs per hash exceed arity {arity}")
    if n < arity and domain_tag is None:
        raise ValueError(
            f"poseidon_many: {n} inputs for arity {arity}: padding is neptune's constant-length mode; "
            f"pass domain_tag=constant_length_tag({n}) (or another tag) explicitly")
    p = params(arity, strength)
    tag = p.merkle_tag if domain_tag is None else int(domain_tag)
    if not 0 <= tag < R:
        raise ValueError(f"poseidon_many: domain tag {tag:#x} is not a canonical Fr element")

    if k == 0:
        return np.empty(0, dtype=object)
    s = np.empty((p.t, k), dtype=object)
    s[0] = _MPZ(tag)
    for j, col in enumerate(cols, 1):
        s[j] = col
    s[n + 1:] = _MPZ(0)
    for r in range(p.rounds):
        s = _round(s, p, r)
    return s[1].copy()


def poseidon_hash(inputs: Sequence[int], arity: int | None = None, domain_tag: int | None = None,
                  strength: str = STANDARD) -> int:
    """One Poseidon hash of a sequence of ints (canonical Fr elements); returns a Python int.

    Same arguments as :func:`poseidon_many` with a single preimage: arity defaults to
    ``len(inputs)``, the tag to the Merkle-tree tag 2^arity − 1.
    """
    cols = [[int(v)] for v in inputs]
    return int(poseidon_many(cols, arity=arity, domain_tag=domain_tag, strength=strength)[0])


_TREE_CORE: list = []   # another hasher of Merkle-tree preimages, while tree_hashes_by is active


@contextlib.contextmanager
def tree_hashes_by(fn: Callable[[list, int], Sequence[int]]):
    """Within the block, :class:`PoseidonMemo` hashes with ``fn(rows, arity)`` (k preimages of
    ``arity`` ints → their k hashes, the same values as :func:`poseidon_many`'s) instead: the
    native core, where ``cuzk.r1cs.poseidon.native_poseidon`` is active (the checks of C1 and
    PoSt files' Merkle paths, ``cuzk.pipeline.check_input``).

    Raises:
        RuntimeError: another hasher is already active.
    """
    if _TREE_CORE:
        raise RuntimeError("tree_hashes_by: another Merkle-tree hasher is already active")
    _TREE_CORE.append(fn)
    try:
        yield
    finally:
        _TREE_CORE.clear()


class PoseidonMemo:
    """Merkle-tree Poseidon hashes (arity = preimage length, tag 2^arity − 1, as
    :func:`poseidon_many`'s defaults), each distinct preimage hashed once and remembered.

    :meth:`many` hashes all preimages it has not seen in one :func:`poseidon_many` call per arity
    (in chunks of ``chunk``), so a checker that needs hashes one at a time can first hand over, in
    bulk, the preimages it expects to need, then ask for them singly (``memo(preimage)``) at the
    cost of a dict lookup; a preimage not handed over is hashed on its own. Values must be
    canonical Fr elements (else ValueError, as poseidon_many).
    """

    def __init__(self, chunk: int = 1 << 13):
        self.chunk = chunk
        self._known: dict[tuple, int] = {}

    def __len__(self) -> int:
        return len(self._known)

    def many(self, preimages) -> list[int]:
        """The hashes of ``preimages`` (sequences of ints) as Python ints, in order."""
        keys = [tuple(int(v) for v in pre) for pre in preimages]
        todo: dict[int, dict[tuple, None]] = {}
        for key in keys:
            if key not in self._known:
                todo.setdefault(len(key), {})[key] = None
        core = _TREE_CORE[0] if _TREE_CORE else None
        for arity, group in todo.items():
            rows = list(group)
            for s in range(0, len(rows), self.chunk):
                block = rows[s : s + self.chunk]
                out = core(block, arity) if core else poseidon_many([list(col) for col in zip(*block)], arity=arity)
                self._known.update(zip(block, (int(h) for h in out)))
        return [self._known[key] for key in keys]

    def __call__(self, preimage) -> int:
        """One hash (remembered)."""
        return self.many([preimage])[0]
