"""circom/snarkjs ``.wtns`` witness files (iden3 container, magic ``wtns``, version 2).

Sections (snarkjs ``wtns_utils.js``): 1 header = u32 n8 (32), prime (n8 bytes LE), u32 nWitness;
2 values = nWitness × n8 bytes, little-endian standard form (not Montgomery), w[0] = 1.
The values follow the ``.r1cs`` wire order: ONE, outputs, public inputs, private inputs,
internal signals; ``split_witness`` cuts them into cuzk's (inputs, aux).
"""

from __future__ import annotations

import numpy as np

from ..field import FR
from .encoding import ints_to_le, le_to_ints
from .iden3 import Iden3CurveError, WitnessLengthError, read_container, write_container

_R = FR.modulus


def read_wtns(path, n_wires: int | None = None) -> np.ndarray:
    """Read a ``.wtns`` file for BLS12-381.

    Args:
        path: the file.
        n_wires: the number of values the circuit needs (``CircomR1CS.n_wires`` or
            ``ZKey.n_vars``); None to accept any length.

    Returns:
        ``(nWitness,)`` int array (object dtype, gmpy2.mpz), canonical, w[0] == 1.

    Raises:
        Iden3FormatError: wrong magic/version, n8 ≠ 32, a value ≥ r, w[0] ≠ 1, trailing bytes.
        Iden3CurveError: the prime is not BLS12-381's r.
        Iden3TruncatedError: section 2 is shorter than nWitness values.
        WitnessLengthError: nWitness differs from ``n_wires``.
    """
    cont = read_container(path, "wtns", 2)
    h = cont.reader(1)
    n8 = h.u32("n8")
    prime = h.bigint(n8, "prime")
    if prime != _R:
        raise h.error(f"prime {prime} is not BLS12-381's scalar field order r", Iden3CurveError)
    if n8 != 32:
        raise h.error(f"n8 = {n8}, expected 32 for BLS12-381")
    count = h.u32("nWitness")
    h.done("the header")
    if n_wires is not None and count != n_wires:
        raise h.error(f"witness has {count} values, the circuit needs {n_wires}", WitnessLengthError)
    v = cont.reader(2)
    raw = v.take(count * n8, f"{count} witness values")
    v.done(f"{count} witness values")
    w = le_to_ints(raw, n8)
    if len(w) and max(w) >= _R:
        raise v.error(f"value {int(np.flatnonzero(w >= _R)[0])} is not below r")
    if count == 0 or w[0] != 1:
        raise v.error("w[0] (the constant ONE) is not 1")
    return w


def write_wtns(path, values) -> None:
    """Write a ``.wtns`` (version 2) file atomically.

    Args:
        values: the full witness (ONE first), ints in [0, r).

    Raises:
        ValueError: a value outside [0, r) or values[0] ≠ 1.
    """
    vals = [int(x) for x in values]
    if not vals or vals[0] != 1:
        raise ValueError("witness[0] (the constant ONE) must be 1")
    if any(x < 0 or x >= _R for x in vals):
        raise ValueError("witness value outside [0, r)")
    header = (32).to_bytes(4, "little") + _R.to_bytes(32, "little") + len(vals).to_bytes(4, "little")
    write_container(path, "wtns", 2, [(1, header), (2, ints_to_le(vals, 32))])


def split_witness(witness, num_inputs: int) -> tuple[list[int], list[int]]:
    """A circom witness → cuzk's (inputs with ONE first, aux) for ``groth16.Prover.prove``.

    Args:
        witness: full witness in wire order.
        num_inputs: 1 + public values (``CircomR1CS.num_inputs`` / ``R1CS.num_inputs``).
    """
    vals = [int(x) for x in witness]
    return vals[:num_inputs], vals[num_inputs:]


__all__ = ["read_wtns", "split_witness", "write_wtns", "WitnessLengthError"]
