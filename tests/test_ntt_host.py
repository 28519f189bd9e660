"""The cuda backend's NTT passes (``ntt.cu``: ``ntt_pass`` and ``ntt_pass_r4o3``, and ``ntt_radix.cu``'s radix-4/8 variants)
built for the host (tests/fixtures/ntt_host.cpp through conftest's ``host_build``) and run with ``NTTOps._ntt``'s
launches (its pass plan, flags, twiddles and factor tables), against a naive O(n^2) DFT over Fr in
Python: y_j = Σ_i x_i·ω^(±ij), ω = FR.root_of_unity(n), or above 2^8 the cpu backend's NTT
(``workers.ntt``: decimation in time, another algorithm). CPU-only CI thus covers the kernels'
index arithmetic: every pass split, each flag, batches of rows, passes run in place, each
variant's plans (``NTT_VARIANTS``) and radix rounds of every length and block shape, and
compute_h's six-NTT schedule against the CPU backend's quotient."""

from __future__ import annotations

import functools
import random
import subprocess

import pytest

import numpy as np

from cuzk.backend import workers
from cuzk.backend.cpu import CPUBackend
from cuzk.backend.cuda.ntt import NTT_VARIANTS, h_factors, pass_threads, _NTT_INV, _NTT_LAST, _NTT_POST, _NTT_POST_LO, _NTT_PRE, _NTT_PRE_LO, _NTT_SUB
from cuzk.backend.cuda.plan import _ntt_plan, ntt_device_bytes
from cuzk.field import FR

R = FR.modulus
MONT = 1 << 256
RNG = random.Random()


def naive_dft(x: list[int], inverse: bool = False) -> list[int]:
    """Σ_i x_i·ω^(ij) (inverse: ω^(−ij), unscaled) for j < n, by definition: O(n^2)."""
    n = len(x)
    w = FR.root_of_unity(n)
    pw = [1] * n
    for e in range(1, n):
        pw[e] = pw[e - 1] * w % R
    sign = -1 if inverse else 1
    return [sum(v * pw[sign * i * j % n] for i, v in enumerate(x)) % R for j in range(n)]


def dft(x: list[int], inverse: bool = False) -> list[int]:
    """``naive_dft`` up to 2^8 elements; above, the cpu backend's NTT (its inverse times n)."""
    n = len(x)
    if n <= 256:
        return naive_dft(x, inverse)
    y = workers.ntt(np.array(x, dtype=object), inverse, workers.Twiddles())
    return [int(v) * (n if inverse else 1) % R for v in y]


def reference(x, k, rows, inverse, pre, post):
    """``NTTOps._ntt``'s result by ``dft`` row by row: inputs times pre (index in the
    whole array), outputs times post (index in the row); factors (x, c) mean f(i) = c·x^i."""
    n = 1 << k
    if pre:
        x = [v * pre[1] * pow(pre[0], i, R) % R for i, v in enumerate(x)]
    out = []
    for r in range(rows):
        y = dft(x[r * n:(r + 1) * n], inverse)
        out += [v * post[1] * pow(post[0], o, R) % R for o, v in enumerate(y)] if post else y
    return out


def tables(f, k: int):
    """``NTTOps._factor_tables(x, c, k)`` as host ints: (hi, lo or None, m), f(i) = c·x^i."""
    x, c = f
    if x == 1:
        return [c], None, k
    m = (k + 1) // 2
    return [c * pow(x, i << m, R) % R for i in range(1 << (k - m))], [pow(x, i, R) for i in range(1 << m)], m


@pytest.fixture(scope="module")
def host_ntt(host_build):
    """f(x, k, inverse, pre, post, rows, block_log, max_t, kernel, plan, minuend) -> values:
    ``kernel`` (ntt_pass by default) on the host with the launches ``NTTOps._ntt`` makes (plan
    ``_ntt_plan(k, block_log, max_t)`` unless given; Montgomery limbs in and out); with
    ``minuend`` the output array holds it first and the last pass has SUB. A block runs as one
    thread, or with ``radix_log`` as the launch's threads (``ntt.pass_threads``; __syncthreads a
    barrier of them)."""
    exe = host_build("ntt_host")

    def words(vals):
        return "".join(" ".join(f"{(v * MONT % R) >> (32 * i) & 0xFFFFFFFF:x}" for i in range(8)) + "\n" for v in vals)

    def run(x, k, inverse=False, pre=None, post=None, rows=1, block_log=10, max_t=8, kernel="ntt_pass", plan=None,
            minuend=None, radix_log=None):
        plan = plan or _ntt_plan(k, block_log, max_t)
        kr = (rows << k).bit_length() - 1   # pre indexes the whole array
        pt, qt = tables(pre, kr) if pre else None, tables(post, k) if post else None
        lines = []
        for i, (s_hi, t, c) in enumerate(plan):
            flags = _NTT_PRE | (_NTT_PRE_LO if pt[1] else 0) if i == 0 and pt else 0
            if i == len(plan) - 1:
                flags |= _NTT_LAST | (_NTT_INV if inverse else 0)
                flags |= _NTT_POST | (_NTT_POST_LO if qt[1] else 0) if qt else 0
                flags |= _NTT_SUB if minuend is not None else 0
            threads = 1 if radix_log is None else pass_threads(1 << (t + c), radix_log)
            lines.append(f"{s_hi} {t} {c} {flags} {threads}\n")
        w = FR.root_of_unity(1 << k)
        tabs = [[pow(w, j, R) for j in range(max(1, (1 << k) >> 1))], *(pt or ([1], None, 0))[:2], *(qt or ([1], None, 0))[:2]]
        tabs = [t or [1] for t in tabs]
        text = f"{k} {k} {rows} {len(plan)} {kernel}\n" + "".join(lines)
        text += f"{pt[2] if pt else 0} {qt[2] if qt else 0} " + " ".join(str(len(t)) for t in tabs) + "\n"
        text += words(x) + "".join(words(t) for t in tabs) + (words(minuend) if minuend is not None else "")
        out = subprocess.run([str(exe)], input=text, capture_output=True, text=True, check=True).stdout
        rinv = pow(MONT, -1, R)
        return [sum(int(v, 16) << (32 * i) for i, v in enumerate(line.split())) * rinv % R for line in out.splitlines()]

    return run


def test_naive_dft_inverts():
    """The reference itself: the unscaled inverse of the forward DFT is n times the input."""
    x = [RNG.randrange(R) for _ in range(16)]
    assert naive_dft(naive_dft(x), inverse=True) == [16 * v % R for v in x]


@pytest.mark.parametrize("k", range(1, 12))
def test_ntt_pass_matches_naive_dft(host_ntt, k):
    """Sizes 2^1..2^11 on the default plan (one pass up to 2^10, two at 2^11), forward and
    inverse, edge values first."""
    x = [0, 1, R - 1][: 1 << k] + [RNG.randrange(R) for _ in range((1 << k) - 3)]
    for inverse in (False, True):
        assert host_ntt(x, k, inverse) == naive_dft(x, inverse), inverse


@pytest.mark.parametrize("block_log,max_t", [(4, 2), (6, 3), (7, 5), (5, 1)])
def test_ntt_pass_split_plans(host_ntt, block_log, max_t):
    """2^9 in 2..8 passes of small blocks (non-final passes in place), equal to the DFT."""
    x = [RNG.randrange(R) for _ in range(1 << 9)]
    assert len(_ntt_plan(9, block_log, max_t)) > 1
    for inverse in (False, True):
        assert host_ntt(x, 9, inverse, block_log=block_log, max_t=max_t) == naive_dft(x, inverse)


@pytest.mark.parametrize("k,rows,block_log,max_t", [(8, 1, 5, 3), (6, 4, 10, 8), (3, 16, 10, 8), (5, 8, 3, 1)])
def test_ntt_pass_flags_and_rows(host_ntt, k, rows, block_log, max_t):
    """Each flag: PRE with and without PRE_LO, INV, POST with and without POST_LO; batches of
    rows done by the same launches."""
    x = [RNG.randrange(R) for _ in range(rows << k)]
    g, c1, c2 = FR.generator, RNG.randrange(1, R), RNG.randrange(1, R)
    cases = [(False, (g, c1), None), (False, (1, c1), None), (True, None, (pow(g, -1, R), c2)),
             (False, None, (1, c2)), (True, (g, c1), (g, c2)), (False, (1, c1), (1, c2))]
    for inverse, pre, post in cases:
        got = host_ntt(x, k, inverse, pre, post, rows, block_log, max_t)
        assert got == reference(x, k, rows, inverse, pre, post), (inverse, pre, post)


RADIX_KERNELS = sorted({v.kernel for v in NTT_VARIANTS.values()} - {"ntt_pass", "ntt_pass_pf", "ntt_pass_pf_late"})


def test_variants_known():
    """The variants name kernels the host build knows, and wherever one runs more than one pass
    ``plan.ntt_device_bytes`` counts the pass buffer (every pass before the last runs in it)."""
    assert RADIX_KERNELS == ["ntt_pass_r4", "ntt_pass_r4o3", "ntt_pass_r8", "ntt_pass_r8c"]
    for v in NTT_VARIANTS.values():
        assert v.block_log >= 7 and v.max_t >= 1
        for k in range(1, 28):
            n = 1 << k
            if len(_ntt_plan(k, v.block_log, v.max_t)) > 1:
                assert ntt_device_bytes(n, twiddles=False) >= 2 * n * 32, (v, k)


def test_factor_args():
    """``ntt._factor_args``: a pass's flags and tables for no factor (twiddles in the slots, no
    flag), a table without lo (its flag alone, twiddles in lo's slot) and one with lo (both
    flags), for the input (PRE) and output (POST) factors."""
    from cuzk.backend.cuda.ntt import _factor_args

    tw, hi, lo = object(), object(), object()
    for flag, lo_flag in ((_NTT_PRE, _NTT_PRE_LO), (_NTT_POST, _NTT_POST_LO)):
        assert _factor_args(None, flag, lo_flag, tw) == (0, tw, tw, 0)
        assert _factor_args((hi, None, 7), flag, lo_flag, tw) == (flag, hi, tw, 7)
        assert _factor_args((hi, lo, 5), flag, lo_flag, tw) == (flag | lo_flag, hi, lo, 5)


def test_log_range():
    """``cuzk.bench.kernels.log_range``: a range with both ends, a list, a bad part refused."""
    from cuzk.bench.kernels import log_range

    assert log_range("16-19") == [16, 17, 18, 19] and log_range("16,20,27") == [16, 20, 27] and log_range("5") == [5]
    with pytest.raises(ValueError):
        log_range("16-x")


def test_ntt_variant_specs(monkeypatch):
    """``cuzk.bench.kernels.ntt_variant``: a known name as it is, ``NAME@B:T`` added as NAME's kernel
    with blocks of 2^B and at most T stages a pass, an unknown NAME or a bare unknown name refused."""
    import cuzk.backend.cuda.ntt as ntt_mod
    from cuzk.bench.kernels import ntt_variant

    monkeypatch.setattr(ntt_mod, "NTT_VARIANTS", dict(NTT_VARIANTS))
    assert ntt_variant("r4o3") == "r4o3" and ntt_mod.NTT_VARIANTS["r4o3"] == NTT_VARIANTS["r4o3"]
    assert ntt_variant("r4o3@9:7") == "r4o3@9:7"
    assert ntt_mod.NTT_VARIANTS["r4o3@9:7"] == NTT_VARIANTS["r4o3"]._replace(block_log=9, max_t=7)
    for bad in ("nope@9:7", "nope"):
        with pytest.raises(KeyError, match="unknown NTT variant"):
            ntt_variant(bad)


@pytest.mark.parametrize("name", [n for n in NTT_VARIANTS if n != "old"])
def test_variant_plans_match_dft(host_ntt, name):
    """Each variant's own plans at 2^1..2^13 (one pass up to its block, two above), forward and
    inverse."""
    v = NTT_VARIANTS[name]
    for k in range(1, 14):
        x = [0, 1, R - 1][: 1 << k] + [RNG.randrange(R) for _ in range((1 << k) - 3)]
        for inverse in (False, True):
            got = host_ntt(x, k, inverse, block_log=v.block_log, max_t=v.max_t, kernel=v.kernel)
            assert got == dft(x, inverse), (k, inverse)


@pytest.mark.parametrize("name", ["pf-128", "pf-256", "pf-128-late", "old-256", "r4o3-256", "old", "r4o3-512/7"])
def test_variant_threads_match_dft(host_ntt, name):
    """Variants run by their launches' threads (``ntt.pass_threads``: one per butterfly or group
    of a block of 2^7 or 2^8 elements, where ``ntt_pass_pf`` takes its twiddle-prefetch path;
    old's 256 threads on blocks of 2^10 and r4o3-512/7's short first rounds loop over two
    butterflies or groups each; __syncthreads a barrier), at 2^1..2^12 forward and inverse, and
    at 2^10 with both factors on two rows: equal to the DFT."""
    v = NTT_VARIANTS[name]
    run = functools.partial(host_ntt, block_log=v.block_log, max_t=v.max_t, kernel=v.kernel, radix_log=v.radix_log)
    for k in range(1, 13):
        x = [0, 1, R - 1][: 1 << k] + [RNG.randrange(R) for _ in range((1 << k) - 3)]
        for inverse in (False, True):
            assert run(x, k, inverse) == dft(x, inverse), (k, inverse)
    k, rows = 10, 2
    x = [RNG.randrange(R) for _ in range(rows << k)]
    pre, post = (FR.generator, 3), (pow(FR.generator, -1, R), 5)
    assert run(x, k, False, pre, post, rows) == reference(x, k, rows, False, pre, post)


# Pass shapes (s_hi, t, c) beyond the small sizes' plans: rounds of every length t (remainder
# rounds of 1 and 2 stages first), runs of 2^c = 4..16 elements as the big sizes' first passes have
# them (t = 9, 10 with c = 2, 3), three passes, and a last pass of a single stage.
SHAPES = [
    (11, [(10, 9, 2), (1, 2, 0)]),
    (12, [(11, 10, 2), (1, 2, 0)]),
    (11, [(10, 8, 3), (2, 3, 0)]),
    (11, [(10, 7, 2), (3, 4, 0)]),
    (11, [(10, 5, 4), (5, 6, 0)]),
    (12, [(11, 4, 3), (7, 3, 4), (4, 5, 0)]),
    (10, [(9, 1, 8), (8, 9, 0)]),
    (9, [(8, 8, 1), (0, 1, 0)]),
]


@pytest.mark.parametrize("kernel", RADIX_KERNELS)
@pytest.mark.parametrize("k,plan", SHAPES)
def test_radix_pass_shapes(host_ntt, kernel, k, plan):
    """Hand-made plans (non-final passes in place), equal to the DFT forward and inverse."""
    x = [RNG.randrange(R) for _ in range(1 << k)]
    for inverse in (False, True):
        assert host_ntt(x, k, inverse, kernel=kernel, plan=plan) == dft(x, inverse), inverse


@pytest.mark.parametrize("kernel", RADIX_KERNELS)
@pytest.mark.parametrize("k,rows,block_log,max_t", [(8, 1, 5, 3), (6, 4, 10, 8), (3, 16, 10, 8), (7, 2, 4, 2)])
def test_radix_flags_and_rows(host_ntt, kernel, k, rows, block_log, max_t):
    """Each flag (PRE with and without PRE_LO, INV, POST with and without POST_LO) and batches of
    rows on the radix kernels, as ``test_ntt_pass_flags_and_rows`` on ntt_pass."""
    x = [RNG.randrange(R) for _ in range(rows << k)]
    g, c1, c2 = FR.generator, RNG.randrange(1, R), RNG.randrange(1, R)
    cases = [(False, (g, c1), None), (False, (1, c1), None), (True, None, (pow(g, -1, R), c2)),
             (False, None, (1, c2)), (True, (g, c1), (g, c2)), (False, (1, c1), (1, c2))]
    for inverse, pre, post in cases:
        got = host_ntt(x, k, inverse, pre, post, rows, block_log, max_t, kernel=kernel)
        assert got == reference(x, k, rows, inverse, pre, post), (kernel, inverse, pre, post)


@pytest.mark.parametrize("kernel", ["ntt_pass", "ntt_pass_r4", "ntt_pass_r8"])
@pytest.mark.parametrize("k,rows,block_log,max_t", [(9, 1, 10, 8), (9, 1, 5, 3), (5, 4, 10, 8), (0, 1, 10, 8)])
def test_ntt_pass_sub(host_ntt, kernel, k, rows, block_log, max_t):
    """SUB (compute_h's last transform: the quotient less c's coefficients, in place): the last
    pass's result less what the output array held, at the output index, with POST and INV, one or
    several passes, batches of rows; each radix variant."""
    if kernel != "ntt_pass" and k == 0:
        pytest.skip("one element: the ntt_pass plan only")
    n = rows << k
    x = [RNG.randrange(R) for _ in range(n)]
    m = [0, 1, R - 1][:n] + [RNG.randrange(R) for _ in range(n - 3)]
    plan = None if kernel == "ntt_pass" else _ntt_plan(k, block_log, max_t)
    post = (pow(FR.generator, -1, R), RNG.randrange(1, R))
    for inverse in (False, True):
        want = [(v - w) % R for v, w in zip(reference(x, k, rows, inverse, None, post), m)]
        got = host_ntt(x, k, inverse, None, post, rows, block_log, max_t, kernel=kernel, plan=plan, minuend=m)
        assert got == want, inverse


@pytest.mark.parametrize("k", [1, 3, 9])
def test_six_ntt_quotient_equals_the_cpu_backends(host_ntt, k):
    """compute_h's six-NTT schedule (``_h_fused``, ``compute_h_ab``) run with the host build of the
    pass kernel and ``h_factors``' tables: a's and b's inverse NTTs times m⁻¹·g^i and forward
    NTTs (coset evaluations), their product, c's inverse NTT times m⁻¹·Z(g)⁻¹, and the product's
    inverse NTT times m⁻¹·Z(g)⁻¹·g^(−i) less c's coefficients (SUB): the H scalars the CPU backend
    computes by bellperson's seven transforms (or, small, by Kronecker multiplication), for
    unrelated a, b, c and for a satisfied c = a·b; 2^9 in two passes."""
    m = 1 << k
    to_coset, from_coset, c_coef = h_factors(m, m)
    a, b = ([RNG.randrange(R) for _ in range(m)] for _ in range(2))
    for c in ([RNG.randrange(R) for _ in range(m)], [x * y % R for x, y in zip(a, b)]):
        ev = [host_ntt(host_ntt(x, k, True, post=to_coset, block_log=8), k, block_log=8) for x in (a, b)]
        coef = host_ntt(c, k, True, post=c_coef, block_log=8)
        h = host_ntt([x * y % R for x, y in zip(*ev)], k, True, post=from_coset, block_log=8, minuend=coef)
        with CPUBackend(threads=1) as cpu:
            want = [int(v) for v in cpu.compute_h(*(np.array(x, dtype=object) for x in (a, b, c)), m)]
        assert h[: m - 1] == want


def test_alternated_modes(monkeypatch, capsys):
    """``cuzk.bench.kernels.alternated`` and ``mode_rows`` (the MSM benchmarks' side-by-side
    comparisons) on a stand-in context: each mode switched on before its profiled MSM and before
    each of its timed ones, in turn; equality against ``want`` (or the first mode's point); the
    median of each mode's runs; rows with the ratio over the base mode, each printed."""
    import cuzk.bench.kernels as bk

    state, order = {"mode": None}, []
    timings = {"a": iter([3.0, 1.0, 2.0]), "b": iter([6.0, 4.0, 5.0])}

    class Ctx:
        def msm(self, scalars, profile=None):
            if profile is not None:
                profile["buckets"] = 0.5
            return {"a": 7, "b": 7 if scalars == "same" else 8}[state["mode"]]

    monkeypatch.setattr(bk, "_free_pool", lambda: None)
    monkeypatch.setattr(bk, "_pool_bytes", lambda: 1 << 30)
    monkeypatch.setattr(bk, "timed_msm", lambda ctx, s: order.append(state["mode"]) or next(timings[state["mode"]]))
    modes = {m: (lambda m=m: state.update(mode=m)) for m in ("a", "b")}
    info = bk.alternated(Ctx(), "same", modes, 3)
    assert order == ["a", "b"] * 3
    assert {m: (v["equal"], v["runs"], v["median_s"]) for m, v in info.items()} == {
        "a": (True, [3.0, 1.0, 2.0], 2.0), "b": (True, [6.0, 4.0, 5.0], 5.0)}
    assert info["a"]["phases"] == {"buckets": 0.5} and info["b"]["pool_bytes_after"] == 1 << 30
    timings.update(a=iter([1.0]), b=iter([1.0]))
    assert [v["equal"] for v in bk.alternated(Ctx(), "differ", modes, 1).values()] == [True, False]
    timings.update(a=iter([1.0]), b=iter([1.0]))
    assert [v["equal"] for v in bk.alternated(Ctx(), "same", modes, 1, want=8).values()] == [False, False]
    rows = bk.mode_rows(info, "a", "G1 2^4", log_n=4)
    assert [(r["mode"], r["ratio_over_a"], r["log_n"]) for r in rows] == [("a", 1.0, 4), ("b", 2.5, 4)]
    assert "G1 2^4 mode=b: 5000.00 ms (2.500)" in capsys.readouterr().out


def test_pass_buffer_kept_per_stream_and_thread():
    """``NTTOps._pass_buffer``: one buffer per (stream, thread, device), grown to the largest m
    asked for, itself returned for that m and a view of m rows for a smaller one, at most
    ``_SCRATCH_KEPT`` kept as streams come and go (numpy standing in for CuPy)."""
    import threading
    from types import SimpleNamespace

    from cuzk.backend.cuda import ntt as ntt_mod
    from cuzk.backend.cuda.ntt import NTTOps

    made = []

    def empty(shape, dtype):
        made.append(shape)
        return np.zeros(shape, dtype)

    cp = SimpleNamespace(empty=empty, uint64=np.uint64)
    ops = SimpleNamespace(cp=cp, _ntt_scratch={}, _own_chunks=lambda: None)
    take = lambda m, stream: NTTOps._pass_buffer(ops, m, stream, 0)   # noqa: E731
    a = take(1 << 10, 7)
    assert a.shape == (1 << 10, 4) and a.base is None and made == [(1 << 10, 4)]
    assert take(1 << 10, 7) is a                                       # the same m: the buffer itself
    small = take(1 << 8, 7)
    assert small.shape == (1 << 8, 4) and small.base is a and len(made) == 1   # smaller: a view of it
    b = take(1 << 12, 7)
    assert b.shape == (1 << 12, 4) and made[-1] == (1 << 12, 4)        # larger: grown
    assert take(1 << 10, 7).base is b
    take(1 << 10, 9)                                                   # another stream: its own
    other = []
    t = threading.Thread(target=lambda: other.append(take(1 << 10, 7)))
    t.start()
    t.join()
    assert other[0].base is not b                                      # another thread: its own
    assert len(ops._ntt_scratch) == 3 and len(made) == 4
    for stream in range(100, 120):                                     # streams come and go: a bounded few kept
        take(1 << 10, stream)
        assert len(ops._ntt_scratch) <= ntt_mod._SCRATCH_KEPT
    assert take(1 << 10, 119) is not None and len(made) == 24


def test_profile_calls(monkeypatch):
    """``cuzk.bench.kernels.profile_calls``: fn called ``calls`` times, the device synchronized
    once after, fn among the profile's functions (a stand-in for CuPy)."""
    import sys
    from types import SimpleNamespace

    from cuzk.bench.kernels import profile_calls

    synced, seen = [], []
    monkeypatch.setitem(sys.modules, "cupy", SimpleNamespace(cuda=SimpleNamespace(
        Device=lambda: SimpleNamespace(synchronize=lambda: synced.append(len(seen))))))

    def probe_fn():
        seen.append(1)

    text = profile_calls(probe_fn, 7)
    assert len(seen) == 7 and synced == [7] and "probe_fn" in text
