"""BLS12-381 scalar field Fr and base field Fq: constants, limb layout and array arithmetic.

Modules: ``arith`` (fields, limbs, int arrays, Lagrange coefficients), ``runs`` (``LimbRuns``, a
limb array in runs of repeated or computed rows), ``sparse`` (``CSRMatrix``, the R1CS matrices over Fr).

Layout shared by files and GPU memory: an array of n field elements is an ``(n, 4)`` (Fr) or
``(n, 6)`` (Fq) ``uint64`` array of little-endian 64-bit limbs. Files hold canonical values;
kernels hold Montgomery values (``x * 2^256 mod r`` for Fr, ``x * 2^384 mod q`` for Fq).

On the CPU, arithmetic runs on numpy object arrays of ``gmpy2.mpz`` ("int arrays"): measured on
this project's 2-core machine, a vectorized mpz multiply-mod costs about 0.26 µs per element,
several times cheaper than 64-bit limb arithmetic written in numpy.

Sources: moduli and the 2-adic structure from the BLS12-381 definition (zkcrypto/bls12_381,
blstrs); the multiplicative generator 7 and 2-adicity 32 as in blstrs' ``Scalar`` (so NTT domains
and cosets match bellperson's).
"""

from __future__ import annotations

from .arith import (
    FQ,
    FR,
    Field,
    as_int_array,
    from_limbs,
    from_montgomery,
    int_array,
    is_limb_array,
    lagrange_at,
    limbs_below_modulus,
    to_limbs,
    to_montgomery,
)
from .runs import ComputedRows, LimbRuns

__all__ = [
    "FQ",
    "FR",
    "Field",
    "ComputedRows",
    "LimbRuns",
    "as_int_array",
    "from_limbs",
    "from_montgomery",
    "int_array",
    "is_limb_array",
    "lagrange_at",
    "limbs_below_modulus",
    "to_limbs",
    "to_montgomery",
]
