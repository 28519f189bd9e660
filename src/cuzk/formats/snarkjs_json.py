"""snarkjs' JSON files: ``proof.json``, ``public.json`` and ``verification_key.json``.

Encodings (snarkjs ``groth16_prove.js``, ``zkey_export_verificationkey.js``; ffjavascript
``toObject``), all numbers decimal strings of canonical (non-Montgomery) values:
- G1: ``[x, y, "1"]``; infinity ``["0", "1", "0"]``.
- G2: ``[[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]]``; infinity ``[["0","0"],["1","0"],["0","0"]]``.
- proof.json: ``{"pi_a": G1, "pi_b": G2, "pi_c": G1, "protocol": "groth16", "curve": "bls12381"}``.
- public.json: list of decimal strings: outputs first, then public inputs (witness[1:1+nPublic]).
- verification_key.json: ``protocol``, ``curve``, ``nPublic``, ``vk_alpha_1``, ``vk_beta_2``,
  ``vk_gamma_2``, ``vk_delta_2``, ``vk_alphabeta_12`` (e(α, β) in Fq12; snarkjs' verifier does
  not read it), ``IC`` (nPublic + 1 G1 points).

The verification key JSON has no β1 and δ1; :func:`read_vk_json` returns a ``VerifyingKey``
with those two set to None — enough for ``cuzk.groth16.verify`` (which uses α1, β2, γ2, δ2,
IC), not for ``VerifyingKey.to_bytes``. :func:`write_vk_json` leaves out ``vk_alphabeta_12``
unless given (py-arkworks-bls12381 does not expose Fq12 coordinates); snarkjs' ``groth16
verify`` does not need it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

from ..errors import CuzkError
from ..curve import G1, G2, CurveError, Group
from ..field import FQ, FR
from ..fileio import atomic_write_text
from ..groth16.keys import Proof, VerifyingKey

CURVE_NAME = "bls12381"


class SnarkjsJSONError(CuzkError, ValueError):
    """A snarkjs JSON file is malformed: names the file and the field."""

    def __init__(self, path, field: str, message: str):
        self.path, self.field = str(path), field
        super().__init__(f"{self.path}: {field}: {message}")


# --- points -------------------------------------------------------------------------------


def _xy(p, grp: Group) -> list[int]:
    """Affine coordinates as ints: G1 [x, y]; G2 [x.c0, x.c1, y.c0, y.c1]; None for infinity."""
    raw = grp.to_uncompressed(p)
    if raw[0] & 0x40:
        return None
    words = [int.from_bytes(raw[i : i + 48], "big") for i in range(0, len(raw), 48)]
    if grp is G2:  # zcash order x.c1, x.c0, y.c1, y.c0
        words = [words[1], words[0], words[3], words[2]]
    return words


def g1_to_json(p) -> list[str]:
    """G1 point → ``[x, y, "1"]`` (infinity ``["0", "1", "0"]``)."""
    xy = _xy(p, G1)
    if xy is None:
        return ["0", "1", "0"]
    return [str(xy[0]), str(xy[1]), "1"]


def g2_to_json(p) -> list[list[str]]:
    """G2 point → ``[[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]]``."""
    w = _xy(p, G2)
    if w is None:
        return [["0", "0"], ["1", "0"], ["0", "0"]]
    return [[str(w[0]), str(w[1])], [str(w[2]), str(w[3])], ["1", "0"]]


def _num(v, path, field) -> int:
    if isinstance(v, bool) or not isinstance(v, (str, int)):
        raise SnarkjsJSONError(path, field, f"expected a decimal string, got {v!r}")
    try:
        x = int(v, 10) if isinstance(v, str) else int(v)
    except ValueError:
        raise SnarkjsJSONError(path, field, f"not a decimal integer: {v!r}") from None
    return x


def _coord(v, path, field) -> int:
    x = _num(v, path, field)
    if not 0 <= x < FQ.modulus:
        raise SnarkjsJSONError(path, field, "coordinate not in [0, q)")
    return x


def g1_from_json(v, path="<json>", field="G1"):
    """``[x, y, z]`` with z ∈ {"1", "0"} → py-arkworks G1 point (curve and subgroup checked).

    Raises:
        SnarkjsJSONError: wrong shape, non-decimal, coordinate ≥ q, z not 0/1, invalid point.
    """
    if not isinstance(v, list) or len(v) not in (2, 3):
        raise SnarkjsJSONError(path, field, f"expected [x, y, z], got {v!r}")
    z = _num(v[2], path, field) if len(v) == 3 else 1
    if z == 0:
        return G1.identity()
    if z != 1:
        raise SnarkjsJSONError(path, field, f"z = {z}: only affine points (z = 1) are supported")
    x, y = _coord(v[0], path, field), _coord(v[1], path, field)
    try:
        return G1.from_uncompressed(x.to_bytes(48, "big") + y.to_bytes(48, "big"))
    except CurveError as e:
        raise SnarkjsJSONError(path, field, str(e)) from None


def g2_from_json(v, path="<json>", field="G2"):
    """``[[x.c0, x.c1], [y.c0, y.c1], [z.c0, z.c1]]`` → py-arkworks G2 point (checked).

    Raises:
        SnarkjsJSONError: as ``g1_from_json``.
    """
    if not isinstance(v, list) or len(v) not in (2, 3) or not all(isinstance(c, list) and len(c) == 2 for c in v):
        raise SnarkjsJSONError(path, field, f"expected [[x.c0, x.c1], [y.c0, y.c1], [z.c0, z.c1]], got {v!r}")
    z = [_num(c, path, field) for c in v[2]] if len(v) == 3 else [1, 0]
    if z == [0, 0]:
        return G2.identity()
    if z != [1, 0]:
        raise SnarkjsJSONError(path, field, f"z = {z}: only affine points (z = [1, 0]) are supported")
    (x0, x1), (y0, y1) = ([_coord(c, path, field) for c in pair] for pair in v[:2])
    raw = b"".join(c.to_bytes(48, "big") for c in (x1, x0, y1, y0))
    try:
        return G2.from_uncompressed(raw)
    except CurveError as e:
        raise SnarkjsJSONError(path, field, str(e)) from None


# --- proof / public -----------------------------------------------------------------------


def proof_to_json(proof: Proof) -> dict:
    """Proof → snarkjs ``proof.json`` object."""
    return {
        "pi_a": g1_to_json(proof.a),
        "pi_b": g2_to_json(proof.b),
        "pi_c": g1_to_json(proof.c),
        "protocol": "groth16",
        "curve": CURVE_NAME,
    }


def _check_groth16_object(obj, path, keys) -> None:
    """A snarkjs JSON object for Groth16 on BLS12-381 with the given keys, or SnarkjsJSONError."""
    if not isinstance(obj, dict):
        raise SnarkjsJSONError(path, "<root>", "expected a JSON object")
    for key in keys:
        if key not in obj:
            raise SnarkjsJSONError(path, key, "missing")
    if obj.get("protocol", "groth16") != "groth16":
        raise SnarkjsJSONError(path, "protocol", f"{obj['protocol']!r} is not groth16")
    if obj.get("curve", CURVE_NAME) != CURVE_NAME:
        raise SnarkjsJSONError(path, "curve", f"{obj['curve']!r} is not {CURVE_NAME}")


def proof_from_json(obj, path="<json>") -> Proof:
    """snarkjs ``proof.json`` object → Proof (points checked).

    Raises:
        SnarkjsJSONError: not an object, missing field, protocol not groth16, curve not
            bls12381, or a malformed/invalid point.
    """
    _check_groth16_object(obj, path, ("pi_a", "pi_b", "pi_c"))
    return Proof(g1_from_json(obj["pi_a"], path, "pi_a"), g2_from_json(obj["pi_b"], path, "pi_b"),
                 g1_from_json(obj["pi_c"], path, "pi_c"))


def _dump(path, obj) -> None:
    atomic_write_text(path, json.dumps(obj, indent=1) + "\n")


def _load(path):
    try:
        return json.loads(Path(path).read_text())
    except json.JSONDecodeError as e:
        raise SnarkjsJSONError(path, "<root>", f"invalid JSON: {e}") from None


def write_proof_json(path, proof: Proof) -> None:
    """Write ``proof.json`` atomically."""
    _dump(path, proof_to_json(proof))


def read_proof_json(path) -> Proof:
    """Read ``proof.json`` (see :func:`proof_from_json` for errors)."""
    return proof_from_json(_load(path), path)


def write_public_json(path, signals: Sequence[int]) -> None:
    """Write ``public.json``: the public signals as decimal strings (outputs, then inputs)."""
    _dump(path, [str(int(x)) for x in signals])


def read_public_json(path) -> list[int]:
    """Read ``public.json`` → list of ints.

    Raises:
        SnarkjsJSONError: not a list, or an entry that is not a decimal in [0, r).
    """
    obj = _load(path)
    if not isinstance(obj, list):
        raise SnarkjsJSONError(path, "<root>", "expected a JSON list of decimal strings")
    out = []
    for i, v in enumerate(obj):
        x = _num(v, path, f"[{i}]")
        if not 0 <= x < FR.modulus:
            raise SnarkjsJSONError(path, f"[{i}]", "public signal not in [0, r)")
        out.append(x)
    return out


# --- verification key ---------------------------------------------------------------------


def vk_to_json(vk: VerifyingKey, alphabeta_12=None) -> dict:
    """VerifyingKey → snarkjs ``verification_key.json`` object (``vk_alphabeta_12`` only when
    given, e.g. carried over from a snarkjs file)."""
    out = {
        "protocol": "groth16",
        "curve": CURVE_NAME,
        "nPublic": len(vk.ic) - 1,
        "vk_alpha_1": g1_to_json(vk.alpha_g1),
        "vk_beta_2": g2_to_json(vk.beta_g2),
        "vk_gamma_2": g2_to_json(vk.gamma_g2),
        "vk_delta_2": g2_to_json(vk.delta_g2),
    }
    if alphabeta_12 is not None:
        out["vk_alphabeta_12"] = alphabeta_12
    out["IC"] = [g1_to_json(p) for p in vk.ic]
    return out


def vk_from_json(obj, path="<json>") -> VerifyingKey:
    """snarkjs ``verification_key.json`` object → VerifyingKey (beta_g1 = delta_g1 = None).

    Raises:
        SnarkjsJSONError: missing field, protocol/curve mismatch, len(IC) ≠ nPublic + 1, or an
            invalid point.
    """
    _check_groth16_object(obj, path, ("vk_alpha_1", "vk_beta_2", "vk_gamma_2", "vk_delta_2", "IC"))
    ic_raw = obj["IC"]
    if not isinstance(ic_raw, list) or not ic_raw:
        raise SnarkjsJSONError(path, "IC", "expected a non-empty list of G1 points")
    if "nPublic" in obj and _num(obj["nPublic"], path, "nPublic") + 1 != len(ic_raw):
        raise SnarkjsJSONError(path, "IC", f"{len(ic_raw)} points for nPublic = {obj['nPublic']}")
    ic = [g1_from_json(p, path, f"IC[{i}]") for i, p in enumerate(ic_raw)]
    return VerifyingKey(
        alpha_g1=g1_from_json(obj["vk_alpha_1"], path, "vk_alpha_1"),
        beta_g1=None,
        beta_g2=g2_from_json(obj["vk_beta_2"], path, "vk_beta_2"),
        gamma_g2=g2_from_json(obj["vk_gamma_2"], path, "vk_gamma_2"),
        delta_g1=None,
        delta_g2=g2_from_json(obj["vk_delta_2"], path, "vk_delta_2"),
        ic=ic,
    )


def write_vk_json(path, vk: VerifyingKey, alphabeta_12=None) -> None:
    """Write ``verification_key.json`` atomically (see :func:`vk_to_json`)."""
    _dump(path, vk_to_json(vk, alphabeta_12))


def read_vk_json(path) -> VerifyingKey:
    """Read ``verification_key.json`` (see :func:`vk_from_json`)."""
    return vk_from_json(_load(path), path)


__all__ = [
    "CURVE_NAME",
    "SnarkjsJSONError",
    "g1_from_json",
    "g1_to_json",
    "g2_from_json",
    "g2_to_json",
    "proof_from_json",
    "proof_to_json",
    "read_proof_json",
    "read_public_json",
    "read_vk_json",
    "vk_from_json",
    "vk_to_json",
    "write_proof_json",
    "write_public_json",
    "write_vk_json",
]
