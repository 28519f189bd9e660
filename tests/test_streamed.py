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
from cuzk.groth16 import DevelopmentSetupWarning, Prover, domain_size, setup, verify
from cuzk.groth16.prover import even_groups
from cuzk.memory.gpu_plan import GROUP_WORDS, QUERIES, ProvePlan, QueryPlan, SetupPlan, query_points
from cuzk.r1cs import Unsatisfied
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


@pytest.mark.parametrize("width,blocks", [(1, (0, 0, 0)), (7, (3, 5, 4)), (64, (0, 0, 0))])
def test_sliced_setup_gives_the_same_key(cpu, circuit, width, blocks):
    r1cs = circuit[0]
    whole = _setup(r1cs, cpu)
    steps = []
    plan = SetupPlan(1 << 30, ("whole", 0), width, {}, 0, *blocks)
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


def _plan(r1cs, on_host, h_phase, piece, in_flight, batch):
    stats = dict(r1cs.stats(), domain=domain_size(r1cs.num_constraints))
    pts = query_points(stats, int(sum(r1cs.density_a)), int(sum(r1cs.density_b)))
    qs = tuple(QueryPlan(q, pts[q], GROUP_WORDS[q], False, piece) for q in QUERIES)
    sched = {"host": ("split", 8), "device": ("fused", 0), "lean": ("lean", 0), "lean_staged": ("lean_staged", 0)}[h_phase]
    h_phase = "lean" if h_phase.startswith("lean") else h_phase
    return ProvePlan(1 << 30, batch, in_flight, qs, on_host, h_phase, sched, 5, 20, {})


@pytest.mark.parametrize("on_host,h_phase,piece", [(True, "host", 7), (False, "device", 13), (True, "device", 1000),
                                                   (True, "lean", 7), (False, "lean_staged", 13)])
def test_grouped_proofs_equal_single_proofs(cpu, on_host, h_phase, piece):
    r1cs, ins, aux = build(synthetic.synthesize, 40, 5, 0.9, 7)
    pk = _setup(r1cs, cpu)
    # three assignments of the circuit: other witnesses from other seeds of the same shape
    wits = [(ins, aux)] + [build(synthetic.synthesize, 40, 5, 0.9, seed)[1:] for seed in (1, 2)]
    plan = _plan(r1cs, on_host, h_phase, piece, 2, len(wits))
    with Prover(pk, r1cs, cpu) as single:
        want = [single.prove(i, a, r=5, s=6) for i, a in wits]
    got, seen = [], []
    with Prover(pk, r1cs, cpu, plan=plan) as grouped:
        grouped.prove_groups(list(range(len(wits))), lambda j: (wits[j][0][1:], grouped.stage(*wits[j])),
                             lambda p, pub: verify(pk.vk, p, pub), lambda item: (got.append(item.proof), seen.append(item)),
                             plan, r=5, s=6)
    assert [p.to_bytes() for p in got] == [p.to_bytes() for p in want]
    assert [x.index for x in seen] == [0, 1, 2] and all(x.verified for x in seen)
    # soundness: a proof of one witness does not verify with another's public inputs
    assert not verify(pk.vk, got[0], [(v + 1) % R for v in wits[0][0][1:]])


@pytest.mark.parametrize("h_phase", ["host", "lean"])
def test_grouped_prover_refuses_unsatisfied(cpu, h_phase):
    r1cs, ins, aux = build(synthetic.synthesize, 40, 5, 0.9, 7)
    pk = _setup(r1cs, cpu)
    bad = list(aux)
    bad[3] = (bad[3] + 1) % R
    plan = _plan(r1cs, True, h_phase, 9, 1, 1)
    with Prover(pk, r1cs, cpu, plan=plan) as pr, pytest.raises(Unsatisfied):
        pr.prove_group([pr.stage(ins, bad)], plan)


def _all_dense(cs, seed):
    """Bits y, their neighbours' products z, two public bits: every variable (ONE included) in a
    booleanity row v·v = v, so in A and in B (the prover shares w's host copy as A's and B's
    scalars then)."""
    import random

    rng = random.Random(seed)
    ys = [rng.randrange(2) for _ in range(30)]
    x = cs.alloc_input(2, [ys[0], ys[1]])
    y = cs.alloc_aux(30, ys)
    z = cs.alloc_aux(29, [a * b for a, b in zip(ys, ys[1:])])
    cs.enforce(y[:-1], y[1:], z, "product")
    cs.enforce(x, x, x, "bit")
    cs.enforce(y, y, y, "bit")
    cs.enforce(z, z, z, "bit")
    cs.enforce(cs.one(1), cs.one(1), cs.one(1), "one")
    cs.enforce(x, cs.one(2), y[:2], "public")


def test_grouped_proofs_with_shared_host_scalars(cpu):
    r1cs, ins, aux = build(_all_dense, 1)
    assert all(r1cs.density_a) and all(r1cs.density_b)
    pk = _setup(r1cs, cpu)
    wits = [(ins, aux)] + [build(_all_dense, seed)[1:] for seed in (2, 3)]
    plan = _plan(r1cs, True, "host", 11, 3, len(wits))
    with Prover(pk, r1cs, cpu) as single:
        want = [single.prove(i, a, r=5, s=6) for i, a in wits]
    with Prover(pk, r1cs, cpu, plan=plan) as grouped:
        got = grouped.prove_group([grouped.stage(*w) for w in wits], plan, r=5, s=6)
    assert [p.to_bytes() for p in got] == [p.to_bytes() for p in want]
    assert all(verify(pk.vk, p, w[0][1:]) for p, w in zip(got, wits))


@pytest.mark.parametrize("jobs", [0, 1, 2, 5, 9, 10, 11, 20, 33])
@pytest.mark.parametrize("in_flight", [1, 2, 3, 4, 6, 7, 10, 40])
def test_even_groups_cover_the_jobs_in_as_few_even_groups_as_the_limit_allows(jobs, in_flight):
    groups = even_groups(jobs, in_flight)
    assert [j for g in groups for j in g] == list(range(jobs))            # every job once, in order
    fewest = next(c for c in range(jobs + 1) if c * in_flight >= jobs)    # naive: the fewest groups
    assert len(groups) == fewest
    sizes = [len(g) for g in groups]
    assert all(0 < x <= in_flight for x in sizes)
    assert not sizes or max(sizes) - min(sizes) <= 1
    assert sizes == sorted(sizes, reverse=True)                            # the larger ones first


def test_even_groups_refuses_no_room():
    with pytest.raises(ValueError, match="0 partitions in flight"):
        even_groups(3, 0)
