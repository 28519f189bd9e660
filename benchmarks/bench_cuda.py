"""Benchmark the cuda backend's NTT and G1 MSM on the device; print a table and write JSON.

Data is generated on the device and already resident when timing starts; each figure is the
median of several runs after warm-up. NTT times come from CUDA events around the call; MSM times
are wall-clock around ``CUDAMSMContext.msm`` (GPU pipeline + the host's final window combination,
which includes one device synchronization). Each MSM size is also checked for linearity,
MSM(s) + MSM(t) == MSM(s + t), and each NTT size for the round trip iNTT(NTT(x)) == x.

Usage: python3 benchmarks/bench_cuda.py [--json OUT.json] [--ntt 20,24,26] [--msm 20,22,24]
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


def bench_msm(be, cp, logn: int, reps: int) -> dict:
    from cuzk.backend.cuda import CUDAMSMContext
    from cuzk.backend.cuda.backend import msm_window
    from cuzk.curve import G1
    from cuzk.field import FR

    n = 1 << logn
    pool = cp.get_default_memory_pool()
    pool.free_all_blocks()
    # distinct bases A_i + B_j from 1024 + n/1024 host points (chains of additions), summed on the GPU
    g = G1.generator()
    ga, gb = G1.mul(g, 0x1234567 * 2**200 + 99), G1.mul(g, 0x7654321 * 2**190 + 7)
    na, nb = 1024, max(1, n // 1024)
    log(f"msm 2^{logn}: generating bases")
    t0 = time.perf_counter()
    a_pts, acc = [], G1.mul(g, 5)
    for _ in range(na):
        a_pts.append(acc)
        acc = acc + ga
    b_pts, acc = [], G1.mul(g, 11)
    for _ in range(nb):
        b_pts.append(acc)
        acc = acc + gb
    bases = be.g1_sum_grid(be.g1_upload_affine(G1.to_array(a_pts)), be.g1_upload_affine(G1.to_array(b_pts)), n)
    cp.cuda.Stream.null.synchronize()
    gen_s = time.perf_counter() - t0
    log(f"msm 2^{logn}: bases in {gen_s:.2f} s")
    ctx = CUDAMSMContext.from_device_affine(be, bases)
    s, t = _rand_device(cp, n), _rand_device(cp, n)
    prof: dict = {}
    t1 = time.perf_counter()
    ctx.msm(s, profile=prof)
    log(f"msm 2^{logn}: first (profiled) run {time.perf_counter() - t1:.3f} s: "
        + ", ".join(f"{k} {v * 1e3:.2f} ms" for k, v in prof.items()))
    linear_ok = ctx.msm(s) + ctx.msm(t) == ctx.msm(be.add(s, t))
    log(f"msm 2^{logn}: linearity {'ok' if linear_ok else 'FAILED'}")
    prof = {}
    ctx.msm(s, profile=prof)
    runs = []
    for _ in range(reps):
        cp.cuda.Stream.null.synchronize()
        t1 = time.perf_counter()
        ctx.msm(s)
        runs.append(time.perf_counter() - t1)
    sec = statistics.median(runs)
    c = msm_window(n)
    W = -(-255 // c)
    nb_total = W << (c - 1)
    fq_mults = n * W * 10 + 2 * nb_total * 14   # mixed adds (8M+2S) into buckets + running sums (12M+2S)
    res = {
        "n": n,
        "seconds": sec,
        "runs": runs,
        "window_bits": c,
        "windows": W,
        "fq_mults_estimate": fq_mults,
        "fq_mults_per_s": fq_mults / sec,
        "fraction_of_peak": fq_mults / sec / PEAK_FQ_MUL,
        "linearity_ok": bool(linear_ok),
        "base_generation_seconds": gen_s,
        "phase_seconds_profiled_run": prof,
        "gpu_pool_bytes": _pool_bytes(cp),
    }
    if logn in SPPARK_MSM_S:
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
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--budget", type=float, default=1e9, help="skip sizes not started within this many seconds")
    args = ap.parse_args(argv)

    import cupy as cp

    from cuzk.backend.cuda import CUDABackend

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
    }
    def write():
        out["gpu_pool_peak_bytes"] = max(
            [r["gpu_pool_bytes"] for r in out["ntt"].values()]
            + [r["gpu_pool_bytes"] for r in out["msm_g1"].values()] + [0]
        )
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
            r = bench_msm(be, cp, logn, max(3, args.reps // 3))
            out["msm_g1"][str(logn)] = r
            log(f"G1 MSM 2^{logn}: {r['seconds'] * 1e3:.2f} ms (c={r['window_bits']}), "
                  f"{100 * r['fraction_of_peak']:.1f}% of Fq-mul peak"
                  + (f", {r['ratio_vs_sppark']:.2f}x sppark" if "ratio_vs_sppark" in r else "")
                  + f", linearity {'ok' if r['linearity_ok'] else 'FAILED'}")
            write()
    out["skipped_over_budget"] = skipped
    write()
    ok = all(r["roundtrip_ok"] for r in out["ntt"].values()) and all(r["linearity_ok"] for r in out["msm_g1"].values())
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
