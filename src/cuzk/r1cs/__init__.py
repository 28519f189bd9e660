"""Vectorized R1CS: the constraint system (shape and witness modes), gadgets, PCE and witness files.

- ``system``: the constraint system (blocks of k constraints at once) and its finalized ``R1CS``.
- ``gadgets``: booleans, bit decomposition, packing, uint32 addition.
- ``sha256``, ``poseidon``, ``labeling``: SHA-256, Poseidon (and Merkle paths), SDR label gadgets.
- ``pce``: PCE files (a shape's A, B, C in CSR, written once); ``witness``: witness files.
- ``values``: the witness value store (a byte per value below 255, wider values as limbs).
- ``parallel``: worker processes that compute a gadget's rows (Poseidon values) in chunks.

>>> from cuzk.r1cs import ConstraintSystem, lc
>>> cs = ConstraintSystem()
>>> x = cs.alloc_aux(3, values=[1, 2, 3])
>>> cs.enforce(lc(x), lc(x), lc(cs.alloc_aux(3, values=[1, 4, 9])), gadget="square")
>>> cs.finalize().check(cs.full_assignment())

See ``system`` for refs (aux j → j, input i → -(i+1), ONE = -1) and ``gadgets`` for the blocks.
"""

from __future__ import annotations

from . import gadgets, poseidon, sha256
from .gadgets import POW2, alloc_bits, boolean, enforce_equal, num_to_bits, pack_bits, uint32_add
from .system import INPUT_GADGET, LC, R1CS, ConstraintSystem, Unsatisfied, lc

__all__ = [
    "ConstraintSystem",
    "INPUT_GADGET",
    "LC",
    "POW2",
    "R1CS",
    "Unsatisfied",
    "alloc_bits",
    "boolean",
    "enforce_equal",
    "gadgets",
    "poseidon",
    "sha256",
    "lc",
    "num_to_bits",
    "pack_bits",
    "uint32_add",
]
