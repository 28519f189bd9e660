"""``cuzk bench ntt|compute-h|msm|spmv|fixed-base``: one kind of kernel on a backend at sizes 2^k, data
already on the device; seconds, rate, a correctness check per size, and on cuda the share of the
H200's multiply peak and sppark's figures beside ours.

What each kind times (``repeat`` calls per size after a warm-up; minimum and median reported):

* ``ntt``: forward NTT; also the inverse and the coset forward NTT (medians), and the round trip
  iNTT(NTT(x)) == x. On cuda the seconds come from CUDA events around the call, and the forward
  NTT is also timed back to back (many calls between one pair of events: the device's time per
  transform, as sppark's figures were taken; the median of ``B2B_RUNS`` such runs), which
  ``ratio_vs_sppark`` uses.
* ``compute-h``: ``compute_h`` (the Groth16 H step: on cpu three inverse NTTs, three coset NTTs,
  a·b − c and the coset inverse NTT; on cuda c's coset NTT is not needed, six NTTs in all:
  ``ntt.h_factors``; fused as the backend schedules them) on random a, b and c = a·b (a
  satisfied system), after ``prepare_h``; checked by H(x)·Z(x) = A(x)·B(x) − C(x) on the coset
  (Z(gω^j) = g^n − 1). On cuda timed by CUDA events, with the schedule used.
* ``msm-g1``, ``msm-g2``: an MSM over random bases and scalars, wall-clock around
  ``MSMContext.msm``; linearity MSM(s) + MSM(t) == MSM(s + t) is checked. On cuda the bases are
  2^k distinct points summed on the device (``points_sum_grid``), one profiled run gives the
  MSM's phases, and ``windows`` times the same MSM at other window widths (compared with the
  default width's result, with a profiled run's phases); ``shifts`` builds shifted bases
  (``CUDAMSMContext.shift``) at each width given and times the same MSM over them (the table's
  build seconds and bytes beside it).
* ``spmv``: a random CSR matrix of 2^k rows with 4 non-zeros per row, coefficients from a
  16-entry table, applied to a random vector.
* ``fixed-base-g1``, ``fixed-base-g2``: ``fixed_base_mul`` of the generator by 2^k random
  scalars, host ints in, host bytes out (what setup pays), spot-checked against arkworks.

This is the former ``benchmarks/bench_cuda.py`` too: its per-size JSON keys (seconds_forward,
seconds_inverse, seconds_coset_forward, runs_forward, fr_mults, fr_mults_per_s, roundtrip_ok,
seconds_back_to_back, runs_back_to_back;
seconds, runs, window_bits, windows, fq_mults_estimate, fq_mults_per_s, linearity_ok, by_window, by_shift,
base_generation_seconds, phase_seconds_profiled_run; spot_check_ok; h_ok, h_schedule; fraction_of_peak,
sppark_seconds, ratio_vs_sppark, gpu_pool_bytes, rss_peak_bytes_so_far) are in each size's row.
"""

from __future__ import annotations

import cProfile
import io
import json
import platform
import pstats
import resource
import statistics
import time

import numpy as np

from ..backend import CSRMatrix, get_backend
from ..backend.cuda.plan import msm_window
from ..curve import G1, G2
from ..field import FR
from ..fileio import atomic_write_text
from ..memory import GIB, kernel_peak_bytes

KINDS = ("ntt", "compute-h", "msm-g1", "msm-g2", "spmv", "fixed-base-g1", "fixed-base-g2")

PEAK_FR_MUL = 6.3e10   # H200 Fr Montgomery multiplies per second at the integer multiply-add peak
PEAK_FQ_MUL = 2.8e10   # same for Fq (ANCHORS.md)
SPPARK_NTT_S = {
    "H200": {20: 0.276e-3, 24: 4.74e-3, 26: 23.8e-3},   # ANCHORS.md
    "H100": {10: 0.0228e-3, 11: 0.0160e-3, 12: 0.0163e-3, 13: 0.0171e-3, 14: 0.0186e-3, 15: 0.0200e-3,
             16: 0.0260e-3, 17: 0.0404e-3, 18: 0.0733e-3, 19: 0.1423e-3, 20: 0.2778e-3, 21: 0.5582e-3,
             22: 1.1396e-3, 23: 2.3628e-3, 24: 4.8211e-3, 25: 10.162e-3, 26: 24.133e-3, 27: 44.962e-3},
    # benchmarks/results/2026-12-06-stop52/call1 (fused.json "peer"), back to back; stop 46's call 3
    # had 2^16 0.0266, 2^20 0.2793, 2^27 44.97; 2^10..2^15: 2026-12-06-stop53/call5 (sppark.jsonl)
}
"""sppark 17278d7's forward NTT (natural order in and out, data on the device), seconds, per card
(a key found in the device's name) and log2 size: the kernel table's ``ratio_vs_sppark``."""
B2B_RUNS = 5
"""Back-to-back runs of the forward NTT per size (``ntt``; the median is reported). Up to 2^16 the
product call is host-bound, so its figure follows the host: 17.4 µs a call at 2^14 on one H100
machine, 30 µs on another, and whole processes 1.6x slower than the one before them on the same
machine (benchmarks/results/2026-12-06-stop54, calls 1-3). A memory-sampling thread beside the
runs (this benchmark had one until stop 54) slowed 20-23 of 45 runs at 2^14..2^16 by 1.2-2.0x on
the slower host (one sample took 5 ms there), 2-16 of 45 on the faster (3 ms), and no run without
it (``benchmarks/ntt_fast/sampler.py``)."""
SPPARK_MSM_S = {"H200": {20: 20.9e-3, 22: 53.4e-3, 24: 155e-3}}   # G1, ANCHORS.md
"""sppark 17278d7's G1 MSM, seconds, per card and log2 size (as ``SPPARK_NTT_S``)."""
FQ_MULS = {"G1": {"madd": 10, "add": 14}, "G2": {"madd": 28, "add": 40}}
"""Fq products per bucket addition: mixed (8M + 2S) and general (12M + 2S) XYZZ additions; over
Fq2 a product is 3 Fq products (Karatsuba) and a square 2. The formulas' products: over Fq, Y3's
two share one Montgomery reduction (``fq.cuh`` ``fp_y3``), so a G1 mixed addition is 2,604 wide
multiplies, not the 2,748 of ten products (squares 222, products 288); fractions of the peak
below count the ten."""


def _rss_peak() -> int:
    """Peak resident set of this process so far (bytes; ru_maxrss is KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _timed(bk, fn, repeat: int) -> list[float]:
    """Seconds of ``repeat`` calls of fn after one warm-up, the backend synchronized around each."""
    fn()
    bk.synchronize()
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        bk.synchronize()
        out.append(time.perf_counter() - t)
    return out


def _time_events(fn, repeat: int, warm: int = 2) -> list[float]:
    """Seconds of ``repeat`` calls of fn by CUDA events on the null stream, after ``warm`` calls."""
    import cupy as cp  # noqa: PLC0415  (CuPy: costly, and only on the cuda backend)

    for _ in range(warm):
        fn()
    cp.cuda.Stream.null.synchronize()
    out = []
    for _ in range(repeat):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        fn()
        b.record()
        b.synchronize()
        out.append(cp.cuda.get_elapsed_time(a, b) / 1e3)
    return out


def _rand_device(n: int):
    """n random Fr values (< 2^254) generated on the GPU, as (n, 4) uint64 limbs."""
    import cupy as cp  # noqa: PLC0415  (CuPy: costly, and only on the cuda backend)

    words = (cp.random.random((n, 8)) * 2.0**32).astype(cp.uint32)
    x = cp.ascontiguousarray(words).view(cp.uint64).reshape(n, 4)
    x[:, 3] &= cp.uint64((1 << 62) - 1)
    return x


_SPLITMIX = """unsigned long long v = (unsigned long long)i + seed * 0x9E3779B97F4A7C15ull;
    v = (v ^ (v >> 30)) * 0xBF58476D1CE4E5B9ull;
    v = (v ^ (v >> 27)) * 0x94D049BB133111EBull;
    v ^= v >> 31;
    z = (i & 3) == 3 ? (v & 0x0fffffffffffffffull) : v;"""


def seeded_device(n: int, seed: int):
    """n Fr values made on the GPU from ``seed``, the same on every run and card (for benchmarks
    that compare two builds' outputs byte for byte): limb j is splitmix64 (Steele, Lea, Flood,
    OOPSLA 2014) of j + seed·φ, the top limb of each value cut to 60 bits so it is below r (and a
    valid Montgomery form).

    Returns:
        ``(n, 4)`` uint64 CuPy array.
    """
    import cupy as cp  # noqa: PLC0415  (CuPy: costly, and only on the cuda backend)

    x = cp.empty((n, 4), dtype=cp.uint64)
    cp.ElementwiseKernel("uint64 seed", "uint64 z", _SPLITMIX, "cuzk_bench_splitmix")(cp.uint64(seed), x.reshape(-1))
    return x


def _pool_bytes() -> int:
    import cupy as cp  # noqa: PLC0415  (CuPy: costly, and only on the cuda backend)

    return int(cp.get_default_memory_pool().total_bytes())


def device_info() -> dict:
    """The current GPU's name and the CuPy version (the former bench_cuda.py's "device", "cupy"): the
    benchmarks' record of the card."""
    import cupy as cp  # noqa: PLC0415  (CuPy: costly, and only on the cuda backend)

    props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    return {"device": name, "cupy": getattr(cp, "__version__", "?")}


def _sppark_seconds(table: dict, k: int) -> float | None:
    """sppark's seconds at 2^k on this GPU (``SPPARK_NTT_S`` or ``SPPARK_MSM_S``), None where
    that card or size was not measured: a ratio is only against the same card's figure."""
    name = device_info()["device"]
    return next((sizes.get(k) for card, sizes in table.items() if card in name), None)


def _free_pool() -> None:
    import cupy as cp  # noqa: PLC0415  (CuPy: costly, and only on the cuda backend)

    cp.get_default_memory_pool().free_all_blocks()


def _random_points(bk, group, n: int, rng):
    """n random points of ``group`` as an (n, size) uint8 array, by the backend's fixed-base path."""
    scalars = [int(v) for v in FR.random(n, rng)]
    return bk.fixed_base_mul(group, group.generator(), scalars)


def _summary(runs: list[float], n: int) -> dict:
    best, med = min(runs), sorted(runs)[len(runs) // 2]
    return {"seconds_min": round(best, 6), "seconds_median": round(med, 6), "elements_per_second": round(n / best)}


def back_to_back(fn, count: int) -> float:
    """Seconds per call of ``count`` calls of fn between one pair of CUDA events (``_time_events``),
    after one untimed call: what the device spends per call while the host keeps ahead (how
    sppark's figures in ``SPPARK_NTT_S`` were taken), where one timed call also counts the host's
    launches."""
    return _time_events(lambda: [fn() for _ in range(count)], 1, warm=1)[0] / count


def b2b_calls(k: int) -> int:
    """Calls per back-to-back run of a 2^k transform in ``cuzk bench ntt``: 2^24 elements' worth,
    between 4 and 200."""
    return max(4, min(200, (1 << 24) >> k))


def log_range(text: str) -> list[int]:
    """Log2 sizes from ``"16-27"`` (a range, both ends in) or ``"16,20,24"`` (a list), for the
    benchmark scripts' ``--log-sizes``.

    Raises:
        ValueError: a part is not an integer.
    """
    if "-" in text:
        lo, hi = text.split("-")
        return list(range(int(lo), int(hi) + 1))
    return [int(v) for v in text.split(",")]


def host_per_call(fn, calls: int) -> float:
    """Host seconds per call of ``calls`` calls of fn, the device synchronized before and once
    after (the device's time instead when its queue fills or the last kernels are long)."""
    import cupy as cp  # noqa: PLC0415  (CuPy: costly, and only on the cuda backend)

    cp.cuda.Device().synchronize()
    t = time.perf_counter()
    for _ in range(calls):
        fn()
    cp.cuda.Device().synchronize()
    return (time.perf_counter() - t) / calls


def profile_calls(fn, calls: int, top: int = 25) -> str:
    """cProfile of ``calls`` calls of fn (the device synchronized after): its ``top`` functions by
    own time, as text (the host's cost of a call, piece by piece)."""
    import cupy as cp  # noqa: PLC0415  (CuPy: costly, and only on the cuda backend)

    pr = cProfile.Profile()
    pr.enable()
    for _ in range(calls):
        fn()
    pr.disable()
    cp.cuda.Device().synchronize()
    s = io.StringIO()
    pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(top)
    return s.getvalue()


def ntt_variant(spec: str) -> str:
    """``spec`` as a key of ``cuzk.backend.cuda.ntt.NTT_VARIANTS``: a name there, or ``NAME@B:T``,
    variant NAME with blocks of 2^B elements and at most T stages a pass before the last (its plan
    ``_ntt_plan(k, B, T)``), added under that key on first use (the benchmarks' plan sweeps).

    Raises:
        KeyError: NAME is not a variant, or ``spec`` names none and has no ``@B:T``.
    """
    from ..backend.cuda import ntt  # noqa: PLC0415  (the cuda backend's module: benchmarks only)

    if spec not in ntt.NTT_VARIANTS:
        base, _, plan = spec.partition("@")
        if not plan or base not in ntt.NTT_VARIANTS:
            raise KeyError(f"unknown NTT variant {spec!r}; known: {', '.join(ntt.NTT_VARIANTS)}")
        bl, mt = (int(x) for x in plan.split(":"))
        ntt.NTT_VARIANTS[spec] = ntt.NTT_VARIANTS[base]._replace(block_log=bl, max_t=mt)
    return spec


def _ntt(bk, k: int, repeat: int, rng) -> dict:
    n = 1 << k
    cuda = bk.name == "cuda"
    if cuda:
        _free_pool()
    x = _rand_device(n) if cuda else bk.to_device(FR.random(n, rng))
    ok = bool((bk.ntt(bk.ntt(x), inverse=True) == x).all())
    timer = (lambda fn: _time_events(fn, repeat)) if cuda else (lambda fn: _timed(bk, fn, repeat))
    fwd = timer(lambda: bk.ntt(x))
    inv = timer(lambda: bk.ntt(x, inverse=True))
    coset = timer(lambda: bk.coset_ntt(x))
    t = statistics.median(fwd)
    mults = (n // 2) * (k - 1)   # twiddle products (stage 0's twiddles are 1)
    row = {"seconds_forward": t, "seconds_inverse": statistics.median(inv),
           "seconds_coset_forward": statistics.median(coset), "runs_forward": fwd, "fr_mults": mults,
           "fr_mults_per_s": mults / t, "roundtrip_ok": ok, **_summary(fwd, n)}
    if cuda:
        runs = [back_to_back(lambda: bk.ntt(x), b2b_calls(k)) for _ in range(B2B_RUNS)]
        b2b = statistics.median(runs)
        row |= {"fraction_of_peak": mults / t / PEAK_FR_MUL, "gpu_pool_bytes": _pool_bytes(),
                "seconds_back_to_back": b2b, "runs_back_to_back": runs}
        ref = _sppark_seconds(SPPARK_NTT_S, k)
        if ref is not None:
            row |= {"sppark_seconds": ref, "ratio_vs_sppark": b2b / ref}
        del x
        _free_pool()
    print(f"ntt 2^{k}: fwd {t * 1e3:.3f} ms"
          + (f" ({row['seconds_back_to_back'] * 1e3:.4f} ms back to back)" if cuda else "")
          + f", inv {row['seconds_inverse'] * 1e3:.3f} ms, coset "
          f"{row['seconds_coset_forward'] * 1e3:.3f} ms, {row['fr_mults_per_s']:.3g} Fr-mul/s"
          + (f" ({100 * row['fraction_of_peak']:.1f}% of peak)" if "fraction_of_peak" in row else "")
          + (f", {row['ratio_vs_sppark']:.2f}x sppark" if "ratio_vs_sppark" in row else "")
          + f", roundtrip {'ok' if ok else 'FAILED'} on {bk.name}", flush=True)
    return row


def _h_ok(bk, a, b, c, h, n: int) -> bool:
    """H(x)·Z(x) = A(x)·B(x) − C(x) at the coset points gω^j, where Z = g^n − 1 (a constant):
    A, B, C interpolate a, b, c on the domain, H's coefficients are h (n − 1 of them)."""
    def coset(v):
        return bk.coset_ntt(bk.ntt(v, inverse=True))

    rhs = bk.sub(bk.mul(coset(a), coset(b)), coset(c))
    lhs = bk.scale(bk.coset_ntt(bk.pad(h, n)), pow(FR.generator, n, FR.modulus) - 1)
    return bool((lhs == rhs).all())


def _compute_h(bk, k: int, repeat: int, rng) -> dict:
    n = 1 << k
    cuda = bk.name == "cuda"
    if cuda:
        _free_pool()
    a, b = (_rand_device(n) if cuda else bk.to_device(FR.random(n, rng)) for _ in range(2))
    c = bk.mul(a, b)   # C·w = A·w ∘ B·w: a satisfied system
    bk.prepare_h(n)
    timer = (lambda fn: _time_events(fn, repeat, warm=1)) if cuda else (lambda fn: _timed(bk, fn, repeat))
    runs = timer(lambda a=a, b=b, c=c: bk.compute_h(a, b, c, n))
    row = {"seconds": statistics.median(runs), "runs": runs, **_summary(runs, n)}
    if cuda:
        row |= {"h_schedule": list(bk.last_h_schedule), "gpu_pool_bytes": _pool_bytes()}
    row["h_ok"] = _h_ok(bk, a, b, c, bk.compute_h(a, b, c, n), n)
    row["rss_peak_bytes_so_far"] = _rss_peak()
    del a, b, c
    if cuda:
        _free_pool()
    print(f"compute_h 2^{k}: {row['seconds']:.4f} s (min {row['seconds_min']:.4f} s)"
          + (f", schedule {row['h_schedule'][0]}" if cuda else "")
          + f", H·Z = A·B − C {'ok' if row['h_ok'] else 'FAILED'} on {bk.name}", flush=True)
    return row


def _msm(bk, group, k: int, repeat: int, rng, windows=(), shifts=()) -> dict:
    if bk.name == "cuda":
        return _msm_cuda(bk, group, k, repeat, windows, shifts)
    n = 1 << k
    ctx = bk.msm_context(group, _random_points(bk, group, n, rng))
    try:
        s, t = FR.random(n, rng), FR.random(n, rng)
        runs = _timed(bk, lambda: ctx.msm(s), repeat)
        linear = ctx.msm(s) + ctx.msm(t) == ctx.msm(FR.add(s, t))
    finally:
        ctx.close()
    row = {"group": group.name, "seconds": statistics.median(runs), "runs": runs, "linearity_ok": bool(linear),
           **_summary(runs, n)}
    print(f"{group.name} msm 2^{k}: {min(runs) * 1e3:.2f} ms (median {row['seconds'] * 1e3:.2f} ms) on {bk.name}, "
          f"linearity {'ok' if linear else 'FAILED'}", flush=True)
    return row


def device_bases(be, group, n: int):
    """n distinct affine bases on the device ((n, 24·words) uint32, Montgomery): A_i + B_j for
    1024 host points A (a chain of additions) and ⌈n/1024⌉ points B, summed on the GPU
    (``points_sum_grid``): a benchmark's bases without n host-side points."""
    g = group.generator()
    ga, gb = group.mul(g, 0x1234567 * 2**200 + 99), group.mul(g, 0x7654321 * 2**190 + 7)
    chains = []
    for start, step, count in ((group.mul(g, 5), ga, 1024), (group.mul(g, 11), gb, max(1, n // 1024))):
        pts, acc = [], start
        for _ in range(count):
            pts.append(acc)
            acc = acc + step
        chains.append(be.points_upload_affine(group, group.to_array(pts)))
    return be.points_sum_grid(group, chains[0], chains[1], n)


def bench_bases(be, group, log_n: int):
    """``device_bases`` of 2^log_n points, their making's seconds printed (the benchmarks' prefix
    slices serve the smaller sizes)."""
    import cupy as cp  # noqa: PLC0415  (CuPy: costly, and only on the cuda backend)

    t = time.perf_counter()
    bases = device_bases(be, group, 1 << log_n)
    cp.cuda.Device().synchronize()
    print(f"bases 2^{log_n}: {time.perf_counter() - t:.1f} s", flush=True)
    return bases


def timed_msm(ctx, scalars, **kw) -> float:
    """Wall seconds of one ``ctx.msm(scalars, **kw)``, the device idle before it."""
    import cupy as cp  # noqa: PLC0415  (CuPy: costly, and only on the cuda backend)

    cp.cuda.Device().synchronize()
    t = time.perf_counter()
    ctx.msm(scalars, **kw)
    return time.perf_counter() - t


def msm_cases(be, group, bases, cases):
    """The side-by-side MSM benchmarks' cases: for each (mode, log sizes) of ``cases`` ("plain" or
    "shifted") and size 2^k, yields (mode, k, context over ``bases[:2^k]`` (shifted: with its table
    built at the default width; skipped, with a line printed, where it does not fit), 2^k random
    device scalars); each context closed after its turn."""
    from ..backend.cuda import CUDAMSMContext  # noqa: PLC0415  (imports CuPy on use: the cuda backend only)

    for mode, logs in cases:
        for k in logs:
            ctx = CUDAMSMContext.from_device_affine(be, bases[: 1 << k], group)
            try:
                if mode == "shifted" and not ctx.shift():
                    print(f"{group.name} 2^{k}: the table does not fit", flush=True)
                    continue
                yield mode, k, ctx, _rand_device(1 << k)
            finally:
                ctx.close()


def alternated(ctx, scalars, modes: dict, repeat: int, want=None) -> dict:
    """MSMs of ``scalars`` on ``ctx`` in several modes, side by side (the MSM benchmarks'
    comparisons): per mode (name → a function that switches it on), one profiled ``ctx.msm`` after
    freeing the pool's cached blocks (its phases, the pool's bytes after it, and whether its point
    equals ``want``, default the first mode's), then ``repeat`` rounds of one ``timed_msm`` per mode
    in turn. The caller restores its defaults after.

    Returns:
        {name: {"equal", "phases", "pool_bytes_after", "runs", "median_s"}} (seconds).
    """
    info = {}
    for name, switch in modes.items():
        switch()
        _free_pool()
        prof: dict = {}
        got = ctx.msm(scalars, profile=prof)
        want = got if want is None else want
        info[name] = {"equal": bool(got == want), "phases": prof, "pool_bytes_after": _pool_bytes(), "runs": []}
    for _ in range(repeat):
        for name, switch in modes.items():
            switch()
            info[name]["runs"].append(timed_msm(ctx, scalars))
    for v in info.values():
        v["median_s"] = statistics.median(v["runs"])
    return info


def mode_rows(info: dict, base: str, label: str, key: str = "mode", **fields) -> list:
    """Rows of ``alternated``'s result, one per mode, with ``fields``, the mode under ``key`` and
    its median's ratio over mode ``base``'s; each printed as "LABEL MODE: ms (ratio); phases …;
    pool …; equal …"."""
    rows = []
    for name, v in info.items():
        ratio = v["median_s"] / info[base]["median_s"]
        rows.append({**fields, key: name, f"ratio_over_{base}": ratio, **v})
        print(f"{label} {key}={name}: {v['median_s'] * 1e3:.2f} ms ({ratio:.3f}); phases "
              f"{ {p: round(t * 1e3, 2) for p, t in v['phases'].items()} } ms; pool "
              f"{v['pool_bytes_after'] / 2**30:.2f} GiB; equal {v['equal']}", flush=True)
    return rows


def write_rows(path, rows: list) -> dict:
    """Print the host RSS peak and the GPU pool's bytes at the end, and write {"rows": rows, and
    those two} to ``path`` as JSON (the benchmarks' closing lines); returns the two."""
    peak = {"host_rss_peak_bytes": _rss_peak(), "gpu_pool_bytes": _pool_bytes()}
    print(f"host RSS peak {peak['host_rss_peak_bytes'] / 2**30:.2f} GiB, GPU pool at the end "
          f"{peak['gpu_pool_bytes'] / 2**30:.2f} GiB", flush=True)
    with open(path, "w") as f:
        json.dump({"rows": rows, **peak}, f, indent=1)
    return peak


def _fq_mults(n: int, group, c: int, bucket_sets: int) -> int:
    """Fq products of an n-point MSM at width c: mixed additions into the buckets (⌈255/c⌉ per
    point) and the running sums' two general additions per bucket (``bucket_sets`` sets of
    2^(c−1): one per window, or one over shifted bases)."""
    m = FQ_MULS[group.name]
    return n * -(-255 // c) * m["madd"] + 2 * (bucket_sets << (c - 1)) * m["add"]


def _msm_shifted(be, group, bases, s, want, c: int, repeat: int) -> dict:
    """The MSM of ``s`` over ``bases`` shifted to width c (a context of its own, closed after):
    the table's build seconds and bytes, median seconds, equality with ``want``, a profiled
    run's phases; {"built": False} when the table does not fit."""
    import cupy as cp  # noqa: PLC0415  (CuPy: costly, and only on the cuda backend)

    from ..backend.cuda import CUDAMSMContext  # noqa: PLC0415  (imports CuPy on use: the cuda backend only)

    ctx = CUDAMSMContext.from_device_affine(be, bases, group)
    try:
        cp.cuda.Stream.null.synchronize()
        t0 = time.perf_counter()
        if not ctx.shift(c):
            return {"built": False}
        cp.cuda.Stream.null.synchronize()
        build = time.perf_counter() - t0
        equal = ctx.msm(s) == want
        runs = [timed_msm(ctx, s) for _ in range(repeat)]
        prof: dict = {}
        ctx.msm(s, profile=prof)
        sec = statistics.median(runs)
        fq = _fq_mults(ctx.size, group, c, 1)
        return {"built": True, "seconds": sec, "runs": runs, "build_seconds": build,
                "table_bytes": int(ctx._table.nbytes), "equal_to_default": bool(equal),
                "fraction_of_peak": fq / sec / PEAK_FQ_MUL, "phase_seconds_profiled_run": prof,
                "gpu_pool_bytes": _pool_bytes()}
    finally:
        ctx.close()
        _free_pool()


def _msm_cuda(be, group, k: int, repeat: int, windows=(), shifts=()) -> dict:
    """One MSM size on device bases and scalars: median wall seconds at ``msm_window``'s width and,
    for each width in ``windows``, the same MSM at that width (its result compared with the
    default width's); for each width in ``shifts``, the same MSM over shifted bases
    (``_msm_shifted``)."""
    import cupy as cp  # noqa: PLC0415  (CuPy: costly, and only on the cuda backend)

    from ..backend.cuda import CUDAMSMContext  # noqa: PLC0415  (imports CuPy on use: the cuda backend only)

    n = 1 << k
    _free_pool()
    t0 = time.perf_counter()
    bases = device_bases(be, group, n)
    cp.cuda.Stream.null.synchronize()
    gen_s = time.perf_counter() - t0
    ctx = CUDAMSMContext.from_device_affine(be, bases, group)
    s, t = _rand_device(n), _rand_device(n)
    ctx.msm(s, profile={})
    linear_ok = ctx.msm(s) + ctx.msm(t) == ctx.msm(be.add(s, t))
    prof: dict = {}
    ctx.msm(s, profile=prof)
    runs = [timed_msm(ctx, s) for _ in range(repeat)]
    sec = statistics.median(runs)
    by_window = {}
    want = ctx.msm(s)
    for cw in windows:
        equal = ctx.msm(s, c=cw) == want
        wruns = [timed_msm(ctx, s, c=cw) for _ in range(repeat)]
        wprof: dict = {}
        ctx.msm(s, c=cw, profile=wprof)
        by_window[str(cw)] = {"seconds": statistics.median(wruns), "equal_to_default": bool(equal),
                              "phase_seconds_profiled_run": wprof}
    c = msm_window(n, group)
    w = -(-255 // c)
    fq_mults = _fq_mults(n, group, c, w)
    ctx.close()
    by_shift = {str(cs): _msm_shifted(be, group, bases, s, want, cs, repeat) for cs in shifts}
    row = {"group": group.name, "seconds": sec, "runs": runs, "window_bits": c, "windows": w,
           "fq_mults_estimate": fq_mults, "fq_mults_per_s": fq_mults / sec, "fraction_of_peak": fq_mults / sec / PEAK_FQ_MUL,
           "linearity_ok": bool(linear_ok) and all(v["equal_to_default"] for v in by_window.values())
           and all(v.get("equal_to_default", True) for v in by_shift.values()),
           "by_window": by_window, "by_shift": by_shift, "base_generation_seconds": gen_s, "phase_seconds_profiled_run": prof,
           "gpu_pool_bytes": _pool_bytes(), "rss_peak_bytes_so_far": _rss_peak(), **_summary(runs, n)}
    ref = _sppark_seconds(SPPARK_MSM_S, k) if group.name == "G1" else None
    if ref is not None:
        row |= {"sppark_seconds": ref, "ratio_vs_sppark": sec / ref}
    del bases, s, t
    _free_pool()
    print(f"{group.name} msm 2^{k}: {sec * 1e3:.2f} ms (c={c}), {100 * row['fraction_of_peak']:.1f}% of Fq-mul peak"
          + (f", {row['ratio_vs_sppark']:.2f}x sppark" if "ratio_vs_sppark" in row else "")
          + "".join(f", c={cw} {v['seconds'] * 1e3:.2f} ms" for cw, v in by_window.items())
          + "".join(f", shifted c={cs} " + (f"{v['seconds'] * 1e3:.2f} ms (table {v['table_bytes'] / 2**30:.1f} GiB "
                                             f"in {v['build_seconds']:.1f} s)" if v["built"] else "does not fit")
                    for cs, v in by_shift.items())
          + f", linearity {'ok' if row['linearity_ok'] else 'FAILED'}", flush=True)
    return row


def _spmv(bk, k: int, repeat: int, rng) -> dict:
    n = 1 << k
    nnz = 4 * n
    indptr = np.arange(0, nnz + 1, 4, dtype=np.int64)
    m = CSRMatrix(indptr, rng.integers(0, n, nnz, dtype=np.int64), rng.integers(0, 16, nnz).astype(np.int32),
                  FR.random(16, rng), (n, n))
    w = bk.to_device(FR.random(n, rng))
    runs = _timed(bk, lambda: bk.spmv(m, w), repeat)
    row = _summary(runs, n)
    print(f"spmv 2^{k}: {row['seconds_min'] * 1e3:.2f} ms (median {row['seconds_median'] * 1e3:.2f} ms) on {bk.name}",
          flush=True)
    return row


def _fixed_base(bk, group, k: int, repeat: int, rng) -> dict:
    n = 1 << k
    ks = [int(v) for v in FR.random(n, rng)]
    bk.fixed_base_mul(group, group.generator(), ks[:1024])   # table and kernels ready
    runs, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = bk.fixed_base_mul(group, group.generator(), ks)
        runs.append(time.perf_counter() - t0)
    sec = statistics.median(runs)
    idx = sorted({0, 1 % n, n // 3, n - 1})
    ok = all(group.from_uncompressed(out[i].tobytes()) == group.mul(group.generator(), ks[i]) for i in idx)
    row = {"group": group.name, "seconds": sec, "runs": runs, "spot_check_ok": bool(ok), **_summary(runs, n)}
    if bk.name == "cuda":
        fq_mults = n * 32 * FQ_MULS[group.name]["madd"]   # at most 32 mixed additions per product
        row |= {"fq_mults_estimate": fq_mults, "fq_mults_per_s": fq_mults / sec,
                "fraction_of_peak": fq_mults / sec / PEAK_FQ_MUL, "gpu_pool_bytes": _pool_bytes(),
                "rss_peak_bytes_so_far": _rss_peak()}
        _free_pool()
    print(f"fixed-base {group.name} 2^{k}: {sec:.3f} s host ints -> host bytes on {bk.name}, "
          f"spot check {'ok' if ok else 'FAILED'}", flush=True)
    return row


def kernels_ok(result: dict) -> bool:
    """Every size's check passed (round trip, H·Z identity, linearity, spot check; spmv has none)."""
    keys = ("roundtrip_ok", "h_ok", "linearity_ok", "spot_check_ok")
    return all(row[k] for row in result["sizes"] for k in keys if k in row)


def bench_kernels(what: str, log_sizes, backend: str = "auto", threads: int = 1, repeat: int = 3,
                  json_path: str | None = None, seed: int = 0, windows=(), budget: float | None = None,
                  shifts=()) -> dict:
    """Time one kind of kernel on a backend for sizes 2^k, data already on the device.

    Args:
        what: one of ``KINDS`` (module docstring).
        log_sizes: exponents k.
        repeat: timed calls per size after one warm-up (the minimum and median are reported).
        windows: cuda MSMs only: also time each size at these window widths.
        shifts: cuda MSMs only: also time each size over shifted bases of these widths.
        budget: skip sizes not started within this many seconds of the start (listed in
            "skipped_over_budget").

    Returns and writes (``json_path``, after every size): per size the seconds, the rate
    (elements per second) and the kind's figures and check; peak host RSS (``kernel_peak_bytes``:
    this process and its waited-for workers) and peak GPU memory (the backend's live peak, followed
    at every allocation) of the whole run; on cuda the device name and the peaks the fractions
    refer to. No sampling thread runs beside the timed calls: its turns at the GIL stalled the
    host-bound ones (the small NTTs' back-to-back figures).

    Raises:
        ValueError: unknown ``what``.
    """
    if what not in KINDS:
        raise ValueError(f"unknown kernel {what!r}: choose one of {', '.join(KINDS)}")
    group = G2 if what.endswith("g2") else G1
    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    result = {"benchmark": what, "threads": threads, "repeat": repeat, "sizes": [], "skipped_over_budget": [],
              "machine": {"python": platform.python_version(), "cpu": platform.processor() or platform.machine()}}

    def write() -> None:
        if json_path:
            atomic_write_text(json_path, json.dumps(result, indent=2) + "\n")

    with get_backend(backend, threads=threads) as bk:
        result["backend"] = bk.name
        if bk.name == "cuda":
            result |= device_info() | {"date": time.strftime("%Y-%m-%d"),
                       "peaks": {"fr_mul_per_s": PEAK_FR_MUL, "fq_mul_per_s": PEAK_FQ_MUL}}
        for k in log_sizes:
            if budget is not None and time.perf_counter() - start > budget:
                result["skipped_over_budget"].append(f"{what} 2^{k}")
                continue
            if what == "ntt":
                row = _ntt(bk, k, repeat, rng)
            elif what == "compute-h":
                row = _compute_h(bk, k, repeat, rng)
            elif what.startswith("msm"):
                row = _msm(bk, group, k, repeat, rng, windows, shifts)
            elif what == "spmv":
                row = _spmv(bk, k, repeat, rng)
            else:
                row = _fixed_base(bk, group, k, repeat, rng)
            result["sizes"].append({"log_size": k, "n": 1 << k} | row)
            write()
        gpu_peak = getattr(bk, "gpu_peak_bytes", None)
    rss_peak = kernel_peak_bytes()
    result |= {"rss_peak_bytes": rss_peak, "gpu_peak_bytes": gpu_peak}
    print(f"peak RSS {rss_peak / GIB:.3f} GiB, peak GPU "
          f"{'n/a' if gpu_peak is None else f'{gpu_peak / GIB:.3f} GiB'}")
    write()
    return result


__all__ = ["KINDS", "alternated", "b2b_calls", "back_to_back", "bench_kernels", "device_info", "host_per_call", "kernels_ok", "log_range", "mode_rows",
           "ntt_variant", "profile_calls", "seeded_device"]
