"""The sort of an MSM over shifted bases in one level (``msm_scatter``) against two
(``msm_scatter_coarse`` + ``msm_scatter_fine``), side by side on the same bases, table and scalars
(``msm.SHIFT_TWO_LEVEL_FROM`` switched between runs, alternated), with the plain MSM (no table) of
the same scalars as the reference: every result must be equal (else exit status 1). Per size and
width: median wall ms of ``--repeat`` runs each, a profiled run's phases (the device synchronized
after each), the table's bytes; peak GPU pool bytes and host RSS at the end. JSON to OUT.

Run (repository root; CuPy and a CUDA device):
    PYTHONPATH=src python3 benchmarks/msm_shift/two_level.py OUT.json [--log-sizes 22,24] [--widths 20,22] [--repeat 5]
"""

import argparse
import json
import statistics
import sys

import cupy as cp

import cuzk.backend.cuda.msm as cm
from cuzk.backend.cuda import CUDABackend, CUDAMSMContext
from cuzk.bench.kernels import _free_pool, _pool_bytes, _rand_device, _rss_peak, _timed_runs, device_bases
from cuzk.curve import G1

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--log-sizes", type=lambda t: [int(v) for v in t.split(",")], default=[22, 24])
ap.add_argument("--widths", type=lambda t: [int(v) for v in t.split(",")], default=[20, 22])
ap.add_argument("--repeat", type=int, default=5)
a = ap.parse_args()

be = CUDABackend()
res = {"device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), "repeat": a.repeat, "rows": []}
LEVELS = {"one": 1 << 40, "two": cm.SHIFT_TWO_LEVEL_FROM}
bad = 0
for k in a.log_sizes:
    n = 1 << k
    bases = device_bases(be, G1, n)
    s = _rand_device(n)
    plain = CUDAMSMContext.from_device_affine(be, bases, G1)
    want = plain.msm(s)
    plain_runs = _timed_runs(plain, s, a.repeat)
    plain.close()
    for c in a.widths:
        ctx = CUDAMSMContext.from_device_affine(be, bases, G1)
        if not ctx.shift(c):
            res["rows"].append({"log_n": k, "c": c, "built": False})
            continue
        row = {"log_n": k, "c": c, "built": True, "table_bytes": int(ctx._table.nbytes),
               "plain_ms": 1e3 * statistics.median(plain_runs), "ms": {}, "runs_ms": {}, "phases": {}, "equal": {}}
        runs = {name: [] for name in LEVELS}
        for name, lim in LEVELS.items():          # untimed, checked
            cm.SHIFT_TWO_LEVEL_FROM = lim
            row["equal"][name] = bool(ctx.msm(s) == want)
            bad += not row["equal"][name]
        for _ in range(a.repeat):                 # alternated
            for name, lim in LEVELS.items():
                cm.SHIFT_TWO_LEVEL_FROM = lim
                runs[name] += _timed_runs(ctx, s, 1)
        for name, lim in LEVELS.items():
            cm.SHIFT_TWO_LEVEL_FROM = lim
            prof: dict = {}
            ctx.msm(s, profile=prof)
            row["phases"][name] = prof
            row["runs_ms"][name] = [1e3 * t for t in runs[name]]
            row["ms"][name] = 1e3 * statistics.median(runs[name])
        cm.SHIFT_TWO_LEVEL_FROM = LEVELS["two"]
        res["rows"].append(row)
        print(f"2^{k} c={c}: plain {row['plain_ms']:.2f} ms, shifted one-level {row['ms']['one']:.2f} ms "
              f"(sort {1e3 * row['phases']['one']['sort']:.1f}), two-level {row['ms']['two']:.2f} ms "
              f"(sort {1e3 * row['phases']['two']['sort-bins']:.1f} + {1e3 * row['phases']['two']['sort']:.1f}), "
              f"equal {row['equal']}", flush=True)
        ctx.close()
        _free_pool()
    del bases, s
    _free_pool()
res |= {"gpu_pool_bytes_end": _pool_bytes(), "gpu_peak_bytes": int(be.gpu_peak_bytes or 0), "host_rss_peak_bytes": _rss_peak()}
with open(a.out, "w") as fh:
    json.dump(res, fh, indent=1)
print(f"peak GPU {res['gpu_peak_bytes'] / 2**30:.2f} GiB, host RSS peak {res['host_rss_peak_bytes'] / 2**30:.2f} GiB; JSON {a.out}")
sys.exit(1 if bad else 0)
