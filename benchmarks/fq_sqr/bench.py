"""G1 MSMs with ``ff.cuh``'s ``fp_sqr`` (Fq squares as their own function, ``fq.cuh``) against
squares as products (``msm.MSM_DEFINES = ("CUZK_FQ_SQR_MUL",)``, the code before), side by side
on the same device bases and scalars.

Usage: PYTHONPATH=src python benchmarks/fq_sqr/bench.py OUT.json [LOG_SIZES] [REPEAT]

LOG_SIZES (default "24,27"): per size, 2^k distinct device bases (``cuzk.bench.kernels.
device_bases``) and random scalars below 2^254; each build's MSM once untimed (compile, result),
then new / old / new / old rounds of REPEAT (default 3) timed MSMs (wall seconds, device idle
before each: ``timed_msm``). The two builds' results must be equal (exit status 1 otherwise); the
GPU tests compare the MSM itself with the CPU. Prints medians and the ratio; writes OUT.json with
every run, the GPU pool and host RSS peaks.
"""

import statistics
import sys

import cupy as cp

from cuzk.backend.cuda import CUDABackend, msm
from cuzk.backend.cuda.msm import CUDAMSMContext
from cuzk.bench.kernels import _rand_device, device_bases, timed_msm, write_rows
from cuzk.curve import G1

BUILDS = {"new": (), "old": ("CUZK_FQ_SQR_MUL",)}


def main():
    out = sys.argv[1]
    sizes = [int(v) for v in (sys.argv[2] if len(sys.argv) > 2 else "24,27").split(",")]
    repeat = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    be = CUDABackend()
    rows, ok = [], True
    for k in sizes:
        n = 1 << k
        bases = device_bases(be, G1, n)
        ctx = CUDAMSMContext.from_device_affine(be, bases, G1)
        s = _rand_device(n)
        res, runs = {}, {b: [] for b in BUILDS}
        for b, d in BUILDS.items():
            msm.MSM_DEFINES = d
            res[b] = ctx.msm(s)
        for _ in range(2):
            for b, d in BUILDS.items():
                msm.MSM_DEFINES = d
                runs[b] += [timed_msm(ctx, s) for _ in range(repeat)]
        msm.MSM_DEFINES = ()
        equal = res["new"] == res["old"]
        ok &= equal
        med = {b: statistics.median(r) for b, r in runs.items()}
        row = {"log_n": k, "seconds": med, "runs": runs, "equal": equal, "ratio_new_over_old": med["new"] / med["old"],
               "device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode()}
        rows.append(row)
        print(f"G1 msm 2^{k}: fp_sqr {med['new'] * 1e3:.1f} ms, squares as products {med['old'] * 1e3:.1f} ms, "
              f"ratio {row['ratio_new_over_old']:.3f}, equal {equal}", flush=True)
        ctx.close()
        del bases, s, ctx
        cp.get_default_memory_pool().free_all_blocks()
    write_rows(out, rows)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
