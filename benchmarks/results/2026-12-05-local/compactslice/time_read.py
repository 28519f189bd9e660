"""How long a later step takes to get a checked PoSt input (``pipeline._read_input`` with its check
record: the synthesize, prove and verify steps' read), for records written with and without the
check's compact slice; one fresh process per run.

Usage: python time_read.py VANILLA RECORD CODE RUNS [SHAPE]   (SHAPE default window-post-32GiB)
"""
import subprocess
import sys

RUN = """import resource, sys, time
from cuzk import pipeline
from cuzk.circuits.registry import shape_by_name
t = time.perf_counter()
inp = pipeline._read_input(sys.argv[1], shape_by_name(sys.argv[3]), sys.argv[2])
t1 = time.perf_counter()
from cuzk.circuits import post
v = post.values(inp, 0)
print(f"read {t1 - t:.2f} s, values() {time.perf_counter() - t1:.2f} s, peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GiB")
"""
van, rec, code, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
shape = sys.argv[5] if len(sys.argv) > 5 else "window-post-32GiB"
for r in range(runs):
    p = subprocess.run([sys.executable, "-c", RUN, van, rec, shape], env={"PYTHONPATH": f"{code}/src", "PATH": "/usr/bin:/bin"},
                       capture_output=True, text=True, check=True)
    print(f"{rec} run {r}: {p.stdout.strip()}", flush=True)
