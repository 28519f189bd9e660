"""Every GPU step under a device limit (``gpu_mem_limit_gb``, ``cuzk.memory.gpu_plan``) on a CUDA
device: proofs with r and s fixed are byte-identical with and without each limit, the measured
live peak stays under it, a limit below the smallest schedule is refused with GPUMemoryError
before any work and the next job in the same process works, and the 2 KiB PoRep setup and prove
run at 1 GiB."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from cuzk.backend import GPUMemoryError, get_backend
from cuzk.backend.cuda import cuda_available
from cuzk.circuits import synthetic
from cuzk.circuits.registry import shape_by_name
from cuzk.groth16 import DevelopmentSetupWarning, Prover, domain_size, setup, verify
from cuzk.groth16 import prover as prover_module
from cuzk.memory.gpu_plan import plan_prove, plan_setup
from cuzk.r1cs import ConstraintSystem
from cuzk.r1cs.witness import read_witness_compact, write_witness

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not cuda_available(), reason="needs CuPy and a CUDA device")]

TOXIC = {"tau": 123456789, "alpha": 11, "beta": 22, "gamma": 33, "delta": 44}
MIB = 1 << 20


def _build(seed, n=1 << 16):
    cs = ConstraintSystem(shape=True, witness=True)
    synthetic.synthesize(cs, n, 4, 0.9, seed)
    ins, aux = cs.assignment()
    return cs.finalize(), [int(v) for v in ins], [int(v) for v in aux]


def _stats(r1cs):
    return dict(r1cs.stats(), domain=domain_size(r1cs.num_constraints))


def _key(r1cs, bk, plan=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DevelopmentSetupWarning)
        return setup(r1cs, bk, TOXIC, plan=plan)


def _prove_all(pk, r1cs, bk, wits, plan, cws=None):
    """The proofs of ``wits`` (r, s fixed) by ``prove`` or, with a plan, ``prove_groups``: staged
    from ints, or as the witness files ``cws`` store them (``stage_compact``)."""
    out = []
    seen = bk.live_at_start("compute_h", "compute_h_host", "compute_h_ab") if plan is not None else []
    with Prover(pk, r1cs, bk, plan=plan) as pr:
        if plan is None:
            return [pr.prove(i, a, r=5, s=6) for i, a in wits]

        def stage(j):
            return wits[j][0][1:], pr.stage_compact(cws[j], defer=True) if cws else pr.stage(*wits[j], defer=True)

        pr.prove_groups(list(range(len(wits))), stage, lambda p, pub: verify(pk.vk, p, pub),
                        lambda item: out.append(item), plan, r=5, s=6)
    assert all(x.verified for x in out)
    if plan is not None:   # the plan's count of what the H phase holds then (``h_phase_bytes``;
        p = plan.parts       # the lean one's a and b are compute_h_ab's own: it consumes them)
        assert len(seen) == len(wits)
        ab = 2 * 32 * _stats(r1cs)["domain"] if plan.h_phase == "lean" else 0
        assert max(live for live, _ in seen) <= (p["cache"] + p["resident"] + p["scalars"] + p["compact"] + p["twiddles"]
                                                 + p["h_held_at_quotient"] + p["slack"] + ab), (seen, p)
    return [x.proof for x in out]


def test_limited_proofs_equal_unlimited(tmp_path, monkeypatch):
    r1cs, ins, aux = _build(1)
    wits = [(ins, aux)] + [_build(s)[1:] for s in (2, 3)]
    with get_backend("cuda") as bk:
        pk = _key(r1cs, bk)
        want = [p.to_bytes() for p in _prove_all(pk, r1cs, bk, wits, None)]
    st = _stats(r1cs)
    seen = set()
    # this shape's smallest setup schedule needs about 59 MiB (the transposed products in column
    # slices and row blocks below 67): 60 MiB blocks setup's products; the prove plans (CPU,
    # plan_prove): 60 puts the H phase on the host, 72 and 96 take the lean one, 192 keeps it on
    # the device with part of the key streamed, 512 streams none (both planners are asked below,
    # as the workflow does)
    cws = []
    for j, (i, a) in enumerate(wits):   # the same witnesses as files store them (stage_compact)
        write_witness(tmp_path / f"{j}.wit", np.array(i, dtype=object), np.array(a, dtype=object))
        cws.append(read_witness_compact(tmp_path / f"{j}.wit"))
    for k, mib in enumerate((60, 72, 96, 192, 512)):
        limit = mib * MIB
        with get_backend("cuda", gpu_mem_limit=limit) as bk:
            sp = plan_setup(st, limit)
            assert bool(sp.spmv_cols) == (mib == 60)
            key = _key(r1cs, bk, sp)
            assert all((getattr(key, q) == getattr(pk, q)).all() for q in ("h", "l", "a", "b_g1", "b_g2"))
            # w as limbs, then as stored (A's, B's and L's scalars expanded from it per piece)
            # each limit and each form of w once with the group's H MSMs sharing a walk of the bases
            # and once with each partition's own, right after its quotient (ProvePlan.h_shared)
            for j, compact in enumerate((None, cws[0].nbytes)):   # the H buffers pinned all first, then one ahead
                monkeypatch.setattr(prover_module, "PIN_AHEAD", compact is not None)
                plan = plan_prove(st, len(pk.a), len(pk.b_g1), len(wits), limit, compact_w=compact,
                                  h_sharing=((j + k) % 2 == 0,))
                seen.add((plan.h_phase, plan.scalars_on_host, plan.streamed, plan.h_shared))
                got = [p.to_bytes() for p in _prove_all(key, r1cs, bk, wits, plan, cws if compact else None)]
                assert got == want, (mib, plan)
                assert bk.gpu_peak_bytes <= limit, (mib, compact, bk.gpu_peak_bytes)
    assert any(s[2] for s in seen)   # some limit streamed the key
    assert {s[0] for s in seen} == {"host", "lean", "device"}
    assert {s[3] for s in seen if s[2]} == {True, False}


def test_limit_below_one_chunk_then_next_job():
    r1cs, ins, aux = _build(1, 1 << 12)
    st = _stats(r1cs)
    with pytest.raises(GPUMemoryError) as e:
        plan_prove(st, None, None, 1, 1 * MIB)
    assert e.value.op == "prove" and e.value.limit == MIB and e.value.requested > MIB
    with get_backend("cuda") as bk:   # the next job in the same process
        pk = _key(r1cs, bk)
        with Prover(pk, r1cs, bk) as pr:
            assert verify(pk.vk, pr.prove(ins, aux), ins[1:])


def test_porep_2kib_setup_at_1_gib():
    """The default batch's shape at L = 1 GiB: setup (it stopped in concat before) stays under
    the limit and gives the key of the unlimited setup (same toxic waste); its prove plan fits."""
    from cuzk.circuits.registry import family_of

    sh = shape_by_name("porep-2KiB")
    cs = ConstraintSystem(shape=True, witness=False)
    family_of(sh).synthesize(cs, sh)
    r1cs = cs.finalize()
    limit = 1 << 30
    st = sh.stats()
    with get_backend("cuda", gpu_mem_limit=limit) as bk:
        pk = _key(r1cs, bk, plan_setup(st, limit))
        assert bk.gpu_peak_bytes <= limit
    with get_backend("cuda") as bk:
        whole = _key(r1cs, bk)
    assert all((getattr(pk, q) == getattr(whole, q)).all() for q in ("h", "l", "a", "b_g1", "b_g2"))
    assert plan_prove(st, len(pk.a), len(pk.b_g1), 1, limit).peak <= limit
