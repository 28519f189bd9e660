"""The check step of a PoSt target (``pipeline.check_input``: the vanilla file's full check and
its record), in a fresh process per run, for the code at CODE/src.

Usage: python time_check.py INPUT CODE RUNS [SHAPE]   (SHAPE default window-post-32GiB; a C1 too)
Prints per run: seconds of check_input (its own timer) and the process's peak RSS.
"""
import subprocess
import sys

RUN = """import resource, sys, time
from cuzk import pipeline
t = time.perf_counter()
pipeline.check_input(sys.argv[1], sys.argv[1] + ".rec.json", sys.argv[2])
print(f"{time.perf_counter() - t:.1f} s, peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GiB")
"""
van, code, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
shape = sys.argv[4] if len(sys.argv) > 4 else "window-post-32GiB"
for r in range(runs):
    p = subprocess.run([sys.executable, "-c", RUN, van, shape], env={"PYTHONPATH": f"{code}/src", "PATH": "/usr/bin:/bin"},
                       capture_output=True, text=True, check=True)
    print(f"{code.rstrip('/').split('/')[-1]} run {r}: check_input {p.stdout.strip()}", flush=True)
