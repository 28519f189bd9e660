"""Groth16 proofs from a snarkjs ``.zkey`` and a circom witness, on any cuzk Backend.

snarkjs' key differs from bellperson's in the H part, so the quotient is computed differently
(snarkjs ``groth16_prove.js``; FORMATS.md):

* a, b: the QAP's A·w and B·w over the domain of size n (section 4's coefficients, which include
  the rows ``A[nConstraints + s][s] = 1`` for the public wires); c = a·b *pointwise* (snarkjs
  never reads the C matrix: for a satisfying witness C·w = a·b on every row).
* Each of a, b, c goes through iFFT, multiplication of coefficient i by ω_2n^i, FFT: the
  evaluations on the odd coset {ω_2n^(2i+1)} of the 2n domain. The H scalars are
  ``a·b − c`` there, **without** division by Z (computed here as −2·Q on that coset, Q the
  quotient ``compute_h`` returns: see ``ZKeyProver.h_scalars``) — the ``.zkey``'s H bases are
  L^(2n)_(2i+1)(τ)/δ, and Σ_i p(ω_2n^(2i+1))·L^(2n)_(2i+1)(τ) = p(τ) = h(τ)·Z(τ) because p =
  a·b − c (degree < 2n) vanishes on the even points (the n domain).
* Roots of unity are ffjavascript's (5^((r−1)/n)), not blstrs' (7^…) which the backend's NTT
  uses. With ω5_n = ω7_n^k (``encoding.ffjs_index_map``), snarkjs' row j is backend row k·j mod
  n: the QAP rows are permuted once when the prover is built, the backend runs its own (i)NTT,
  the coset shift is ω5_2n itself, and the H bases are permuted so that backend index m gets
  snarkjs' base k⁻¹·m mod n. No per-proof permutation.

The five MSMs (points at infinity in A/B1/B2 are dropped first):
  πA = α1 + Σ w_i·A_i + r·δ1;  πB = β2 + Σ w_i·B2_i + s·δ2;  B1 = β1 + Σ w_i·B1_i + s·δ1;
  πC = Σ_{i>nPublic} w_i·C_i + Σ_j h_j·H_j + s·πA + r·B1 − r·s·δ1.
"""

from __future__ import annotations

import time

import gmpy2
import numpy as np

from ..backend import Backend
from ..curve import G1, G2
from ..field import FR
from ..groth16.keys import Proof
from ..groth16.prover import PhaseTimes, ResidentBases, WitnessError, finish_proof
from .encoding import ffjs_index_map, ffjs_root_of_unity
from .iden3 import WitnessLengthError
from .zkey import ZKey

_R = FR.modulus


def _finite(arr: np.ndarray) -> np.ndarray:
    """Bool mask of rows that are not the point at infinity (flag 0x40)."""
    return (arr[:, 0] & 0x40) == 0


class ZKeyProver(ResidentBases):
    """Proves circom witnesses with a snarkjs ``.zkey`` on a cuzk backend; bases stay resident.

    Args:
        zkey: the key (``read_zkey`` or ``setup_zkey``).
        backend: where the sparse products, NTTs and MSMs run.

    Raises:
        ValueError: domain size 2n exceeds Fr's 2-adicity.
    """

    def __init__(self, zkey: ZKey, backend: Backend):
        self.zkey, self.backend = zkey, backend
        n = zkey.domain_size
        self.n = n
        self.k = ffjs_index_map(n)
        kinv = pow(self.k, -1, n) if n > 1 else 0
        remap = lambda rows: (rows * self.k) % n  # noqa: E731  snarkjs row j → backend row k·j
        self.A = zkey.qap_matrix(0, remap)
        self.B = zkey.qap_matrix(1, remap)
        self.shift = ffjs_root_of_unity(2 * n)
        self.mask_a = _finite(zkey.a)
        self.mask_b = _finite(zkey.b_g1) | _finite(zkey.b_g2)
        self.times = PhaseTimes()
        t = time.perf_counter()
        perm = (np.arange(n, dtype=np.int64) * kinv) % n
        self.ctx = {
            "a": backend.msm_context(G1, zkey.a[self.mask_a]),
            "b_g1": backend.msm_context(G1, zkey.b_g1[self.mask_b]),
            "b_g2": backend.msm_context(G2, zkey.b_g2[self.mask_b]),
            "c": backend.msm_context(G1, zkey.c),
            "h": backend.msm_context(G1, zkey.h[perm]),
        }
        self.times.add("load_bases", time.perf_counter() - t)

    def h_scalars(self, wd):
        """H scalars in the backend's order (device array of length n) for a device witness.

        p = A·B − C vanishes on the n-domain (c = a·b there), so p = Q·Z with Z = x^n − 1, and
        on the odd coset x^n = −1, Z = −2: snarkjs' scalars p(x) are −2·Q(x). ``compute_h``
        gives Q's coefficients (on the CPU: two inverse NTTs in parallel and one product), and
        one NTT of the coefficients twisted by ω_2n^i evaluates Q on the odd coset: three
        transforms instead of snarkjs' six.
        """
        bk, n = self.backend, self.n
        a = bk.spmv(self.A, wd)
        b = bk.spmv(self.B, wd)
        q = bk.pad(bk.compute_h(a, b, bk.mul(a, b), n), n)
        return bk.scale(bk.ntt(bk.mul(q, bk.powers(self.shift, n))), _R - 2)

    def prove(self, witness, r: int | None = None, s: int | None = None) -> tuple[Proof, list[int]]:
        """Prove one full circom witness.

        Args:
            witness: ``(n_vars,)`` ints in wire order, witness[0] == 1 (``read_wtns``).
            r, s: blinding scalars (fresh random by default; fix both only in tests).

        Returns:
            (proof, public signals) — the signals are witness[1 : 1 + n_public], as snarkjs'
            ``public.json`` lists them.

        Raises:
            WitnessLengthError: wrong number of values.
            WitnessError: witness[0] ≠ 1 or a value outside [0, r).
            (A witness that violates the circuit gives a proof that does not verify; the key
            holds no C matrix to check it against — use ``CircomR1CS.check``.)
        """
        zk, bk, tm = self.zkey, self.backend, self.times
        w = np.asarray(witness, dtype=object)
        if w.shape != (zk.n_vars,):
            raise WitnessLengthError("<witness>", None, f"witness has {w.size} values, the key needs {zk.n_vars}", "wtns")
        w = np.fromiter((gmpy2.mpz(int(x)) for x in w), dtype=object, count=len(w))
        if w[0] != 1:
            raise WitnessError("witness[0] (ONE) must be 1")
        if min(w) < 0 or max(w) >= _R:
            raise WitnessError("witness value outside [0, r)")
        t = time.perf_counter()
        wd = bk.to_device(w)
        h = bk.to_host(self.h_scalars(wd))
        tm.add("qap", time.perf_counter() - t)

        scalars = (("a", w[self.mask_a]), ("b_g1", w[self.mask_b]), ("b_g2", w[self.mask_b]),
                   ("c", w[zk.n_public + 1 :]), ("h", h))
        return finish_proof(zk, self.ctx, scalars, "c", r, s, tm), [int(x) for x in w[1 : zk.n_public + 1]]


def prove_zkey(zkey: ZKey, witness, backend: Backend, r: int | None = None,
               s: int | None = None) -> tuple[Proof, list[int]]:
    """One-shot proof (starts and stops a :class:`ZKeyProver`); see ``ZKeyProver.prove``."""
    with ZKeyProver(zkey, backend) as p:
        return p.prove(witness, r, s)


__all__ = ["ZKeyProver", "prove_zkey"]
