"""The G1 MSM sorted ahead (``msm.OVERLAP_SORT``) with the windows after the first counted on the
sort stream beside the first window's bucket sums (``msm.HIST_AHEAD``, "hist_ahead") against all
windows counted before any sum starts ("hist_first"), side by side in one run (issue 17: at 2^27
the count took 22 ms of the 707 ms MSM on the H100, benchmarks/results/2026-12-06-stop51/call1).

Usage: python benchmarks/msm_sort/hist_ahead.py OUT.json [LOG_SIZES] [REPEAT] (defaults 24,26,27 / 7)

2^max distinct G1 bases on the device (``bench_bases``), random device scalars per size. Per size:
both modes' results checked equal (``alternated``: its profiled run sorts inline, so its phases
are the same path), then REPEAT runs of each, alternated (wall seconds around ``msm``). Writes
OUT.json.
"""

import sys

import cuzk.backend.cuda.msm as cb
from cuzk.backend import get_backend
from cuzk.bench.kernels import alternated, bench_bases, mode_rows, msm_cases, write_rows
from cuzk.curve import G1


def main():
    path = sys.argv[1]
    logs = [int(x) for x in (sys.argv[2] if len(sys.argv) > 2 else "24,26,27").split(",")]
    repeat = int(sys.argv[3]) if len(sys.argv) > 3 else 7
    be = get_backend("cuda")
    bases = bench_bases(be, G1, max(logs))
    default = cb.HIST_AHEAD
    modes = {"hist_first": lambda: setattr(cb, "HIST_AHEAD", False), "hist_ahead": lambda: setattr(cb, "HIST_AHEAD", True)}
    rows = []
    try:
        for _mode, k, ctx, s in msm_cases(be, G1, bases, (("plain", logs),)):
            info = alternated(ctx, s, modes, repeat)
            for mode in modes:   # each mode's sum, sorted ahead, against the profiled (inline) one
                modes[mode]()
                info[mode]["equal"] = info[mode]["equal"] and ctx.msm(s) == ctx.msm(s, profile={})
            rows += mode_rows(info, "hist_first", f"G1 2^{k}", log_n=k)
    finally:
        cb.HIST_AHEAD = default
    write_rows(path, rows)


if __name__ == "__main__":
    main()
