"""Time and peak RSS of a synthetic WindowPoSt vanilla proof at 32 GiB (one full partition: 2,349
distinct synthetic sectors x 10 challenges), written to a file, then read back (full check).

Run: PYTHONPATH=src nice -n 10 python benchmarks/results/postscale/time_synthetic_post.py OUT_DIR [SECTORS]
Prints one JSON line per phase (seconds, peak RSS so far in GiB from ru_maxrss, file size).
"""
import json
import os
import resource
import sys
import time

from cuzk.sector.post import generate_post, read_post, write_post
from cuzk.sector.post_synthetic import SyntheticSector


def peak_gib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


out = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 2349
rnd = bytes(range(1, 32)) + b"\x0f"
pid = bytes(32)
secs = [SyntheticSector(1000 + i, 32 << 30) for i in range(n)]
t = time.perf_counter()
doc = generate_post("window", secs, rnd, pid)
print(json.dumps({"phase": "generate", "sectors": n, "seconds": round(time.perf_counter() - t, 1),
                  "peak_rss_gib": round(peak_gib(), 3)}), flush=True)
path = os.path.join(out, f"window-32GiB-{n}.vanilla.json")
t = time.perf_counter()
write_post(path, doc)
print(json.dumps({"phase": "write", "seconds": round(time.perf_counter() - t, 1), "bytes": os.path.getsize(path),
                  "peak_rss_gib": round(peak_gib(), 3)}), flush=True)
del doc
t = time.perf_counter()
read_post(path)
print(json.dumps({"phase": "read_post (full check)", "seconds": round(time.perf_counter() - t, 1),
                  "peak_rss_gib": round(peak_gib(), 3)}), flush=True)
