"""Development Groth16 setup that writes snarkjs' key layout (``ZKey``). NOT for chain use.

Like ``cuzk.groth16.setup`` (random toxic waste known to this process: anyone holding it can
forge proofs), but the key is what snarkjs' ``zkey new`` + contributions would compute, so
``snarkjs groth16 prove`` accepts it and larger test keys need no slow power-of-tau ceremony:

* domain n = smallest power of two ≥ rows of the R1CS (circuit rows + one ``input_i·0 = 0`` row
  per public wire, as snarkjs' QAP), roots of unity from ffjavascript's generator 5;
* u_s, v_s, w_s = Σ_row {A,B,C}[row, s]·L_row(τ) over that domain;
* A_s = u_s·G1, B1_s = v_s·G1, B2_s = v_s·G2 for every wire (0 → point at infinity);
  IC_s = (β·u_s + α·v_s + w_s)/γ·G1 for s ≤ nPublic; C_s = (…)/δ·G1 for the private wires;
* H_i = L^(2n)_(2i+1)(τ)/δ·G1 for i < n (the odd Lagrange points of the 2n domain — snarkjs'
  form, see ``zkey_prover``), not bellperson's τ^i·Z(τ)/δ;
* the coefficient section lists A's and B's entries (C is not stored), row by row.

Source: snarkjs ``zkey_new.js`` and ``zkey_contribute.js`` (δ divides C and H).
"""

from __future__ import annotations


import gmpy2
import numpy as np

from ..backend import Backend
from ..curve import G1, G2
from ..field import FR
from ..groth16.setup import domain_size, key_points, qap_at_tau, toxic_waste
from .encoding import ffjs_root_of_unity
from .zkey import ZKey

_MPZ = gmpy2.mpz
_R = FR.modulus


def ffjs_lagrange_at(tau: int, n: int, indices: np.ndarray | None = None) -> np.ndarray:
    """L_j(τ) over ffjavascript's n-domain {ω5_n^j}: Z(τ)·ω^j / (n·(τ − ω^j)), Z = x^n − 1.

    Args:
        tau: evaluation point, not an n-th root of unity.
        n: domain size (power of two).
        indices: which j (int array); default all j < n.

    Returns:
        int array, one value per index.

    Raises:
        ValueError: τ lies in the domain.
    """
    omega = ffjs_root_of_unity(n)
    z = (pow(tau, n, _R) - 1) % _R
    if z == 0:
        raise ValueError("τ lies in the evaluation domain")
    idx = np.arange(n, dtype=np.int64) if indices is None else np.asarray(indices, dtype=np.int64)
    allw = np.empty(n, dtype=object)
    acc = _MPZ(1)
    for j in range(n):
        allw[j] = acc
        acc = acc * omega % _R
    w = allw[idx]
    denom = FR.batch_inverse(FR.sub(np.full(len(w), _MPZ(tau), dtype=object), w))
    return np.mod(w * denom * _MPZ(z * pow(n, -1, _R) % _R), _MPZ(_R))


def setup_zkey(r1cs, backend: Backend, toxic: dict | None = None) -> ZKey:
    """Development key in snarkjs' layout for a cuzk ``R1CS`` (see the module docstring).

    Args:
        r1cs: a finalized ``cuzk.r1cs.R1CS`` whose last ``num_inputs`` rows are the
            ``input_i·0 = 0`` rows (``ConstraintSystem.finalize`` and ``CircomR1CS.to_r1cs``
            both build it so). Wires = columns; public wires are the first num_inputs.
        backend: provides ``fixed_base_mul``.
        toxic: optional fixed {"tau", "alpha", "beta", "gamma", "delta"} (tests).

    Returns:
        :class:`ZKey` (contributions empty: ``write_zkey`` writes a zero circuit hash).

    Warns:
        DevelopmentSetupWarning, always.
    """
    n = domain_size(r1cs.num_constraints)
    tau, alpha, beta, gamma, delta = toxic_waste(toxic, 2 * n)  # H bases need τ outside the 2n domain
    nv, ni = r1cs.num_vars, r1cs.num_inputs
    lag = ffjs_lagrange_at(tau, n)[: r1cs.num_constraints]
    u, v, ic_s, c_s = qap_at_tau(r1cs, lag, alpha, beta, gamma, delta)
    rz = _MPZ(_R)
    h_s = np.mod(ffjs_lagrange_at(tau, 2 * n, 2 * np.arange(n) + 1) * _MPZ(pow(delta, -1, _R)), rz)

    g1, g2 = G1.generator(), G2.generator()

    def mul1(s):
        return backend.fixed_base_mul(G1, g1, list(s))

    # coefficient section: A then B entries of each row, rows in order
    mats = []
    for mid, m in enumerate((r1cs.A, r1cs.B)):
        rows = m.row_ids()
        mats.append((np.full(m.nnz, mid, dtype=np.uint32), rows, m.indices, m.coeffs[m.coeff_ids]))
    mat = np.concatenate([x[0] for x in mats])
    rows = np.concatenate([x[1] for x in mats])
    cols = np.concatenate([x[2] for x in mats])
    vals = np.concatenate([x[3] for x in mats])
    order = np.lexsort((mat, rows))
    return ZKey(
        n_vars=nv,
        n_public=ni - 1,
        domain_size=n,
        **key_points(alpha, beta, gamma, delta),
        ic=mul1(ic_s),
        coeff_matrix=mat[order].astype(np.uint32),
        coeff_constraint=rows[order].astype(np.uint32),
        coeff_signal=cols[order].astype(np.uint32),
        coeff_value=vals[order],
        a=mul1(u),
        b_g1=mul1(v),
        b_g2=backend.fixed_base_mul(G2, g2, list(v)),
        c=mul1(c_s),
        h=mul1(h_s),
    )


__all__ = ["ffjs_lagrange_at", "setup_zkey"]
