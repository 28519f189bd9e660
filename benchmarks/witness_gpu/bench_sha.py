"""Time the SHA-256 compressions' witness of one PoRep partition on the GPU
(``cuzk.backend.cuda.witness.sha_aux``) against the CPU path's time for the same piece
(``cuzk.r1cs.sha256._WordWitness.compress``, summed over the partition's calls), check the
device's bits and state words byte for byte against the CPU path's; then synthesize the
partition again with the device computing each call's bits (``witness.gpu_compute``, one launch
per call) and check that witness too. Prints and writes JSON: times, peak RSS, peak GPU memory
(CuPy pool).

Inputs: DIR from ``benchmarks/results/2026-12-02-local/synth/make_inputs.py SHAPE DIR``, or made
here when DIR has no ``c1.json`` (a synthetic sector, id 7; ``prepare_s`` in the JSON).

Run (from the repository root):
    PYTHONPATH=src python benchmarks/witness_gpu/bench_sha.py porep-32GiB DIR OUT.json [--repeat 5] [--blocks 32,64,128]
    PYTHONPATH=src python benchmarks/witness_gpu/bench_sha.py porep-32GiB DIR OUT.json --host
``--host``: the kernel's core built with g++ and run on one CPU core, lane after lane (no GPU;
checks the same bits). Exit status 1 when any bit or word differs.
"""
import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time

from cuzk import pipeline
from cuzk.backend.cuda import witness
from cuzk.bench import witness as check
from cuzk.r1cs import sha256 as sha_mod

ap = argparse.ArgumentParser()
ap.add_argument("shape")
ap.add_argument("dir")
ap.add_argument("out")
ap.add_argument("--partition", type=int, default=0)
ap.add_argument("--repeat", type=int, default=5)
ap.add_argument("--host", action="store_true")
ap.add_argument("--blocks", type=lambda x: [int(b) for b in x.split(",")], default=[witness._BLOCK, 64, 128],
                help="threads per block to time, comma-separated (the first gives piece_s)")
a = ap.parse_args()

try:   # the device's copy of the tree may have no git
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
except OSError:
    commit = ""
res = {"shape": a.shape, "partition": a.partition, "host_core": a.host, "python": platform.python_version(),
       "commit": commit}
c1, rec = os.path.join(a.dir, "c1.json"), os.path.join(a.dir, "checked.json")
if not os.path.exists(c1):
    os.makedirs(a.dir, exist_ok=True)
    t = time.perf_counter()
    pipeline.prepare({"id": 7, "synthetic": True}, c1, a.shape, "bench", "00" * 32)
    pipeline.check_input(c1, rec, a.shape)
    res["prepare_s"] = time.perf_counter() - t

# the CPU path, its compressions timed one by one
spent = []
_compress = sha_mod._WordWitness.compress


def timed_compress(self, H, W):
    t = time.perf_counter()
    out = _compress(self, H, W)
    spent.append(time.perf_counter() - t)
    return out


sha_mod._WordWitness.compress = timed_compress
t = time.perf_counter()
cs, calls = check.synthesize_recorded(c1, rec, a.shape, a.partition)
res["cpu_synthesis_s"] = time.perf_counter() - t
sha_mod._WordWitness.compress = _compress
res["cpu_sha_s"] = sum(spent)
res.update(aux=cs.num_aux, sha_calls=len(calls), sha_lanes=sum(c.k for c in calls), sha_aux=sum(c.size for c in calls))
t = time.perf_counter()
table = witness.job_table(calls)
res["job_table_s"] = time.perf_counter() - t
res["upload_bytes"] = table.jobs.nbytes + table.job_of.nbytes + table.vals.nbytes
cpu_slots = cs.aux_slots()

if a.host:
    tmp = tempfile.TemporaryDirectory()   # removed at exit
    run = witness.host_core(tmp.name)
    compute = witness.host_compute(run)
    times = []
    for _ in range(a.repeat):
        t = time.perf_counter()
        slots, outw = run(table, cs.num_aux)
        times.append(time.perf_counter() - t)
    bad = check.mismatches(calls, cpu_slots, slots, outw)
    res["device"] = f"host core, 1 thread ({platform.processor() or platform.machine()})"
    res["piece_s"] = times
else:
    import cupy as cp

    pool = cp.get_default_memory_pool()
    peak = [0]

    def note():
        peak[0] = max(peak[0], pool.total_bytes())

    dev = cp.cuda.Device()
    res["device"] = cp.cuda.runtime.getDeviceProperties(dev.id)["name"].decode()
    slots = cp.zeros(cs.num_aux, dtype=cp.uint8)
    t = time.perf_counter()
    witness.sha_aux(table, slots=slots)   # compiles the kernel (NVRTC; CuPy's disk cache after)
    dev.synchronize()
    res["first_call_s"] = time.perf_counter() - t
    note()
    by_block, bad = {}, []
    for block in a.blocks:   # threads per block: the first is the default's figure
        times, ev_ms = [], []
        for _ in range(a.repeat):
            slots.fill(0)
            dev.synchronize()
            e0, e1 = cp.cuda.Event(), cp.cuda.Event()
            t = time.perf_counter()
            e0.record()
            slots, outw = witness.sha_aux(table, slots=slots, block=block)   # table upload + kernel
            e1.record()
            e1.synchronize()
            times.append(time.perf_counter() - t)
            ev_ms.append(cp.cuda.get_elapsed_time(e0, e1))
            note()
        t = time.perf_counter()
        got = cp.asnumpy(slots), cp.asnumpy(outw)   # every variant's result is checked
        res["check_download_s"] = time.perf_counter() - t
        diff = check.mismatches(calls, cpu_slots, *got)
        bad += [f"block {block}: {x}" for x in diff]
        by_block[block] = {"wall_s": times, "event_ms": ev_ms, "median_event_ms": statistics.median(ev_ms),
                           "identical": not diff}
    res["by_block"] = by_block
    res["piece_s"] = by_block[a.blocks[0]]["wall_s"]
    res["piece_event_ms"] = by_block[a.blocks[0]]["event_ms"]
    compute = witness.gpu_compute()

# the whole partition again, its compressions' bits from the device (or the host core), one
# launch per call (sha_calls.delegate_compressions): read included, as cpu_synthesis_s
t = time.perf_counter()
dcs, _ = check.synthesize_recorded(c1, rec, a.shape, a.partition, compute=compute)
res["delegated_synthesis_s"] = time.perf_counter() - t
if not check.same_witness(cs, dcs) or cs.num_constraints != dcs.num_constraints:
    bad.append("delegated synthesis: the witness differs from the CPU path's")
del dcs
if not a.host:
    note()
    res["peak_gpu_pool_bytes"] = peak[0]
res["identical"] = not bad
res["mismatches"] = bad[:10]
res["piece_median_s"] = statistics.median(res["piece_s"])
res["speedup_vs_cpu_sha"] = res["cpu_sha_s"] / res["piece_median_s"]
res["peak_rss_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps(res, indent=1))
with open(a.out, "w") as f:
    json.dump(res, f, indent=1)
print(f"{a.shape} partition {a.partition}: {res['sha_calls']} calls, {res['sha_lanes']} compressions, "
      f"{res['sha_aux']:,} aux bits; CPU path {res['cpu_sha_s']:.3f} s; {res['device']}: "
      f"{res['piece_median_s'] * 1e3:.2f} ms (median of {a.repeat}); synthesis {res['cpu_synthesis_s']:.2f} s, "
      f"with the bits delegated {res['delegated_synthesis_s']:.2f} s; identical: {res['identical']}; "
      f"peak RSS {res['peak_rss_bytes'] / 2**20:.0f} MiB"
      + (f"; peak GPU pool {res['peak_gpu_pool_bytes'] / 2**20:.0f} MiB" if not a.host else ""))
sys.exit(0 if not bad else 1)
