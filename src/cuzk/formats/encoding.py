"""Element encodings of circom/snarkjs files, and ffjavascript's evaluation domain.

- Fr scalars: ``n8 = 32`` bytes little-endian, standard form in ``.r1cs`` and ``.wtns``; the
  ``.zkey`` coefficient section stores ``value·R² mod r`` with R = 2^256 (so that one Montgomery
  multiplication by a standard-form witness value yields the Montgomery form of the product).
- Points: affine, each Fq coordinate 48 bytes little-endian in Montgomery form
  (``x·2^384 mod q``); G1 = x ‖ y (96 bytes), G2 = x.c0 ‖ x.c1 ‖ y.c0 ‖ y.c1 (192 bytes); the
  point at infinity is all zeros (ffjavascript ``toRprLEM``/``zeroAffine``).
  On our side points are ``(n, 96)``/``(n, 192)`` uint8 arrays of zcash uncompressed encodings
  (``cuzk.curve``: big-endian, G2 c1 before c0, infinity = 0x40 then zeros).
- Domain: ffjavascript's ``F1Field`` takes the smallest quadratic non-residue (5 for
  BLS12-381's r) and ω_n = 5^((r−1)/n); cuzk's backends use blstrs' generator 7. Both are
  primitive n-th roots, so ω5_n = ω7_n^k for an odd k (:func:`ffjs_index_map`), and an NTT over
  one domain is the NTT over the other with indices multiplied by k mod n.

Sources: iden3/ffjavascript ``wasm_field1.js`` (nqr, w[], shift), ``wasm_curve.js``
(toRprLEM, toObject); iden3/snarkjs ``zkey_utils.js`` (writeFr2: value·R² mod r).
"""

from __future__ import annotations

from functools import lru_cache

import gmpy2
import numpy as np

from ..curve import EncodingError, Group
from ..field import FQ, FR

_MPZ = gmpy2.mpz
_Q = _MPZ(FQ.modulus)
_R = _MPZ(FR.modulus)
_RQ = _MPZ(pow(2, 384, FQ.modulus))
_RQ_INV = _MPZ(pow(2, -384, FQ.modulus))
_RR2 = _MPZ(pow(2, 512, FR.modulus))
_RR2_INV = _MPZ(pow(2, -512, FR.modulus))

FFJS_NQR = 5
"""ffjavascript's smallest quadratic non-residue of BLS12-381's r: the root-of-unity generator."""


# --- scalars ------------------------------------------------------------------------------


def le_to_ints(buf, n8: int = 32) -> np.ndarray:
    """Concatenated n8-byte little-endian integers → 1-D int array (gmpy2.mpz), not reduced."""
    raw = bytes(buf)
    if len(raw) % n8:
        raise ValueError(f"{len(raw)} bytes is not a whole number of {n8}-byte elements")
    frm = _MPZ.from_bytes
    # fromiter over a generator: filling an object array from a list is ~4× slower (numpy probes each)
    return np.fromiter((frm(raw[i : i + n8], "little") for i in range(0, len(raw), n8)),
                       dtype=object, count=len(raw) // n8)


def ints_to_le(values, n8: int = 32) -> bytes:
    """Ints (each in [0, 2^(8·n8))) → concatenated n8-byte little-endian encodings.

    Raises:
        OverflowError: a value is negative or too large.
    """
    return b"".join(int(v).to_bytes(n8, "little") for v in values)


def coeffs_from_zkey(values: np.ndarray) -> np.ndarray:
    """Stored ``.zkey`` coefficients (value·R² mod r) → canonical values (int array)."""
    inv, r = _RR2_INV, _R
    return np.fromiter((_MPZ(v) * inv % r for v in values), dtype=object, count=len(values))


def coeffs_from_zkey_rows(rows: np.ndarray) -> np.ndarray:
    """``.zkey`` coefficient values as an ``(m, 32)`` uint8 array of little-endian words
    (value·R² mod r) → canonical values (int array), each distinct value converted once."""
    inv, r = _RR2_INV, _R
    return ints_from_le_rows(rows, lambda v: v * inv % r)


def coeffs_to_zkey(values: np.ndarray) -> np.ndarray:
    """Canonical coefficients → the ``.zkey`` stored form value·R² mod r (int array)."""
    return np.mod(np.asarray(values, dtype=object) * _RR2, _R)


def unique_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of an ``(m, k)`` uint8 array (k a multiple of 8): (index of a first occurrence
    of each distinct row, inverse) with ``rows[first][inverse] == rows``.

    Coefficient sections hold few distinct values (often just 1 and −1), so converting only
    those is much cheaper than converting every entry. Rows are bucketed by a 64-bit mix of their
    limbs and the result checked exactly; on a collision it falls back to ``np.unique(axis=0)``.
    """
    m = rows.shape[0]
    if m == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    limbs = np.ascontiguousarray(rows).view("<u8").reshape(m, -1)
    mix = np.zeros(m, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(limbs.shape[1]):
            mix = (mix ^ limbs[:, j]) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(j + 1)
    _, first, inverse = np.unique(mix, return_index=True, return_inverse=True)
    if not np.array_equal(limbs[first][inverse], limbs):
        _, first, inverse = np.unique(limbs, axis=0, return_index=True, return_inverse=True)
    return first, inverse.reshape(-1)


def ints_from_le_rows(rows: np.ndarray, convert=None) -> np.ndarray:
    """``(m, n8)`` uint8 little-endian values → int array (mpz), converting each distinct value once.

    Args:
        convert: optional function of one mpz applied to each distinct value (e.g. a change of
            representation); the identity when None.
    """
    first, inverse = unique_rows(rows)
    raw = np.ascontiguousarray(rows[first]).tobytes()
    n8, frm = rows.shape[1], _MPZ.from_bytes
    vals = [frm(raw[i : i + n8], "little") for i in range(0, len(raw), n8)]
    table = np.empty(len(vals), dtype=object)
    for i, v in enumerate(vals):
        table[i] = v if convert is None else convert(v)
    return table[inverse]


# --- points -------------------------------------------------------------------------------


def ge_modulus(words: np.ndarray, modulus: int) -> np.ndarray:
    """Bool mask of the rows of ``words`` ((N, k) little-endian uint64 limbs) that are ≥ modulus
    (vectorized: only rows whose top limb reaches the modulus' are compared limb by limb)."""
    n, k = words.shape
    ml = np.frombuffer(modulus.to_bytes(8 * k, "little"), dtype="<u8")
    top = words[:, k - 1] >= ml[k - 1]  # only these can be ≥ modulus: check them exactly
    out = np.zeros(n, dtype=bool)
    idx = np.flatnonzero(top)
    if len(idx):
        sub = words[idx]
        ge, eq = np.zeros(len(idx), dtype=bool), np.ones(len(idx), dtype=bool)
        for j in range(k - 1, -1, -1):
            ge |= eq & (sub[:, j] > ml[j])
            eq &= sub[:, j] == ml[j]
        out[idx] = ge | eq
    return out


def lem_to_points(buf, group: Group) -> np.ndarray:
    """iden3 affine little-endian Montgomery points → ``(n, group.uncompressed_size)`` uint8.

    Only the encoding is converted; curve and subgroup membership are not checked here (use
    ``group.from_array``). Each coordinate word x·2^384 mod q becomes x by one multiplication by
    2^−384 and one reduction (gmpy2, about 1 µs a word); the range check and the infinity test
    are vectorized over 64-bit limbs.

    Raises:
        EncodingError: length not a multiple of the point size, or a coordinate word not below q
            (its point index is named).
    """
    raw = bytes(buf)
    ncoord = 2 * group.coord_words
    size = 48 * ncoord
    if len(raw) % size:
        raise EncodingError(f"{group.name}: {len(raw)} bytes is not a whole number of {size}-byte points")
    n = len(raw) // size
    if n == 0:
        return np.zeros((0, size), dtype=np.uint8)
    limbs = np.frombuffer(raw, dtype="<u8").reshape(n * ncoord, 6)
    over = np.flatnonzero(ge_modulus(limbs, FQ.modulus))
    if len(over):
        raise EncodingError(f"{group.name} point {int(over[0]) // ncoord}: coordinate word not below q")
    inf = ~limbs.reshape(n, ncoord * 6).any(axis=1)
    frm, inv, q = _MPZ.from_bytes, _RQ_INV, _Q
    be = b"".join([(frm(raw[i : i + 48], "little") * inv % q).to_bytes(48, "big") for i in range(0, len(raw), 48)])
    arr = np.frombuffer(be, dtype=np.uint8).reshape(n, ncoord, 48)
    if group.coord_words == 2:
        arr = arr[:, [1, 0, 3, 2], :]  # (x.c0, x.c1, y.c0, y.c1) → zcash (x.c1, x.c0, y.c1, y.c0)
    out = np.array(arr.reshape(n, size), dtype=np.uint8, copy=True, order="C")
    if inf.any():
        out[inf] = 0
        out[inf, 0] = 0x40
    return out


def points_to_lem(arr: np.ndarray, group: Group) -> bytes:
    """``(n, group.uncompressed_size)`` uint8 zcash uncompressed points → iden3 LEM bytes.

    Raises:
        EncodingError: wrong shape, or a compressed/sort flag set.
    """
    arr = np.ascontiguousarray(arr, dtype=np.uint8)
    size = group.uncompressed_size
    if arr.ndim != 2 or arr.shape[1] != size:
        raise EncodingError(f"{group.name}: points must have shape (n, {size}), got {arr.shape}")
    n = arr.shape[0]
    if n == 0:
        return b""
    flags = arr[:, 0] & 0xE0
    if (flags & 0xA0).any():
        raise EncodingError(f"{group.name}: compression or sort flag set in an uncompressed point")
    inf = (flags & 0x40) != 0
    body = arr.copy()
    body[:, 0] &= 0x1F
    ncoord = 2 * group.coord_words
    coords = body.reshape(n, ncoord, 48)
    if group.coord_words == 2:
        coords = coords[:, [1, 0, 3, 2], :]
    flat = np.ascontiguousarray(coords).reshape(n * ncoord, 48).tobytes()
    frm, rq, q = _MPZ.from_bytes, _RQ, _Q
    out = b"".join([(frm(flat[i : i + 48], "big") * rq % q).to_bytes(48, "little") for i in range(0, len(flat), 48)])
    if inf.any():
        mont = np.frombuffer(out, dtype=np.uint8).reshape(n, size).copy()
        mont[inf] = 0
        out = mont.tobytes()
    return out


def point_to_lem(p, group: Group) -> bytes:
    """One py-arkworks point → iden3 LEM bytes."""
    return points_to_lem(group.to_array([p]), group)


def lem_to_point(buf, group: Group, check_subgroup: bool = True):
    """iden3 LEM bytes of one point → py-arkworks point (curve and, optionally, subgroup checked).

    Raises:
        cuzk.curve.CurveError (a subclass) for a malformed or invalid point.
    """
    return group.from_uncompressed(lem_to_points(buf, group)[0].tobytes(), check_subgroup)


# --- domain -------------------------------------------------------------------------------


def ffjs_root_of_unity(n: int) -> int:
    """ffjavascript's primitive n-th root of unity in Fr: 5^((r−1)/n) (n a power of two ≤ 2^32).

    Raises:
        ValueError: n is not a power of two or exceeds 2^32.
    """
    if n < 1 or n & (n - 1) or n.bit_length() - 1 > FR.two_adicity:
        raise ValueError(f"ffjs domain size {n} is not a power of two ≤ 2^{FR.two_adicity}")
    return pow(FFJS_NQR, (FR.modulus - 1) // n, FR.modulus)


@lru_cache(maxsize=64)
def ffjs_index_map(n: int) -> int:
    """The odd k < n with ω5_n = ω7_n^k (ffjavascript's vs cuzk's n-th root of unity).

    Point j of ffjavascript's domain (ω5_n^j) is point k·j mod n of cuzk's (ω7_n^(k·j)).
    Found by Pohlig–Hellman in the cyclic group of order n = 2^s (s squarings per bit).

    Raises:
        ValueError: n is not a power of two ≤ 2^32.
    """
    r = FR.modulus
    h = ffjs_root_of_unity(n)
    g = FR.root_of_unity(n)
    s = n.bit_length() - 1
    k = 0
    for i in range(s):
        # (h · g^−k)^(2^(s−1−i)) is 1 iff bit i of the remaining log is 0
        t = pow(h * pow(g, -k, r) % r, 1 << (s - 1 - i), r)
        if t != 1:
            k |= 1 << i
    assert pow(g, k, r) == h
    return k


__all__ = [
    "FFJS_NQR",
    "coeffs_from_zkey",
    "coeffs_from_zkey_rows",
    "ge_modulus",
    "ints_from_le_rows",
    "coeffs_to_zkey",
    "ffjs_index_map",
    "ffjs_root_of_unity",
    "ints_to_le",
    "le_to_ints",
    "lem_to_point",
    "lem_to_points",
    "point_to_lem",
    "points_to_lem",
    "unique_rows",
]
