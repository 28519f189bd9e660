"""Time the NTT pass variants (``cuzk.backend.cuda.ntt.NTT_VARIANTS``) against "old" on the device,
natural order in and out, sizes 2^16..2^27 by default.

Per size: random elements below 2^252 (valid Montgomery limbs) made on the device; "old"'s forward
NTT and its inverse with the n⁻¹ factor in the last pass are the references; each variant's two
outputs must equal them limb for limb (else exit status 1 after the table, with the mismatches
named in the JSON). Then each variant's forward NTT is timed with CUDA events, one launch sequence
at a time (``NTTOps._ntt`` into a preallocated output and pass buffer; twiddles cached), median of
``--repeat`` runs after one untimed run. A time budget (``--budget`` seconds of the whole run)
skips what no longer fits (named in the JSON's ``skipped``).

JSON: ``ms[variant][str(log2 n)]`` (median ms), ``runs_ms`` (every run), ``best`` (the fastest
variant per size, for ``ntt.NTT_VARIANT_BY_LOG``), ``mismatch``, ``plans``
(each variant's passes (s_hi, t, c) per size), ``gpu_peak_bytes`` (CuPy pool's largest total),
``gpu_used_peak_bytes`` (device memory in use, from cudaMemGetInfo), ``host_peak_rss_bytes``, the
device's name and the commit.

Run (repository root; CuPy and a CUDA device):
    benchmarks/ntt_fast/run.sh OUT.json [--log-sizes 16-27] [--variants old,r8,r4] [--repeat 7] [--budget 130]

A variant named ``NAME@B:T`` is variant NAME with blocks of 2^B elements and at most T stages per
pass before the last (its plan: ``_ntt_plan(k, B, T)``). ``--loop L`` also times L transforms
back to back between one pair of events (``loop_ms``: ms per transform), which leaves out the
host's launch overhead that a single timed transform pays. ``--graph L`` captures L transforms in
a CUDA graph (stream capture of the same launches) and times one replay (``graph_ms``: ms per
transform): the kernels back to back with no Python between them, as a C++ host would launch them.
"""

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time

import cupy as cp

from cuzk.backend.cuda import CUDABackend
from cuzk.backend.cuda import ntt as ntt_mod
from cuzk.backend.cuda.plan import _ntt_plan
from cuzk.bench.kernels import back_to_back, log_range, ntt_variant, seeded_device
from cuzk.field import FR


ap = argparse.ArgumentParser()
ap.add_argument("out", help="JSON path")
ap.add_argument("--log-sizes", type=log_range, default=list(range(16, 28)))
ap.add_argument("--variants", type=lambda t: t.split(","), default=list(ntt_mod.NTT_VARIANTS))
ap.add_argument("--repeat", type=int, default=7)
ap.add_argument("--budget", type=float, default=130.0, help="seconds for the whole run")
ap.add_argument("--loop", type=int, default=0, help="also time this many transforms back to back")
ap.add_argument("--graph", type=int, default=0, help="also time this many transforms as one CUDA graph replay")
a = ap.parse_args()
T0 = time.monotonic()
variants = ["old"] + [v for v in a.variants if v != "old"]
try:
    for v in variants:
        ntt_variant(v)
except KeyError as e:
    sys.exit(str(e))

try:
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
except OSError:
    commit = ""
dev = cp.cuda.Device()
res = {"device": cp.cuda.runtime.getDeviceProperties(dev.id)["name"].decode(), "commit": commit,
       "cupy": cp.__version__, "repeat": a.repeat, "log_sizes": a.log_sizes, "variants": variants,
       "ms": {v: {} for v in variants}, "loop_ms": {v: {} for v in variants},
       "graph_ms": {v: {} for v in variants}, "runs_ms": {v: {} for v in variants}, "mismatch": [], "skipped": [],
       "plans": {v: {} for v in variants}}
pool = cp.get_default_memory_pool()
peak = {"pool": 0, "used": 0}


def note_memory() -> None:
    free, total = cp.cuda.runtime.memGetInfo()
    peak["pool"] = max(peak["pool"], int(pool.total_bytes()))
    peak["used"] = max(peak["used"], int(total - free))


def left() -> float:
    return a.budget - (time.monotonic() - T0)


ntt_mod.NTT_VARIANT_BY_LOG = {}
b = CUDABackend()
seed = time.time_ns() & 0xFFFFFFFF
res["seed"] = seed
for k in a.log_sizes:
    n = 1 << k
    if left() < 5:
        res["skipped"].append({"log_n": k, "what": "all variants (budget)"})
        continue
    x = seeded_device(n, seed + k)
    out, tmp = cp.empty_like(x), cp.empty_like(x)
    ninv = b._factor_tables(1, pow(n, -1, FR.modulus), k)
    refs = None
    for v in variants:
        var = ntt_mod.NTT_VARIANTS[v]
        res["plans"][v][str(k)] = _ntt_plan(k, var.block_log, var.max_t)
        ntt_mod.NTT_VARIANT = v
        # the untimed run (compiles the module on first use), checked against old's
        fwd = b._ntt(x, False, out=cp.empty_like(x), tmp=tmp)
        inv = b._ntt(x, True, post=ninv, out=cp.empty_like(x), tmp=tmp)
        if refs is None:
            refs = (fwd, inv)
        else:
            for what, got, want in (("forward", fwd, refs[0]), ("inverse", inv, refs[1])):
                if not bool(cp.array_equal(got, want)):
                    res["mismatch"].append({"variant": v, "log_n": k, "what": what})
                    print(f"MISMATCH {v} 2^{k} {what}", flush=True)
        del fwd, inv
        note_memory()
        if left() < 2:
            res["skipped"].append({"log_n": k, "what": f"{v} timing (budget)"})
            continue
        runs = []
        e0, e1 = cp.cuda.Event(), cp.cuda.Event()
        for _ in range(a.repeat):
            e0.record()
            b._ntt(x, False, out=out, tmp=tmp)
            e1.record()
            e1.synchronize()
            runs.append(cp.cuda.get_elapsed_time(e0, e1))
            if left() < 1:
                break
        res["runs_ms"][v][str(k)] = runs
        res["ms"][v][str(k)] = statistics.median(runs)
        if a.loop and left() > 2:
            res["loop_ms"][v][str(k)] = 1e3 * back_to_back(lambda x=x, out=out, tmp=tmp: b._ntt(x, False, out=out, tmp=tmp), a.loop)
        if a.graph and left() > 2:
            st = cp.cuda.Stream(non_blocking=True)
            with st:
                st.begin_capture()
                for _ in range(a.graph):
                    b._ntt(x, False, out=out, tmp=tmp)
                g = st.end_capture()
                g.launch(st)          # untimed replay
                e0.record(st)
                g.launch(st)
                e1.record(st)
                e1.synchronize()
            res["graph_ms"][v][str(k)] = cp.cuda.get_elapsed_time(e0, e1) / a.graph
            if not bool(cp.array_equal(out, refs[0])):
                res["mismatch"].append({"variant": v, "log_n": k, "what": "graph replay"})
            del g
    ntt_mod.NTT_VARIANT = "old"
    del x, out, tmp, refs
    b._tw.pop(k, None)   # this size's twiddles (2^(k-1) elements)
    pool.free_all_blocks()

res["best"] = {}
for k in a.log_sizes:
    timed = {v: res["ms"][v][str(k)] for v in variants if str(k) in res["ms"][v]}
    if timed:
        res["best"][str(k)] = min(timed, key=timed.get)
res["gpu_peak_bytes"] = peak["pool"]
res["gpu_used_peak_bytes"] = peak["used"]
res["host_peak_rss_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
res["wall_s"] = time.monotonic() - T0
with open(a.out, "w") as fh:
    json.dump(res, fh, indent=1)

print(f"{res['device']}  median ms of {a.repeat} runs (x: speed-up over old)")
print("log_n " + "".join(f"{v:>16}" for v in variants) + "  best")
for k in a.log_sizes:
    base = res["ms"]["old"].get(str(k))
    cells = []
    for v in variants:
        t = res["ms"][v].get(str(k))
        cells.append(f"{'-':>16}" if t is None else f"{t:9.3f}" + (f" {base / t:5.2f}x" if base and v != "old" else " " * 7))
    print(f"{k:5d} " + "".join(cells) + f"  {res['best'].get(str(k), '-')}")
for key, count, what in (("loop_ms", a.loop, "back to back"), ("graph_ms", a.graph, "as one CUDA graph replay")):
    if count:
        print(f"ms per transform, {count} {what}")
        for k in a.log_sizes:
            print(f"{k:5d} " + "".join(f"{res[key][v].get(str(k), float('nan')):16.4f}" for v in variants))
print(f"gpu pool peak {peak['pool'] / 2**30:.2f} GiB, device used peak {peak['used'] / 2**30:.2f} GiB, "
      f"host peak RSS {res['host_peak_rss_bytes'] / 2**30:.2f} GiB, {res['wall_s']:.0f} s; JSON {a.out}")
if res["mismatch"]:
    print(f"{len(res['mismatch'])} mismatches", file=sys.stderr)
    sys.exit(1)
