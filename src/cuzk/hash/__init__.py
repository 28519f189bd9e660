"""Native hashes for sealing and for gadget witnesses, many inputs at once.

:mod:`cuzk.hash.poseidon` — Poseidon over BLS12-381 Fr as filecoin-project/neptune defines it
(width arity + 1, x^5, R_F = 8, R_P from neptune's round-number rule, Grain LFSR round constants,
Cauchy MDS, Merkle-tree domain tag 2^arity − 1 by default), vectorized over k hashes on int arrays
(numpy object arrays of gmpy2.mpz, see :mod:`cuzk.field.arith`).

(sha254 — SHA-256 with the top two bits of the last byte cleared — lives in
:mod:`cuzk.sector.commd` since only sector code uses it natively.)
"""

from .poseidon import (
    FULL_ROUNDS,
    STANDARD,
    STRENGTHENED,
    PoseidonParams,
    apply_round,
    constant_length_tag,
    custom_tag,
    encryption_tag,
    merkle_tree_tag,
    params,
    permute_many,
    poseidon_hash,
    poseidon_many,
    round_numbers,
)

__all__ = [
    "FULL_ROUNDS",
    "STANDARD",
    "STRENGTHENED",
    "PoseidonParams",
    "apply_round",
    "constant_length_tag",
    "custom_tag",
    "encryption_tag",
    "merkle_tree_tag",
    "params",
    "permute_many",
    "poseidon_hash",
    "poseidon_many",
    "round_numbers",
]
