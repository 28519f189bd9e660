"""Groth16 verification: single proofs (one multi-pairing) and randomized batches.

Single (Groth 2016; bellperson ``verify_proof``):
    e(A, B) · e(−Σ x_i·IC_i, γ) · e(−C, δ) · e(−α, β) = 1,  with x_0 = ONE = 1.
Batch (bellperson ``verify_proofs_batch``): for random 128-bit ρ_k,
    Π_k e(ρ_k·A_k, B_k) · e(−Σρ_k·α, β) · e(−Σ_k ρ_k·PI_k, γ) · e(−Σ_k ρ_k·C_k, δ) = 1,
one multi-Miller loop of (#proofs + 3) pairs and one final exponentiation; a batch with a bad
proof passes with probability about 2^−128.
"""

from __future__ import annotations

import secrets
from typing import Sequence

import py_arkworks_bls12381 as ark

from ..errors import CuzkError
from ..curve import G1
from ..field import FR
from .keys import Proof, VerifyingKey


class PublicInputError(CuzkError, ValueError):
    """Public inputs do not fit the verifying key (count or range)."""


def _public_combination(vk: VerifyingKey, public_inputs: Sequence[int]):
    """Σ x_i·IC_i with x_0 = 1 (the ONE input is implicit: pass inputs without it)."""
    if len(public_inputs) + 1 != len(vk.ic):
        raise PublicInputError(f"verifying key takes {len(vk.ic) - 1} public inputs, got {len(public_inputs)}")
    for i, x in enumerate(public_inputs):
        if not 0 <= int(x) < FR.modulus:
            raise PublicInputError(f"public input {i} is not in [0, r)")
    return vk.ic[0] + G1.msm(vk.ic[1:], list(public_inputs))


def verify(vk: VerifyingKey, proof: Proof, public_inputs: Sequence[int]) -> bool:
    """True iff ``proof`` verifies for ``public_inputs`` (without ONE) under ``vk``.

    Raises:
        PublicInputError: wrong number of inputs or a value outside [0, r).
    """
    pi = _public_combination(vk, public_inputs)
    return ark.GT.pairing_check(
        [proof.a, -pi, -proof.c, -vk.alpha_g1],
        [proof.b, vk.gamma_g2, vk.delta_g2, vk.beta_g2],
    )


def verify_batch(vk: VerifyingKey, proofs: Sequence[Proof], public_inputs: Sequence[Sequence[int]]) -> bool:
    """Randomized batch verification of proofs of one key (see the module docstring).

    Returns True iff (with overwhelming probability) every proof verifies; empty → True.

    Raises:
        PublicInputError: list lengths differ, or an input list does not fit the key.
    """
    if len(proofs) != len(public_inputs):
        raise PublicInputError(f"{len(proofs)} proofs but {len(public_inputs)} public input lists")
    if not proofs:
        return True
    rho = [secrets.randbits(128) | 1 for _ in proofs]
    g1s, g2s = [], []
    pis, cs = [], []
    for k, (p, x) in enumerate(zip(proofs, public_inputs)):
        g1s.append(G1.mul(p.a, rho[k]))
        g2s.append(p.b)
        pis.append(_public_combination(vk, x))
        cs.append(p.c)
    sum_pi = G1.msm(pis, rho)
    sum_c = G1.msm(cs, rho)
    g1s += [-G1.mul(vk.alpha_g1, sum(rho) % FR.modulus), -sum_pi, -sum_c]
    g2s += [vk.beta_g2, vk.gamma_g2, vk.delta_g2]
    return ark.GT.pairing_check(g1s, g2s)
