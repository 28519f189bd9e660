"""The MSM's counting sort by windows per launch (issue 17: the sort is 169 ms of the 919 ms G1
MSM of 2^27 random scalars on the H200, its bucket-tail writes spread over W·2^(c−1) buckets).

Usage: python benchmarks/msm_sort/scatter.py OUT.json [G1:27,G1:24,G2:25] [0,1,2,1:22]

For each group:log2(n) (distinct device bases as the kernel benchmark makes them; random scalars on
the device, Montgomery form) and each SCATTER[:C] entry, windows per scatter launch
(``msm.SCATTER_WINDOWS``; 0 = all W windows in one launch, the stop-35 kernel) and the window
width (default ``msm_window``): the MSM first checked equal to the first entry's, then one
profiled run's phases (``msm_device``: prep, hist, sort, buckets, reduce, ones) and the median
wall seconds of 3 runs. Prints a line per run and the peaks; writes OUT.json (rows, peak host
RSS, peak GPU pool bytes). Call2 of benchmarks/results/2026-12-04-h200-stop36 ran the first
version (HIST:SCATTER[:C] entries, commit 8025c3d).
"""

import json
import resource
import statistics
import sys
import time

import cupy as cp

import cuzk.backend.cuda.msm as cm
from cuzk.backend.cuda import CUDABackend, CUDAMSMContext
from cuzk.bench.kernels import _rand_device, device_bases
from cuzk.curve import G1, G2


def main():
    out_path = sys.argv[1]
    sizes = [(G1 if g == "G1" else G2, int(k)) for g, k in
             (s.split(":") for s in (sys.argv[2] if len(sys.argv) > 2 else "G1:27,G1:24,G2:25").split(","))]
    entries = [tuple(int(v) for v in p.split(":")) for p in (sys.argv[3] if len(sys.argv) > 3 else "0,1,2").split(",")]
    entries = [e if len(e) == 2 else e + (None,) for e in entries]
    be = CUDABackend()
    pool = cp.get_default_memory_pool()
    rows, pool_peak = [], 0
    for group, k in sizes:
        n = 1 << k
        ctx = CUDAMSMContext.from_device_affine(be, device_bases(be, group, n), group)
        s = _rand_device(n)
        ref = None
        for scatter, c in entries:
            cm.SCATTER_WINDOWS = scatter
            got = ctx.msm(s, c=c)
            ref = got if ref is None else ref
            prof = {}
            ctx.msm(s, profile=prof, c=c)
            runs = []
            for _ in range(3):
                cp.cuda.Stream.null.synchronize()
                t = time.perf_counter()
                ctx.msm(s, c=c)
                runs.append(time.perf_counter() - t)
            pool_peak = max(pool_peak, pool.total_bytes())
            row = {"group": group.name, "log_n": k, "scatter_windows": scatter, "c": c,
                   "seconds": statistics.median(runs), "runs": runs, "phases": prof, "equal": bool(got == ref)}
            rows.append(row)
            print(f"{group.name} 2^{k} scatter {scatter} c {c or 'default'}: {row['seconds'] * 1e3:.1f} ms, "
                  + ", ".join(f"{a} {b * 1e3:.1f}" for a, b in prof.items())
                  + f", {'equal' if row['equal'] else 'DIFFERENT'}", flush=True)
        ctx.close()
        del s
        pool.free_all_blocks()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(f"peak RSS {rss / 2**30:.2f} GiB, peak GPU pool {pool_peak / 2**30:.2f} GiB")
    with open(out_path, "w") as f:
        json.dump({"device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), "rows": rows,
                   "rss_peak_bytes": rss, "gpu_pool_peak_bytes": pool_peak}, f, indent=1)


if __name__ == "__main__":
    main()
