"""A random satisfiable circuit shaped like a PoRep witness, for benchmarks and tests.

For N constraints, K public inputs and bit share s (share of aux variables that are 0/1):
- nb = round(2sN / (1 + s)) bit variables b, each with a booleanity constraint b·(b − 1) = 0;
- m = N − nb multiplications (x_i + X_(i mod K)) · (Σ_{j<8} 2^j·b_(8i+j mod nb)) = z_i with x_i
  random in Fr, X the public inputs and z_i aux;
so aux = nb + 2m and the bit share of aux is nb / (nb + 2m) ≈ s. Like SHA-256-heavy PoRep
circuits, most constraints are booleanity checks and most witness values are bits.
"""

from __future__ import annotations

import numpy as np

from ..field import FR
from ..r1cs import ConstraintSystem, lc

POW2_8 = [1 << j for j in range(8)]


def split(constraints: int, bit_share: float) -> tuple[int, int]:
    """(bit variables nb, multiplication constraints m) for ``constraints`` N ≥ 2.

    Raises:
        ValueError: N < 2 or bit_share outside [0, 1).
    """
    if constraints < 2:
        raise ValueError(f"synthetic circuit needs at least 2 constraints, got {constraints}")
    if not 0 <= bit_share < 1:
        raise ValueError(f"bit_share must be in [0, 1), got {bit_share}")
    nb = min(constraints - 1, max(1, round(2 * bit_share * constraints / (1 + bit_share))))
    return nb, constraints - nb


def synthesize(cs: ConstraintSystem, constraints: int, inputs: int, bit_share: float, seed: int = 0) -> None:
    """Build the circuit into ``cs`` (shape and/or witness mode); values drawn from ``seed``.

    Raises:
        ValueError: see ``split``; inputs < 0.
    """
    if inputs < 0:
        raise ValueError("inputs must be ≥ 0")
    nb, m = split(constraints, bit_share)
    rng = np.random.default_rng(seed)
    vals = cs.has_values
    xin = FR.random(inputs, rng) if vals else None
    bits = rng.integers(0, 2, size=nb, dtype=np.uint64) if vals else None
    x = FR.random(m, rng) if vals else None

    pub = cs.alloc_input(inputs, values=xin)
    b = cs.alloc_aux(nb, values=bits)
    cs.enforce(lc(b), lc(b) - lc(cs.one(nb)), None, gadget="synthetic/boolean")

    xv = cs.alloc_aux(m, values=x)
    sel = (8 * np.arange(m)[:, None] + np.arange(8)[None, :]) % nb      # (m, 8) bit positions
    if vals:
        packed = (bits[sel] << np.arange(8, dtype=np.uint64)).sum(axis=1)
        xi = x + (xin[np.arange(m) % inputs] if inputs else 0)
        z = FR.mul(np.asarray(xi, dtype=object), packed.astype(object))
    zv = cs.alloc_aux(m, values=z if vals else None)
    a_lc = lc(xv) + (lc(pub[np.arange(m) % inputs]) if inputs else None)
    cs.enforce(a_lc, lc(b[sel], POW2_8), lc(zv), gadget="synthetic/mul")
