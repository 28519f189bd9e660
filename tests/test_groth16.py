"""Groth16 setup/prove/verify: round trips, an independent recomputation of the proof from the
toxic waste with naive Lagrange interpolation, batch verification and soundness."""

import random
import warnings

import pytest

from cuzk.backend import get_backend
from cuzk.circuits import synthetic
from cuzk.curve import G1, G2
from cuzk.field import FR
from cuzk.groth16 import (
    DevelopmentSetupWarning,
    Proof,
    Prover,
    PublicInputError,
    WitnessError,
    domain_size,
    setup,
    verify,
    verify_batch,
)
from cuzk.r1cs import ConstraintSystem, Unsatisfied, lc
from curve_util import naive_lagrange

R = FR.modulus


def cubic(cs, x_val=3):
    """x³ + x + 5 = out, out public (the classic example), x private."""
    vals = cs.has_values
    out = cs.alloc_input(1, values=[x_val**3 + x_val + 5] if vals else None)
    x = cs.alloc_aux(1, values=[x_val] if vals else None)
    x2 = cs.alloc_aux(1, values=[x_val**2] if vals else None)
    x3 = cs.alloc_aux(1, values=[x_val**3] if vals else None)
    cs.enforce(lc(x), lc(x), lc(x2), gadget="sq")
    cs.enforce(lc(x2), lc(x), lc(x3), gadget="cube")
    cs.enforce(lc(x3) + lc(x) + lc(cs.one(1), 5), lc(cs.one(1)), lc(out), gadget="sum")


def build(fn, *args):
    cs = ConstraintSystem(shape=True, witness=True)
    fn(cs, *args)
    ins, aux = cs.assignment()
    return cs.finalize(), [int(v) for v in ins], [int(v) for v in aux]


TOXIC = {"tau": 123456789, "alpha": 11, "beta": 22, "gamma": 33, "delta": 44}


@pytest.fixture(scope="module")
def cpu():
    with get_backend("cpu", threads=1) as bk:
        yield bk


def keygen(r1cs, bk, toxic=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DevelopmentSetupWarning)
        return setup(r1cs, bk, toxic)


def naive_qap(r1cs, tau):
    """u_i(τ), v_i(τ), w_i(τ) by naive Lagrange interpolation over the n-th roots of unity."""
    n = domain_size(r1cs.num_constraints)
    lag = naive_lagrange(tau, n)
    nv = r1cs.num_inputs + r1cs.num_aux
    out = []
    for m in (r1cs.A, r1cs.B, r1cs.C):
        vec = [0] * nv
        for row in range(m.shape[0]):
            for k in range(int(m.indptr[row]), int(m.indptr[row + 1])):
                vec[int(m.indices[k])] += int(m.coeffs[m.coeff_ids[k]]) * lag[row]
        out.append([v % R for v in vec])
    return out, n


def test_setup_warns(cpu):
    r1cs, _, _ = build(cubic)
    with pytest.warns(DevelopmentSetupWarning, match="never be used on chain"):
        setup(r1cs, cpu)


def test_proof_matches_independent_recomputation(cpu):
    r1cs, ins, aux = build(cubic)
    pk = keygen(r1cs, cpu, TOXIC)
    (u, v, w), n = naive_qap(r1cs, TOXIC["tau"])
    t, al, be, ga, de = (TOXIC[k] for k in ("tau", "alpha", "beta", "gamma", "delta"))
    # the key itself
    assert G1.from_array(pk.a, False) == [G1.mul(G1.generator(), x) for x, d in zip(u, r1cs.density_a) if d]
    assert G2.from_array(pk.b_g2, False) == [G2.mul(G2.generator(), x) for x, d in zip(v, r1cs.density_b) if d]
    z = (pow(t, n, R) - 1) % R
    assert G1.from_array(pk.h, False) == [G1.mul(G1.generator(), pow(t, i, R) * z * pow(de, -1, R)) for i in range(n - 1)]
    ni = r1cs.num_inputs
    assert pk.vk.ic == [G1.mul(G1.generator(), (be * u[i] + al * v[i] + w[i]) * pow(ga, -1, R)) for i in range(ni)]
    # the proof, with r and s fixed
    r_, s_ = 777, 888
    with Prover(pk, r1cs, cpu) as pr:
        proof = pr.prove(ins, aux, r=r_, s=s_)
    wv = ins + aux
    a_t = sum(x * y for x, y in zip(wv, u)) % R
    b_t = sum(x * y for x, y in zip(wv, v)) % R
    c_t = sum(x * y for x, y in zip(wv, w)) % R
    A = (al + a_t + r_ * de) % R
    B = (be + b_t + s_ * de) % R
    priv = sum(wv[i] * (be * u[i] + al * v[i] + w[i]) for i in range(ni, len(wv)))
    C = ((priv + a_t * b_t - c_t) * pow(de, -1, R) + A * s_ + B * r_ - r_ * s_ * de) % R
    assert proof.a == G1.mul(G1.generator(), A)
    assert proof.b == G2.mul(G2.generator(), B)
    assert proof.c == G1.mul(G1.generator(), C)
    assert verify(pk.vk, proof, ins[1:])


@pytest.mark.parametrize("constraints,inputs", [(16, 1), (40, 20), (100, 0)])
def test_round_trip_synthetic(cpu, constraints, inputs):
    r1cs, ins, aux = build(synthetic.synthesize, constraints, inputs, 0.9, 5)
    pk = keygen(r1cs, cpu)
    with Prover(pk, r1cs, cpu) as pr:
        proof = pr.prove(ins, aux)
    assert verify(pk.vk, proof, ins[1:])
    again = Proof.from_bytes(proof.to_bytes())
    assert len(proof.to_bytes()) == 192
    assert verify(pk.vk, again, ins[1:])
    assert len(pk.vk.ic) == inputs + 1  # bellperson: ic.len() == public inputs + 1 (ONE)
    if inputs:
        bad = list(ins[1:])
        bad[-1] = (bad[-1] + 1) % R
        assert not verify(pk.vk, proof, bad)


@pytest.fixture(scope="module")
def batch_setup(cpu):
    r1cs, ins, aux = build(synthetic.synthesize, 24, 3, 0.9, 9)
    pk = keygen(r1cs, cpu)
    proofs, publics = [], []
    with Prover(pk, r1cs, cpu) as pr:
        for seed in range(8):
            cs = ConstraintSystem(shape=False, witness=True)
            synthetic.synthesize(cs, 24, 3, 0.9, seed)
            i2, a2 = cs.assignment()
            proofs.append(pr.prove(i2, a2))
            publics.append([int(v) for v in i2[1:]])
    return r1cs, pk, proofs, publics


def test_batch_verification(batch_setup):
    _, pk, proofs, publics = batch_setup
    assert all(verify(pk.vk, p, x) for p, x in zip(proofs, publics))
    assert verify_batch(pk.vk, proofs, publics)
    swapped = publics[:3] + [publics[4], publics[3]] + publics[5:]
    assert not verify_batch(pk.vk, proofs, swapped)
    tampered = list(proofs)
    tampered[5] = Proof(tampered[5].a, tampered[5].b, tampered[5].c + G1.generator())
    assert not verify_batch(pk.vk, tampered, publics)
    with pytest.raises(PublicInputError):
        verify_batch(pk.vk, proofs, publics[:-1])


def test_soundness_replaced_elements(batch_setup, cpu):
    r1cs, pk, proofs, publics = batch_setup
    p, x = proofs[0], publics[0]
    other = proofs[1]
    rnd = random.Random(3)
    g1 = G1.mul(G1.generator(), rnd.randrange(R))
    g2 = G2.mul(G2.generator(), rnd.randrange(R))
    for bad in (
        Proof(g1, p.b, p.c), Proof(p.a, g2, p.c), Proof(p.a, p.b, g1),
        Proof(other.a, p.b, p.c), Proof(p.a, other.b, p.c), Proof(p.a, p.b, other.c),
    ):
        assert not verify(pk.vk, bad, x)
    # a proof checked against another key of the same circuit
    pk2 = keygen(r1cs, cpu)
    assert not verify(pk2.vk, p, x)
    with pytest.raises(PublicInputError):
        verify(pk.vk, p, x[:-1])
    with pytest.raises(PublicInputError):
        verify(pk.vk, p, x[:-1] + [R])


def test_prover_refuses_unsatisfied_witness(cpu):
    r1cs, ins, aux = build(cubic)
    pk = keygen(r1cs, cpu)
    with Prover(pk, r1cs, cpu) as pr:
        bad = list(aux)
        bad[1] = (bad[1] + 1) % R  # x² wrong
        calls = []
        for c in pr.ctx.values():
            orig = c.msm
            c.msm = lambda s, orig=orig: calls.append(1) or orig(s)
        with pytest.raises(Unsatisfied) as e:
            pr.prove(ins, bad)
        assert e.value.row == 0 and e.value.gadget == "sq"
        assert not calls  # refused before any MSM
        with pytest.raises(WitnessError):
            pr.prove(ins, aux[:-1])
        with pytest.raises(WitnessError):
            pr.prove([2] + ins[1:], aux)
