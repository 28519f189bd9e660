"""One 32 GiB PoRep partition's witness job (pipeline.synthesize_partition) in fresh processes,
before and after this stop's two changes, side by side: "before" reads the whole checked C1 (a
record without slices) with an empty Poseidon constants cache; "after" reads its slice with the
constants kept on disk. PCE: header only (tests/pce_util.py). Synthetic C1 from
`cuzk bench circuit --phases input` (bench.circuit._phase_input), checked with pipeline.check_input.
Usage: python partition_job.py C1 RECORD OUT.json [rounds]"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

c1, rec, out = sys.argv[1:4]
rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 3
here = os.path.dirname(os.path.abspath(__file__))
tests = os.path.join(here, "..", "..", "..", "..", "tests")
work = tempfile.mkdtemp()
bare = os.path.join(work, "bare.json")   # the record without its slices' digests
doc = json.load(open(rec))
doc.pop("slices", None)
json.dump(doc, open(bare, "w"))
warm = os.path.join(work, "warm-cache")
JOB = """
import resource, sys, time
sys.path.insert(0, {tests!r})
from pathlib import Path
from pce_util import header_pce
t = time.perf_counter()
from cuzk import pipeline
pce = header_pce(Path({work!r}) / "h.pce", "porep-32GiB")
pipeline.synthesize_partition({c1!r}, {rec!r}, pce, 3, Path({work!r}) / "p3.wit")
print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""


def job(record, cache):
    env = dict(os.environ, CUZK_CACHE_DIR=cache)
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", JOB.format(tests=tests, work=work, c1=c1, rec=record)],
                       env=env, capture_output=True, text=True, check=True)
    inner, rss = r.stdout.split()
    return {"process_s": time.perf_counter() - t, "job_s": float(inner), "rss_peak_bytes": int(rss)}


native = os.path.join(os.environ.get("CUZK_CACHE_DIR") or os.path.expanduser("~/.cache/cuzk"), "native")
res = {"rounds": rounds, "before": [], "after": [], "cpus": os.cpu_count()}
job(rec, warm)                                   # fills the warm cache's Poseidon constants
for _ in range(rounds):
    cold = tempfile.mkdtemp(dir=work)
    shutil.copytree(native, os.path.join(cold, "native"))   # native cores built: only Poseidon's constants cold
    res["before"].append(job(bare, cold))
    res["after"].append(job(rec, warm))
for k in ("before", "after"):
    v = sorted(x["process_s"] for x in res[k])
    print(f"{k}: process seconds {', '.join(f'{x:.2f}' for x in v)}")
json.dump(res, open(out, "w"), indent=1)
shutil.rmtree(work)
