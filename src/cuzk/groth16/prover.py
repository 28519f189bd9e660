"""The Groth16 prover: one assignment or a staged batch of them, on any Backend.

For a full assignment w = (inputs ‖ aux), with ONE = inputs[0]:
  h       = the H query's scalars, from w by the prover's ``Quotient``
  A = α + Σ_i w_i·a_i + r·δ                        (G1, over variables in density_a)
  B = β + Σ_i w_i·b_i + s·δ                        (G2; and in G1 for C)
  C = Σ_j aux_j·l_j + Σ_i h_i·h_i + s·A + r·B_G1 − r·s·δ
Source: Groth 2016 §3.2 and bellperson ``groth16::prover``.

The quotient is pluggable, as ark-groth16's ``R1CSToQAP`` type parameter is: the default,
``CosetQuotient``, is bellperson's (Filecoin's) — a, b, c = A·w, B·w, C·w by sparse products,
h = coset-iNTT((coset-NTT(a)·coset-NTT(b) − coset-NTT(c)) / Z) (``Backend.compute_h``; the cuda
backend gets the same h with c's coset transforms replaced by one inverse NTT), a
witness that violates a constraint refused (``Unsatisfied``) before any MSM; snarkjs' odd-coset
H, for its ``.zkey`` files, is ``cuzk.formats.zkey_prover.OddCosetQuotient``.

``Prover.prove_many`` proves a batch: it stages the next assignment in a background thread
while the current one is proved, and checks each proof before handing it on.
"""

from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Protocol, Sequence

import numpy as np

from ..errors import CuzkError
from ..backend import Backend, CompactAssignment
from ..curve import G1, G2
from ..field import FR, as_int_array, is_limb_array, limbs_below_modulus
from ..memory.gpu_plan import lazy_selection
from ..r1cs import Unsatisfied
from .keys import Proof, ProvingKey, ResidentKey
from .setup import domain_size


class WitnessError(CuzkError, ValueError):
    """The assignment does not fit the circuit (wrong lengths, ONE ≠ 1, values out of range)."""


#: MSMs of one proof: A, B in G1, B in G2, L (snarkjs: C) and H (``finish_proof``).
MSMS_PER_PROOF = 5


@dataclass
class PhaseTimes:
    """Seconds spent per prover phase, accumulated over the proofs of one Prover; ``msms``: MSMs
    finished, one per proof and query (progress finer than whole partitions, read from another
    thread)."""

    seconds: dict = field(default_factory=dict)
    msms: int = 0

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
    msm = {}
    for name, sc in scalars:
        t = time.perf_counter()
        msm[name] = ctx[name].msm(sc)
        times.add(f"msm_{name}", time.perf_counter() - t)
        times.msms += 1
    return assemble_proof(key, msm, private, r, s, times)


def assemble_proof(key, msm: dict, private: str, r: int | None, s: int | None, times: PhaseTimes) -> Proof:
    """A, B, C from the five MSM results (``finish_proof``'s formulas; ``msm`` by context name)."""
    rr = secrets.randbelow(FR.modulus) if r is None else r % FR.modulus
    ss = secrets.randbelow(FR.modulus) if s is None else s % FR.modulus
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


class Quotient(Protocol):
    """How a ``Prover`` gets the H query's scalars from an assignment (ark-groth16's
    ``R1CSToQAP``). Variants: ``CosetQuotient`` (bellperson, the default) and
    ``cuzk.formats.zkey_prover.OddCosetQuotient`` (snarkjs)."""

    def h_scalars(self, bk: Backend, wd, times: PhaseTimes, since: float):
        """The H scalars (a device array, in the order of the key's H bases) of the device
        assignment ``wd``; adds the seconds of its phases to ``times``, the first counted from
        ``since`` (when the prover began to wait for ``wd``)."""


class CosetQuotient:
    """bellperson's (Filecoin's) H: the default ``Quotient`` of a ``Prover``.

    a, b, c = A·w, B·w, C·w (sparse products); a witness whose a·b ≠ c on some row is refused
    (``Unsatisfied``, naming the row and its gadget); h = (a·b − c)/Z on a coset through NTTs
    (``Backend.compute_h``): n − 1 scalars for the key's H query.

    Args:
        r1cs: the finalized R1CS (``cuzk.r1cs.R1CS``): its A, B, C and gadget names.
    """

    def __init__(self, r1cs):
        self.r1cs = r1cs
        self.n = domain_size(r1cs.num_constraints)

    def h_scalars(self, bk: Backend, wd, times: PhaseTimes, since: float, plan=None):
        """The H scalars of the device assignment ``wd`` (adds "spmv" — counted from ``since``,
        when the prover began to wait for ``wd`` — "check" and "ntt" seconds to ``times``):
        ``products`` then ``quotient``; ``plan``: a ``ProvePlan`` whose H phase ("device" or
        "host") they follow (None: "device", no schedule imposed).

        Raises:
            Unsatisfied: a constraint fails; raised before any MSM.
        """
        return self.quotient(bk, self.products(bk, wd, times, since, plan), times, plan)

    def products(self, bk: Backend, wd, times: PhaseTimes, since: float, plan=None) -> list:
        """[a, b, c] = [A·w, B·w, C·w], checked row by row: device arrays of the constraint rows
        ("device" H phase: the matrices cached on the device, ``Backend.spmv``), or ``offload``-ed
        ones zero-padded to n ("host": ``Backend.spmv_blocks`` in the plan's row blocks); "lean":
        [a, b] only, device arrays zero-padded to n, C·w checked against a·b block by block and
        not kept (``Backend.spmv_ab``). The
        caller may drop w once this returns (``Prover.prove_group`` does: w is not held while the
        NTTs run). Adds "spmv" (since ``since``) and "check" seconds to ``times``.

        Raises:
            Unsatisfied: a constraint fails.
        """
        cs = self.r1cs
        if plan is not None and plan.h_phase == "host":
            abc, row = bk.spmv_blocks((cs.A, cs.B, cs.C), wd, plan.spmv_rows, plan.spmv_block_nnz, pad_to=self.n)
            times.add("spmv", time.perf_counter() - since)
        elif plan is not None and plan.h_phase == "lean":
            *abc, row = bk.spmv_ab((cs.A, cs.B, cs.C), wd, plan.spmv_rows, plan.spmv_block_nnz, self.n)
            bk.synchronize()
            times.add("spmv", time.perf_counter() - since)
        else:
            abc = [bk.spmv(m, wd) for m in (cs.A, cs.B, cs.C)]
            bk.synchronize()
            times.add("spmv", time.perf_counter() - since)
            t = time.perf_counter()
            row = bk.first_unsatisfied(*abc)
            times.add("check", time.perf_counter() - t)
        if row is not None:
            raise Unsatisfied(row, cs.gadget_of(row), "the prover refuses this witness")
        return list(abc)

    def quotient(self, bk: Backend, abc: list, times: PhaseTimes, plan=None):
        """h = (a·b − c)/Z on a coset (``Backend.compute_h``; "host" H phase:
        ``Backend.compute_h_host`` in the plan's split blocks; "lean": ``Backend.compute_h_ab`` of
        [a, b], in their buffers) from ``products``' list, which is
        emptied: each of a, b, c is replaced by its zero-padded copy before the next is padded
        (the unpadded one freed at once, when the caller holds no other reference), so the device
        holds three arrays of n, not six, when the NTTs start. Adds "ntt" seconds to ``times``."""
        t = time.perf_counter()
        if plan is not None and plan.h_phase == "host":
            h = bk.compute_h_host(*abc, self.n, plan.h_schedule[1])
        elif plan is not None and plan.h_phase == "lean":
            h = bk.compute_h_ab(*abc, self.n, stage_c=plan.h_schedule[0] == "lean_staged")
        else:
            for i in range(3):
                abc[i] = bk.pad(abc[i], self.n)
            h = bk.compute_h(*abc, self.n)
        abc.clear()
        bk.synchronize()
        times.add("ntt", time.perf_counter() - t)
        return h


PIN_AHEAD = True
"""``Prover.prove_groups`` pins the H scalars' host buffers one ahead, during the NTTs of the
partition before (``HostBuffers`` with ``ahead``), instead of all before the first partition.
Side by side on the H200 (benchmarks/results/2026-12-03-h200/call8, one 32 GiB sector under
24 GiB): 2.41 and 2.38 s per proof, no wait for a buffer, against 2.49 s pinning all first
(1.1 s before the first partition). Read at call time."""

STAGE_TIMEOUT_S = 1800.0
"""Seconds one job's staging (``prove_many``'s ``stage``) may run before the batch stops with
a StagingError. Generous: a 32 GiB PoRep sector's 10 partitions staged in 54 s in all on the
H200 host (benchmarks/results/2026-12-01-h200/stop11-c, ``staging_seconds``)."""


class StagingError(CuzkError, RuntimeError):
    """``Prover.prove_many``'s staging thread died or stalled past its bound (names the job)."""


class _Stager:
    """One job staged in a daemon thread (``cuzk-stage``); ``result`` waits under a watchdog.

    Daemonic so that a stalled one cannot keep the process from exiting after the batch stops.
    """

    def __init__(self, fn: Callable, job, index: int):
        self.index = index
        self._out, self._exc, self._done = None, None, threading.Event()
        self._started = time.perf_counter()
        self._thread = threading.Thread(target=self._run, args=(fn, job), name="cuzk-stage", daemon=True)
        self._thread.start()

    def _run(self, fn, job) -> None:
        try:
            self._out = fn(job)
        except BaseException as e:  # handed to the prover's thread, which raises it
            self._exc = e
        finally:
            self._done.set()

    def result(self, timeout: float):
        """The staged job; its error re-raised (MemoryError and a non-Exception as StagingError).

        Raises:
            StagingError: the thread ended without a result, ran out of memory, or has run
                more than ``timeout`` seconds.
        """
        while not self._done.wait(max(0.0, min(1.0, self._started + timeout - time.perf_counter()))):
            if not self._thread.is_alive() and not self._done.is_set():
                raise StagingError(f"the staging thread of job {self.index} died without a result")
            if time.perf_counter() - self._started >= timeout:
                raise StagingError(f"staging job {self.index} did not finish in {timeout:g} s (the staging "
                                   "thread is stuck, e.g. on a hung file system or device); the batch is stopped")
        if isinstance(self._exc, MemoryError):
            raise StagingError(f"staging job {self.index} ran out of memory (MemoryError)") from self._exc
        if self._exc is not None and not isinstance(self._exc, Exception):
            raise StagingError(f"the staging thread of job {self.index} died: {self._exc!r}") from self._exc
        if self._exc is not None:
            raise self._exc
        return self._out

    def join(self, timeout: float) -> None:
        """Wait for the thread, at most until ``timeout`` seconds after its start (a stuck
        thread is left behind: it is daemonic)."""
        self._thread.join(max(0.0, self._started + timeout - time.perf_counter()))


@dataclass
class BatchProof:
    """One proof of ``Prover.prove_many``, handed to its ``done`` callback after ``check``.

    Attributes:
        index: the job's position in ``jobs``.
        job: the job itself.
        proof: the proof.
        public: the public inputs ``stage`` returned for it (what ``check`` was given).
        verified: what ``check`` returned.
        staging_seconds: the stager thread's wall seconds for this job (``stage``).
        waited_seconds: how long the prover waited for that staging.
        seconds: wall seconds from the start of that wait to the end of the proof.
        verify_seconds: seconds ``check`` took.
        phases: this proof's seconds per prover phase (``Prover.times`` after minus before).
    """

    index: int
    job: object
    proof: Proof
    public: list
    verified: bool
    staging_seconds: float
    waited_seconds: float
    seconds: float
    verify_seconds: float
    phases: dict


def even_groups(jobs: int, in_flight: int) -> list[range]:
    """The groups (ranges of job indices, in order) of ``Prover.prove_groups`` for ``jobs``
    partitions proved at most ``in_flight`` at a time: as many groups as ``in_flight`` requires
    (each crosses the key once), their sizes differing by at most one, e.g. 10 at 6 → 5 + 5
    rather than 6 + 4, 10 at 4 → 4 + 3 + 3: the same key passes, a smaller peak, and no last
    group sharing a pass among few.

    Raises:
        ValueError: in_flight < 1.
    """
    if in_flight < 1:
        raise ValueError(f"even_groups: {in_flight} partitions in flight")
    count = -(-jobs // in_flight)
    out, at = [], 0
    for g in range(count):   # the first jobs % count groups one larger
        size = jobs // count + (g < jobs % count)
        out.append(range(at, at + size))
        at += size
    return out


@dataclass
class BatchTimes:
    """Totals of one ``Prover.prove_many`` run (seconds)."""

    staging_seconds: float = 0.0
    waited_seconds: float = 0.0
    proofs: int = 0


class Prover(ResidentBases):
    """Proves many assignments of one circuit with one key; MSM bases stay resident.

    Args:
        pk: the proving key (its point arrays must match ``r1cs``'s sizes and densities), or a
            ``ResidentKey`` whose MSM contexts the Prover takes over (and closes).
        r1cs: the finalized R1CS (``cuzk.r1cs.R1CS``).
        backend: where NTTs, sparse products and MSMs run.
        quotient: how H's scalars come from the assignment (default: ``CosetQuotient(r1cs)``).
        plan: a ``cuzk.memory.gpu_plan.ProvePlan`` with a limit: its queries' bases kept
            resident or in host memory as it says (``prove_group`` follows the rest of it).

    Raises:
        ValueError: the key's vector lengths do not match the circuit.
    """

    private = "l"
    """Name of the MSM context over the private variables (bellperson's L; snarkjs calls it C)."""

    def __init__(self, pk: ProvingKey, r1cs, backend: Backend, quotient: Quotient | None = None, plan=None):
        self.pk, self.r1cs = pk, r1cs
        self.plan = plan
        self.n = domain_size(r1cs.num_constraints)
        dens_a = np.asarray(r1cs.density_a, dtype=bool)
        dens_b = np.asarray(r1cs.density_b, dtype=bool)
        expect = {
            "h": self.n - 1,
            "l": r1cs.num_aux,
            "a": int(dens_a.sum()),
            "b_g1": int(dens_b.sum()),
            "b_g2": int(dens_b.sum()),
        }
        resident = isinstance(pk, ResidentKey)
        for name, want in expect.items():
            got = pk.ctx[name].size if resident else getattr(pk, name).shape[0]
            if got != want:
                raise ValueError(f"proving key does not fit the circuit: {name} has {got} points, circuit needs {want}")
        if len(pk.vk.ic) != r1cs.num_inputs:
            raise ValueError(f"verifying key has {len(pk.vk.ic)} IC points, circuit has {r1cs.num_inputs} inputs")
        self._bind(backend, pk.vk, r1cs.num_inputs, r1cs.num_aux, dens_a, dens_b,
                   quotient if quotient is not None else CosetQuotient(r1cs))
        t = time.perf_counter()
        where = ({q.name: q.resident for q in plan.queries} if plan is not None and plan.limit is not None
                 else dict.fromkeys(("a", "b_g1", "b_g2", "l", "h")))
        self.ctx = dict(pk.ctx) if resident else {
            name: backend.msm_context(G2 if name == "b_g2" else G1, getattr(pk, name), resident=where[name])
            for name in ("h", "l", "a", "b_g1", "b_g2")   # resident first: they take the room first
        }
        self.times.add("load_bases", time.perf_counter() - t)

    @classmethod
    def from_contexts(cls, backend: Backend, key, ctx: dict, num_inputs: int, num_aux: int, dens_a, dens_b,
                      quotient: Quotient, private: str = "l") -> "Prover":
        """A Prover over MSM contexts made elsewhere, for keys of another layout (a snarkjs
        ``.zkey``: ``cuzk.formats.ZKeyProver``); ``pk`` and ``r1cs`` are None.

        Args:
            key: has alpha_g1, beta_g1, beta_g2, delta_g1, delta_g2 (``finish_proof``'s key).
            ctx: MSM contexts "a", "b_g1", "b_g2", ``private`` and "h", over the bases of the
                variables in ``dens_a``, ``dens_b``, the private variables and H's order.
            num_inputs, num_aux: the assignment's lengths (inputs count ONE).
            dens_a, dens_b: bool masks of the variables whose scalars the A and B MSMs take.
            quotient: the H scalars' ``Quotient``.
            private: the name of the context over the private variables.
        """
        p = cls.__new__(cls)
        p.pk = p.r1cs = None
        p._bind(backend, key, num_inputs, num_aux, dens_a, dens_b, quotient)
        p.n, p.ctx, p.private = getattr(quotient, "n", None), ctx, private
        return p

    def _bind(self, backend: Backend, key, num_inputs: int, num_aux: int, dens_a, dens_b, quotient) -> None:
        """Everything but the MSM contexts (``self.ctx``), which the constructor then makes.

        Args:
            key: has alpha_g1, beta_g1, beta_g2, delta_g1, delta_g2 (``finish_proof``'s key).
            num_inputs, num_aux: the assignment's lengths (inputs count ONE).
            dens_a, dens_b: bool masks of the variables whose scalars the A and B MSMs take.
            quotient: the H scalars' ``Quotient``.
        """
        self.backend, self.key, self.quotient = backend, key, quotient
        self._sizes = (num_inputs, num_aux)
        self.dens_a, self.dens_b = dens_a, dens_b
        self._sel = None   # the masks as the backend selects with them (``_selections``)
        self.times = PhaseTimes()

    @property
    def num_inputs(self) -> int:
        """Public inputs of an assignment, ONE included (the R1CS's, when there is one)."""
        return self.r1cs.num_inputs if self.r1cs is not None else self._sizes[0]

    @property
    def num_aux(self) -> int:
        """Auxiliary values of an assignment (the R1CS's, when there is one)."""
        return self.r1cs.num_aux if self.r1cs is not None else self._sizes[1]

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
        if ni != self.num_inputs:
            raise WitnessError(f"expected {self.num_inputs} inputs (ONE included), got {ni}")
        if na != self.num_aux:
            raise WitnessError(f"expected {self.num_aux} aux values, got {na}")

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

    def stage_compact(self, cw: CompactAssignment, stream=None, defer: bool = False) -> StagedAssignment:
        """``stage`` for an assignment as a witness file stores it (``read_witness_compact``): its
        values were checked when it was made; here only its lengths and ONE. The backend's
        ``compact_to_device_async`` uploads it (cuda: the compact form, expanded on the device,
        no 4.2 GB host buffer per 32 GiB partition).

        Raises:
            WitnessError: wrong lengths or inputs[0] ≠ 1 (nothing is uploaded).
            GPUMemoryError: no device memory for the upload.
        """
        t = time.perf_counter()
        self._check_lengths(len(cw.inputs), cw.num_aux)
        if cw.inputs[0].tolist() != [1, 0, 0, 0]:
            raise WitnessError("inputs[0] must be ONE = 1")
        upload = self.backend.compact_to_device_async(cw, stream=stream, defer=defer)
        return StagedAssignment(self, len(cw), upload, time.perf_counter() - t)

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
            Unsatisfied: a constraint fails (names row and gadget); raised before any MSM
                (``CosetQuotient``).
            ValueError: a staged assignment of another Prover, or one given with ``aux``.
        """
        if isinstance(inputs, StagedAssignment):
            staged = inputs
            if aux is not None or staged.owner is not self:
                raise ValueError("prove(staged) takes a StagedAssignment of this Prover and no aux")
        else:
            staged = self.stage(inputs, aux)
        bk, tm = self.backend, self.times
        tm.add("stage", staged.seconds)
        t = time.perf_counter()
        wd = staged.upload.ready()
        bk.compact_of(staged.upload)   # w is on the device whole: its compact form goes
        h = self.quotient.h_scalars(bk, wd, tm, t)

        # MSM scalars stay where the backend keeps them (device arrays; on the cpu backend the
        # same int arrays as w[mask]); B's scalars serve both the G1 and the G2 MSM.
        t = time.perf_counter()
        sel = self._selections()
        b_scalars = bk.select(wd, sel["b"])
        a_scalars = bk.select(wd, sel["a"])
        tm.add("select", time.perf_counter() - t)
        scalars = (
            ("a", a_scalars),
            ("b_g1", b_scalars),
            ("b_g2", b_scalars),
            (self.private, bk.slice(wd, self.num_inputs, staged.length)),
            ("h", h),
        )
        return finish_proof(self.key, self.ctx, scalars, self.private, r, s, tm)

    def _selections(self) -> dict:
        """The density masks as the backend selects with them ("a", "b": ``Backend.selection``),
        made on the first proof and kept (on the cuda backend: on the device, so a proof does not
        count and upload 2 × num_vars bytes with the GPU idle)."""
        if self._sel is None:
            self._sel = {"a": self.backend.selection(self.dens_a), "b": self.backend.selection(self.dens_b)}
        return self._sel

    def close(self) -> None:
        """``ResidentBases.close``, and the device selections freed."""
        super().close()
        self._sel = None

    def prepare(self, plan) -> None:
        """Make now what ``plan``'s H phase caches (idempotent; the seconds it took go to the
        "prepare" phase): the matrices on the device ("device" H phase) or as checked uint32
        arrays in pinned host memory ("lean" and "host": ``Backend.prepare_blocks``), and the
        twiddles ("device" and "lean"). Before any w: the device arrays in chunks of their own, not
        carved out of freed witness-sized ones (CuPy cannot release a chunk part of which stays
        live). ``prove_groups`` pins its H buffers after it, not beside it (beside the pinning
        the conversion took 7.9-10.8 s against 1.9 s alone on the H200 host:
        benchmarks/results/2026-12-02-h200/stop19 and 2026-12-03-h200/call4).

        Raises:
            ValueError: a malformed matrix (as ``spmv``).
        """
        if not isinstance(self.quotient, CosetQuotient):
            return
        t = time.perf_counter()
        for m in (self.r1cs.A, self.r1cs.B, self.r1cs.C):
            if plan.h_phase == "device":
                self.backend.prepare_spmv(m)
            else:
                self.backend.prepare_blocks(m)
        if plan.h_phase in ("device", "lean"):   # the twiddles the plan holds throughout, for the same reason
            self.backend.prepare_h(self.n)
        self.times.add("prepare", time.perf_counter() - t)

    def prove_group(self, staged: Iterable[StagedAssignment], plan, r: int | None = None,
                    s: int | None = None, host_buffers=None) -> list[Proof]:
        """Prove several staged assignments together by a ``ProvePlan`` (``cuzk.memory.gpu_plan``):
        each one's H phase ("device", "lean" or "host") and MSM scalars in turn (moved to host memory as
        they appear when ``plan.scalars_on_host``; its w dropped after), then each query's MSMs
        of all of them over one walk of its bases in the plan's pieces (``MSMContext.msm_many``);
        without ``plan.h_shared`` each one's H MSM right after its quotient, over its own walk.
        With ``plan.compact_w``, A's, B's and L's scalars are expanded piece by piece from w's
        compact form (``Backend.compact_of``) where the upload left one, not copied from w.
        ``host_buffers`` (``Backend.host_buffers``): where the j-th assignment's H scalars are
        offloaded with ``plan.scalars_on_host``; the H MSM prefetches their slices.
        The same proofs as ``prove`` for the same r, s.

        Raises:
            WitnessError, Unsatisfied: as ``prove``: before any MSM of the group's shared walks
                (without ``plan.h_shared``, after the earlier partitions' own H MSMs).
            ValueError: an assignment of another Prover, or a "host" or "lean" H phase without
                ``CosetQuotient``.
        """
        bk, tm = self.backend, self.times
        if plan.h_phase != "device" and not isinstance(self.quotient, CosetQuotient):
            raise ValueError(f"the {plan.h_phase} H phase needs the CosetQuotient")
        self._sel = None   # the plan does not count ``prove``'s device masks
        # how A's and B's scalars wait on the host: w itself, a lazy selection of it, or a copy
        masks = {"a": self.dens_a, "b": self.dens_b}
        held_as = {}
        for key, mask in masks.items():
            count = int(np.count_nonzero(mask))
            held_as[key] = "w" if count == len(mask) else "lazy" if lazy_selection(count, len(mask)) else "copy"
        self.prepare(plan)
        vecs: list = []
        for st in staged:
            if st.owner is not self:
                raise ValueError("prove_group takes StagedAssignments of this Prover")
            tm.add("stage", st.seconds)
            t = time.perf_counter()
            wd = st.upload.ready()
            tm.add("ready", time.perf_counter() - t)   # w on the device (a deferred upload: expanded now)
            t = time.perf_counter()
            cwd = bk.compact_of(st.upload)
            st.upload.array = None          # w's only reference is wd from here
            if cwd is not None and plan.compact_w is not None:   # no copy of w waits: views and selections of cwd
                one = {self.private: cwd[self.num_inputs : st.length]}
                for key, mask in masks.items():
                    one[key] = cwd if held_as[key] == "w" else bk.host_select(cwd, mask)
            elif plan.scalars_on_host:   # w once on the host: L, and A and B over every variable, are views of it
                wh = bk.offload(wd)
                one = {self.private: wh[self.num_inputs : st.length]}
                for key, mask in masks.items():   # a lazy selection is picked per piece from w's copy
                    how = held_as[key]
                    one[key] = wh if how == "w" else bk.host_select(wh, mask) if how == "lazy" else bk.offload(bk.select(wd, mask))
                del wh
            else:
                one = {"a": bk.select(wd, self.dens_a), "b": bk.select(wd, self.dens_b),
                       self.private: bk.slice(wd, self.num_inputs, st.length)}
            if isinstance(self.quotient, CosetQuotient):   # w dropped before the NTTs (the plan holds none then)
                abc = self.quotient.products(bk, wd, tm, t, plan)
                del wd
                if host_buffers is not None:   # the host is idle during the NTTs (``PIN_AHEAD``)
                    host_buffers.make_ahead(len(vecs) + 1)
                h = self.quotient.quotient(bk, abc, tm, plan)
                del abc
            else:
                h = self.quotient.h_scalars(bk, wd, tm, t)
                del wd
            if not plan.h_shared:   # its own walk of H's bases now: the scalars never leave the device
                t = time.perf_counter()
                h = self.ctx["h"].msm_many([h], piece=plan.query("h").piece)[0]
                tm.add("msm_h", time.perf_counter() - t)
                tm.msms += 1
            elif plan.scalars_on_host:
                t = time.perf_counter()
                out = host_buffers.take(len(vecs)) if host_buffers is not None else None
                tm.add("pin_wait", time.perf_counter() - t)
                h = bk.offload(h, out=out)
                del out
            one["h"] = h
            del h
            vecs.append(one)
        msm = {} if plan.h_shared else {"h": [v.pop("h") for v in vecs]}
        for name in ("h", self.private, "a", "b_g1", "b_g2"):
            if name in msm:
                continue
            t = time.perf_counter()
            key = "b" if name.startswith("b_") else name
            q = plan.query("l" if name == self.private else name)
            msm[name] = self.ctx[name].msm_many([v[key] for v in vecs], piece=q.piece,
                                                prefetch=name == "h" and plan.scalars_on_host)
            tm.add(f"msm_{name}", time.perf_counter() - t)
            tm.msms += len(vecs)
        del vecs
        return [assemble_proof(self.key, {k: v[i] for k, v in msm.items()}, self.private, r, s, tm)
                for i in range(len(msm["h"]))]

    def prove_groups(self, jobs: Sequence, stage: Callable, check: Callable, done: Callable, plan,
                     r: int | None = None, s: int | None = None) -> BatchTimes:
        """``prove_many`` by a ``ProvePlan``: ``jobs`` in groups (``even_groups``: at most
        ``plan.in_flight`` each, as even as their number allows), each group
        staged (``stage``, in this thread, each when its H phase starts) and proved by
        ``prove_group``; ``check`` and ``done`` as ``prove_many``, in job order (a proof's
        ``seconds`` and ``phases`` are its group's divided by the group's size)."""
        totals = BatchTimes()
        groups = even_groups(len(jobs), plan.in_flight)
        if jobs:
            if plan.scalars_on_host or plan.h_phase != "device":   # pinned host arrays ahead
                self.times.add("make_room", self.backend.make_room(plan.host_bytes))
            self.prepare(plan)
        # the H scalars' host arrays, one per partition of the largest group: pinned after the
        # conversion and before the first H phase, or (``PIN_AHEAD``) each while the partition
        # before it runs its NTTs; never beside the conversion (``HostBuffers``)
        bufs = None
        if plan.scalars_on_host and plan.h_shared and groups:
            t = time.perf_counter()
            bufs = self.backend.host_buffers(max(map(len, groups)), (self.n, 4), ahead=PIN_AHEAD)
            self.times.add("pin", time.perf_counter() - t)
        try:
            for g in groups:
                self._prove_one_group(jobs[g.start : g.stop], g.start, stage, check, done, plan, r, s, totals, bufs)
        finally:
            if bufs is not None:
                bufs.close()
                if PIN_AHEAD:   # the background thread's time (the wait for it is "pin_wait")
                    self.times.add("pin_ahead", sum(bufs.seconds))
        return totals

    def _prove_one_group(self, group, g, stage, check, done, plan, r, s, totals, bufs) -> None:
        """One group of ``prove_groups`` (the jobs from g on), its proofs checked and handed to ``done``."""
        group = list(group)
        before = dict(self.times.seconds)
        t = time.perf_counter()
        publics = []

        def staged_one_by_one():   # each staged when its H phase starts: one w on the host at a time
            for job in group:
                t1 = time.perf_counter()
                public, st = stage(job)
                totals.staging_seconds += time.perf_counter() - t1
                publics.append(public)
                yield st

        proofs = self.prove_group(staged_one_by_one(), plan, r, s, bufs)
        wall = (time.perf_counter() - t) / len(group)
        phases = {k: (v - before.get(k, 0.0)) / len(group) for k, v in self.times.seconds.items()}
        for j, (job, proof, public) in enumerate(zip(group, proofs, publics)):
            t = time.perf_counter()
            ok = bool(check(proof, public))
            totals.proofs += 1
            done(BatchProof(g + j, job, proof, public, ok, 0.0, 0.0, wall, time.perf_counter() - t, phases))

    def prove_many(self, jobs: Sequence, stage: Callable, check: Callable, done: Callable,
                   r: int | None = None, s: int | None = None, stage_timeout: float = STAGE_TIMEOUT_S) -> BatchTimes:
        """Prove ``jobs`` in order, staging the next one in a background thread (``cuzk-stage``)
        while the current one is proved; check each proof before ``done`` gets it.

        At most one staged assignment is ahead, and the current one is released before the one
        after next is staged (two alive at most). An error of ``stage`` is raised when the loop
        reaches that job, so the same jobs raise the same error as a sequential loop; leaving
        (also by an error, ``done``'s included) joins the stager thread, unless it stalled.
        A watchdog stops the batch with a StagingError when a staging thread ends without a
        result or runs longer than ``stage_timeout`` seconds.

        Args:
            jobs: anything; each is passed to ``stage``.
            stage: job → (public inputs, ``StagedAssignment`` of this Prover), run in the stager
                thread (reading and checking a witness, then ``self.stage``).
            check: (proof, public inputs) → bool: is the proof valid (``groth16.verify`` against
                the verifying key, say). Its result goes to ``done``; the loop goes on either way.
            done: called with each ``BatchProof`` in job order, in the calling thread, before the
                next proof starts; it may raise to stop the batch (a proof that did not verify).
            r, s: blinding scalars of every proof (tests only); fresh random ones by default.
            stage_timeout: seconds one job's staging may run (``STAGE_TIMEOUT_S``).

        Returns:
            the staging totals (``BatchTimes``).

        Raises:
            StagingError: the watchdog's verdict (above); else what ``stage``, proving, ``check``
                or ``done`` raised.
        """
        totals = BatchTimes()

        def timed_stage(job):
            t = time.perf_counter()
            public, staged = stage(job)
            return public, staged, time.perf_counter() - t

        ahead = _Stager(timed_stage, jobs[0], 0) if len(jobs) else None
        try:
            for j, job in enumerate(jobs):
                before = dict(self.times.seconds)
                t = time.perf_counter()
                public, staged, secs = ahead.result(stage_timeout)  # re-raises the stager's error here
                waited = time.perf_counter() - t
                totals.waited_seconds += waited
                totals.staging_seconds += secs
                ahead = _Stager(timed_stage, jobs[j + 1], j + 1) if j + 1 < len(jobs) else None
                proof = self.prove(staged, r=r, s=s)
                del staged  # freed before the one after next is staged: two alive at most
                wall = time.perf_counter() - t
                phases = {k: v - before.get(k, 0.0) for k, v in self.times.seconds.items()}
                t = time.perf_counter()
                ok = bool(check(proof, public))
                totals.proofs += 1
                done(BatchProof(j, job, proof, public, ok, secs, waited, wall, time.perf_counter() - t, phases))
        finally:
            if ahead is not None:
                ahead.join(stage_timeout)
        return totals


def prove(pk: ProvingKey, r1cs, inputs, aux, backend: Backend, r: int | None = None, s: int | None = None) -> Proof:
    """One-shot proof (starts and stops a Prover); see ``Prover.prove``."""
    with Prover(pk, r1cs, backend) as p:
        return p.prove(inputs, aux, r, s)
