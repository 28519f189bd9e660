"""The G1 MSM's bucket sums with batch-affine pair levels first (``msm.AFFINE``, ``msm_affine.cuh``)
against the XYZZ sums alone, side by side in one run (issue 17: the 2^27 H MSM's bucket sums took
731 of 799 ms, benchmarks/results/2026-12-04-h200-stop39/call2).

Usage: python benchmarks/msm_affine/affine.py OUT.json [LOG_SIZES] [REPEAT]

2^max distinct G1 bases on the device (``device_bases``; smaller sizes use a prefix), random device
scalars per size. Modes: "xyzz" (AFFINE off) and "affine K/T" for each (slots per thread
``plan.AFFINE_K``, fewest threads per level ``plan.AFFINE_MIN_THREADS``) in CONFIGS. Per size:
every mode's result checked equal to xyzz's first, with its profiled phases (prep, hist, sort,
buckets, reduce, ones) and the GPU pool's bytes after it; then REPEAT runs of each mode, alternated
(wall seconds around ``msm``, the device idle before each; the sort ahead as by default). Prints a
line per mode; writes OUT.json with the host RSS peak. Restores the defaults after each size.
"""

import sys

import cuzk.backend.cuda.msm as cb
import cuzk.backend.cuda.plan as cplan
from cuzk.backend import get_backend
from cuzk.backend.cuda import CUDAMSMContext
from cuzk.bench.kernels import _rand_device, alternated, bench_bases, mode_rows, write_rows
from cuzk.curve import G1

CONFIGS = [(512, 1 << 15), (512, 1 << 14), (1024, 1 << 13)]


def setmode(mode):
    if mode == "xyzz":
        cb.AFFINE["G1"] = 0
        return
    cb.AFFINE["G1"] = 1
    cplan.AFFINE_K, cplan.AFFINE_MIN_THREADS = mode


def name(mode) -> str:
    return mode if mode == "xyzz" else f"affine {mode[0]}/{mode[1]}"


def main():
    path = sys.argv[1]
    logs = [int(x) for x in (sys.argv[2] if len(sys.argv) > 2 else "20,22,24,26,27").split(",")]
    repeat = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    be = get_backend("cuda")
    defaults = (dict(cb.AFFINE), cplan.AFFINE_K, cplan.AFFINE_MIN_THREADS)
    modes = ["xyzz"] + CONFIGS
    bases = bench_bases(be, G1, max(logs))
    rows = []
    for k in logs:
        n = 1 << k
        ctx = CUDAMSMContext.from_device_affine(be, bases[:n], G1)
        s = _rand_device(n)
        setmode("xyzz")
        want = ctx.msm(s)
        try:
            info = alternated(ctx, s, {name(m): (lambda m=m: setmode(m)) for m in modes}, repeat, want)
        finally:
            cb.AFFINE.clear(); cb.AFFINE.update(defaults[0])
            cplan.AFFINE_K, cplan.AFFINE_MIN_THREADS = defaults[1:]
        rows += mode_rows(info, "xyzz", f"G1 2^{k}", log_n=k)
        ctx.close()
        del s
    write_rows(path, rows)


if __name__ == "__main__":
    main()
