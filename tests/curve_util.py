"""Test helpers: curve points built from Python integers, independent of the libraries under test;
G1 points as the cuda backend's Montgomery affine limbs (the host builds of its device code)."""

import numpy as np

from cuzk.backend.cuda.runtime import _encoding_to_limbs, _limbs_to_encoding
from cuzk.curve import G1
from cuzk.field import FQ

Q = FQ.modulus


def fq2_mul(a, b):
    return ((a[0] * b[0] - a[1] * b[1]) % Q, (a[0] * b[1] + a[1] * b[0]) % Q)


def fq2_pow(a, e):
    out = (1, 0)
    while e:
        if e & 1:
            out = fq2_mul(out, a)
        a = fq2_mul(a, a)
        e >>= 1
    return out


def fq2_sqrt(a):
    """Square root in Fq2 = Fq[u]/(u²+1), q ≡ 3 mod 4 (Adj & Rodríguez-Henríquez, Alg. 9); None if none."""
    a1 = fq2_pow(a, (Q - 3) // 4)
    alpha = fq2_mul(a1, fq2_mul(a1, a))
    a0 = fq2_mul(fq2_pow(alpha, Q), alpha)
    if a0 == (Q - 1, 0):
        return None
    x0 = fq2_mul(a1, a)
    if alpha == (Q - 1, 0):
        x = fq2_mul((0, 1), x0)
    else:
        b = fq2_pow(((1 + alpha[0]) % Q, alpha[1]), (Q - 1) // 2)
        x = fq2_mul(b, x0)
    return x if fq2_mul(x, x) == (a[0] % Q, a[1] % Q) else None


def g1_point_off_subgroup(start=1):
    """(x, y) on y² = x³ + 4 over Fq; a random-looking x lands outside the r-subgroup w.h.p."""
    x = start
    while True:
        rhs = (x**3 + 4) % Q
        y = pow(rhs, (Q + 1) // 4, Q)
        if y * y % Q == rhs:
            return x, y
        x += 1


def g2_point_off_subgroup(start=1):
    """((x0, x1), (y0, y1)) on y² = x³ + 4(u + 1) over Fq2, found by trying x = (start, 1), …"""
    x = (start, 1)
    while True:
        rhs = fq2_mul(fq2_mul(x, x), x)
        rhs = ((rhs[0] + 4) % Q, (rhs[1] + 4) % Q)
        y = fq2_sqrt(rhs)
        if y is not None:
            return x, y
        x = (x[0] + 1, 1)


def be(v, n=48):
    return int(v).to_bytes(n, "big")


def g1_uncompressed(x, y):
    return be(x) + be(y)


def g2_uncompressed(x, y):
    return be(x[1]) + be(x[0]) + be(y[1]) + be(y[0])


def naive_lagrange(tau: int, n: int) -> list[int]:
    """L_j(τ) over the n-th roots of unity by the product formula Π_{k≠j} (τ − ω^k)/(ω^j − ω^k)
    (O(n²); independent of cuzk's batch-inversion and NTT forms)."""
    from cuzk.field import FR

    r = FR.modulus
    om = FR.root_of_unity(n)
    pts = [pow(om, j, r) for j in range(n)]
    out = []
    for j in range(n):
        num = den = 1
        for k in range(n):
            if k != j:
                num, den = num * (tau - pts[k]) % r, den * (pts[j] - pts[k]) % r
        out.append(num * pow(den, -1, r) % r)
    return out


R384 = 1 << 384


def _scaled(limbs: np.ndarray, f: int) -> np.ndarray:
    """(n, 24) uint32 affine limbs with each 12-limb coordinate multiplied by f mod q."""
    out = np.zeros_like(limbs)
    for i, row in enumerate(limbs):
        for k in (0, 12):
            v = int.from_bytes(row[k:k + 12].tobytes(), "little") * f % Q
            out[i, k:k + 12] = np.frombuffer(v.to_bytes(48, "little"), dtype=np.uint32)
    return out


def g1_to_mont(points) -> np.ndarray:
    """(n, 24) uint32 Montgomery affine limbs of arkworks G1 points (infinity (0, 0)), as the
    device holds bases (``runtime._encoding_to_limbs``, then x·2^384 mod q)."""
    return _scaled(_encoding_to_limbs(G1, G1.to_array(points)), R384 % Q)


def g1_from_mont(limbs: np.ndarray) -> list:
    """arkworks G1 points of (n, 24) uint32 Montgomery affine limbs (g1_to_mont's inverse)."""
    return G1.from_array(_limbs_to_encoding(G1, _scaled(limbs, pow(R384, -1, Q))))
