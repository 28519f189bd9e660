"""Tests of the cpu backend: field ops, NTT, spmv, MSM, fixed-base multiplication, compute_h."""

from __future__ import annotations

import gc
import random
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cuzk.backend import Backend, CSRMatrix, get_backend
from cuzk.backend import cpu, workers
from cuzk.backend.cpu import CPUBackend
from cuzk.curve import G1, G2
from cuzk.field import FR, int_array

R = FR.modulus
RNG = random.Random(20240601)
fr_ints = st.integers(min_value=0, max_value=R - 1)


@pytest.fixture(scope="module")
def be():
    with CPUBackend(threads=1) as b:
        yield b


@pytest.fixture(scope="module")
def be2():
    with CPUBackend(threads=2) as b:
        yield b


@pytest.fixture(params=[1, 2], ids=["threads1", "threads2"])
def backend(request, be, be2):
    return be if request.param == 1 else be2


def rand_fr(n: int) -> list[int]:
    return [RNG.randrange(R) for _ in range(n)]


def naive_dft(a: list[int], w: int) -> list[int]:
    n = len(a)
    pw = [pow(w, k, R) for k in range(n)]
    return [sum(a[i] * pw[(i * j) % n] for i in range(n)) % R for j in range(n)]


def poly_eval(coeffs, x: int) -> int:
    acc = 0
    for c in reversed(list(coeffs)):
        acc = (acc * x + int(c)) % R
    return acc


# --- transfers and elementwise ------------------------------------------------------------


def test_get_backend_returns_cpu():
    b = get_backend("cpu", threads=1)
    assert isinstance(b, CPUBackend) and b.name == "cpu"
    b.close()


def test_threads_must_be_positive():
    with pytest.raises(ValueError):
        CPUBackend(threads=0)


def test_to_device_accepts_lists_and_arrays(be):
    vals = [0, 1, R - 1, 12345]
    for src in (vals, int_array(vals), np.array([0, 1, 5], dtype=np.int64)):
        d = be.to_device(src)
        assert d.dtype == object and d.ndim == 1
        assert [int(v) for v in be.to_host(d)] == [int(v) for v in src]
        assert all(type(v) is type(FR.random(1)[0]) for v in d)
    assert be.length(be.to_device([])) == 0


@pytest.mark.parametrize("bad", [[R], [-1], [0, 1, R + 5]])
def test_to_device_rejects_out_of_range(be, bad):
    with pytest.raises(ValueError, match="index"):
        be.to_device(bad)


def test_to_device_rejects_non_integers(be):
    with pytest.raises(TypeError):
        be.to_device(np.array([1.5, 2.0]))
    with pytest.raises(TypeError):
        be.to_device([1, "2"])
    with pytest.raises(ValueError):
        be.to_device(int_array([1, 2, 3, 4]).reshape(2, 2))


def test_to_host_is_a_copy(be):
    d = be.to_device([1, 2, 3])
    h = be.to_host(d)
    h[0] = 99
    assert int(d[0]) == 1


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(fr_ints, fr_ints), min_size=1, max_size=20), fr_ints)
def test_elementwise_matches_python(pairs, k):
    be = CPUBackend()
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    a, b = be.to_device(xs), be.to_device(ys)
    assert list(be.add(a, b)) == [(x + y) % R for x, y in pairs]
    assert list(be.sub(a, b)) == [(x - y) % R for x, y in pairs]
    assert list(be.mul(a, b)) == [(x * y) % R for x, y in pairs]
    assert list(be.scale(a, k)) == [(x * k) % R for x in xs]
    assert list(be.scale(a, -k)) == [(-x * k) % R for x in xs]


def test_elementwise_length_mismatch(be):
    with pytest.raises(ValueError):
        be.add(be.to_device([1, 2]), be.to_device([1]))


def test_powers_slice_length(be):
    x = RNG.randrange(R)
    for n in (0, 1, 2, 5, 16, 33):
        p = be.powers(x, n)
        assert be.length(p) == n
        assert [int(v) for v in p] == [pow(x, i, R) for i in range(n)]
    a = be.to_device(list(range(10)))
    assert list(be.slice(a, 2, 5)) == [2, 3, 4]


# --- NTT -------------------------------------------------------------------------------------


def test_root_of_unity_matches_blstrs():
    w = FR.root_of_unity(2**32)
    assert w == 0x16A2A19EDFE81F20D09B681922C813B4B63683508C2280B93829971F439F0D2B
    assert pow(w, 2**32, R) == 1
    assert pow(w, 2**31, R) != 1


@pytest.mark.parametrize("n", [1, 2, 4, 8, 64, 256])
def test_ntt_matches_naive_dft(be, n):
    a = rand_fr(n)
    w = FR.root_of_unity(n)
    assert [int(v) for v in be.ntt(be.to_device(a))] == naive_dft(a, w)
    winv = pow(w, -1, R)
    ninv = pow(n, -1, R)
    assert [int(v) for v in be.ntt(be.to_device(a), inverse=True)] == [
        v * ninv % R for v in naive_dft(a, winv)
    ]


def test_ntt_after_larger_size_uses_consistent_twiddles():
    # Twiddles are cached for the largest size and strided for smaller ones.
    b = CPUBackend()
    b.ntt(b.to_device(rand_fr(1024)))
    a = rand_fr(32)
    assert [int(v) for v in b.ntt(b.to_device(a))] == naive_dft(a, FR.root_of_unity(32))


@pytest.mark.parametrize("n", [1, 2, 16, 1024, 4096])
def test_ntt_roundtrip(be, n):
    a = be.to_device(rand_fr(n))
    assert (be.ntt(be.ntt(a), inverse=True) == a).all()
    assert (be.ntt(be.ntt(a, inverse=True)) == a).all()


def test_ntt_roundtrip_2_17(be):
    """A large size: 2^17, the domain the comm_d test shapes prove at. The NTT has no path that
    depends on size (the same stages for every n, exact unreduced sums), so 2^20 (8x the time)
    checked nothing more."""
    a = be.to_device(FR.random(1 << 17, np.random.default_rng(1)))
    assert (be.ntt(be.ntt(a), inverse=True) == a).all()


@pytest.mark.parametrize("n", [0, 3, 12, 1000])
def test_ntt_rejects_bad_sizes(be, n):
    with pytest.raises(ValueError, match=f"n={n}"):
        be.ntt(be.to_device([1] * n))


def test_coset_ntt_naive_and_roundtrip(be):
    n = 16
    coeffs = rand_fr(n)
    w = FR.root_of_unity(n)
    g = FR.generator
    ev = be.coset_ntt(be.to_device(coeffs))
    assert [int(v) for v in ev] == [poly_eval(coeffs, g * pow(w, j, R) % R) for j in range(n)]
    assert [int(v) for v in be.coset_ntt(ev, inverse=True)] == coeffs
    a = be.to_device(rand_fr(256))
    assert (be.coset_ntt(be.coset_ntt(a), inverse=True) == a).all()


def test_compute_h_divides(be):
    n, m = 8, 5
    a = rand_fr(m) + [0] * (n - m)
    b = rand_fr(m) + [0] * (n - m)
    c = [x * y % R for x, y in zip(a, b)]
    h = [int(v) for v in be.compute_h(be.to_device(a), be.to_device(b), be.to_device(c), n)]
    assert len(h) == n - 1
    # Interpolating polynomials by a naive inverse DFT (independent of the backend's NTT).
    winv, ninv = pow(FR.root_of_unity(n), -1, R), pow(n, -1, R)
    A, B, C = ([v * ninv % R for v in naive_dft(v, winv)] for v in (a, b, c))
    for _ in range(3):
        x = RNG.randrange(R)
        lhs = (poly_eval(A, x) * poly_eval(B, x) - poly_eval(C, x)) % R
        assert lhs == poly_eval(h, x) * (pow(x, n, R) - 1) % R


@pytest.mark.parametrize("kron", [True, False], ids=["kronecker", "coset_chains"])
def test_compute_h_matches_base_class(be, be2, monkeypatch, kron):
    # Random (a·b ≠ c) and satisfied inputs: the override must reproduce Backend.compute_h exactly,
    # in process (threads=1) and with the NTT chains in the pool (threads=2, n ≥ MIN_POOL_NTT).
    if not kron:
        monkeypatch.setattr(cpu, "KRONECKER_MAX_LOG", 0)
    rng = np.random.default_rng(11)
    for n in (1, 2, 8, 1 << 10):
        a, b, c = (be.to_device(FR.random(n, rng)) for _ in range(3))
        c_sat = be.mul(a, b)  # a·b = c: the satisfied shortcut
        c_sat[n // 2 :] = 0  # padding rows, as the prover's
        a[n // 2 :] = 0
        for cc in (c, c_sat):
            ref = Backend.compute_h(be, a, b, cc, n)
            h1 = be.compute_h(a, b, cc, n)
            h2 = be2.compute_h(a, b, cc, n)
            assert len(ref) == n - 1 and len(h1) == n - 1 and len(h2) == n - 1
            assert (h1 == ref).all() and (h2 == ref).all(), n
    assert be2._pool is not None and not be2._pool.closed


def test_compute_h_rejects_bad_lengths(be):
    a = be.to_device(rand_fr(8))
    with pytest.raises(ValueError, match="length"):
        be.compute_h(a, a, a[:4], 8)
    with pytest.raises(ValueError, match="n=6"):
        be.compute_h(a[:6], a[:6], a[:6], 6)


def test_poly_mul_kronecker_no_carries():
    top = 2**256 - 1  # the largest value a slot must carry without spilling
    for na, nb in ((1, 1), (1, 5), (7, 3), (33, 33)):
        for gen in (lambda: top, lambda: RNG.randrange(2**256)):
            x, y = [gen() for _ in range(na)], [gen() for _ in range(nb)]
            want = [sum(x[i] * y[k - i] for i in range(max(0, k - nb + 1), min(k, na - 1) + 1)) for k in range(na + nb - 1)]
            got = cpu._poly_mul(workers.scalars_to_bytes(x), workers.scalars_to_bytes(y))
            assert [int(v) for v in got] == want
    assert len(cpu._poly_mul(b"", workers.scalars_to_bytes([1]))) == 0
    with pytest.raises(ValueError):
        cpu._poly_mul(b"\0" * 31, b"\0" * 32)


def test_ntt_chain_steps_match_backend(be):
    a = be.to_device(rand_fr(64))
    tw = workers.Twiddles()
    assert (workers.ntt_chain(a, ("ntt", "intt"), tw) == a).all()
    assert (workers.ntt_chain(a, ("coset_ntt",), tw) == be.coset_ntt(a)).all()
    assert (workers.ntt_chain(a, ("coset_intt",), tw) == be.coset_ntt(a, inverse=True)).all()
    assert (workers.fr_from_bytes(workers.scalars_to_bytes(a)) == a).all()
    with pytest.raises(ValueError):
        workers.fr_from_bytes(b"\0" * 33)


# --- spmv ------------------------------------------------------------------------------------


def make_csr(rows: list[list[tuple[int, int]]], coeffs: list[int], cols: int) -> CSRMatrix:
    indptr = np.cumsum([0] + [len(r) for r in rows]).astype(np.int64)
    flat = [e for r in rows for e in r]
    return CSRMatrix(
        indptr=indptr,
        indices=np.array([c for c, _ in flat], dtype=np.int64),
        coeff_ids=np.array([k for _, k in flat], dtype=np.int32),
        coeffs=int_array(coeffs),
        shape=(len(rows), cols),
    )


def dense_spmv(rows, coeffs, w) -> list[int]:
    return [sum(coeffs[k] * w[c] for c, k in r) % R for r in rows]


def test_spmv_random_with_empty_rows(be):
    coeffs = [1, R - 1, 2] + rand_fr(5)
    cols = 40
    rows = []
    for i in range(120):
        if i in (0, 1, 57, 118, 119) or RNG.random() < 0.2:
            rows.append([])
        else:
            rows.append([(RNG.randrange(cols), RNG.randrange(len(coeffs))) for _ in range(RNG.randrange(1, 7))])
    w = rand_fr(cols)
    y = be.spmv(make_csr(rows, coeffs, cols), be.to_device(w))
    assert be.length(y) == len(rows)
    assert [int(v) for v in y] == dense_spmv(rows, coeffs, w)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_spmv_property(data):
    cols = data.draw(st.integers(1, 6))
    coeffs = data.draw(st.lists(fr_ints, min_size=1, max_size=4))
    entry = st.tuples(st.integers(0, cols - 1), st.integers(0, len(coeffs) - 1))
    rows = data.draw(st.lists(st.lists(entry, max_size=4), max_size=8))
    w = data.draw(st.lists(fr_ints, min_size=cols, max_size=cols))
    be = CPUBackend()
    assert [int(v) for v in be.spmv(make_csr(rows, coeffs, cols), be.to_device(w))] == dense_spmv(rows, coeffs, w)


def test_spmv_shape_errors(be):
    m = make_csr([[(0, 0)]], [1], 2)
    with pytest.raises(ValueError):
        be.spmv(m, be.to_device([1, 2, 3]))


def test_pad_select_first_unsatisfied(be):
    a = rand_fr(10)
    d = be.to_device(a)
    p = be.pad(d, 16)
    assert be.length(p) == 16 and [int(v) for v in p] == a + [0] * 6
    assert [int(v) for v in be.pad(d, 10)] == a
    with pytest.raises(ValueError):
        be.pad(d, 9)
    mask = np.array([i % 3 == 0 for i in range(10)])
    assert [int(v) for v in be.select(d, mask)] == [a[i] for i in range(10) if mask[i]]
    assert be.length(be.select(d, np.zeros(10, dtype=bool))) == 0
    with pytest.raises(ValueError):
        be.select(d, mask[:-1])
    b = rand_fr(10)
    c = [x * y % R for x, y in zip(a, b)]
    dev = [be.to_device(v) for v in (a, b, c)]
    assert be.first_unsatisfied(*dev) is None
    assert be.first_unsatisfied(be.to_device([]), be.to_device([]), be.to_device([])) is None
    for bad in ([7], [3, 8], [0, 9]):
        cc = list(c)
        for i in bad:
            cc[i] = (cc[i] + 1) % R
        assert be.first_unsatisfied(dev[0], dev[1], be.to_device(cc)) == min(bad)
    with pytest.raises(ValueError):
        be.first_unsatisfied(dev[0], dev[1], be.to_device(c[:-1]))


# --- curve -----------------------------------------------------------------------------------


def random_points(group, n):
    g = group.generator()
    return [group.mul(g, RNG.randrange(1, R)) for _ in range(n)]


def naive_msm(group, points, scalars):
    acc = group.identity()
    for p, k in zip(points, scalars):
        acc = acc + group.mul(p, k)
    return group.to_uncompressed(acc)


@pytest.mark.parametrize("group", [G1, G2], ids=["G1", "G2"])
def test_msm_matches_naive(backend, group):
    pts = random_points(group, 9)
    pts[5] = pts[2]  # repeated base
    pts[7] = group.identity()
    bases = group.to_array(pts)
    cases = [
        [0, 1, R - 1, 2] + rand_fr(3) + [1, 0],
        [1] * 9,
        [0] * 9,
        rand_fr(9),
    ]
    with backend.msm_context(group, bases) as ctx:
        assert ctx.size == 9 and ctx.group is group
        for sc in cases:
            assert group.to_uncompressed(ctx.msm(int_array(sc))) == naive_msm(group, pts, sc)
        assert group.to_uncompressed(ctx.msm(cases[0])) == naive_msm(group, pts, cases[0])  # plain list
        with pytest.raises(ValueError):
            ctx.msm(int_array([1] * 8))
        with pytest.raises(ValueError):
            ctx.msm(int_array([R] + [0] * 8))
    with pytest.raises(RuntimeError):
        ctx.msm(int_array([0] * 9))
    # n = 1 and n = 0.
    with backend.msm_context(group, bases[:1]) as ctx:
        for k in (0, 1, R - 1, RNG.randrange(R)):
            assert group.to_uncompressed(ctx.msm(int_array([k]))) == naive_msm(group, pts[:1], [k])
    with backend.msm_context(group, bases[:0]) as ctx:
        assert group.to_uncompressed(ctx.msm(int_array([]))) == group.to_uncompressed(group.identity())


def test_msm_contexts_share_one_pool_and_close_drops_shards(be):
    pts = random_points(G1, 50)
    bases = G1.to_array(pts)
    sc = int_array(rand_fr(25) + [0, 1] * 12 + [R - 1])
    with be.msm_context(G1, bases) as c1:
        ref = G1.to_uncompressed(c1.msm(sc))

    def resident(pool):
        return [head for head, _ in pool.run("keys", [(None, b"")] * pool.size)]

    with CPUBackend(threads=2) as b2:
        assert b2._pool is None  # started on first use
        ctxs = [b2.msm_context(G1, bases) for _ in range(3)]
        ctxs.append(b2.msm_context(G2, G2.to_array(random_points(G2, 3))))
        pool = b2._pool
        procs = list(pool._procs)
        assert len(procs) == 2 and all(p.is_alive() for p in procs)
        assert all(c._pool is pool for c in ctxs)
        keys = sorted(c._key for c in ctxs)
        assert resident(pool) == [keys, keys]
        for c in ctxs[:3]:
            assert G1.to_uncompressed(c.msm(sc)) == ref
            assert G1.to_uncompressed(c.msm(sc)) == ref  # bases stay resident
        gone = ctxs[0]._key
        ctxs[0].close()
        ctxs[0].close()  # idempotent
        assert all(gone not in k and len(k) == 3 for k in resident(pool))
        assert all(p.is_alive() for p in procs)  # closing a context keeps the workers
        with pytest.raises(RuntimeError, match="closed"):
            ctxs[0].msm(sc)
        # A context collected without close() is dropped at the pool's next exchange.
        lost = ctxs[1]._key
        del ctxs[1]
        gc.collect()
        assert all(lost not in k and len(k) == 2 for k in resident(pool))
        assert G1.to_uncompressed(ctxs[1].msm(sc)) == ref
        b2.fixed_base_mul(G1, G1.generator(), [1, 2, 3])
        assert b2._pool is pool  # fixed-base work reuses the pool
    for p in procs:
        p.join(timeout=5)
    assert not any(p.is_alive() for p in procs)  # the backend's close stops them
    with pytest.raises(RuntimeError, match="lost its workers"):
        ctxs[1].msm(sc)
    ctxs[1].close()


def test_prover_uses_threads_workers_in_all():
    # 5 MSM contexts, setup's fixed-base work and compute_h (n = 1024 ≥ MIN_POOL_NTT) on one pool.
    from cuzk.circuits import synthetic
    from cuzk.groth16 import DevelopmentSetupWarning, Prover, setup, verify
    from cuzk.r1cs import ConstraintSystem

    cs = ConstraintSystem(shape=True, witness=True)
    synthetic.synthesize(cs, 1000, 2, 0.9, 3)
    ins, aux = cs.assignment()
    r1cs = cs.finalize()
    with CPUBackend(threads=2) as bk:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DevelopmentSetupWarning)
            pk = setup(r1cs, bk)
        pool = bk._pool
        with Prover(pk, r1cs, bk) as prover:
            assert prover.n == 1024
            assert all(c._pool is pool for c in prover.ctx.values())
            proof = prover.prove(ins, aux)
        assert bk._pool is pool and pool.size == 2
        assert [k for k, _ in pool.run("keys", [(None, b"")] * 2)] == [[], []]  # Prover.close dropped them
    assert verify(pk.vk, proof, [int(v) for v in ins[1:]])


@pytest.mark.parametrize("group", [G1, G2], ids=["G1", "G2"])
def test_local_msm_contexts_run_in_threads(be2, group):
    """local=True keeps the bases in this process (no worker pool even with threads=2), decodes
    them on first use, and msm/msm_bytes calls from several threads give the sequential sums."""
    import threading

    pts = random_points(group, 40)
    pts[3] = group.identity()
    bases = group.to_array(pts)
    cases = [rand_fr(40), [0, 1] * 20, [1] * 40, rand_fr(20) + [0] * 20]
    with CPUBackend(threads=2) as bk:
        ctx = bk.msm_context(group, bases, local=True)
        assert bk._pool is None and ctx._points is None  # nothing decoded yet
        want = [naive_msm(group, pts, sc) for sc in cases]
        got = [None] * len(cases)

        def run(i):
            sc = cases[i]
            p = ctx.msm_bytes(workers.scalars_to_bytes(sc)) if i % 2 else ctx.msm(int_array(sc))
            got[i] = group.to_uncompressed(p)

        threads = [threading.Thread(target=run, args=(i,)) for i in range(len(cases))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert got == want
        assert bk._pool is None and len(ctx.load()) == 40
        with pytest.raises(ValueError):
            ctx.msm_bytes(b"\0" * 32)
        with pytest.raises(ValueError):
            ctx.msm_bytes(workers.scalars_to_bytes([R - 1] * 39) + (2**256 - 1).to_bytes(32, "little"))
        ctx.close()
        with pytest.raises(RuntimeError, match="closed"):
            ctx.msm_bytes(workers.scalars_to_bytes(cases[0]))
        with pytest.raises(RuntimeError, match="closed"):
            ctx.load()
        bad = bases.copy()
        bad[5, -1] ^= 1
        lazy = bk.msm_context(group, bad, local=True)  # the curve check happens on first use
        with pytest.raises(Exception, match="point 5"):
            lazy.msm(int_array(cases[0]))
    # sharded contexts take msm_bytes too
    with be2.msm_context(group, bases) as sharded:
        assert sharded._pool is not None
        assert group.to_uncompressed(sharded.msm_bytes(workers.scalars_to_bytes(cases[0]))) == want[0]


@pytest.mark.parametrize("group", [G1, G2], ids=["G1", "G2"])
def test_decode_points_matches_from_array(group):
    from cuzk.curve import CurveError

    pts = random_points(group, 12) + [group.identity()]
    arr = group.to_array(pts)
    assert workers.decode_points(group, arr) == pts
    assert workers.decode_points(group, arr.tobytes()) == pts
    assert workers.decode_points(group, arr[:0]) == []
    q = 0x1A0111EA397FE69A4B1BA7B6434BACD764774B84F38512BF6730D2A0F6B0F6241EABFFFEB153FFFFB9FEFFFFFFFFAAAB
    damages = [
        (3, lambda b: b.__setitem__((3, -1), b[3, -1] ^ 1)),  # off the curve
        (4, lambda b: b.__setitem__((4, 0), b[4, 0] | 0x80)),  # compression flag
        (5, lambda b: b.__setitem__((5, 0), b[5, 0] | 0x20)),  # sort flag
        (12, lambda b: b.__setitem__((12, 7), 1)),  # infinity with a non-zero body
        (6, lambda b: b.__setitem__(6, 0)),  # (0, 0) without the infinity flag
        (7, lambda b: b.__setitem__((7, slice(0, 48)), np.frombuffer(q.to_bytes(48, "big"), np.uint8))),  # x = q
        (2, lambda b: (b.__setitem__((2, -1), b[2, -1] ^ 1), b.__setitem__((9, 0), 0x20))),  # first of two
    ]
    for idx, damage in damages:
        b = arr.copy()
        damage(b)
        with pytest.raises(CurveError) as theirs:
            group.from_array(b, check_subgroup=False)
        with pytest.raises(type(theirs.value)) as ours:
            workers.decode_points(group, b)
        assert str(ours.value) == str(theirs.value) and f"point {idx}" in str(ours.value)
    with pytest.raises(CurveError):
        workers.decode_points(group, arr.tobytes()[:-1])


def test_cyclic_convolution_matches_naive(be):
    for n in (1, 2, 8, 64):
        k, x = rand_fr(n), rand_fr(n)
        conv = be.cyclic_convolution(be.to_device(k))
        want = [sum(x[j] * k[(m - j) % n] for j in range(n)) % R for m in range(n)]
        assert [int(v) for v in conv(be.to_device(x))] == want, n
        assert [int(v) for v in conv(workers.scalars_to_bytes(x))] == want, n
    top = [R - 1] * 16  # largest slot sums: no carry may cross a slot
    conv = be.cyclic_convolution(workers.scalars_to_bytes(top))
    assert [int(v) for v in conv(be.to_device(top))] == [16 * (R - 1) ** 2 % R] * 16
    with pytest.raises(ValueError):
        conv(be.to_device(rand_fr(8)))
    with pytest.raises(ValueError):
        be.cyclic_convolution(b"")


def test_msm_rejects_bad_bases(be):
    with pytest.raises(ValueError):
        be.msm_context(G1, np.zeros((3, 95), dtype=np.uint8))


def test_worker_pool_errors_and_finalizer():
    pool = workers.WorkerPool(2)
    procs = list(pool._procs)
    with pytest.raises(workers.WorkerError, match="worker 0 failed"):
        pool.run("msm", [(None, b"\0" * 32)])  # no bases loaded
    # Still usable after a worker-side exception.
    (head, _), = pool.run("load", [((pool.new_key(), "G1"), G1.to_array([G1.generator()]).tobytes())])
    assert head == 1
    # A failing local step of run_overlapped is re-raised after the replies, pool still in step.
    with pytest.raises(ZeroDivisionError):
        pool.run_overlapped("keys", [(None, b"")] * 2, lambda: 1 // 0)
    assert [h for h, _ in pool.run("keys", [(None, b"")] * 2)] == [[1], []]
    with pytest.raises(workers.WorkerError, match="unknown NTT step"):
        pool.run("ntt", [(("fft",), b"\0" * 64)])
    with pytest.raises(ValueError):
        pool.run("msm", [(None, b"")] * 3)
    del pool
    gc.collect()
    for p in procs:
        p.join(timeout=5)
    assert not any(p.is_alive() for p in procs)


def test_worker_killed_by_sigkill_names_out_of_memory():
    """A worker SIGKILLed mid-request (as the OOM killer does) ends the request at once with a
    WorkerDiedError naming the worker, the signal, the op, out of memory and the step with its
    memory figures; the pool is closed (the busy worker stopped), nothing hangs."""
    import os
    import signal
    import time

    from cuzk.pipeline import measured

    pool = workers.WorkerPool(2)
    procs = list(pool._procs)
    data = workers.scalars_to_bytes(rand_fr(1 << 17))  # an NTT of several seconds on one core
    pool.run("keys", [(None, b"")] * 2)  # both workers up (spawned, imported)
    t = time.monotonic()
    with pytest.raises(workers.WorkerDiedError) as err, measured("prove", None, int(2e9), 4.0):
        pool.run_overlapped("ntt", [(("ntt",), data)] * 2, lambda: os.kill(procs[1].pid, signal.SIGKILL))
    elapsed = time.monotonic() - t
    e = err.value
    assert (e.worker, e.pid, e.op, e.exitcode, e.step) == (1, procs[1].pid, "ntt", -signal.SIGKILL, "prove")
    msg = str(e)
    assert msg.startswith(f"prove: worker process 1 (pid {procs[1].pid}) was killed by SIGKILL during 'ntt'")
    assert "most likely out of memory" in msg and "2.00 GB peak" in msg and "mem_gb = 4.0" in msg
    assert "__main__" not in msg
    assert elapsed < 10, elapsed
    assert pool.closed and not any(p.is_alive() for p in procs)
    with pytest.raises(workers.WorkerError, match="closed"):
        pool.run("keys", [(None, b"")])


def test_worker_alive_without_a_reply_is_stopped_after_the_timeout():
    """A worker alive but stuck (SIGSTOP: a stopped process never replies, never dies) ends the
    request after the pool's reply timeout with WorkerStalledError naming it and the op; the pool
    is closed and its processes gone, the stopped one included."""
    import os
    import signal
    import time

    pool = workers.WorkerPool(2)
    procs = list(pool._procs)
    pool.run("keys", [(None, b"")] * 2)  # both workers up (spawned, imported)
    pool.reply_timeout_s = 1.0
    small, big = (workers.scalars_to_bytes(rand_fr(1 << k)) for k in (4, 17))  # big: seconds on one core
    t = time.monotonic()
    with pytest.raises(workers.WorkerStalledError) as err:
        pool.run_overlapped("ntt", [(("ntt",), small), (("ntt",), big)], lambda: os.kill(procs[1].pid, signal.SIGSTOP))
    elapsed = time.monotonic() - t
    assert err.value.workers == [1] and err.value.op == "ntt" and err.value.seconds >= 1.0
    assert "gave no reply to 'ntt'" in str(err.value) and isinstance(err.value, workers.WorkerError)
    assert 1.0 <= elapsed < 10, elapsed
    assert pool.closed and not any(p.is_alive() for p in procs)


def test_death_causes():
    assert workers.death_cause(-9)[1].startswith("most likely out of memory")
    assert workers.death_cause(-11) == ("was killed by SIGSEGV", "")
    assert workers.death_cause(1)[0] == "exited with status 1" and "__main__" in workers.death_cause(1)[1]
    assert workers.death_cause(3) == ("exited with status 3", "")
    assert workers.death_cause(None)[0] == "stopped answering"


def test_split():
    assert workers.split(5, 2) == [(0, 3), (3, 5)]
    assert workers.split(2, 2) == [(0, 1), (1, 2)]
    assert workers.split(7, 3) == [(0, 3), (3, 5), (5, 7)]


@pytest.mark.parametrize("group", [G1, G2], ids=["G1", "G2"])
def test_fixed_base_mul(backend, group):
    base = random_points(group, 1)[0]
    scalars = [0, 1, 2, R - 1] + rand_fr(7) + [0]
    out = backend.fixed_base_mul(group, base, scalars)
    assert out.shape == (len(scalars), group.uncompressed_size) and out.dtype == np.uint8
    for row, k in zip(out, scalars):
        assert row.tobytes() == group.to_uncompressed(group.mul(base, k))
    assert out[0].tobytes() == bytes([0x40]) + bytes(group.uncompressed_size - 1)
    # Base as bytes, scalars as an int array; n = 1 and n = 0.
    again = backend.fixed_base_mul(group, group.to_uncompressed(base), int_array(scalars))
    assert (again == out).all()
    assert (backend.fixed_base_mul(group, base, scalars[3:4]) == out[3:4]).all()
    assert backend.fixed_base_mul(group, base, []).shape == (0, group.uncompressed_size)
    with pytest.raises(ValueError):
        backend.fixed_base_mul(group, base, [R])


def test_fixed_base_every_window(monkeypatch):
    base = random_points(G1, 1)[0]
    scalars = [0, 1, R - 1, 2**254 + 3] + rand_fr(3)
    buf = workers.scalars_to_bytes(scalars)
    want = b"".join(G1.to_uncompressed(G1.mul(base, k)) for k in scalars)
    for w in range(1, 13):
        monkeypatch.setattr(workers, "_window", lambda n, w=w: w)
        assert workers.fixed_base_mul_bytes(G1, base, buf) == want, f"window {w}"
