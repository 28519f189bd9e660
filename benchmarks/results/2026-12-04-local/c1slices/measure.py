"""A partition job's C1 read, whole against its slice (jsondoc.load_checked vs
load_checked_partition), on a synthetic 32 GiB PoRep C1 checked once (pipeline.check_input).
Usage: python measure.py C1 RECORD OUT.json [repeat]   (check_input runs when RECORD is absent)."""
import json
import os
import platform
import resource
import statistics
import sys
import time

from cuzk import pipeline
from cuzk.sector.c1 import C1Error
from cuzk.sector.jsondoc import load_checked, load_checked_partition

c1, rec, out = sys.argv[1:4]
repeat = int(sys.argv[4]) if len(sys.argv) > 4 else 5
res = {"c1_bytes": os.path.getsize(c1), "machine": platform.node(), "cpus": os.cpu_count(), "repeat": repeat}
if not os.path.exists(rec):
    t = time.perf_counter()
    pipeline.check_input(c1, rec, "porep-32GiB")
    res["check_input_seconds"] = time.perf_counter() - t
for name, read in (("whole", lambda: load_checked(c1, rec, C1Error)),
                   ("slice", lambda: load_checked_partition(c1, rec, C1Error, 3))):
    runs = []
    for _ in range(repeat):
        t = time.perf_counter()
        read()
        runs.append(time.perf_counter() - t)
    res[name] = {"median_s": statistics.median(runs), "runs_s": runs}
    print(f"{name}: median {statistics.median(runs):.3f} s over {repeat}", flush=True)
res["rss_peak_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
with open(out, "w") as f:
    json.dump(res, f, indent=1)
