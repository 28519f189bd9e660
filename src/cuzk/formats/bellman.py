"""Proving with what ``snarkjs zkey export bellman`` writes, through cuzk's bellperson prover.

The export (snarkjs ``zkey_export_bellman.js``) is bellperson's ``.params`` layout — vk, then
h (n − 1 points τ^i·Z(τ)/δ, domain-independent), l (= the zkey's C), a, b_g1, b_g2 — followed
by snarkjs' phase-2 transcript (``read_params`` ignores bytes after b_g2). Two differences from
a bellperson key:

* a, b_g1, b_g2 hold one point per wire, points at infinity included (bellperson leaves out
  the wires outside density_a/density_b), and snarkjs writes infinity as 96/192 zero bytes
  without the 0x40 flag (ffjavascript ``LEMtoU``), which ``groth16.read_params`` — like
  bellperson — refuses as "(0, 0) is not on the curve"; :func:`read_bellman_export` reads it;
* the A/B/C bases were interpolated over ffjavascript's domain (ω5_n), while cuzk's prover
  (bellperson's algorithm) interpolates over blstrs' (ω7_n). With ω5_n = ω7_n^k
  (``encoding.ffjs_index_map``), the key is the bellperson key of the same R1CS with row j
  moved to row k·j mod n, padded to n rows.

:func:`adapt_bellman_export` makes both fit without changing the prover: it drops the points
at infinity (checking they are exactly the wires outside the densities) and returns the
row-permuted R1CS to prove with.
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

from ..field.sparse import CSRMatrix
from ..curve import G1, G2, CurveError, Group
from ..groth16.keys import KeyFileError, ProvingKey, VerifyingKey
from ..groth16.setup import domain_size
from ..r1cs.system import R1CS
from .encoding import ffjs_index_map

PERMUTED_GADGET = "ffjs-permuted"


def _finite(arr: np.ndarray) -> np.ndarray:
    return (arr[:, 0] & 0x40) == 0


def _zero_to_infinity(raw: bytes, grp: Group) -> np.ndarray:
    arr = np.frombuffer(raw, dtype=np.uint8).reshape(-1, grp.uncompressed_size).copy()
    zero = ~arr.any(axis=1)
    arr[zero, 0] = 0x40
    return arr


def read_bellman_export(path, check: bool = True) -> ProvingKey:
    """Read ``snarkjs zkey export bellman`` output into a ``ProvingKey`` (one point per wire).

    Layout as ``groth16.read_params`` (big-endian u32 lengths, zcash uncompressed points), with
    all-zero points read as infinity and the phase-2 transcript after b_g2 ignored.

    Args:
        check: check every point (curve and subgroup); False checks the curve equation of the
            verifying key only.

    Raises:
        KeyFileError: truncation or an invalid point (file, offset and vector named).
    """
    data = Path(path).read_bytes()
    pos = 0

    def take(n, what):
        nonlocal pos
        if pos + n > len(data):
            raise KeyFileError(path, pos, f"truncated: {what} needs {n} bytes, {len(data) - pos} left")
        out = data[pos : pos + n]
        pos += n
        return out

    def vec(grp: Group, what: str, chk: bool) -> np.ndarray:
        n = struct.unpack(">I", take(4, f"{what} length"))[0]
        start = pos
        arr = _zero_to_infinity(take(n * grp.uncompressed_size, f"{what} ({n} points)"), grp)
        if chk:
            try:
                grp.from_array(arr, check_subgroup=True)
            except CurveError as e:
                raise KeyFileError(path, start, f"{what}: {e}") from None
        return arr

    pts = []
    for name, grp in (("alpha_g1", G1), ("beta_g1", G1), ("beta_g2", G2), ("gamma_g2", G2),
                      ("delta_g1", G1), ("delta_g2", G2)):
        off = pos
        try:
            pts.append(grp.from_uncompressed(take(grp.uncompressed_size, f"vk.{name}"), check_subgroup=check))
        except CurveError as e:
            raise KeyFileError(path, off, f"vk.{name}: {e}") from None
    ic = G1.from_array(vec(G1, "vk.ic", check), check_subgroup=False)
    vk = VerifyingKey(*pts, ic)
    h, l_, a, b1 = (vec(G1, name, check) for name in ("h", "l", "a", "b_g1"))
    b2 = vec(G2, "b_g2", check)
    return ProvingKey(vk, h, l_, a, b1, b2)


def ffjs_row_permuted(r1cs: R1CS) -> R1CS:
    """The R1CS padded to n = domain_size rows with row j moved to k·j mod n (ffjs domain order).

    Its QAP over cuzk's ω7 domain equals the original's over ffjavascript's ω5 domain. Every row
    reports the gadget name "ffjs-permuted".
    """
    n = domain_size(r1cs.num_constraints)
    k = ffjs_index_map(n)

    def perm(m: CSRMatrix) -> CSRMatrix:
        rows = (m.row_ids() * k) % n
        order = np.argsort(rows, kind="stable")  # entries of one row stay sorted by column
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
        return CSRMatrix(indptr, m.indices[order], m.coeff_ids[order], m.coeffs, (n, m.shape[1]))

    return R1CS(
        num_inputs=r1cs.num_inputs,
        num_aux=r1cs.num_aux,
        num_constraints=n,
        A=perm(r1cs.A),
        B=perm(r1cs.B),
        C=perm(r1cs.C),
        density_a=r1cs.density_a,
        density_b=r1cs.density_b,
        gadget_starts=np.array([0], dtype=np.int64),
        gadget_ids=np.array([0], dtype=np.int32),
        gadget_names=(PERMUTED_GADGET,),
    )


def adapt_bellman_export(pk: ProvingKey, r1cs: R1CS) -> tuple[ProvingKey, R1CS]:
    """Fit a ``read_params`` of a snarkjs bellman export to cuzk's ``groth16.Prover``.

    Args:
        pk: ``read_bellman_export`` of the exported file (a, b_g1, b_g2 with one point per wire).
        r1cs: the circuit (``CircomR1CS.to_r1cs()``).

    Returns:
        (key without the points at infinity, ``ffjs_row_permuted(r1cs)``) for ``Prover``.

    Raises:
        ValueError: vector lengths or the finite points do not match the circuit's densities.
    """
    nv = r1cs.num_vars
    for name in ("a", "b_g1", "b_g2"):
        if getattr(pk, name).shape[0] != nv:
            raise ValueError(f"{name} has {getattr(pk, name).shape[0]} points, expected one per wire ({nv})")
    fa, fb = _finite(pk.a), _finite(pk.b_g1)
    if not (np.array_equal(fa, r1cs.density_a) and np.array_equal(fb, r1cs.density_b)
            and np.array_equal(_finite(pk.b_g2), fb)):
        raise ValueError("the key's points at infinity do not match the circuit's A/B densities")
    key = ProvingKey(pk.vk, pk.h, pk.l, pk.a[fa], pk.b_g1[fb], pk.b_g2[fb], digest=pk.digest)
    return key, ffjs_row_permuted(r1cs)


__all__ = ["PERMUTED_GADGET", "adapt_bellman_export", "ffjs_row_permuted", "read_bellman_export"]
