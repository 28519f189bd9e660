"""Benchmark the cuda backend's NTT, G1 and G2 MSMs and fixed-base products on the device; print a
table and write JSON.

Data is generated on the device and already resident when timing starts; each figure is the
median of several runs after warm-up. NTT times come from CUDA events around the call; MSM times
are wall-clock around ``CUDAMSMContext.msm`` (GPU pipeline + the host's final window combination,
which includes one device synchronization). Each MSM size is also checked for linearity,
MSM(s) + MSM(t) == MSM(s + t), and each NTT size for the round trip iNTT(NTT(x)) == x. Fixed-base
times are wall-clock around ``CUDABackend.fixed_base_mul`` from host ints to host bytes (what setup
pays), spot-checked against arkworks. Peak host RSS and GPU memory (CuPy's pool) are sampled over
the whole run by ``cuzk.memory.MemorySampler`` and reported at the end and in the JSON.

Usage: python3 benchmarks/bench_cuda.py [--json OUT.json] [--ntt 20,24,26] [--msm 20,22,24]
       [--msm-g2 20,22] [--fixed-base 20] [--windows 16,19,20,22]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time

PEAK_FR_MUL = 6.3e10   # H200 Fr Montgomery multiplies per second at the integer multiply-add peak
PEAK_FQ_MUL = 2.8e10   # same for Fq (ANCHORS.md)
SPPARK_NTT_S = {20: 0.26e-3, 24: 4.4e-3}            # sppark 17278d7 on this H200 (ANCHORS.md)
SPPARK_MSM_S = {20: 20.9e-3, 22: 53.4e-3, 24: 155e-3}


def _rand_device(cp, n: int):
    words = (cp.random.random((n, 8)) * 2.0**32).astype(cp.uint32)
    x = cp.ascontiguousarray(words).view(cp.uint64).reshape(n, 4)
    x[:, 3] &= cp.uint64((1 << 62) - 1)   # < 2^254 < r
    return x


_T0 = time.perf_counter()


def log(msg: str) -> None:
    print(f"[{time.perf_counter() - _T0:7.1f}s] {msg}", flush=True)


def _pool_bytes(cp) -> int:
    return int(cp.get_default_memory_pool().total_bytes())


def _rss_peak() -> int:
    """Peak resident set of this process so far (bytes; ru_maxrss is KiB on Linux)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _mem_note(r: dict) -> str:
    return (f"; GPU pool {r['gpu_pool_bytes'] / 2**30:.2f} GiB, host RSS peak so far "
            f"{r['rss_peak_bytes_so_far'] / 2**30:.2f} GiB")


def bench_fixed_base(be, cp, logn: int, group_name: str) -> dict:
    """fixed_base_mul of the generator by 2^logn random scalars: host ints in, host bytes out."""
    import numpy as np

    from cuzk.curve import G1, G2
    from cuzk.field import FR

    group = G1 if group_name == "G1" else G2
    n = 1 << logn
    ks = [int(v) for v in FR.random(n, np.random.default_rng(logn))]
    be.fixed_base_mul(group, group.generator(), ks[:1024])   # table and kernels ready
    t0 = time.perf_counter()
    out = be.fixed_base_mul(group, group.generator(), ks)
    sec = time.perf_counter() - t0
    idx = [0, 1, n // 3, n - 1]
    ok = all(group.from_uncompressed(out[i].tobytes()) == group.mul(group.generator(), ks[i]) for i in idx)
    fq_mults = n * 32 * FQ_MULS[group_name]["madd"]   # at most 32 mixed additions per product
    res = {"group": group_name, "n": n, "seconds": sec, "spot_check_ok": ok, "fq_mults_estimate": fq_mults,
           "fq_mults_per_s": fq_mults / sec, "fraction_of_peak": fq_mults / sec / PEAK_FQ_MUL,
           "gpu_pool_bytes": _pool_bytes(cp), "rss_peak_bytes_so_far": _rss_peak()}
    cp.get_default_memory_pool().free_all_blocks()
    return res


def _time_events(cp, fn, reps: int, warm: int = 2) -> list[float]:
    for _ in range(warm):
        fn()
    cp.cuda.Stream.null.synchronize()
    out = []
    for _ in range(reps):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        fn()
        b.record()
        b.synchronize()
        out.append(cp.cuda.get_elapsed_time(a, b) / 1e3)
    return out


def bench_ntt(be, cp, logn: int, reps: int) -> dict:
    n = 1 << logn
    pool = cp.get_default_memory_pool()
    pool.free_all_blocks()
    x = _rand_device(cp, n)
    ok = bool((be.ntt(be.ntt(x), inverse=True) == x).all())
    fwd = _time_events(cp, lambda: be.ntt(x), reps)
    inv = _time_events(cp, lambda: be.ntt(x, inverse=True), reps)
    coset = _time_events(cp, lambda: be.coset_ntt(x), reps)
    t = statistics.median(fwd)
    mults = (n // 2) * (logn - 1)   # twiddle products (stage 0's twiddles are 1)
    res = {
        "n": n,
        "seconds_forward": t,
        "seconds_inverse": statistics.median(inv),
        "seconds_coset_forward": statistics.median(coset),
        "runs_forward": fwd,
        "fr_mults": mults,
        "fr_mults_per_s": mults / t,
        "fraction_of_peak": mults / t / PEAK_FR_MUL,
        "roundtrip_ok": ok,
        "gpu_pool_bytes": _pool_bytes(cp),
    }
    if logn in SPPARK_NTT_S:
        res["sppark_seconds"] = SPPARK_NTT_S[logn]
        res["ratio_vs_sppark"] = t / SPPARK_NTT_S[logn]
    del x
    pool.free_all_blocks()
    return res


# Fq products per bucket addition: mixed (8M + 2S) and general (12M + 2S) XYZZ additions; over Fq2
# a product is 3 Fq products (Karatsuba) and a square 2.
FQ_MULS = {"G1": {"madd": 10, "add": 14}, "G2": {"madd": 28, "add": 40}}


def bench_msm(be, cp, logn: int, reps: int, group_name: str = "G1", windows=()) -> dict:
    """One MSM size on device bases and scalars: median wall seconds at ``msm_window``'s width and,
    for each width in ``windows``, the same MSM at that width (its result compared with the
    default width's)."""
    from cuzk.backend.cuda import CUDAMSMContext
    from cuzk.backend.cuda.backend import msm_window
    from cuzk.curve import G1, G2

    group = G1 if group_name == "G1" else G2
    n = 1 << logn
    pool = cp.get_default_memory_pool()
    pool.free_all_blocks()
    # distinct bases A_i + B_j from 1024 + n/1024 host points (chains of additions), summed on the GPU
    g = group.generator()
    ga, gb = group.mul(g, 0x1234567 * 2**200 + 99), group.mul(g, 0x7654321 * 2**190 + 7)
    na, nb = 1024, max(1, n // 1024)
    log(f"{group_name} msm 2^{logn}: generating bases")
    t0 = time.perf_counter()
    a_pts, acc = [], group.mul(g, 5)
    for _ in range(na):
        a_pts.append(acc)
        acc = acc + ga
    b_pts, acc = [], group.mul(g, 11)
    for _ in range(nb):
        b_pts.append(acc)
        acc = acc + gb
    bases = be.points_sum_grid(group, be.points_upload_affine(group, group.to_array(a_pts)),
                               be.points_upload_affine(group, group.to_array(b_pts)), n)
    cp.cuda.Stream.null.synchronize()
    gen_s = time.perf_counter() - t0
    log(f"{group_name} msm 2^{logn}: bases in {gen_s:.2f} s")
    ctx = CUDAMSMContext.from_device_affine(be, bases, group)
    s, t = _rand_device(cp, n), _rand_device(cp, n)
    prof: dict = {}
    t1 = time.perf_counter()
    ctx.msm(s, profile=prof)
    log(f"{group_name} msm 2^{logn}: first (profiled) run {time.perf_counter() - t1:.3f} s: "
        + ", ".join(f"{k} {v * 1e3:.2f} ms" for k, v in prof.items()))
    linear_ok = ctx.msm(s) + ctx.msm(t) == ctx.msm(be.add(s, t))
    log(f"{group_name} msm 2^{logn}: linearity {'ok' if linear_ok else 'FAILED'}")
    prof = {}
    ctx.msm(s, profile=prof)
    runs = []
    for _ in range(reps):
        cp.cuda.Stream.null.synchronize()
        t1 = time.perf_counter()
        ctx.msm(s)
        runs.append(time.perf_counter() - t1)
    sec = statistics.median(runs)
    by_window = {}
    want = ctx.msm(s)
    for cw in windows:
        equal = ctx.msm(s, c=cw) == want
        wruns = []
        for _ in range(reps):
            cp.cuda.Stream.null.synchronize()
            t1 = time.perf_counter()
            ctx.msm(s, c=cw)
            wruns.append(time.perf_counter() - t1)
        by_window[str(cw)] = {"seconds": statistics.median(wruns), "equal_to_default": bool(equal)}
        log(f"{group_name} msm 2^{logn} c={cw}: {by_window[str(cw)]['seconds'] * 1e3:.2f} ms, "
            f"{'equal' if equal else 'DIFFERENT'}")
    c = msm_window(n)
    W = -(-255 // c)
    nb_total = W << (c - 1)
    m = FQ_MULS[group_name]
    fq_mults = n * W * m["madd"] + 2 * nb_total * m["add"]   # mixed adds into buckets + running sums
    res = {
        "group": group_name,
        "n": n,
        "seconds": sec,
        "runs": runs,
        "window_bits": c,
        "windows": W,
        "fq_mults_estimate": fq_mults,
        "fq_mults_per_s": fq_mults / sec,
        "fraction_of_peak": fq_mults / sec / PEAK_FQ_MUL,
        "linearity_ok": bool(linear_ok) and all(w["equal_to_default"] for w in by_window.values()),
        "by_window": by_window,
        "base_generation_seconds": gen_s,
        "phase_seconds_profiled_run": prof,
        "gpu_pool_bytes": _pool_bytes(cp),
        "rss_peak_bytes_so_far": _rss_peak(),
    }
    if group_name == "G1" and logn in SPPARK_MSM_S:
        res["sppark_seconds"] = SPPARK_MSM_S[logn]
        res["ratio_vs_sppark"] = sec / SPPARK_MSM_S[logn]
    ctx.close()
    del bases, s, t
    pool.free_all_blocks()
    return res


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--ntt", default="20,24,26", help="log2 sizes of the NTTs (comma-separated)")
    ap.add_argument("--msm", default="20,22,24", help="log2 sizes of the G1 MSMs ('' for none)")
    ap.add_argument("--msm-g2", default="20,22", help="log2 sizes of the G2 MSMs ('' for none)")
    ap.add_argument("--fixed-base", default="20", help="log2 sizes of the G1 and G2 fixed-base products ('' for none)")
    ap.add_argument("--windows", default="", help="also time the G1 MSMs at these window widths (comma-separated)")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--budget", type=float, default=1e9, help="skip sizes not started within this many seconds")
    args = ap.parse_args(argv)

    import cupy as cp

    from cuzk.backend.cuda import CUDABackend
    from cuzk.memory import MemorySampler

    sampler = MemorySampler().start()

    props = cp.cuda.runtime.getDeviceProperties(0)
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    out = {
        "device": name,
        "cupy": getattr(cp, "__version__", "?"),
        "python": platform.python_version(),
        "date": time.strftime("%Y-%m-%d"),
        "peaks": {"fr_mul_per_s": PEAK_FR_MUL, "fq_mul_per_s": PEAK_FQ_MUL},
        "ntt": {},
        "msm_g1": {},
        "msm_g2": {},
        "fixed_base": {},
    }

    def write():
        out["gpu_pool_peak_bytes"] = max(
            [r["gpu_pool_bytes"] for sec in ("ntt", "msm_g1", "msm_g2", "fixed_base") for r in out[sec].values()] + [0]
        )
        out["rss_peak_bytes"] = _rss_peak()
        if args.json:
            with open(args.json, "w") as f:
                f.write(json.dumps(out, indent=2) + "\n")

    skipped = []
    with CUDABackend() as be:
        t0 = time.perf_counter()
        be.ntt(_rand_device(cp, 1 << 10))
        cp.cuda.Stream.null.synchronize()
        out["compile_ntt_seconds"] = time.perf_counter() - t0
        log(f"ntt module ready in {out['compile_ntt_seconds']:.1f} s")
        for logn in [int(v) for v in args.ntt.split(",") if v]:
            if time.perf_counter() - _T0 > args.budget:
                skipped.append(f"ntt 2^{logn}")
                continue
            r = bench_ntt(be, cp, logn, args.reps)
            out["ntt"][str(logn)] = r
            log(f"NTT 2^{logn}: fwd {r['seconds_forward'] * 1e3:.3f} ms, inv {r['seconds_inverse'] * 1e3:.3f} ms, "
                  f"coset {r['seconds_coset_forward'] * 1e3:.3f} ms, {r['fr_mults_per_s']:.3g} Fr-mul/s "
                  f"({100 * r['fraction_of_peak']:.1f}% of peak)"
                  + (f", {r['ratio_vs_sppark']:.2f}x sppark" if "ratio_vs_sppark" in r else "")
                  + f", roundtrip {'ok' if r['roundtrip_ok'] else 'FAILED'}")
            write()
        for logn in [int(v) for v in args.msm.split(",") if v]:
            if time.perf_counter() - _T0 > args.budget:
                skipped.append(f"msm 2^{logn}")
                continue
            r = bench_msm(be, cp, logn, max(3, args.reps // 3), windows=[int(v) for v in args.windows.split(",") if v])
            out["msm_g1"][str(logn)] = r
            log(f"G1 MSM 2^{logn}: {r['seconds'] * 1e3:.2f} ms (c={r['window_bits']}), "
                  f"{100 * r['fraction_of_peak']:.1f}% of Fq-mul peak"
                  + (f", {r['ratio_vs_sppark']:.2f}x sppark" if "ratio_vs_sppark" in r else "")
                  + f", linearity {'ok' if r['linearity_ok'] else 'FAILED'}" + _mem_note(r))
            write()
        for logn in [int(v) for v in args.msm_g2.split(",") if v]:
            if time.perf_counter() - _T0 > args.budget:
                skipped.append(f"msm-g2 2^{logn}")
                continue
            r = bench_msm(be, cp, logn, max(3, args.reps // 3), "G2")
            out["msm_g2"][str(logn)] = r
            log(f"G2 MSM 2^{logn}: {r['seconds'] * 1e3:.2f} ms (c={r['window_bits']}), "
                  f"{100 * r['fraction_of_peak']:.1f}% of Fq-mul peak, linearity {'ok' if r['linearity_ok'] else 'FAILED'}"
                + _mem_note(r))
            write()
        for logn in [int(v) for v in args.fixed_base.split(",") if v]:
            for gname in ("G1", "G2"):
                if time.perf_counter() - _T0 > args.budget:
                    skipped.append(f"fixed-base {gname} 2^{logn}")
                    continue
                r = bench_fixed_base(be, cp, logn, gname)
                out["fixed_base"][f"{gname}:{logn}"] = r
                log(f"fixed-base {gname} 2^{logn}: {r['seconds']:.2f} s host ints -> host bytes, "
                    f"{100 * r['fraction_of_peak']:.1f}% of Fq-mul peak, spot check {'ok' if r['spot_check_ok'] else 'FAILED'}"
                    + _mem_note(r))
                write()
    mem = sampler.stop()
    out["skipped_over_budget"] = skipped
    out["sampler"] = {"rss_peak_bytes": mem.rss_peak_bytes, "rss_avg_bytes": mem.rss_avg_bytes,
                      "gpu_peak_bytes": mem.gpu_peak_bytes, "seconds": mem.seconds}
    write()
    gib = float(1 << 30)
    log(f"peak host RSS {max(out['rss_peak_bytes'], mem.rss_peak_bytes) / gib:.2f} GiB, peak GPU memory "
        f"(CuPy pool) {max(out['gpu_pool_peak_bytes'], mem.gpu_peak_bytes or 0) / gib:.2f} GiB")
    ok = (all(r["roundtrip_ok"] for r in out["ntt"].values())
          and all(r["linearity_ok"] for sec in ("msm_g1", "msm_g2") for r in out[sec].values())
          and all(r["spot_check_ok"] for r in out["fixed_base"].values()))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
