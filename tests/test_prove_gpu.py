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
