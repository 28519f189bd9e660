"""The synthesize step of a 32 GiB PoRep sector's partitions on the H200 host: ``cuzk.pipeline.
synthesize_partition`` (one process per partition, as the workflow runs it) on the inputs that
``../../2026-12-02-local/synth/make_inputs.py`` wrote in DIR, for ORDER (block | upstream): first
partition 0 alone, then partitions 0..N-1 as N processes at once. Prints and writes JSON (OUT):
each process's wall seconds, CPU seconds and peak RSS (os.wait4), and the whole wall time.

Run: PYTHONPATH=src python benchmarks/results/2026-12-02-h200/stop19/synth_par.py DIR ORDER N OUT.json
"""
import json
import os
import subprocess
import sys
import time

d, order, n, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
CODE = ("import sys; from cuzk.pipeline import synthesize_partition as s; "
        "s(sys.argv[1] + '/c1.json', sys.argv[1] + '/checked.json', sys.argv[1] + '/' + sys.argv[2] + '.pce', int(sys.argv[3]), sys.argv[4])")


def run(parts):
    t0 = time.perf_counter()
    procs = {}
    for p in parts:
        pr = subprocess.Popen([sys.executable, "-c", CODE, d, order, str(p), f"/tmp/syn-{order}-{p}.wit"])
        procs[pr.pid] = (p, time.perf_counter())
    res = []
    while procs:
        pid, status, ru = os.wait4(-1, 0)
        p, t = procs.pop(pid)
        res.append({"partition": p, "rc": status, "wall_s": round(time.perf_counter() - t, 2),
                    "cpu_s": round(ru.ru_utime + ru.ru_stime, 2), "max_rss_mib": ru.ru_maxrss // 1024})
    for p in parts:
        os.remove(f"/tmp/syn-{order}-{p}.wit") if os.path.exists(f"/tmp/syn-{order}-{p}.wit") else None
    return {"wall_s": round(time.perf_counter() - t0, 2), "procs": sorted(res, key=lambda r: r["partition"])}


doc = {"order": order, "cpus": os.cpu_count(), "alone": run([0]), "together": run(list(range(n)))}
print(json.dumps(doc))
with open(out, "w") as f:
    json.dump(doc, f, indent=1)
