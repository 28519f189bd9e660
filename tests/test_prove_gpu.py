"""Groth16 proofs on the CUDA backend equal the CPU backend's bit for bit (r, s fixed) and verify."""

import warnings

import pytest

from cuzk.backend import get_backend
from cuzk.backend.cuda import cuda_available
from cuzk.circuits import commd, synthetic
from cuzk.backend.cpu import CPUBackend
from cuzk.field import FR
from cuzk.groth16 import DevelopmentSetupWarning, Prover, setup, verify
from cuzk.r1cs import ConstraintSystem, Unsatisfied
from cuzk.sector import prepare_sector, read_c1

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not cuda_available(), reason="needs CuPy and a CUDA device")]


def _circuits(tmp_path):
    cs = ConstraintSystem(shape=True, witness=True)
    synthetic.synthesize(cs, 5000, 6, 0.9, seed=2)
    yield "synthetic-5000", cs
    shape = commd.shape_by_name("test-only-commd-128B")
    prepare_sector(tmp_path / "c1.json", 1, shape.sector_size, shape.partitions, shape.challenges, generate_seed=8)
    cs = ConstraintSystem(shape=True, witness=True)
    commd.synthesize(cs, shape, commd.witness_from_c1(read_c1(tmp_path / "c1.json"), 0))
    yield "commd-128B", cs


def test_cuda_proofs_equal_cpu_proofs(tmp_path, monkeypatch):
    def no_cpu_spmv(*a, **k):
        raise AssertionError("the cuda prover must not run the sparse products on the CPU")

    for name, cs in _circuits(tmp_path):
        r1cs = cs.finalize()
        ins, aux = cs.assignment()
        with get_backend("cpu", threads=4) as cpu, warnings.catch_warnings():
            warnings.simplefilter("ignore", DevelopmentSetupWarning)
            pk = setup(r1cs, cpu)
            with Prover(pk, r1cs, cpu) as p:
                ref = p.prove(ins, aux, r=12345, s=67890)
        with get_backend("cuda") as gpu, Prover(pk, r1cs, gpu) as p, monkeypatch.context() as mp:
            mp.setattr(CPUBackend, "spmv", no_cpu_spmv)
            got = p.prove(ins, aux, r=12345, s=67890)
            fresh = p.prove(ins, aux)
        assert got.to_bytes() == ref.to_bytes(), name
        assert verify(pk.vk, got, [int(v) for v in ins[1:]]), name
        assert verify(pk.vk, fresh, [int(v) for v in ins[1:]]), name
        assert fresh.to_bytes() != got.to_bytes()


def test_auto_picks_cuda():
    with get_backend("auto") as b:
        assert b.name == "cuda"


def test_cuda_prover_refuses_unsatisfied_witness():
    cs = ConstraintSystem(shape=True, witness=True)
    synthetic.synthesize(cs, 3000, 3, 0.9, seed=5)
    r1cs = cs.finalize()
    ins, aux = cs.assignment()
    with get_backend("cpu", threads=1) as cpu, get_backend("cuda") as gpu, warnings.catch_warnings():
        warnings.simplefilter("ignore", DevelopmentSetupWarning)
        pk = setup(r1cs, cpu)
        with Prover(pk, r1cs, cpu) as pc, Prover(pk, r1cs, gpu) as pg:
            calls = []
            for c in pg.ctx.values():
                orig = c.msm
                c.msm = lambda s, orig=orig: calls.append(1) or orig(s)
            for i in (len(aux) // 2, len(aux) - 1, 7):
                bad = list(aux)
                bad[i] = (int(bad[i]) + 3) % FR.modulus
                with pytest.raises(Unsatisfied) as ref:
                    pc.prove(ins, bad)
                with pytest.raises(Unsatisfied) as got:
                    pg.prove(ins, bad)
                assert (got.value.row, got.value.gadget) == (ref.value.row, ref.value.gadget), i
            assert not calls  # refused before any MSM


def test_cuda_setup_equals_cpu_setup():
    """Setup's fixed-base products on the GPU give the CPU's parameter bytes (same toxic waste)."""
    import random

    from cuzk.backend.cuda import CUDAMSMContext
    from cuzk.curve import G2

    cs = ConstraintSystem(shape=True, witness=True)
    synthetic.synthesize(cs, 3000, 3, 0.9, seed=4)
    r1cs = cs.finalize()
    rng = random.Random()
    toxic = {k: rng.randrange(1, FR.modulus) for k in ("tau", "alpha", "beta", "gamma", "delta")}
    with get_backend("cpu", threads=2) as cpu, get_backend("cuda") as gpu, warnings.catch_warnings():
        warnings.simplefilter("ignore", DevelopmentSetupWarning)
        ref = setup(r1cs, cpu, toxic)
        got = setup(r1cs, gpu, toxic)
        assert got.to_bytes() == ref.to_bytes()
        with gpu.msm_context(G2, got.b_g2) as ctx:   # G2 runs on the GPU too (no CPU delegate)
            assert isinstance(ctx, CUDAMSMContext)
        ins, aux = cs.assignment()
        with Prover(got, r1cs, gpu) as p:
            assert verify(got.vk, p.prove(ins, aux), [int(v) for v in ins[1:]])


def test_proofs_equal_under_a_memory_limit():
    """r, s fixed: proof bytes with a pool limit that forces chunked MSMs (resident bases, then
    bases uploaded per chunk) equal those without a limit and the CPU backend's."""
    import cupy as cp

    cs = ConstraintSystem(shape=True, witness=True)
    synthetic.synthesize(cs, 5000, 6, 0.9, seed=2)
    r1cs = cs.finalize()
    ins, aux = cs.assignment()
    pub = [int(v) for v in ins[1:]]
    with get_backend("cpu", threads=4) as cpu, warnings.catch_warnings():
        warnings.simplefilter("ignore", DevelopmentSetupWarning)
        pk = setup(r1cs, cpu)
        with Prover(pk, r1cs, cpu) as p:
            ref = p.prove(ins, aux, r=12345, s=67890)
    pool = cp.get_default_memory_pool()
    headroom = 10 << 20
    with get_backend("cuda") as gpu, Prover(pk, r1cs, gpu) as p:
        free = p.prove(ins, aux, r=12345, s=67890)
        assert all(c.last_chunks == 1 for c in p.ctx.values())
        gpu.set_mem_limit(pool.used_bytes() + headroom)
        chunked = p.prove(ins, aux, r=12345, s=67890)
        chunks = {k: c.last_chunks for k, c in p.ctx.items()}
        assert gpu.gpu_peak_bytes > 0
    assert max(chunks.values()) > 1, chunks
    with get_backend("cuda", gpu_mem_limit=pool.used_bytes() + headroom) as gpu2, Prover(pk, r1cs, gpu2) as p2:
        resident = {k: c.resident for k, c in p2.ctx.items()}
        uploaded = p2.prove(ins, aux, r=12345, s=67890)
        assert 0 < gpu2.gpu_peak_bytes <= gpu2.mem_limit
    assert not all(resident.values()), resident
    assert pool.get_limit() == 0
    assert free.to_bytes() == chunked.to_bytes() == uploaded.to_bytes() == ref.to_bytes()
    assert verify(pk.vk, uploaded, pub)
