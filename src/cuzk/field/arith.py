"""Field constants and array arithmetic for BLS12-381 Fr and Fq (see the package docstring)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import gmpy2
import numpy as np

_MPZ = gmpy2.mpz


@dataclass(frozen=True)
class Field:
    """A prime field with its limb layout.

    Attributes:
        name: "Fr" or "Fq".
        modulus: the prime p.
        limbs: number of 64-bit limbs per element (4 for Fr, 6 for Fq).
        bits: bit length of p (255 for Fr, 381 for Fq).
        two_adicity: largest s with 2^s | p - 1.
        generator: multiplicative generator used for roots of unity and cosets.
    """

    name: str
    modulus: int
    limbs: int
    bits: int
    two_adicity: int
    generator: int

    @property
    def nbytes(self) -> int:
        """Bytes per element in the limb layout (32 for Fr, 48 for Fq)."""
        return 8 * self.limbs

    @property
    def montgomery_r(self) -> int:
        """R = 2^(64·limbs) mod p, the Montgomery radix."""
        return pow(2, 64 * self.limbs, self.modulus)

    def root_of_unity(self, n: int) -> int:
        """Primitive n-th root of unity, n a power of two with log2(n) ≤ two_adicity.

        Computed as g^((p-1)/n) for the multiplicative generator g (7 for Fr, as blstrs), so the
        domain equals bellperson's ``EvaluationDomain``.

        Raises:
            ValueError: n is not a power of two or exceeds 2^two_adicity.
        """
        if n < 1 or n & (n - 1):
            raise ValueError(f"{self.name}: domain size {n} is not a power of two")
        if n.bit_length() - 1 > self.two_adicity:
            raise ValueError(f"{self.name}: domain size 2^{n.bit_length() - 1} exceeds 2^{self.two_adicity}")
        return pow(self.generator, (self.modulus - 1) // n, self.modulus)

    # --- int arrays (numpy object arrays of gmpy2.mpz, canonical values) ---------------------

    def add(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Elementwise a + b mod p on int arrays of equal shape."""
        return _reduce((a + b), self.modulus)

    def sub(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Elementwise a − b mod p on int arrays of equal shape."""
        return _reduce((a - b), self.modulus)

    def mul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Elementwise a · b mod p on int arrays of equal shape."""
        return _reduce((a * b), self.modulus)

    def square(self, a: np.ndarray) -> np.ndarray:
        """Elementwise a² mod p."""
        return _reduce((a * a), self.modulus)

    def neg(self, a: np.ndarray) -> np.ndarray:
        """Elementwise −a mod p."""
        return _reduce(-a, self.modulus)

    def powers(self, x: int, n: int, start: int = 1) -> np.ndarray:
        """[start·x^i mod p for i < n] ([1, x, x², …] by default) as an int array of length n ≥ 0.

        By doubling, out[m:2m] = out[:m]·x^m: log2(n) vectorized steps instead of n Python ones.

        Raises:
            ValueError: n < 0.
        """
        if n < 0:
            raise ValueError(f"powers: negative length {n}")
        p = _MPZ(self.modulus)
        out = np.empty(n, dtype=object)
        if n == 0:
            return out
        out[0] = _MPZ(start) % p
        xm, m = _MPZ(x) % p, 1
        while m < n:
            k = min(m, n - m)
            out[m : m + k] = np.mod(out[:k] * xm, p)
            xm = xm * xm % p
            m *= 2
        return out

    def batch_inverse(self, a: np.ndarray) -> np.ndarray:
        """Elementwise inverses by Montgomery's trick (one modular inversion for the batch).

        Raises:
            ZeroDivisionError: some element is zero (its index is named).
        """
        flat = a.reshape(-1)
        n = len(flat)
        p = self.modulus
        prefix = np.empty(n, dtype=object)
        acc = _MPZ(1)
        for i in range(n):
            if flat[i] == 0:
                raise ZeroDivisionError(f"{self.name}: batch_inverse of zero at index {i}")
            prefix[i] = acc
            acc = acc * flat[i] % p
        inv = gmpy2.invert(acc, p)
        out = np.empty(n, dtype=object)
        for i in range(n - 1, -1, -1):
            out[i] = inv * prefix[i] % p
            inv = inv * flat[i] % p
        return out.reshape(a.shape)

    def random(self, n: int, rng: np.random.Generator | None = None) -> np.ndarray:
        """n uniformly random elements as an int array (not for secrets: seeded numpy PRNG)."""
        rng = rng or np.random.default_rng()
        raw = rng.integers(0, 2**64, size=(n, self.limbs + 1), dtype=np.uint64, endpoint=False)
        vals = from_limbs(raw)
        return _reduce(vals, self.modulus)


FR = Field(
    name="Fr",
    modulus=0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001,
    limbs=4,
    bits=255,
    two_adicity=32,
    generator=7,
)

FQ = Field(
    name="Fq",
    modulus=0x1A0111EA397FE69A4B1BA7B6434BACD764774B84F38512BF6730D2A0F6B0F6241EABFFFEB153FFFFB9FEFFFFFFFFAAAB,
    limbs=6,
    bits=381,
    two_adicity=1,
    generator=2,
)


def limbs_below_modulus(limbs: np.ndarray, field: "Field | None" = None) -> np.ndarray:
    """``(n,)`` bool: each row of an ``(n, limbs)`` uint64 little-endian limb array is below the
    field's modulus (default Fr), compared from the top limb with numpy (no Python ints)."""
    f = field or FR
    m = to_limbs([f.modulus], f.limbs)[0]
    top = limbs[:, f.limbs - 1] < m[f.limbs - 1]
    if top.all():   # the usual case (a witness: mostly bits), one comparison per value
        return top
    below = np.zeros(limbs.shape[0], dtype=bool)
    equal = np.ones(limbs.shape[0], dtype=bool)
    for i in range(f.limbs - 1, -1, -1):
        below |= equal & (limbs[:, i] < m[i])
        equal &= limbs[:, i] == m[i]
    return below


def is_limb_array(values, field: "Field | None" = None) -> bool:
    """True for an ``(n, limbs)`` uint64 numpy array: field elements as canonical limbs rather
    than ints (the witness files' layout; see ``cuzk.field``)."""
    f = field or FR
    return isinstance(values, np.ndarray) and values.ndim == 2 and values.shape[1] == f.limbs and values.dtype == np.uint64


def lagrange_at(tau: int, n: int) -> np.ndarray:
    """L_j(τ) for j < n, the Lagrange basis of the n-th roots of unity ω^j (ω = FR.root_of_unity(n))
    at τ: Z(τ)·ω^j / (n·(τ − ω^j)) with Z = x^n − 1 (one batch inversion).

    Returns an int array of length n. Raises ValueError if τ lies in the domain (Z(τ) = 0).
    Source: the barycentric form of the Lagrange basis (Berrut & Trefethen 2004), as bellperson's
    setup evaluates it.
    """
    r = FR.modulus
    w = FR.powers(FR.root_of_unity(n), n)
    z = (pow(tau, n, r) - 1) % r
    if z == 0:
        raise ValueError("τ lies in the evaluation domain")
    denom = FR.batch_inverse(FR.sub(np.full(n, _MPZ(tau), dtype=object), w))
    return FR.mul(FR.mul(w, denom), np.full(n, _MPZ(z * pow(n, -1, r) % r), dtype=object))


def _reduce(a: np.ndarray, p: int) -> np.ndarray:
    return np.mod(a, _MPZ(p))


def int_array(values: Iterable[int]) -> np.ndarray:
    """A 1-D int array (object dtype, gmpy2.mpz) from Python integers; values are not reduced."""
    vals = [_MPZ(v) for v in values]
    return np.fromiter(vals, dtype=object, count=len(vals))


def as_int_array(a: np.ndarray | Sequence[int]) -> np.ndarray:
    """Return ``a`` as an int array: object arrays pass through, integer arrays are converted."""
    if isinstance(a, np.ndarray) and a.dtype == object:
        return a
    if isinstance(a, np.ndarray):
        return int_array(int(v) for v in a.reshape(-1)).reshape(a.shape)
    return int_array(a)


def to_limbs(values: np.ndarray | Sequence[int], limbs: int) -> np.ndarray:
    """Int values (each 0 ≤ v < 2^(64·limbs)) → ``(n, limbs)`` uint64 little-endian limbs.

    Raises:
        OverflowError: a value is negative or does not fit in ``limbs`` limbs.
    """
    nbytes = 8 * limbs
    flat = values.reshape(-1) if isinstance(values, np.ndarray) else values
    try:   # ints and mpz convert themselves: half the time of int(v) first
        buf = b"".join(v.to_bytes(nbytes, "little") for v in flat)
    except AttributeError:   # numpy integers
        buf = b"".join(int(v).to_bytes(nbytes, "little") for v in flat)
    return np.frombuffer(buf, dtype="<u8").reshape(-1, limbs).astype(np.uint64, copy=True)


def from_limbs(arr: np.ndarray) -> np.ndarray:
    """``(n, limbs)`` uint64 little-endian limbs → 1-D int array (gmpy2.mpz) of length n."""
    arr = np.ascontiguousarray(arr, dtype="<u8")
    if arr.ndim != 2:
        raise ValueError(f"limb array must be 2-D (n, limbs), got shape {arr.shape}")
    nbytes = 8 * arr.shape[1]
    raw = arr.tobytes()
    # fromiter: assigning a list into an object array costs ~0.8 µs per element, this ~0.01
    out = np.fromiter((_MPZ(int.from_bytes(raw[i : i + nbytes], "little")) for i in range(0, len(raw), nbytes)),
                      dtype=object, count=arr.shape[0])
    return out


def to_montgomery(arr: np.ndarray, field: Field) -> np.ndarray:
    """Canonical limbs → Montgomery limbs (x · R mod p), shape and dtype kept.

    Raises:
        ValueError: a value is not below the modulus.
    """
    vals = from_limbs(arr)
    if len(vals) and max(vals) >= field.modulus:
        raise ValueError(f"{field.name}: value not below the modulus in to_montgomery")
    return to_limbs(_reduce(vals * _MPZ(field.montgomery_r), field.modulus), field.limbs)


def from_montgomery(arr: np.ndarray, field: Field) -> np.ndarray:
    """Montgomery limbs → canonical limbs (x · R⁻¹ mod p), shape and dtype kept."""
    vals = from_limbs(arr)
    rinv = _MPZ(pow(field.montgomery_r, -1, field.modulus))
    return to_limbs(_reduce(vals * rinv, field.modulus), field.limbs)
