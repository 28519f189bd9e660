"""The G1 MSM with the next window's sort on a side stream (``msm.OVERLAP_SORT``) against the sort
inline, side by side in one run (issue 17: at 2^27 the scatter took 94 of 864 ms before the
bucket sums, benchmarks/results/2026-12-04-h200-stop36/call2).

Usage: python benchmarks/msm_sort/ahead.py OUT.json [LOG_SIZES] [REPEAT]

2^max distinct G1 bases on the device (``device_bases``; smaller sizes use a prefix), random
device scalars per size, and at the largest size also mostly-bit scalars (98 % 0 or 1, as the
A and L queries' MSMs; one scatter launch, so the same path either way). Per size and case: the
two results checked equal first, then REPEAT runs of each, alternated (wall seconds around
``msm``, the device idle before each); the profiled phases of the inline run (prep, hist, sort,
buckets, reduce, ones). Prints a line per case; writes OUT.json with the host RSS peak and the GPU
pool's bytes at the end. Restores the default table (msm.OVERLAP_SORT) after each case.
"""

import statistics
import sys

import cupy as cp

import cuzk.backend.cuda.msm as cb
from cuzk.backend import get_backend
from cuzk.backend.cuda import CUDAMSMContext
from cuzk.bench.kernels import _rand_device, bench_bases, timed_msm, write_rows
from cuzk.curve import G1


def mostly_bits(n: int):
    """(n, 4) uint64 Montgomery-form device scalars: 2 % random, the rest 0 or 1 (device Fr is kept
    in Montgomery form: 1 is R mod r, made by the backend's conversion of canonical ones)."""
    s = _rand_device(n)
    u = cp.random.random(n)
    s[u >= 0.02] = 0
    return s, u


def main():
    path = sys.argv[1]
    logs = [int(x) for x in (sys.argv[2] if len(sys.argv) > 2 else "20,22,24,26,27").split(",")]
    repeat = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    be = get_backend("cuda")
    default = dict(cb.OVERLAP_SORT)
    # ahead at every size (stop 39's call 2 took the default table: below 2^24 both modes ran inline)
    on = {g: (1 if g == "G1" else 0) for g in default}
    off = {g: 0 for g in on}
    bases = bench_bases(be, G1, max(logs))
    rows = []
    for k in logs:
        n = 1 << k
        ctx = CUDAMSMContext.from_device_affine(be, bases[:n], G1)
        cases = [("random", _rand_device(n))]
        if k == max(logs):
            ones = be.to_device([1] * 1)   # Montgomery 1 as the backend stores it
            s, u = mostly_bits(n)
            s = cp.where((u >= 0.51)[:, None], ones[0][None, :], s)
            cases.append(("mostly bits", s))
        for name, s in cases:
            cb.OVERLAP_SORT.update(off)
            want = ctx.msm(s)
            prof: dict = {}
            ctx.msm(s, profile=prof)
            cb.OVERLAP_SORT.update(on)
            equal = ctx.msm(s) == want
            runs = {"ahead": [], "inline": []}
            for _ in range(repeat):
                for mode, table in (("ahead", on), ("inline", off)):
                    cb.OVERLAP_SORT.update(table)
                    runs[mode].append(timed_msm(ctx, s))
            cb.OVERLAP_SORT.update(default)
            med = {m: statistics.median(v) for m, v in runs.items()}
            row = {"log_n": k, "case": name, "equal": bool(equal), "runs": runs, "median_s": med,
                   "ratio_ahead_over_inline": med["ahead"] / med["inline"], "inline_phases_profiled": prof}
            rows.append(row)
            print(f"G1 2^{k} {name}: ahead {med['ahead'] * 1e3:.1f} ms, inline {med['inline'] * 1e3:.1f} ms "
                  f"({row['ratio_ahead_over_inline']:.3f}); inline phases "
                  f"{ {p: round(v * 1e3, 1) for p, v in prof.items()} } ms; equal {equal}", flush=True)
        ctx.close()
        del cases
    write_rows(path, rows)


if __name__ == "__main__":
    main()
