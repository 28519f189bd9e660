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

import statistics
import sys

import cuzk.backend.cuda.msm as cb
from cuzk.backend import get_backend
from cuzk.backend.cuda import CUDAMSMContext
from cuzk.bench.kernels import _rand_device, bench_bases, timed_msm, write_rows
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
    for mode, logs in (("shifted", shifted), ("plain", plain)):
        for k in logs:
            ctx = CUDAMSMContext.from_device_affine(be, bases[: 1 << k], G1)
            if mode == "shifted" and not ctx.shift():
                print(f"G1 2^{k}: the table does not fit", flush=True)
                ctx.close()
                continue
            s = _rand_device(1 << k)
            info, runs = {}, {f: [] for f in firsts}
            try:
                cb.SEG_FIRST = 4
                want = ctx.msm(s)
                for f in firsts:
                    cb.SEG_FIRST = f
                    prof: dict = {}
                    info[f] = {"equal": bool(ctx.msm(s, profile=prof) == want), "phases": prof}
                for _ in range(repeat):
                    for f in firsts:
                        cb.SEG_FIRST = f
                        runs[f].append(timed_msm(ctx, s))
            finally:
                cb.SEG_FIRST = default
            base = statistics.median(runs[firsts[0]])
            for f in firsts:
                med = statistics.median(runs[f])
                rows.append({"log_n": k, "mode": mode, "seg_first": f, "runs": runs[f], "median_s": med,
                             "ratio": med / base, **info[f]})
                print(f"G1 2^{k} {mode} SEG_FIRST={f}: {med * 1e3:.2f} ms ({med / base:.3f}); reduce "
                      f"{info[f]['phases'].get('reduce', 0) * 1e3:.2f} ms; equal {info[f]['equal']}", flush=True)
            ctx.close()
            del s
    write_rows(path, rows)


if __name__ == "__main__":
    main()
