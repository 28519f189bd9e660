"""The sort of an MSM over shifted bases (one bucket set, ``CUDAMSMContext.shift``): the counting
sort ("scatter", ``msm_scatter``) against a library radix sort of 64-bit keys ("sort64":
``msm_keys``, ``cupy.ndarray.sort``, ``msm_keys_vals``; ``plan.SORT64_FROM``), side by side in one run (issue
17: at 2^24, c = 22 the scatter took 18.6 ms of 105 on the H100, 13.2 of 100.7 on the H200).

Usage: python benchmarks/msm_shift/sort.py OUT.json [LOG_SIZES] [REPEAT] [C]

2^max distinct G1 bases on the device (``bench_bases``; smaller sizes use a prefix), random device
scalars per size, the table at width C (default ``plan.shift_window``). Per size: each mode's
result checked equal to the plain MSM's (the bases alone) with its profiled phases and the GPU
pool's bytes after it; then REPEAT runs of each mode, alternated (wall seconds around ``msm``, the
device idle before each). Prints a line per mode; writes OUT.json with the host RSS peak.
"""

import sys

import cuzk.backend.cuda.plan as cplan
from cuzk.backend import get_backend
from cuzk.backend.cuda import CUDAMSMContext
from cuzk.bench.kernels import _rand_device, alternated, bench_bases, mode_rows, write_rows
from cuzk.curve import G1

MODES = ("scatter", "sort64")


def main():
    path = sys.argv[1]
    logs = [int(x) for x in (sys.argv[2] if len(sys.argv) > 2 else "22,23,24,25").split(",")]
    repeat = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    width = int(sys.argv[4]) if len(sys.argv) > 4 else None
    be = get_backend("cuda")
    default = dict(cplan.SORT64_FROM)
    bases = bench_bases(be, G1, max(logs))
    rows = []
    for k in logs:
        n = 1 << k
        ctx = CUDAMSMContext.from_device_affine(be, bases[:n], G1)
        s = _rand_device(n)
        want = ctx.msm(s)                     # the bases alone
        if not ctx.shift(width):
            print(f"G1 2^{k}: the table does not fit", flush=True)
            ctx.close()
            continue
        modes = {m: (lambda m=m: cplan.SORT64_FROM.update(G1=1 if m == "sort64" else 0)) for m in MODES}
        try:
            info = alternated(ctx, s, modes, repeat, want)
        finally:
            cplan.SORT64_FROM.update(default)
        rows += mode_rows(info, "scatter", f"G1 2^{k} c={ctx.shift_c}", log_n=k, c=ctx.shift_c)
        ctx.close()
        del s
    write_rows(path, rows)


if __name__ == "__main__":
    main()
