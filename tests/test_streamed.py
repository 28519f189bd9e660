"""The schedules of ``cuzk.memory.gpu_plan`` carried out on the CPU backend (the same code paths the
cuda backend follows under a device limit, with host arrays): the sliced setup gives the key of
the whole-array setup and of a naive recomputation; the grouped prover (scalars offloaded, each
MSM over several partitions' scalars) gives the proofs of ``Prover.prove`` with r and s fixed."""

from __future__ import annotations

import warnings

import pytest

from cuzk.backend import get_backend
from cuzk.circuits import synthetic
from cuzk.curve import G1
from cuzk.field import FR
from cuzk.groth16 import DevelopmentSetupWarning, Prover, setup, verify
from cuzk.memory.gpu_plan import SetupPlan
from test_groth16 import TOXIC, build, naive_qap

R = FR.modulus


@pytest.fixture(scope="module")
def cpu():
    with get_backend("cpu", threads=1) as bk:
        yield bk


@pytest.fixture(scope="module")
def circuit():
    return build(synthetic.synthesize, 40, 5, 0.9, 7)


def _setup(r1cs, bk, plan=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DevelopmentSetupWarning)
        return setup(r1cs, bk, TOXIC, plan=plan)


@pytest.mark.parametrize("width", [1, 7, 64])
def test_sliced_setup_gives_the_same_key(cpu, circuit, width):
    r1cs = circuit[0]
    whole = _setup(r1cs, cpu)
    steps = []
    plan = SetupPlan(limit=1 << 30, ntt=("whole", 0), slice=width, parts={})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DevelopmentSetupWarning)
        sliced = setup(r1cs, cpu, TOXIC, step=lambda d, t: steps.append((d, t)), plan=plan)
    for name in ("h", "l", "a", "b_g1", "b_g2"):
        assert (getattr(sliced, name) == getattr(whole, name)).all(), name
    assert sliced.vk.ic == whole.vk.ic and sliced.vk.delta_g2 == whole.vk.delta_g2
    total = sum(len(getattr(sliced, k)) for k in ("h", "l", "a", "b_g1", "b_g2")) + len(sliced.vk.ic)
    assert steps[0] == (0, total) and steps[-1] == (total, total)
    # against the naive QAP (Lagrange by definition)
    (u, v, w), n = naive_qap(r1cs, TOXIC["tau"])
    assert G1.from_array(sliced.a, False) == [G1.mul(G1.generator(), x) for x, d in zip(u, r1cs.density_a) if d]
    t, de = TOXIC["tau"], TOXIC["delta"]
    z = (pow(t, n, R) - 1) % R
    assert G1.from_array(sliced.h, False) == [G1.mul(G1.generator(), pow(t, i, R) * z * pow(de, -1, R)) for i in range(n - 1)]
