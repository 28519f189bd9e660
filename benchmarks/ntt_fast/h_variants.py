"""The fused H step (``compute_h``) at 2^k with the 2^k transforms run by each of several NTT pass
variants (``NAME`` of ``ntt.NTT_VARIANTS`` or ``NAME@B:T``: blocks of 2^B elements, at most T stages
a pass), side by side on the same a, b, c = a·b (a satisfied system), alternated, CUDA events, median
of ``--repeat``. Every variant's H must equal the first's limb for limb, and the first's must satisfy
H·Z = A·B − C on the coset (``cuzk.bench.kernels._h_ok``); else exit status 1. JSON to OUT.

Run (repository root; CuPy and a CUDA device):
    PYTHONPATH=src python3 benchmarks/ntt_fast/h_variants.py OUT.json --variants r4o3,r4o3-256 [--log 27] [--repeat 5]
"""

import argparse
import json
import statistics
import sys

import cupy as cp

from cuzk.backend.cuda import CUDABackend
from cuzk.backend.cuda import ntt as ntt_mod
from cuzk.bench.kernels import _h_ok, _rand_device, _rss_peak, _time_events, ntt_variant

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--variants", type=lambda t: t.split(","), required=True)
ap.add_argument("--log", type=int, default=27)
ap.add_argument("--repeat", type=int, default=5)
a = ap.parse_args()
for v in a.variants:
    ntt_variant(v)

k, n = a.log, 1 << a.log
b = CUDABackend()
x, y = _rand_device(n), _rand_device(n)
z = b.mul(x, y)
b.prepare_h(n)
res = {"device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), "log_n": k, "repeat": a.repeat,
       "variants": a.variants, "runs_s": {v: [] for v in a.variants}, "equal": {}, "schedule": {}}
ref = None
for v in a.variants:                      # untimed, checked
    ntt_mod.NTT_VARIANT_BY_LOG[k] = v
    h = b.compute_h(x, y, z, n)
    res["schedule"][v] = list(b.last_h_schedule)
    if ref is None:
        ref = h
        res["h_ok"] = _h_ok(b, x, y, z, h, n)
    res["equal"][v] = bool(cp.array_equal(h, ref))
    del h
for _ in range(a.repeat):                 # alternated
    for v in a.variants:
        ntt_mod.NTT_VARIANT_BY_LOG[k] = v
        res["runs_s"][v] += _time_events(lambda: b.compute_h(x, y, z, n), 1, warm=0)
res["median_s"] = {v: statistics.median(r) for v, r in res["runs_s"].items()}
res |= {"gpu_peak_bytes": int(b.gpu_peak_bytes), "host_rss_peak_bytes": _rss_peak()}
with open(a.out, "w") as fh:
    json.dump(res, fh, indent=1)
for v in a.variants:
    print(f"compute_h 2^{k} with {v}: {res['median_s'][v]:.4f} s (min {min(res['runs_s'][v]):.4f}), "
          f"equal {res['equal'][v]}, schedule {res['schedule'][v][0]}", flush=True)
print(f"H·Z = A·B − C {'ok' if res['h_ok'] else 'FAILED'}; peak GPU {res['gpu_peak_bytes'] / 2**30:.2f} GiB, "
      f"host RSS peak {res['host_rss_peak_bytes'] / 2**30:.2f} GiB; JSON {a.out}")
sys.exit(0 if res["h_ok"] and all(res["equal"].values()) else 1)
