"""The MSM's window reduction (``msm_seg_reduce`` levels) with a longer first level
(``msm.SEG_FIRST`` buckets a thread) side by side in one run: G1, over shifted bases (one set of
2^(c−1) buckets: 2^21 at c = 22, whose reduction took 5.0 ms of the 100 at 2^24 on the H100) and
plain (W sets at ``msm_window``'s width).

Usage: python benchmarks/msm_shift/reduce.py OUT.json [SHIFTED_LOGS] [PLAIN_LOGS] [REPEAT] [FIRSTS]
(defaults 24,25 / 24,27 / 5 / 4,8,16,32)

2^max distinct G1 bases on the device (``bench_bases``), random device scalars per size. Per
size and mode: each SEG_FIRST's result checked equal to SEG_FIRST = 4's with its profiled phases,
then REPEAT runs of each, alternated (wall seconds around ``msm``). Writes OUT.json.
"""

import sys

import cuzk.backend.cuda.msm as cb
from cuzk.backend import get_backend
from cuzk.bench.kernels import alternated, bench_bases, mode_rows, msm_cases, write_rows
from cuzk.curve import G1


def ints(i: int, default: str) -> list:
    return [int(x) for x in (sys.argv[i] if len(sys.argv) > i else default).split(",") if x]


def main():
    path = sys.argv[1]
    shifted, plain = ints(2, "24,25"), ints(3, "24,27")
    repeat = ints(4, "5")[0]
    firsts = ints(5, "4,8,16,32")
    be = get_backend("cuda")
    default = cb.SEG_FIRST
    bases = bench_bases(be, G1, max(shifted + plain))
    rows = []
    for mode, k, ctx, s in msm_cases(be, G1, bases, (("shifted", shifted), ("plain", plain))):
        try:
            cb.SEG_FIRST = 4
            want = ctx.msm(s)
            info = alternated(ctx, s, {f: (lambda f=f: setattr(cb, "SEG_FIRST", f)) for f in firsts}, repeat, want)
        finally:
            cb.SEG_FIRST = default
        rows += mode_rows(info, firsts[0], f"G1 2^{k} {mode}", key="seg_first", log_n=k, mode=mode)
    write_rows(path, rows)


if __name__ == "__main__":
    main()
