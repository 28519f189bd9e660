"""The check step of a PoSt target (``pipeline.check_input``: the vanilla file's full check and
its record) in a fresh process per run, with THREADS worker processes hashing the Merkle paths
(1: none), for the code at CODE/src.

Usage: python time_check.py INPUT CODE RUNS THREADS [SHAPE]   (SHAPE default window-post-32GiB)
Prints per run: seconds of check_input and the step's sampled RSS peak (its memory record, the
workers included).
"""
import json
import subprocess
import sys
import tempfile

RUN = """import json, sys, time
from cuzk import pipeline
t = time.perf_counter()
pipeline.check_input(sys.argv[1], sys.argv[1] + ".rec.json", sys.argv[2], mem_json=sys.argv[4], threads=int(sys.argv[3]))
print(f"{time.perf_counter() - t:.1f} s")
"""
van, code, runs, threads = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
shape = sys.argv[5] if len(sys.argv) > 5 else "window-post-32GiB"
for r in range(runs):
    with tempfile.NamedTemporaryFile(suffix=".json") as mem:
        p = subprocess.run([sys.executable, "-c", RUN, van, shape, threads, mem.name],
                           env={"PYTHONPATH": f"{code}/src", "PATH": "/usr/bin:/bin"}, capture_output=True, text=True,
                           check=True)
        peak = json.load(open(mem.name))["rss_peak_bytes"]
    print(f"{code.rstrip('/').split('/')[-1]} threads {threads} run {r}: check_input {p.stdout.strip()}, "
          f"sampled RSS peak {peak / 2**30:.2f} GiB", flush=True)
