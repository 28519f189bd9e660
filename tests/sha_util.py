"""Compression calls with every literal kind, for the SHA-256 witness kernel's tests."""

from __future__ import annotations

import numpy as np

from cuzk.r1cs.gadgets import alloc_bits
from cuzk.r1cs.sha256 import BIT0, BIT1, bit_not, sha256, sha256_compress
from cuzk.r1cs.sha_calls import record_compressions
from cuzk.r1cs.system import ConstraintSystem


def mixed_calls(seed: int, k: int):
    """(cs, calls): a witness-only system in which k random 1200-bit messages mixing variables,
    negations and constants (60/20/10/10 %) are hashed (three blocks from the IV), then one
    compression of a negated state over a mixed block and one of a mixed state over a constant
    block; ``calls``: the five recorded ``Compression`` calls."""
    rng = np.random.default_rng(seed)
    nbits = 1200
    kinds = rng.choice(4, nbits, p=[0.6, 0.2, 0.1, 0.1])   # variable, negated, constant 0, 1
    cs = ConstraintSystem(shape=False, witness=True)
    x = alloc_bits(cs, (k, nbits), rng.integers(0, 2, (k, nbits)))
    lits = x.copy()
    lits[:, kinds == 1] = bit_not(x[:, kinds == 1])
    lits[:, kinds == 2], lits[:, kinds == 3] = BIT0, BIT1
    with record_compressions() as calls:
        sha256(cs, lits)
        sha256_compress(cs, bit_not(lits[:, :256]), lits[:, 256:768])
        sha256_compress(cs, lits[:, :256], np.full((k, 512), BIT1, dtype=np.int64))
    return cs, calls
