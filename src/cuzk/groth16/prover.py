"""Groth16 prover (bellperson's algorithm) on any Backend.

For a full assignment w = (inputs ‖ aux), with ONE = inputs[0]:
  a, b, c = A·w, B·w, C·w                         (sparse products on the backend)
  h       = coset-iNTT((coset-NTT(a)·coset-NTT(b) − coset-NTT(c)) / Z)   (Backend.compute_h)
  A = α + Σ_i w_i·a_i + r·δ                        (G1, over variables in density_a)
  B = β + Σ_i w_i·b_i + s·δ                        (G2; and in G1 for C)
  C = Σ_j aux_j·l_j + Σ_i h_i·h_i + s·A + r·B_G1 − r·s·δ
Source: Groth 2016 §3.2 and bellperson ``groth16::prover``. A witness that violates a constraint
is refused (``Unsatisfied``) before any MSM.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field

import numpy as np

from ..errors import CuzkError
from ..backend import Backend
from ..curve import G1, G2
from ..field import FR, as_int_array, is_limb_array, limbs_below_modulus
from ..r1cs import Unsatisfied
from .keys import Proof, ProvingKey, ResidentKey
from .setup import domain_size


class WitnessError(CuzkError, ValueError):
    """The assignment does not fit the circuit (wrong lengths, ONE ≠ 1, values out of range)."""


@dataclass
class PhaseTimes:
    """Seconds spent per prover phase, accumulated over the proofs of one Prover."""

    seconds: dict = field(default_factory=dict)

    def add(self, phase: str, dt: float) -> None:
        self.seconds[phase] = self.seconds.get(phase, 0.0) + dt


def finish_proof(key, ctx: dict, scalars, private: str, r: int | None, s: int | None, times: PhaseTimes) -> Proof:
    """The five MSMs and the proof's assembly, shared by every prover (bellperson's formulas).

    Args:
        key: has alpha_g1, beta_g1, beta_g2, delta_g1, delta_g2 (a VerifyingKey or a .zkey).
        ctx: MSM contexts by name: "a", "b_g1", "b_g2", ``private`` (L or snarkjs' C), "h".
        scalars: (name, int array) pairs, one per context.
        r, s: blinding scalars; fresh random ones when None.
        times: accumulates seconds per MSM and for the assembly.
    """
    rr = secrets.randbelow(FR.modulus) if r is None else r % FR.modulus
    ss = secrets.randbelow(FR.modulus) if s is None else s % FR.modulus
    msm = {}
    for name, sc in scalars:
        t = time.perf_counter()
        msm[name] = ctx[name].msm(sc)
        times.add(f"msm_{name}", time.perf_counter() - t)
    t = time.perf_counter()
    g_a = key.alpha_g1 + msm["a"] + G1.mul(key.delta_g1, rr)
    g_b = key.beta_g2 + msm["b_g2"] + G2.mul(key.delta_g2, ss)
    b_g1 = key.beta_g1 + msm["b_g1"] + G1.mul(key.delta_g1, ss)
    g_c = msm[private] + msm["h"] + G1.mul(g_a, ss) + G1.mul(b_g1, rr) + G1.mul(key.delta_g1, (-rr * ss) % FR.modulus)
    times.add("combine", time.perf_counter() - t)
    return Proof(g_a, g_b, g_c)


class StagedAssignment:
    """A validated assignment whose upload to the backend has started (``Prover.stage``); pass
    it to ``Prover.prove`` of the same Prover.

    Attributes:
        length: number of variables (num_inputs + num_aux).
        upload: the backend's ``PendingUpload`` of the full assignment w (inputs ‖ aux).
        seconds: host seconds ``stage`` took (validation, conversion, queuing the copy).
    """

    __slots__ = ("owner", "length", "upload", "seconds")

    def __init__(self, owner: "Prover", length: int, upload, seconds: float):
        self.owner, self.length, self.upload, self.seconds = owner, length, upload, seconds


class ResidentBases:
    """Holds MSM contexts (``self.ctx``) whose bases stay resident; closes them on exit."""

    ctx: dict

    def close(self) -> None:
        """Stop MSM workers / free device bases."""
        for c in self.ctx.values():
            c.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Prover(ResidentBases):
    """Proves many assignments of one circuit with one key; MSM bases stay resident.

    Args:
        pk: the proving key (its point arrays must match ``r1cs``'s sizes and densities), or a
            ``ResidentKey`` whose MSM contexts the Prover takes over (and closes).
        r1cs: the finalized R1CS (``cuzk.r1cs.R1CS``).
        backend: where NTTs, sparse products and MSMs run.

    Raises:
        ValueError: the key's vector lengths do not match the circuit.
    """

    def __init__(self, pk: ProvingKey, r1cs, backend: Backend):
        self.pk, self.r1cs, self.backend = pk, r1cs, backend
        self.n = domain_size(r1cs.num_constraints)
        self.dens_a = np.asarray(r1cs.density_a, dtype=bool)
        self.dens_b = np.asarray(r1cs.density_b, dtype=bool)
        expect = {
            "h": self.n - 1,
            "l": r1cs.num_aux,
            "a": int(self.dens_a.sum()),
            "b_g1": int(self.dens_b.sum()),
            "b_g2": int(self.dens_b.sum()),
        }
        resident = isinstance(pk, ResidentKey)
        for name, want in expect.items():
            got = pk.ctx[name].size if resident else getattr(pk, name).shape[0]
            if got != want:
                raise ValueError(f"proving key does not fit the circuit: {name} has {got} points, circuit needs {want}")
        if len(pk.vk.ic) != r1cs.num_inputs:
            raise ValueError(f"verifying key has {len(pk.vk.ic)} IC points, circuit has {r1cs.num_inputs} inputs")
        self.times = PhaseTimes()
        t = time.perf_counter()
        self.ctx = dict(pk.ctx) if resident else {
            "a": backend.msm_context(G1, pk.a),
            "b_g1": backend.msm_context(G1, pk.b_g1),
            "b_g2": backend.msm_context(G2, pk.b_g2),
            "l": backend.msm_context(G1, pk.l),
            "h": backend.msm_context(G1, pk.h),
        }
        self.times.add("load_bases", time.perf_counter() - t)

    def assignment(self, inputs, aux) -> np.ndarray:
        """Validate and concatenate inputs (ONE first) and aux into the full assignment w: an int
        array, or, when both come as ``(n, 4)`` uint64 canonical limb arrays (``read_witness_limbs``),
        a limb array checked with numpy alone (no Python int per value: at 130 M variables the
        int path costs half a minute).

        Raises:
            WitnessError: wrong lengths, inputs[0] ≠ 1, or a value outside [0, r).
        """
        if is_limb_array(inputs) and is_limb_array(aux):
            self._check_lengths(len(inputs), len(aux))
            if inputs[0].tolist() != [1, 0, 0, 0]:
                raise WitnessError("inputs[0] must be ONE = 1")
            base = inputs.base
            if (isinstance(base, np.ndarray) and aux.base is base and is_limb_array(base) and base.flags.c_contiguous
                    and base.shape[0] == len(inputs) + len(aux)
                    and inputs.ctypes.data == base.ctypes.data and aux.ctypes.data == base.ctypes.data + inputs.nbytes):
                w = base   # inputs ‖ aux already in one buffer (read_witness_limbs): no 4 GB copy at 32 GiB
            else:
                w = np.concatenate([inputs, aux])
            if not limbs_below_modulus(w).all():
                raise WitnessError("assignment value outside [0, r)")
            return w
        inputs, aux = as_int_array(np.asarray(inputs, dtype=object)), as_int_array(np.asarray(aux, dtype=object))
        self._check_lengths(len(inputs), len(aux))
        if inputs[0] != 1:
            raise WitnessError("inputs[0] must be ONE = 1")
        w = np.concatenate([inputs, aux])
        if len(w) and (min(w) < 0 or max(w) >= FR.modulus):
            raise WitnessError("assignment value outside [0, r)")
        return w

    def _check_lengths(self, ni: int, na: int) -> None:
        if ni != self.r1cs.num_inputs:
            raise WitnessError(f"expected {self.r1cs.num_inputs} inputs (ONE included), got {ni}")
        if na != self.r1cs.num_aux:
            raise WitnessError(f"expected {self.r1cs.num_aux} aux values, got {na}")

    def stage(self, inputs, aux, stream=None, defer: bool = False) -> StagedAssignment:
        """Validate the assignment and start its upload (``Backend.to_device_async``); the
        host part runs in the calling thread, which may be a background one while another
        proof of this Prover runs.

        Args:
            inputs: public inputs with ONE first (length num_inputs), ints.
            aux: auxiliary assignment (length num_aux), ints.
            stream: the backend's stream to copy on (cuda: a CuPy stream; default: the
                backend's own side stream); ignored by the cpu backend.
            defer: convert now, copy to the device only when ``prove`` takes it (no second
                assignment on the device meanwhile: a memory limit without room for one).

        Raises:
            WitnessError: malformed assignment (nothing is uploaded).
            GPUMemoryError: no device memory for the upload.
        """
        t = time.perf_counter()
        w = self.assignment(inputs, aux)
        upload = self.backend.to_device_async(w, stream=stream, defer=defer)
        return StagedAssignment(self, len(w), upload, time.perf_counter() - t)

    def prove(self, inputs, aux=None, r: int | None = None, s: int | None = None) -> Proof:
        """Prove one assignment: ``prove(inputs, aux)`` or ``prove(staged)`` with a
        ``StagedAssignment`` from ``stage`` (the same proof for the same r, s).

        Args:
            inputs: public inputs with ONE first (length num_inputs), ints; or a
                ``StagedAssignment`` of this Prover (then ``aux`` is None).
            aux: auxiliary assignment (length num_aux), ints.
            r, s: the proof's blinding scalars; fresh random ones by default (pass both only
                for reproducible tests).

        Raises:
            WitnessError: malformed assignment.
            Unsatisfied: a constraint fails (names row and gadget); raised before any MSM.
            ValueError: a staged assignment of another Prover, or one given with ``aux``.
        """
        if isinstance(inputs, StagedAssignment):
            staged = inputs
            if aux is not None or staged.owner is not self:
                raise ValueError("prove(staged) takes a StagedAssignment of this Prover and no aux")
        else:
            staged = self.stage(inputs, aux)
        bk, pk, cs = self.backend, self.pk, self.r1cs
        tm = self.times
        tm.add("stage", staged.seconds)
        t = time.perf_counter()
        wd = staged.upload.ready()
        a, b, c = (bk.spmv(m, wd) for m in (cs.A, cs.B, cs.C))
        bk.synchronize()
        tm.add("spmv", time.perf_counter() - t)

        t = time.perf_counter()
        row = bk.first_unsatisfied(a, b, c)
        if row is not None:
            raise Unsatisfied(row, cs.gadget_of(row), "the prover refuses this witness")
        tm.add("check", time.perf_counter() - t)

        t = time.perf_counter()
        h = bk.compute_h(bk.pad(a, self.n), bk.pad(b, self.n), bk.pad(c, self.n), self.n)
        del a, b, c
        bk.synchronize()
        tm.add("ntt", time.perf_counter() - t)

        # MSM scalars stay where the backend keeps them (device arrays; on the cpu backend the
        # same int arrays as w[mask]); B's scalars serve both the G1 and the G2 MSM.
        ni = cs.num_inputs
        b_scalars = bk.select(wd, self.dens_b)
        scalars = (
            ("a", bk.select(wd, self.dens_a)),
            ("b_g1", b_scalars),
            ("b_g2", b_scalars),
            ("l", bk.slice(wd, ni, staged.length)),
            ("h", h),
        )
        return finish_proof(pk.vk, self.ctx, scalars, "l", r, s, tm)


def prove(pk: ProvingKey, r1cs, inputs, aux, backend: Backend, r: int | None = None, s: int | None = None) -> Proof:
    """One-shot proof (starts and stops a Prover); see ``Prover.prove``."""
    with Prover(pk, r1cs, backend) as p:
        return p.prove(inputs, aux, r, s)
