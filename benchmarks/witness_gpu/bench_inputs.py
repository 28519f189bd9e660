"""``witness_poseidon: values`` against ``inputs`` for a WindowPoSt target, side by side in one run:
the synthesize step (a fresh process each, native Poseidon with THREADS workers), the prove step's
read of the file (``read_witness_compact``) and the cuda backend's compact upload
(``compact_to_device_async(...).ready()``: with ``inputs`` the Poseidon kernel makes the values on
the device, ``cuzk.backend.cuda.computed``). The two device assignments must be equal (compared on
the device) and are checked before any figure is kept; cases alternate, REPEAT times.

Usage: PYTHONPATH=src:tests python benchmarks/witness_gpu/bench_inputs.py DIR OUT.json [SHAPE] [REPEAT] [THREADS]
(SHAPE default window-post-32GiB over DISTINCT (env, default 200) synthetic sectors; REPEAT 2;
THREADS 16). Prints a line per run: seconds, host RSS peaks, GPU pool peak; writes OUT.json.
"""

import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import cupy as cp

from bench_steps import make_inputs
from cuzk.backend.cuda import CUDABackend
from cuzk.r1cs.witness import read_witness_compact

STEP = """import sys; from cuzk import pipeline
a = sys.argv[1:]
pipeline.synthesize_sector(a[0], a[2], a[3], mem_json=a[4], checked=a[1], poseidon="native", threads=int(a[5]), keep=a[6])
"""


def main():
    d, out = Path(sys.argv[1]), Path(sys.argv[2])
    name = sys.argv[3] if len(sys.argv) > 3 else "window-post-32GiB"
    repeat = int(sys.argv[4]) if len(sys.argv) > 4 else 2
    threads = int(sys.argv[5]) if len(sys.argv) > 5 else 16
    os.environ.setdefault("DISTINCT", "200")
    d.mkdir(parents=True, exist_ok=True)
    t = time.perf_counter()
    src, rec, pce = make_inputs(d, name)
    print(f"{name}: inputs of {os.environ['DISTINCT']} distinct sectors in {time.perf_counter() - t:.0f} s", flush=True)
    bk, pool = CUDABackend(), cp.get_default_memory_pool()
    res = {"shape": name, "distinct": int(os.environ["DISTINCT"]), "threads": threads, "runs": {"values": [], "inputs": []}}
    ref = None
    for r in range(repeat):
        for keep in ("values", "inputs"):
            wit, mem = d / f"{keep}.{r}.wit", d / f"{keep}.{r}.mem.json"
            t = time.perf_counter()
            subprocess.run([sys.executable, "-c", STEP, str(src), str(rec), str(pce), str(wit), str(mem), str(threads), keep],
                           check=True)
            synth = time.perf_counter() - t
            m = json.loads(mem.read_text())
            f = next(wit.iterdir())
            pool.free_all_blocks()
            t = time.perf_counter()
            cw = read_witness_compact(f)
            t1 = time.perf_counter()
            w = bk.compact_to_device_async(cw).ready()
            cp.cuda.Device().synchronize()
            t2 = time.perf_counter()
            if ref is None:
                ref = w
            elif not bool(cp.array_equal(w, ref)):
                raise SystemExit(f"{keep} run {r}: the device assignment differs from the first run's")
            row = {"synth_s": synth, "step_s": m.get("seconds"), "synth_rss_peak_bytes": m.get("rss_peak_bytes"),
                   "file_bytes": f.stat().st_size, "read_s": t1 - t, "upload_s": t2 - t1,
                   "gpu_pool_bytes": pool.total_bytes(),
                   "host_peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}
            res["runs"][keep].append(row)
            del w, cw
            print(f"{keep} run {r}: synthesize {synth:.2f} s (step {row['step_s']:.2f} s, RSS "
                  f"{(row['synth_rss_peak_bytes'] or 0) / 2**30:.2f} GiB), file {row['file_bytes'] / 2**30:.2f} GiB, read "
                  f"{row['read_s']:.2f} s, upload+expand {row['upload_s']:.3f} s, GPU pool {row['gpu_pool_bytes'] / 2**30:.2f} GiB, "
                  f"host peak so far {row['host_peak_rss_bytes'] / 2**30:.2f} GiB", flush=True)
    res["median"] = {k: {c: statistics.median(x[c] for x in v) for c in ("synth_s", "read_s", "upload_s")}
                     for k, v in res["runs"].items()}
    res["device_assignments_equal"] = True
    out.write_text(json.dumps(res, indent=1) + "\n")
    print(json.dumps(res["median"]), flush=True)


if __name__ == "__main__":
    main()
