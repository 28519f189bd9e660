"""Phases of mostly-bit MSMs on the cuda backend (issue 17: the A, B and L MSMs of a 32 GiB
partition take about 0.1 s each on the H200, against 0.92 s for H's 2^27 random scalars).

Usage: python benchmarks/msm_bits/profile.py OUT.json [LOG_G1=27] [LOG_G2=25]

For G1 at 2^LOG_G1 and G2 at 2^LOG_G2 points (distinct bases made on the device as the kernel
benchmark does), scalars on the device in Montgomery form: "random" (H-like), "bits" (half 0,
half 1: a PoRep witness's SHA-256 bits) and "mixed" (50% 0, 48% 1, 2% random: L-like). Per
distribution: the median wall seconds of 3 MSMs, one profiled run's phases (``msm_device``'s
prep, sort, buckets, reduce, ones, host_combine) and, timed apart, the scalar preparation with
the count that picks the window width (``_scalars_device``, its ``busy``). Each distribution's result is checked for linearity
(MSM(s) + MSM(t) = MSM(s + t)) before it is timed.
"""

import json
import statistics
import sys
import time

import cupy as cp

from cuzk.backend.cuda import CUDABackend, CUDAMSMContext
from cuzk.bench.kernels import _rand_device, device_bases
from cuzk.curve import G1, G2
from cuzk.field import FR

R = FR.modulus
MONT_ONE = [((1 << 256) % R >> (64 * i)) & (2**64 - 1) for i in range(4)]


def scalars(kind, n, seed):
    rs = cp.random.RandomState(seed)
    if kind == "random":
        return _rand_device(n)
    u = rs.random_sample(n)
    out = cp.zeros((n, 4), dtype=cp.uint64)
    ones = u < (0.5 if kind == "bits" else 0.48)
    out[ones] = cp.asarray(MONT_ONE, dtype=cp.uint64)
    if kind == "mixed":
        wide = u > 0.98
        out[wide] = _rand_device(int(wide.sum()))
    return out


def main():
    out_path = sys.argv[1]
    logs = {G1: int(sys.argv[2]) if len(sys.argv) > 2 else 27, G2: int(sys.argv[3]) if len(sys.argv) > 3 else 25}
    be = CUDABackend()
    rows = []
    for group, k in logs.items():
        n = 1 << k
        t0 = time.perf_counter()
        ctx = CUDAMSMContext.from_device_affine(be, device_bases(be, group, n), group)
        cp.cuda.Stream.null.synchronize()
        print(f"{group.name} 2^{k}: bases in {time.perf_counter() - t0:.1f} s", flush=True)
        for kind in ("random", "bits", "mixed"):
            s, t = scalars(kind, n, 1), scalars(kind, n, 2)
            ok = ctx.msm(s) + ctx.msm(t) == ctx.msm(be.add(s, t))
            prof = {}
            ctx.msm(s, profile=prof)
            runs = []
            for _ in range(3):
                cp.cuda.Stream.null.synchronize()
                t1 = time.perf_counter()
                ctx.msm(s)
                runs.append(time.perf_counter() - t1)
            cp.cuda.Stream.null.synchronize()
            t1 = time.perf_counter()
            sc, _, busy = ctx._scalars_device(s)
            busy = int(busy[0])
            count_s = time.perf_counter() - t1
            del sc
            row = {"group": group.name, "log_n": k, "scalars": kind, "seconds": statistics.median(runs), "runs": runs,
                   "phases": prof, "busy": busy, "prep_and_count_seconds": count_s, "linearity_ok": bool(ok)}
            rows.append(row)
            print(f"  {kind}: {row['seconds'] * 1e3:.1f} ms, busy {busy}, count {count_s * 1e3:.1f} ms, "
                  + ", ".join(f"{a} {b * 1e3:.1f}" for a, b in prof.items()) + f", linearity {'ok' if ok else 'FAILED'}",
                  flush=True)
            del s, t
        ctx.close()
        cp.get_default_memory_pool().free_all_blocks()
    with open(out_path, "w") as f:
        json.dump({"device": "cuda", "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
