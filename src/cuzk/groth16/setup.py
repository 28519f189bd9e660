"""Development Groth16 setup: random toxic waste → ProvingKey. NOT for chain use.

The parameters come from one process's random τ, α, β, γ, δ, which this process knows: anyone
holding them can forge proofs. They exist for tests and benchmarks of circuits whose real
(ceremony) parameters are not available here. Source: Groth, "On the Size of Pairing-based
Non-interactive Arguments" (EUROCRYPT 2016), with bellperson's ``generate_parameters`` layout.
"""

from __future__ import annotations

import logging
import secrets
import warnings

import gmpy2
import numpy as np

from ..backend import Backend, CSRMatrix
from ..curve import G1, G2
from ..field import FR
from .keys import ProvingKey, VerifyingKey

log = logging.getLogger(__name__)

DEV_SETUP_WARNING = (
    "cuzk development setup: random toxic waste known to this process; these parameters are for "
    "tests and benchmarks only and must never be used on chain"
)


class DevelopmentSetupWarning(UserWarning):
    """Warns that parameters come from a development (insecure) setup."""


def domain_size(num_constraints: int) -> int:
    """Smallest power of two ≥ num_constraints (bellperson ``EvaluationDomain``); at least 2."""
    return max(2, 1 << (num_constraints - 1).bit_length())


def lagrange_at(tau: int, n: int) -> np.ndarray:
    """L_j(τ) for j < n over the n-th roots of unity ω^j: Z(τ)·ω^j / (n·(τ − ω^j)), Z = x^n − 1.

    Returns an int array of length n. Raises ValueError if τ lies in the domain.
    """
    r = FR.modulus
    w = FR.powers(FR.root_of_unity(n), n)
    z = (pow(tau, n, r) - 1) % r
    if z == 0:
        raise ValueError("τ lies in the evaluation domain")
    denom = FR.batch_inverse(FR.sub(np.full(n, gmpy2.mpz(tau), dtype=object), w))
    return FR.mul(FR.mul(w, denom), np.full(n, gmpy2.mpz(z * pow(n, -1, r) % r), dtype=object))


def transpose_mul(m: CSRMatrix, x: np.ndarray) -> np.ndarray:
    """y = Mᵀ·x over Fr: y[col] = Σ_row M[row, col]·x[row]. x has m.shape[0] entries (int array)."""
    rows = m.row_ids()
    prod = m.coeffs[m.coeff_ids] * x[rows]
    order = np.argsort(m.indices, kind="stable")
    cols = m.indices[order]
    out = np.full(m.shape[1], gmpy2.mpz(0), dtype=object)
    if len(cols):
        starts = np.flatnonzero(np.r_[True, cols[1:] != cols[:-1]])
        sums = np.add.reduceat(prod[order], starts)
        out[cols[starts]] = sums
    return np.mod(out, gmpy2.mpz(FR.modulus))


def _random_nonzero() -> int:
    while True:
        v = secrets.randbelow(FR.modulus)
        if v:
            return v


def toxic_waste(toxic: dict | None, domain: int) -> tuple[int, int, int, int, int]:
    """(τ, α, β, γ, δ) for a development setup, after the development-setup warning.

    Args:
        toxic: fixed {"tau", "alpha", "beta", "gamma", "delta"} (tests) or None for fresh secrets.
        domain: τ must not be a root of x^domain − 1 (Z(τ) = 0 breaks the key).

    Raises:
        ValueError: given toxic waste with γ or δ zero, or τ in the domain.
    """
    warnings.warn(DEV_SETUP_WARNING, DevelopmentSetupWarning, stacklevel=3)
    log.warning(DEV_SETUP_WARNING)
    r = FR.modulus
    names = ("tau", "alpha", "beta", "gamma", "delta")
    tau, alpha, beta, gamma, delta = ((toxic[k] if toxic else _random_nonzero()) % r for k in names)
    if toxic is not None:
        if 0 in (gamma, delta):
            raise ValueError("toxic waste: gamma and delta must be non-zero")
        if pow(tau, domain, r) == 1:
            raise ValueError("toxic waste: tau lies in the evaluation domain (Z(tau) = 0)")
    while pow(tau, domain, r) == 1:  # resample: probability ~domain/r
        tau = _random_nonzero()
    return tau, alpha, beta, gamma, delta


def qap_at_tau(r1cs, lag: np.ndarray, alpha: int, beta: int, gamma: int, delta: int):
    """u_i(τ), v_i(τ) and the IC and private scalars (β·u_i + α·v_i + w_i)/γ resp. /δ.

    Args:
        lag: the Lagrange basis at τ for the constraint rows (int array, num_constraints).

    Returns:
        (u, v, ic_scalars (num_inputs), private_scalars (num_aux)) as int arrays.
    """
    rz = gmpy2.mpz(FR.modulus)
    u, v, w = (transpose_mul(m, lag) for m in (r1cs.A, r1cs.B, r1cs.C))
    combo = np.mod(u * gmpy2.mpz(beta) + v * gmpy2.mpz(alpha) + w, rz)
    ni = r1cs.num_inputs
    ic = np.mod(combo[:ni] * gmpy2.mpz(pow(gamma, -1, FR.modulus)), rz)
    private = np.mod(combo[ni:] * gmpy2.mpz(pow(delta, -1, FR.modulus)), rz)
    return u, v, ic, private


def key_points(alpha: int, beta: int, gamma: int, delta: int) -> dict:
    """α_G1, β_G1, β_G2, γ_G2, δ_G1, δ_G2 as generator multiples (the fields of a verifying key)."""
    g1, g2 = G1.generator(), G2.generator()
    return {
        "alpha_g1": G1.mul(g1, alpha),
        "beta_g1": G1.mul(g1, beta),
        "beta_g2": G2.mul(g2, beta),
        "gamma_g2": G2.mul(g2, gamma),
        "delta_g1": G1.mul(g1, delta),
        "delta_g2": G2.mul(g2, delta),
    }


def setup(r1cs, backend: Backend, toxic: dict | None = None) -> ProvingKey:
    """Generate a development proving key for ``r1cs`` (see the module warning).

    Args:
        r1cs: a finalized ``cuzk.r1cs.R1CS`` (num_inputs incl. ONE, num_aux, A, B, C, densities).
        backend: provides ``fixed_base_mul`` (worker processes on the CPU).
        toxic: optional fixed {"tau", "alpha", "beta", "gamma", "delta"} for reproducible tests;
            default: fresh secrets.

    Raises:
        ValueError: given toxic waste with gamma or delta zero, or tau in the domain.

    Returns:
        ProvingKey with h (n−1), l (num_aux), a (density_a), b_g1/b_g2 (density_b) point arrays.

    Warns:
        DevelopmentSetupWarning, always.
    """
    r = FR.modulus
    n = domain_size(r1cs.num_constraints)
    tau, alpha, beta, gamma, delta = toxic_waste(toxic, n)
    lag = lagrange_at(tau, n)[: r1cs.num_constraints]
    u, v, ic_scalars, l_scalars = qap_at_tau(r1cs, lag, alpha, beta, gamma, delta)
    zd = (pow(tau, n, r) - 1) * pow(delta, -1, r) % r
    h_scalars = np.mod(FR.powers(tau, n - 1) * gmpy2.mpz(zd), gmpy2.mpz(r))

    g1, g2 = G1.generator(), G2.generator()
    dens_a = np.asarray(r1cs.density_a, dtype=bool)
    dens_b = np.asarray(r1cs.density_b, dtype=bool)
    # One fixed-base call for all G1 vectors: one window table and one pool round, not five.
    parts = {"ic": ic_scalars, "h": h_scalars, "l": l_scalars, "a": u[dens_a], "b_g1": v[dens_b]}
    pts = backend.fixed_base_mul(G1, g1, np.concatenate(list(parts.values())))
    g1_arrays, lo = {}, 0
    for name, sc in parts.items():
        g1_arrays[name], lo = pts[lo : lo + len(sc)], lo + len(sc)
    vk = VerifyingKey(**key_points(alpha, beta, gamma, delta), ic=G1.from_array(g1_arrays.pop("ic"), check_subgroup=False))
    return ProvingKey(vk=vk, b_g2=backend.fixed_base_mul(G2, g2, v[dens_b]), **g1_arrays)


__all__ = ["setup", "domain_size", "lagrange_at", "transpose_mul", "DevelopmentSetupWarning"]
