"""GPU memory limit without a GPU: the MSM chunk arithmetic, GPUMemoryError, and the plumbing of
``gpu_mem_limit_gb`` from config.yaml / the CLI to the backend (runs in CI, no device needed)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from cuzk import pipeline
from cuzk.backend import GPUMemoryError, get_backend, gpu_mem_limit_bytes
from cuzk.backend.cuda.plan import (
    H_SCHEDULES,
    MIN_MSM_CHUNK,
    _FB_SLICE,
    compute_h_device_bytes,
    compute_h_memory_plan,
    fixed_base_slice,
    msm_chunk_points,
    msm_device_bytes,
    msm_window,
    shift_device_bytes,
    shift_window,
    sorts_by_keys,
    window_by_scalars,
    ntt_device_bytes,
    ntt_memory_plan,
    ntt_split,
)
from cuzk.cli import main
from cuzk.curve import G1, G2
from cuzk.memory import MemorySampler

ROOT = Path(__file__).resolve().parents[1]
MIB = 1 << 20


def test_shifted_bases_bytes_and_width():
    """The shifted table (``CUDAMSMContext.shift``) costs W = ⌈255/c⌉ copies of the bases plus one
    slice's work space while built; an MSM over it has one bucket set (fewer bytes than the plain
    MSM at the same width, the same entries); W·n at 2^31 is refused (31-bit entry indices); the
    width: ``msm_window``'s below ``SHIFT_C``'s first size, then the measured table."""
    for group, ab in ((G1, 96), (G2, 192)):
        for n, c in ((1000, 8), (1 << 20, 17), (1 << 24, 20)):
            W = -(-255 // c)
            b = shift_device_bytes(n, group, c)
            assert W * n * ab < b < W * n * ab * 5 // 4 + min(n, _FB_SLICE) * 3 * ab + (2 << 20)
            plain, shifted = msm_device_bytes(n, group, c), msm_device_bytes(n, group, c, shifted=True)
            assert shifted < plain
            keys = 16 * n * W if sorts_by_keys(n, group, True) else 0    # sorted by 64-bit keys (SORT64_FROM)
            assert plain - shifted + keys >= (W - 1) * (1 << (c - 1)) * 2 * ab   # (W − 1) bucket sets of XYZZ points fewer
            assert shifted > n * W * 4                                    # every window's entries still sorted
    assert shift_device_bytes((1 << 31) // 13 - 1, G1, 20) > 0
    with pytest.raises(ValueError, match="2\\^31"):
        shift_device_bytes((1 << 31) // 13 + 1, G1, 20)
    assert [shift_window(1 << k) for k in (10, 16, 19)] == [msm_window(1 << k) for k in (10, 16, 19)]
    assert [shift_window(1 << k) for k in (20, 21, 23, 24, 27)] == [17, 20, 20, 22, 22]


def test_sort_by_keys_bytes(monkeypatch):
    """Over shifted bases from ``SORT64_FROM``'s size the entries are sorted by 64-bit keys (and
    the radix sort's second buffer of them): 16 bytes more per entry than the counting sort, in the
    MSM's device bytes; never for plain MSMs nor below the size."""
    import cuzk.backend.cuda.plan as cplan

    n, c = 1 << 24, 22
    W = -(-255 // c)
    monkeypatch.setitem(cplan.SORT64_FROM, "G1", 0)
    counting = msm_device_bytes(n, G1, c, shifted=True)
    plain = msm_device_bytes(n, G1, c)
    monkeypatch.setitem(cplan.SORT64_FROM, "G1", n)
    assert cplan.sorts_by_keys(n, G1, True) and not cplan.sorts_by_keys(n - 1, G1, True)
    assert not cplan.sorts_by_keys(n, G1, False) and not cplan.sorts_by_keys(n, G2, True)
    keyed = msm_device_bytes(n, G1, c, shifted=True)
    assert keyed - counting >= 16 * n * W
    assert msm_device_bytes(n, G1, c) == plain


def test_msm_device_bytes_grows_with_size_and_group():
    for n in (1, 1000, 1 << 14, 1 << 20, 1 << 22):
        g1, g2 = msm_device_bytes(n, G1), msm_device_bytes(n, G2)
        assert 0 < g1 < g2
        assert msm_device_bytes(n, G1, upload_bases=True) - g1 >= 2 * n * 96   # the chunk's bases
        assert msm_device_bytes(n, G1, host_scalars=False) < g1
    assert msm_device_bytes(0, G1) == 0
    assert msm_device_bytes(1 << 22, G1) > msm_device_bytes(1 << 20, G1) > msm_device_bytes(1 << 16, G1)
    # at 2^22 (the 2 KiB PoRep domain) the sorted entries alone are n * 15 windows * 4 bytes
    assert msm_device_bytes(1 << 22, G1) > (1 << 22) * 15 * 4
    assert msm_device_bytes(1 << 22, 1) == msm_device_bytes(1 << 22, G1)   # Fq words per coordinate


@pytest.mark.parametrize("group", [G1, G2], ids=["G1", "G2"])
@pytest.mark.parametrize("n", [5000, 1 << 16, (1 << 22) - 1, 130_278_869])
def test_chunk_points_fit_the_budget(group, n):
    whole = msm_device_bytes(n, group)
    assert msm_chunk_points(n, group, None) == n
    assert msm_chunk_points(n, group, whole) == n
    floor = msm_device_bytes(MIN_MSM_CHUNK, group, upload_bases=True)
    for frac in (0.9, 0.5, 0.2, 0.05, 0.01):
        avail = int(whole * frac)
        for upload in (False, True):
            m = msm_chunk_points(n, group, avail, upload_bases=upload)
            if avail < floor and m == 0:
                continue
            assert MIN_MSM_CHUNK <= m < n, (frac, upload, m)
            assert msm_device_bytes(m, group, upload_bases=upload) <= avail
            chunks = -(-n // m)
            even = -(-n // chunks)             # evened out when that size is allowed and fits
            assert m == even or even < MIN_MSM_CHUNK or msm_device_bytes(even, group, upload_bases=upload) > avail
    # not even the smallest chunk fits
    assert msm_chunk_points(n, group, msm_device_bytes(MIN_MSM_CHUNK, group) - 1) == 0
    assert msm_chunk_points(n, group, -5) == 0


def test_chunk_points_with_fixed_window_and_small_n():
    n = 100_000
    c = 9
    avail = msm_device_bytes(n, G1, c=c) // 3
    m = msm_chunk_points(n, G1, avail, c=c)
    assert MIN_MSM_CHUNK <= m < n and msm_device_bytes(m, G1, c=c) <= avail
    # n below the minimum chunk: all or nothing
    assert msm_chunk_points(500, G1, msm_device_bytes(500, G1)) == 500
    assert msm_chunk_points(500, G1, msm_device_bytes(500, G1) - 1) == 0
    assert msm_chunk_points(0, G1, 0) == 0
    # a bigger budget never gives a smaller chunk (over a sweep)
    prev = 0
    for mib in range(8, 400, 8):
        m = msm_chunk_points(1 << 22, G1, mib * MIB)
        assert m >= prev or m == 0
        prev = max(prev, m)
    assert msm_window(MIN_MSM_CHUNK) >= 2


def test_msm_window_wide_rule_and_its_bytes():
    """c = 20 only for G1 MSMs with 2^25 or more scalars outside {0, 1}; below that, and for G2,
    log2(n) − 4 capped at 17. The estimate of an MSM whose width depends on its scalars covers both."""
    big = 1 << 27
    assert [msm_window(1 << k) for k in (10, 20, 21, 24)] == [6, 16, 17, 17]
    assert msm_window(big) == msm_window(big, G1) == msm_window(1 << 25, G1, busy=1 << 25) == 20
    assert msm_window(big, G1, busy=(1 << 25) - 1) == msm_window(big, G1, busy=0) == 17
    assert msm_window(big, G2) == msm_window(big, 2) == 17
    assert [window_by_scalars(n, g) for n, g in ((big, G1), (1 << 25, None), ((1 << 25) - 1, G1), (big, G2))] == \
        [True, True, False, False]
    for n in (1 << 25, big):
        both = [msm_device_bytes(n, G1, c=c) for c in (17, 20)]
        assert msm_device_bytes(n, G1) == max(both) > min(both)
    assert msm_device_bytes((1 << 25) - 1, G1) == msm_device_bytes((1 << 25) - 1, G1, c=17)
    assert msm_device_bytes(big, G2) == msm_device_bytes(big, G2, c=17)


def test_fixed_base_slice():
    assert fixed_base_slice(1, None) == _FB_SLICE
    assert fixed_base_slice(2, 1 << 40) == _FB_SLICE
    s = fixed_base_slice(2, 64 * MIB)
    assert 1024 <= s < _FB_SLICE and s * (32 + 108 * 4 * 2) <= 64 * MIB
    assert fixed_base_slice(1, 0) == 1024


def test_gpu_mem_limit_bytes():
    assert gpu_mem_limit_bytes(None) is None
    assert gpu_mem_limit_bytes(0) is None
    assert gpu_mem_limit_bytes(2) == 2 << 30
    assert gpu_mem_limit_bytes(0.5) == 1 << 29
    for bad in (-1, "2", True):
        with pytest.raises(ValueError):
            gpu_mem_limit_bytes(bad)


def test_get_backend_limit_argument():
    with get_backend("cpu", gpu_mem_limit=1 << 30) as b:   # ignored on the CPU
        assert b.name == "cpu"
    with pytest.raises(ValueError, match="gpu_mem_limit"):
        get_backend("cpu", gpu_mem_limit=0)


def test_gpu_memory_error_names_op_bytes_limit():
    e = GPUMemoryError("G2 msm", 123_456_789, 3 << 30, "5 bytes still in use")
    assert isinstance(e, RuntimeError)
    assert (e.op, e.requested, e.limit) == ("G2 msm", 123_456_789, 3 << 30)
    msg = str(e)
    assert "G2 msm" in msg and "123,456,789" in msg and f"{3 << 30:,}" in msg and "3.000 GiB" in msg
    assert "no memory-pool limit" in str(GPUMemoryError("ntt", None, None))


def test_sampler_takes_a_noted_gpu_peak():
    with MemorySampler(gpu=False) as s:
        s.note_gpu(None)
        assert s.report().gpu_peak_bytes is None
        s.note_gpu(5 * MIB)
        s.note_gpu(3 * MIB)
    assert s.report().gpu_peak_bytes == 5 * MIB


def _schema():
    return yaml.safe_load((ROOT / "workflow/schemas/config.schema.yaml").read_text())


def test_schema_accepts_gpu_mem_limit_gb():
    schema = _schema()
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    assert "gpu_mem_limit_gb" in cfg and cfg["gpu_mem_limit_gb"] is None   # default: no limit
    jsonschema.validate(cfg, schema)
    for ok in (None, 2, 0.5, 80):
        jsonschema.validate(cfg | {"gpu_mem_limit_gb": ok}, schema)
    cfg.pop("gpu_mem_limit_gb")
    jsonschema.validate(cfg, schema)                                        # optional
    for bad in (0, -1, "2GB", True):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(cfg | {"gpu_mem_limit_gb": bad}, schema)


def test_rules_pass_the_limit():
    rules = ROOT / "workflow" / "rules"
    assert "GPU_MEM_LIMIT_GB = config.get(\"gpu_mem_limit_gb\")" in (rules / "common.smk").read_text()
    for f in ("prove.smk", "setup.smk", "post.smk"):
        assert "gpu_mem_limit_gb=GPU_MEM_LIMIT_GB" in (rules / f).read_text(), f
    for f in ("prove.py", "setup.py"):
        assert "gpu_mem_limit_gb=snakemake.params.gpu_mem_limit_gb" in (ROOT / "workflow/scripts" / f).read_text()


@pytest.mark.parametrize("cmd", ["prove", "setup"])
def test_cli_help_shows_the_limit(cmd, capsys):
    with pytest.raises(SystemExit):
        main([cmd, "--help"])
    assert "--gpu-mem-limit-gb" in capsys.readouterr().out


def test_cli_passes_the_limit(monkeypatch):
    seen = {}
    monkeypatch.setattr(pipeline, "prove_batch", lambda *a, **k: seen.setdefault("prove", k))
    monkeypatch.setattr(pipeline, "setup_params", lambda *a, **k: seen.setdefault("setup", k))
    assert main(["prove", "--pce", "p", "--params", "q", "--c1", "c", "--witness", "w", "-o", "o",
                 "--gpu-mem-limit-gb", "1.5"]) == 0
    assert main(["setup", "--pce", "p", "--params", "q", "--vk", "v"]) == 0
    assert seen["prove"]["gpu_mem_limit_gb"] == 1.5
    assert seen["setup"]["gpu_mem_limit_gb"] is None


def test_pipeline_passes_the_limit_to_the_backend(tmp_path, monkeypatch):
    pce = tmp_path / "c.pce"
    pipeline.pce_extract("test-only-commd-128B", pce)
    seen = {}

    class Stop(Exception):
        pass

    def fake(name, threads=1, gpu_mem_limit=None, device=None):   # device: the claimed GPU on a GPU host
        seen.update(name=name, limit=gpu_mem_limit)
        raise Stop

    monkeypatch.setattr(pipeline, "get_backend", fake)
    mem = tmp_path / "m.json"
    with pytest.raises(Stop):
        pipeline.setup_params(pce, tmp_path / "p", tmp_path / "v", backend="cuda", mem_json=mem, gpu_mem_limit_gb=0.25)
    assert seen == {"name": "cuda", "limit": 1 << 28}
    assert json.loads(mem.read_text())["gpu_mem_limit_bytes"] == 1 << 28


# --- NTT and compute_h schedules under a limit ---------------------------------------------------

FR_BYTES = 32
GIB = 1 << 30


def test_ntt_split_factors():
    assert ntt_split(1) == (1, 1) and ntt_split(2) == (2, 1) and ntt_split(4) == (2, 2)
    for k in range(1, 28):
        n1, n2 = ntt_split(1 << k)
        assert n1 * n2 == 1 << k and n2 <= n1 <= 2 * n2


def test_ntt_device_bytes():
    assert ntt_device_bytes(0) == 0 and ntt_device_bytes(1) == FR_BYTES
    for k in (4, 10, 11, 16, 20, 27):
        n = 1 << k
        whole = ntt_device_bytes(n)
        bufs = 1 if k <= 10 else 2                        # the output, plus a pass buffer beyond 2^10
        assert whole >= bufs * n * FR_BYTES + n // 2 * FR_BYTES
        assert whole - ntt_device_bytes(n, twiddles=False) == n // 2 * FR_BYTES   # cached twiddles
        n1, _ = ntt_split(n)
        split = [ntt_device_bytes(n, c) for c in (n1, 2 * n1, 4 * n1)]
        assert split == sorted(split) and split[1] - split[0] == 2 * n1 * FR_BYTES
        assert split[0] >= n * FR_BYTES
        if k > 10:
            assert split[0] < ntt_device_bytes(n, twiddles=False)
    # 2^27: 8 GiB whole (plus 2 GiB of twiddles) against 4 GiB plus blocks split
    assert 10 * GIB < ntt_device_bytes(1 << 27) < 10.1 * GIB
    assert 4 * GIB < ntt_device_bytes(1 << 27, 1 << 22) < 4.5 * GIB


def test_compute_h_device_bytes_orders_the_schedules():
    for k in (8, 12, 16, 20, 27):
        n = 1 << k
        n1, _ = ntt_split(n)
        fused, staged = compute_h_device_bytes(n, "fused"), compute_h_device_bytes(n, "staged")
        split = compute_h_device_bytes(n, "split", n1)
        assert fused > staged > split > n * FR_BYTES, k
        assert fused >= 3 * n * FR_BYTES and staged >= 2 * n * FR_BYTES
        assert staged <= (2.25 * n + n // 2) * FR_BYTES + (2 << 20)     # slices ≤ n/8, twiddles, slack
        assert compute_h_device_bytes(n, "split", 2 * n1) - split == 3 * n1 * FR_BYTES   # three blocks
        for s in ("fused", "staged"):
            assert compute_h_device_bytes(n, s) - compute_h_device_bytes(n, s, twiddles=False) == n // 2 * FR_BYTES
    # the 32 GiB sector's domain: 12 GiB of evaluations + 2 GiB of twiddles fused, 8 + 2 staged
    n = 1 << 27
    assert 14 * GIB < compute_h_device_bytes(n, "fused") < 14.1 * GIB
    assert 10 * GIB < compute_h_device_bytes(n, "staged") < 10.2 * GIB
    assert 4 * GIB < compute_h_device_bytes(n, "split", 1 << 22) < 4.5 * GIB
    assert compute_h_device_bytes(0, "fused") == 0
    with pytest.raises(ValueError, match="schedule"):
        compute_h_device_bytes(n, "whole")
    with pytest.raises(ValueError, match="block"):
        compute_h_device_bytes(n, "split")


@pytest.mark.parametrize("k", [6, 11, 16, 22, 27])
def test_memory_plans_pick_the_first_that_fits(k):
    n = 1 << k
    n1, _ = ntt_split(n)
    assert ntt_memory_plan(n, None) == ("whole", 0) and compute_h_memory_plan(n, None) == ("fused", 0)
    top = compute_h_device_bytes(n, "fused") + 1
    marks = {compute_h_device_bytes(n, s) for s in ("fused", "staged")}
    for avail in sorted({top * i // 64 for i in range(65)} | marks):
        plan = compute_h_memory_plan(n, avail)
        smallest = compute_h_device_bytes(n, "split", n1)
        if plan is None:
            assert avail < smallest
            continue
        sched, block = plan
        assert compute_h_device_bytes(n, sched, block) <= avail
        rank = H_SCHEDULES.index(sched)
        for earlier in H_SCHEDULES[:rank]:                  # everything that needs more does not fit
            assert compute_h_device_bytes(n, earlier) > avail
        if sched == "split":
            assert block >= n1 and block & (block - 1) == 0
            assert block == min(n, 1 << 22) or compute_h_device_bytes(n, "split", 2 * block) > avail
        # the NTT alone: whole, else split in the largest block that fits, else nothing
        nplan = ntt_memory_plan(n, avail)
        if ntt_device_bytes(n) <= avail:
            assert nplan == ("whole", 0)
        elif nplan is not None:
            assert nplan[0] == "split" and ntt_device_bytes(n, nplan[1]) <= avail
        else:
            assert ntt_device_bytes(n, n1) > avail
    # more room never picks a schedule that needs less
    ranks = [H_SCHEDULES.index(p[0]) for p in (compute_h_memory_plan(n, a) for a in range(0, top, top // 97)) if p]
    assert ranks == sorted(ranks, reverse=True)


def test_plans_at_the_32gib_domain():
    n = 1 << 27
    assert compute_h_memory_plan(n, 20 * GIB) == ("fused", 0)
    assert compute_h_memory_plan(n, 12 * GIB) == ("staged", 0)
    assert compute_h_memory_plan(n, 13 * GIB, twiddles=False) == ("fused", 0)   # twiddles cached
    assert compute_h_memory_plan(n, 13 * GIB) == ("staged", 0)
    assert compute_h_memory_plan(n, 6 * GIB) == ("split", 1 << 22)
    assert compute_h_memory_plan(n, 4 * GIB) is None                  # not even the result fits
    assert ntt_memory_plan(n, 11 * GIB) == ("whole", 0)
    assert ntt_memory_plan(n, 6 * GIB) == ("split", 1 << 22)
    assert ntt_memory_plan(n, 3 * GIB) is None
    assert ntt_memory_plan(1 << 10, 0) is None                         # too small to split: nothing


def test_prove_device_bytes_adds_up_its_parts():
    from cuzk.backend.cuda.plan import compute_h_device_bytes, msm_device_bytes
    from cuzk.circuits.registry import shape_by_name
    from cuzk.curve import G1, G2
    from cuzk.memory.device import prove_device_bytes

    st = shape_by_name("porep-32GiB").stats()
    got = prove_device_bytes(st, None, None)
    nv = st["inputs"] + st["aux"]
    assert got["bases"] == (st["domain"] - 1 + st["aux"] + 2 * nv) * 96 + nv * 192
    assert got["witness"] == 32 * nv
    n, rows = st["domain"], st["constraints"]
    assert got["h_phase"] == 3 * 32 * rows + 3 * 32 * n + compute_h_device_bytes(n, "fused")
    scalars = (n - 1 + 2 * nv + st["aux"]) * 32   # H, A, B and L scalars live through the MSMs
    assert got["msm_phase"] == scalars + max(msm_device_bytes(n - 1, G1, host_scalars=False),
                                             msm_device_bytes(nv, G2, host_scalars=False))
    assert got["selections"] == 2 * nv        # the A and B density masks kept on the device, a byte each
    assert got["peak"] == (got["bases"] + got["pce"] + got["witness"] + got["selections"]
                           + max(got["h_phase"], got["msm_phase"]))
    ahead = prove_device_bytes(st, None, None, staged=True)
    assert ahead["peak"] == got["peak"] + got["witness"]
    # fewer variables in A and B: fewer bytes; the 32 GiB partition fits the H200's 139 GiB
    small = prove_device_bytes(st, nv // 3, nv // 3)
    assert small["bases"] < got["bases"] and small["peak"] < got["peak"]


class _Pool:
    """CuPy's MemoryPool accounting, modelled: ``held`` bytes of chunks, ``used`` by live arrays,
    ``pinned`` free bytes inside chunks that still hold a live array (cannot be released)."""

    def __init__(self, limit, used, held, pinned):
        self.limit, self.used, self.held, self.pinned = limit, used, held, pinned
        self.frees = 0

    def get_limit(self):
        return self.limit

    def used_bytes(self):
        return self.used

    def total_bytes(self):
        return self.held

    def free_bytes(self):
        return self.held - self.used

    def free_all_blocks(self):
        self.frees += 1
        self.held = self.used + self.pinned


class _Runtime:
    def __init__(self, free):
        self.free = free

    def memGetInfo(self):
        return (self.free, 1 << 40)


class _CP:
    def __init__(self, free):
        self.cuda = type("cuda", (), {"runtime": _Runtime(free)})()


@pytest.mark.parametrize(
    "limit, used, held, pinned, device_free, want",
    [
        (0, 10 * MIB, 12 * MIB, 0, 100 * MIB, 102 * MIB),        # no limit: the device's free memory + cache
        (50 * MIB, 10 * MIB, 30 * MIB, 0, 1 << 40, 40 * MIB),    # cached whole blocks are released first
        (50 * MIB, 10 * MIB, 30 * MIB, 4 * MIB, 1 << 40, 36 * MIB),  # pinned fragments count as used
        (50 * MIB, 10 * MIB, 10 * MIB, 0, 5 * MIB, 5 * MIB),     # the device has less than the limit allows
    ],
)
def test_mem_avail_counts_what_the_pool_holds(limit, used, held, pinned, device_free, want):
    """Under a pool limit, the room planners see is the limit minus what the pool still holds
    after releasing its cached blocks (CuPy checks the limit against held bytes, and free blocks
    split off a chunk with a live array in it cannot be released)."""
    from cuzk.backend.cuda.backend import CUDABackend

    pool = _Pool(limit, used, held, pinned)
    fake = type("B", (), {"_pool": lambda self: pool, "cp": _CP(device_free)})()
    assert CUDABackend._mem_avail(fake) == want
    assert pool.frees == (1 if limit and held > used else 0)


def test_mem_avail_keeps_the_cache_when_the_room_suffices():
    """With ``want`` bytes fitting beside the held ones, the cache stays (no cudaFree churn on a
    roomy limit) and the room is the limit minus the held bytes; with more wanted it is freed."""
    from cuzk.backend.cuda.backend import CUDABackend

    pool = _Pool(100 * MIB, 10 * MIB, 30 * MIB, 0)
    fake = type("B", (), {"_pool": lambda self: pool, "cp": _CP(1 << 40)})()
    assert CUDABackend._mem_avail(fake, 50 * MIB) == 70 * MIB and pool.frees == 0
    assert CUDABackend._mem_avail(fake, 80 * MIB) == 90 * MIB and pool.frees == 1


class _OOM(Exception):
    pass


class _AllocPool:
    """A pool whose ``malloc`` adds to the bytes in use (``free`` takes them back) and holds
    cached blocks; under ``limit`` it refuses while cached blocks push held bytes over it."""

    def __init__(self, limit=0, cached=0):
        self.limit, self.used, self.cached = limit, 0, cached
        self.frees = 0

    def malloc(self, size):
        if self.limit and self.used + self.cached + size > self.limit:
            raise _OOM(size)
        self.used += size
        return size

    def free(self, size):
        self.used -= size

    def used_bytes(self):
        return self.used

    def get_limit(self):
        return self.limit

    def free_all_blocks(self):
        self.frees += 1
        self.cached = 0


def _fake_cupy(pool):
    cuda = type("cuda", (), {})()
    cuda.memory = type("memory", (), {"OutOfMemoryError": _OOM})
    cuda.allocator = pool.malloc
    cuda.get_allocator = lambda: cuda.allocator
    cuda.set_allocator = lambda a: setattr(cuda, "allocator", a)
    return type("cupy", (), {"cuda": cuda, "get_default_memory_pool": staticmethod(lambda: pool)})


class _Watcher:
    def __init__(self, used=0):
        self._live_peak = used


def test_pool_allocator_tracks_the_live_peak():
    """The live peak is the most bytes in use at any allocation (cached blocks do not count):
    allocate 5, 3 (8 live), free 5, allocate 4 (7 live) → 8, for every watcher."""
    from cuzk.backend.cuda.runtime import _PoolAllocator

    pool = _AllocPool(cached=100)
    cp = _fake_cupy(pool)
    alloc = _PoolAllocator.install(cp)
    assert cp.cuda.get_allocator() is alloc
    assert _PoolAllocator.install(cp) is alloc          # installed once
    a, b = _Watcher(), _Watcher(used=20)
    alloc.watch(a)
    alloc.watch(b)
    x = alloc(5)
    alloc(3)
    pool.free(x)
    alloc(4)
    assert pool.used == 7
    assert a._live_peak == 8 and b._live_peak == 20     # b was made while 20 bytes were live
    c = _Watcher(used=1)                                # opened later, below the others' peaks
    alloc.watch(c)
    alloc(1)
    assert (a._live_peak, b._live_peak, c._live_peak) == (8, 20, 8)
    alloc(20)                                           # 28 live: every peak moves
    assert (a._live_peak, b._live_peak, c._live_peak) == (28, 28, 28)


def test_pool_allocator_retries_under_a_limit_only():
    from cuzk.backend.cuda.runtime import _PoolAllocator

    pool = _AllocPool(limit=10, cached=8)               # 8 cached bytes block a 4-byte array
    alloc = _PoolAllocator(_fake_cupy(pool))
    assert alloc(4) == 4 and pool.frees == 1
    with pytest.raises(_OOM):                           # 4 live + 8 > 10 even with no cache
        alloc(8)
    pool2 = _AllocPool(cached=0)
    pool2.malloc = lambda size: (_ for _ in ()).throw(_OOM(size))
    with pytest.raises(_OOM):                           # no limit: no retry, the error stands
        _PoolAllocator(_fake_cupy(pool2))(1)
    assert pool2.frees == 0


def test_pool_allocator_leaves_a_callers_allocator():
    from cuzk.backend.cuda.runtime import _PoolAllocator

    pool = _AllocPool()
    cp = _fake_cupy(pool)

    def own(size):
        return size

    cp.cuda.set_allocator(own)
    assert _PoolAllocator.install(cp) is None
    assert cp.cuda.get_allocator() is own


def test_note_backend_gpu_takes_live_and_pool_peaks():
    from cuzk.memory import note_backend_gpu

    bk = type("B", (), {"gpu_peak_bytes": 3 * MIB, "gpu_pool_peak_bytes": 7 * MIB})()
    extra: dict = {}
    with MemorySampler(interval=10, gpu=False) as s:
        note_backend_gpu(s, bk, extra)
        note_backend_gpu(s, object(), extra)            # a CPU backend: nothing changes
    assert s.report().gpu_peak_bytes == 3 * MIB
    assert extra == {"gpu_pool_peak_bytes": 7 * MIB}
