"""The cuda kernels built from this checkout's sources against the same kernels built from another
directory of sources (``--src DIR``: the sources before a change), one process per build; run.sh
alternates them and compares. Made for ``ff.cuh``'s Montgomery product with the frame-shifted rows
(issue 17: the NTT, the fused H step and the MSMs are integer-pipe bound).

Per process: the NTT (``CUDABackend._ntt``, natural order, the default pass variant per size) on
seeded random elements, single transforms (median of ``--repeat``) and ``--loop`` back to back;
the fused H step (``bench_kernels("compute-h")``: its H·Z = A·B − C check); G1 MSMs on device bases
and seeded scalars (median of ``--repeat``); the Poseidon witness kernel on seeded inputs (with
their upload). Every
output's SHA-256 goes into the JSON, so run.sh can require the two builds to agree byte for byte.
Prints the times, peak host RSS and peak GPU pool; writes OUT.json.

Run (repository root, CuPy and a CUDA device): benchmarks/ff_rows/run.sh OUTDIR OLD_SRC_DIR
"""

import argparse
import hashlib
import json
import resource
import statistics
import time

import cupy as cp
import numpy as np

from cuzk.backend.cuda import runtime

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--src", help="directory of the .cu/.cuh sources to build instead of the package's")
ap.add_argument("--ntt", default="16,20,24,27")
ap.add_argument("--h", default="27")
ap.add_argument("--msm", default="24,27")
ap.add_argument("--repeat", type=int, default=5)
ap.add_argument("--loop", type=int, default=10)
ap.add_argument("--msm-options", default="", help="extra compiler options of msm.cu for G1 (e.g. -DMSM_INLINE_FQ)")
ap.add_argument("--no-poseidon", action="store_true")
a = ap.parse_args()
if a.src:
    runtime._SRC_DIR = a.src   # before any module is compiled: every kernel from those sources
if a.msm_options:
    runtime._MSM_OPTIONS["G1"] = tuple(a.msm_options.split())

from cuzk.backend.cuda import CUDABackend, CUDAMSMContext  # noqa: E402
from cuzk.bench.kernels import _time_events, bench_kernels, device_bases, seeded_device  # noqa: E402
from cuzk.curve import G1  # noqa: E402

def digest(x) -> str:
    return hashlib.sha256(cp.asnumpy(x).tobytes()).hexdigest()


def events(fn, repeat: int) -> list[float]:
    """ms of ``repeat`` calls of fn by CUDA events (``cuzk.bench.kernels._time_events``)."""
    return [t * 1e3 for t in _time_events(fn, repeat, warm=0)]


res = {"src": a.src or "package", "msm_options": a.msm_options, "device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(),
       "ntt": {}, "compute_h": {}, "msm_g1": {}, "poseidon": {}}
b = CUDABackend()
pool = cp.get_default_memory_pool()
pool_peak = 0
t0 = time.perf_counter()
for k in [int(v) for v in a.ntt.split(",") if v]:
    n = 1 << k
    x = seeded_device(n, 1000 + k)
    out, tmp = cp.empty_like(x), cp.empty_like(x)
    b._ntt(x, False, out=out, tmp=tmp)   # compiles on first use
    d = digest(out)
    single = events(lambda x=x, out=out, tmp=tmp: b._ntt(x, False, out=out, tmp=tmp), a.repeat)
    loop = events(lambda x=x, out=out, tmp=tmp: [b._ntt(x, False, out=out, tmp=tmp) for _ in range(a.loop)], 3)
    res["ntt"][str(k)] = {"single_ms": statistics.median(single), "loop_ms_per": min(loop) / a.loop, "sha256": d}
    pool_peak = max(pool_peak, pool.total_bytes())
    print(f"ntt 2^{k}: single {statistics.median(single):.3f} ms, back to back {min(loop) / a.loop:.3f} ms", flush=True)
    del x, out, tmp
    pool.free_all_blocks()
for k in [int(v) for v in a.h.split(",") if v]:
    row = bench_kernels("compute-h", [k], backend="cuda", repeat=a.repeat)["sizes"][0]
    res["compute_h"][str(k)] = {"seconds": row["seconds"], "h_ok": row["h_ok"]}
    pool.free_all_blocks()
for k in [int(v) for v in a.msm.split(",") if v]:
    n = 1 << k
    bases = device_bases(b, G1, n)
    ctx = CUDAMSMContext.from_device_affine(b, bases, G1)
    s = seeded_device(n, 2000 + k)
    s[:, 3] &= cp.uint64((1 << 58) - 1)   # < r
    want = ctx.msm(s)
    runs = []
    for _ in range(a.repeat):
        cp.cuda.Stream.null.synchronize()
        t1 = time.perf_counter()
        got = ctx.msm(s)
        runs.append(time.perf_counter() - t1)
    pool_peak = max(pool_peak, pool.total_bytes())
    res["msm_g1"][str(k)] = {"seconds": statistics.median(runs), "runs": runs, "stable": got == want,
                             "sha256": hashlib.sha256(repr(want).encode()).hexdigest()}
    print(f"G1 msm 2^{k}: {statistics.median(runs) * 1e3:.2f} ms", flush=True)
    ctx.close()
    del bases, ctx, s
    pool.free_all_blocks()
# the Poseidon witness kernel (host inputs uploaded in the call): 234,900 arity-8 hashes, as stop 45
# timed it; tests/test_poseidon_gpu.py checks the kernel against the CPU path
from cuzk.backend.cuda import poseidon as pgpu  # noqa: E402

m = 0 if a.no_poseidon else 234_900
rng = np.random.default_rng(3000)
inp = rng.integers(0, 2**64, size=(m, 8, 4), dtype=np.uint64)
inp[..., 3] &= np.uint64((1 << 60) - 1)   # < r
if m:
    outp = pgpu.legacy_limbs_device(inp, 8, 255, "standard")
    cp.cuda.Device().synchronize()
    runs = events(lambda: pgpu.legacy_limbs_device(inp, 8, 255, "standard"), a.repeat)
    res["poseidon"] = {"hashes": m, "ms": statistics.median(runs), "sha256": digest(outp)}
    print(f"poseidon kernel with its upload, {m} arity-8 hashes: {statistics.median(runs):.2f} ms", flush=True)
res["pool_peak_bytes"] = int(pool_peak)
res["rss_peak_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
res["seconds"] = time.perf_counter() - t0
print(f"peak RSS {res['rss_peak_bytes'] / 2**30:.2f} GiB, peak GPU pool {pool_peak / 2**30:.2f} GiB", flush=True)
with open(a.out, "w") as fh:
    json.dump(res, fh, indent=1, default=lambda v: bool(v) if isinstance(v, np.bool_) else str(v))
