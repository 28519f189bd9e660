"""Every NTT pass variant (``cuzk.backend.cuda.ntt.NTT_VARIANTS``) on the device against the cpu
backend's NTT (``CPUBackend``: decimation in time on Python integers), on fresh random inputs
with edge values first: sizes 2^1..2^20 forward and inverse, coset transforms, the split
(four-step) transform's batches of rows, and ``compute_h``. The module is skipped without CuPy
or without a device.

The inverse references come from the forward one: n⁻¹·Σ_i x_i·ω^(−ij) is n⁻¹ times the forward
output at (n − j) mod n (the cpu inverse itself is compared up to 2^12). Device arrays are
compared whole on the device: Montgomery limbs are fully reduced, so equal values are equal limbs.
"""

from __future__ import annotations

import random

import pytest

pytestmark = pytest.mark.gpu

cp = pytest.importorskip("cupy")

from cuzk.backend.cuda import CUDABackend, cuda_available  # noqa: E402

if not cuda_available():
    pytest.skip("no CUDA device", allow_module_level=True)

from cuzk.backend.cpu import CPUBackend  # noqa: E402
from cuzk.backend.cuda import ntt as ntt_mod  # noqa: E402
from cuzk.backend.cuda.plan import ntt_split  # noqa: E402
from cuzk.field import FR, int_array  # noqa: E402

R = FR.modulus
EDGE = [0, 1, R - 1, 2, (R - 1) // 2]
RNG = random.Random()
VARIANTS = list(ntt_mod.NTT_VARIANTS)
MAX_LOG = 20


@pytest.fixture(scope="module")
def backends():
    """(cuda, cpu) backends shared by the module's tests."""
    with CUDABackend() as g, CPUBackend(threads=1) as c:
        yield g, c


@pytest.fixture(scope="module")
def gpu(backends):
    return backends[0]


@pytest.fixture(scope="module")
def cpu(backends):
    return backends[1]


@pytest.fixture
def variant(monkeypatch):
    """Sets ``ntt.NTT_VARIANT`` for the test, no per-size override (restored after it)."""
    monkeypatch.setattr(ntt_mod, "NTT_VARIANT_BY_LOG", {})

    def use(name: str) -> None:
        monkeypatch.setattr(ntt_mod, "NTT_VARIANT", name)

    return use


def rand_fr(n: int) -> list[int]:
    return (EDGE + [RNG.randrange(R) for _ in range(n)])[:n]


@pytest.fixture(scope="module")
def refs(gpu, cpu):
    """{k: (x, forward, inverse)} as device arrays for k = 1..MAX_LOG: random x, its cpu NTT and
    the inverse taken from it (see the module docstring)."""
    out = {}
    for k in range(1, MAX_LOG + 1):
        n = 1 << k
        x = rand_fr(n)
        y = [int(v) for v in cpu.ntt(int_array(x))]
        ninv = pow(n, -1, R)
        yi = [y[-j % n] * ninv % R for j in range(n)]
        out[k] = (gpu.to_device(x), gpu.to_device(y), gpu.to_device(yi))
    return out


def test_inverse_reference(cpu):
    """The inverse taken from the forward NTT equals the cpu inverse NTT (2^1..2^12)."""
    for k in range(1, 13):
        n = 1 << k
        x = rand_fr(n)
        y = [int(v) for v in cpu.ntt(int_array(x))]
        assert [int(v) for v in cpu.ntt(int_array(x), inverse=True)] == [y[-j % n] * pow(n, -1, R) % R for j in range(n)]


@pytest.mark.parametrize("name", VARIANTS)
def test_variant_ntt_matches_cpu(gpu, refs, variant, name):
    """Forward and inverse NTT of 2^1..2^20 elements equal to the cpu's."""
    variant(name)
    for k, (x, y, yi) in refs.items():
        assert bool((gpu.ntt(x) == y).all()), (name, k)
        assert bool((gpu.ntt(x, inverse=True) == yi).all()), (name, k, "inverse")


@pytest.mark.parametrize("logn", [3, 11, 12, 16])
def test_variant_coset_ntt_matches_cpu(gpu, cpu, variant, logn):
    """Coset NTT (input factors g^i in the first pass; inverse: n⁻¹·g^(−i) in the last), every
    variant against the cpu's."""
    a = rand_fr(1 << logn)
    x = gpu.to_device(a)
    for inverse in (False, True):
        ref = gpu.to_device([int(v) for v in cpu.coset_ntt(int_array(a), inverse=inverse)])
        for name in VARIANTS:
            variant(name)
            assert bool((gpu.coset_ntt(x, inverse=inverse) == ref).all()), (name, inverse)


@pytest.mark.parametrize("name", VARIANTS)
def test_variant_split_ntt(gpu, refs, variant, name):
    """The split transform (batches of rows through the variant's passes, with factors) equals
    the whole one of "old" at 2^16 and 2^19."""
    for k in (16, 19):
        x = refs[k][0]
        n = 1 << k
        pre = gpu._factor_tables(FR.generator, 3, k)
        post = gpu._factor_tables(pow(FR.generator, -1, R), 5, k)
        variant("old")
        want = [gpu._ntt(x, inv, pre, post) for inv in (False, True)]
        variant(name)
        block = ntt_split(n)[0] * 4
        for inv, w in zip((False, True), want):
            got = gpu._split_ntt(x, cp.empty_like(x), inv, block, pre, post)
            assert bool((got == w).all()), (name, k, inv)


@pytest.mark.parametrize("logn", [12, 18])
def test_compute_h_equal_across_variants(gpu, cpu, variant, logn):
    """``compute_h`` gives the same values with every variant (and the cpu's at 2^12)."""
    n = 1 << logn
    vals = [rand_fr(n) for _ in range(3)]
    xs = [gpu.to_device(v) for v in vals]
    results = {}
    for name in VARIANTS:
        variant(name)
        results[name] = gpu.compute_h(*xs, n)
    for name, h in results.items():
        assert h.shape == (n - 1, 4) and bool((h == results["old"]).all()), name
    if logn == 12:
        ref = cpu.compute_h(*(int_array(v) for v in vals), n)
        assert [int(v) for v in gpu.to_host(results["old"])] == [int(v) for v in ref]


# --- the passes launched through the driver (ntt.NTT_DRIVER_LAUNCH, launch.DriverLaunch) ----------


ALL = ntt_mod.ALL_LOGS
LAUNCHES = {"overlap": (True, ALL, ALL), "later": (True, ALL, frozenset()), "driver": (True, frozenset(), ALL),
            "raw": (False, frozenset(), ALL)}
"""(``NTT_DRIVER_LAUNCH``, ``NTT_OVERLAP_LOGS``, ``NTT_OVERLAP_FIRST_LOGS``)."""


def test_driver_launch_equals_rawkernel(gpu, refs, monkeypatch):
    """Forward, inverse and coset NTTs of 2^1..2^20 launched through the driver, overlapped
    (each pass may begin before the one ahead ends; or all but the first pass) or not, equal the
    cpu's and CuPy's RawKernel launches of the same passes; then 60 overlapped transforms queued on
    a side stream, each result checked (each launch on the stream current at the call)."""
    for k, (x, y, yi) in refs.items():
        got = {}
        for mode, (drv, overlap, first) in LAUNCHES.items():
            monkeypatch.setattr(ntt_mod, "NTT_DRIVER_LAUNCH", drv)
            monkeypatch.setattr(ntt_mod, "NTT_OVERLAP_LOGS", overlap)
            monkeypatch.setattr(ntt_mod, "NTT_OVERLAP_FIRST_LOGS", first)
            got[mode] = gpu.ntt(x), gpu.ntt(x, inverse=True), gpu.coset_ntt(x), gpu.coset_ntt(x, inverse=True)
        assert bool((got["overlap"][0] == y).all()) and bool((got["overlap"][1] == yi).all()), k
        for mode in ("later", "driver", "raw"):
            for a, b in zip(got["overlap"], got[mode]):
                assert bool((a == b).all()), (k, mode)
    monkeypatch.setattr(ntt_mod, "NTT_DRIVER_LAUNCH", True)
    monkeypatch.setattr(ntt_mod, "NTT_OVERLAP_LOGS", ALL)
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        outs = [(k, gpu.ntt(refs[k][0])) for _ in range(20) for k in (16, 18, 20)]
    s.synchronize()
    for k, got in outs:
        assert bool((got == refs[k][1]).all()), k


def test_launch_records_released_and_overlap_on_sm90(refs):
    """A backend's launch records hold its twiddles and tables: ``close`` drops them with those.
    Dependent launches are allowed (``overlap_ok``) exactly on compute capability 9.0 and up."""
    with CUDABackend() as g:
        x, y, _ = refs[16]
        assert bool((g.ntt(x) == y).all())
        recs = list(g._ntt_launches.values())
        assert recs and all(r[3] == (int(cp.cuda.Device().compute_capability) >= 90) for r in recs)
    assert g._ntt_launches == {} and g._tw == {}


def test_pass_buffer_per_stream_and_thread(refs):
    """Transforms up to ``NTT_SCRATCH_ELEMS`` run their passes in one kept buffer per stream and
    thread: queued back to back on two streams from two threads (80 transforms of 2^12..2^18,
    nothing synchronized between them) every result is right; each (stream, thread) kept one
    buffer, sized for the largest transform it ran; ``close`` drops them."""
    import threading

    with CUDABackend() as g:
        def work(results):
            s = cp.cuda.Stream(non_blocking=True)
            with s:
                results.extend((k, g.ntt(refs[k][0])) for _ in range(10) for k in (12, 18, 16, 14))
            s.synchronize()

        per = [[], []]
        th = [threading.Thread(target=work, args=(per[i],)) for i in range(2)]
        for t in th:
            t.start()
        for t in th:
            t.join()
        for results in per:
            assert len(results) == 40
            for k, got in results:
                assert bool((got == refs[k][1]).all()), k
        assert len(g._ntt_scratch) == 2 and all(b.shape == (1 << 18, 4) for b in g._ntt_scratch.values())
        kept = dict(g._ntt_scratch)
        assert bool((g.ntt(refs[12][0]) == refs[12][1]).all())   # this thread, the null stream: a third
        assert len(g._ntt_scratch) == 3 and all(g._ntt_scratch[key] is b for key, b in kept.items())
    assert g._ntt_scratch == {}
