"""numpy against native: ``step.py`` run as separate processes, alternating (numpy, native,
numpy, ...), one warm-up each (not counted: the first native run may build the library), then
REPEAT counted runs each. Per run: whole-process wall, user and system seconds and peak RSS
(``os.wait4``'s rusage of the child), the step's own seconds and peak RSS (its record), the
SHA-256 of the witness file, the load average before the run. Writes OUT.json; exit 1 when the
witness files differ.

Run (from the repository root):
    PYTHONPATH=src python benchmarks/results/2026-12-03-local/nativesha/run.py DIR block OUT.json [--repeat 5]
"""
import argparse
import hashlib
import json
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("dir")
ap.add_argument("order")
ap.add_argument("out")
ap.add_argument("--repeat", type=int, default=5)
ap.add_argument("--shas", default="numpy,native")
a = ap.parse_args()
shas = a.shas.split(",")
step = os.path.join(os.path.dirname(os.path.abspath(__file__)), "step.py")


def digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while b := f.read(1 << 24):
            h.update(b)
    return h.hexdigest()


def once(sha, i):
    wit, mem = os.path.join(a.dir, f"{a.order}-{sha}.wit"), os.path.join(a.dir, f"{a.order}-{sha}.mem.json")
    cmd = [sys.executable, step, a.dir, a.order, sha, wit, mem]
    load = os.getloadavg()[0]
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    err = p.stderr.read().decode()
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode:
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}): {err[-2000:]}")
    rec = json.load(open(mem))
    row = {"sha": sha, "run": i, "wall_s": wall, "user_s": ru.ru_utime, "sys_s": ru.ru_stime,
           "rss_peak_bytes": ru.ru_maxrss * 1024, "step_s": rec.get("seconds"),
           "step_rss_peak_bytes": rec.get("rss_peak_bytes"), "witness_sha256": digest(wit), "load_before": load}
    print(json.dumps(row), flush=True)
    return row


rows = []
for i in range(a.repeat + 1):      # run 0: warm-up
    for sha in shas:
        rows.append(once(sha, i))
counted = [r for r in rows if r["run"] > 0]
summary = {}
for sha in shas:
    mine = [r for r in counted if r["sha"] == sha]
    summary[sha] = {k: {"median": statistics.median(r[k] for r in mine), "min": min(r[k] for r in mine),
                        "max": max(r[k] for r in mine)}
                    for k in ("wall_s", "user_s", "sys_s", "rss_peak_bytes", "step_s", "step_rss_peak_bytes")}
ratios = [n["wall_s"] / m["wall_s"] for m, n in zip([r for r in counted if r["sha"] == shas[0]],
                                                      [r for r in counted if r["sha"] == shas[-1]])]
step_ratios = [n["step_s"] / m["step_s"] for m, n in zip([r for r in counted if r["sha"] == shas[0]],
                                                           [r for r in counted if r["sha"] == shas[-1]])]
hashes = {r["witness_sha256"] for r in rows}
commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
res = {"machine": f"{platform.node()}: {os.cpu_count()} cores, Python {platform.python_version()}, numpy {np.__version__}",
       "commit": commit, "order": a.order,
       "command": " ".join(["PYTHONPATH=src python", os.path.relpath(step), "DIR", a.order, "SHA", "OUT.wit",
                            "MEM.json"]),
       "runs": f"{a.repeat} counted per path after 1 warm-up each, alternating {', '.join(shas)}",
       "identical": len(hashes) == 1, "witness_sha256": sorted(hashes), "summary": summary,
       f"{shas[-1]}/{shas[0]} wall ratio (pair by pair)": {"median": statistics.median(ratios), "min": min(ratios),
                                                            "max": max(ratios)},
       f"{shas[-1]}/{shas[0]} step ratio (pair by pair)": {"median": statistics.median(step_ratios),
                                                            "min": min(step_ratios), "max": max(step_ratios)},
       "rows": rows}
with open(a.out, "w") as f:
    json.dump(res, f, indent=1)
print(json.dumps({k: v for k, v in res.items() if k != "rows"}, indent=1))
sys.exit(0 if res["identical"] else 1)
