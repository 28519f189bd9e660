"""Prove one batch of the workflow's outputs again under a GPU memory limit, reporting per MSM
context whether its bases stayed resident and how many chunks each MSM ran in (device run, issue 5).

usage: python prove_limit.py RESULTS SHAPE LIMIT_GB OUT_JSON SID...
"""
import json
import sys
import time

from cuzk import pipeline
from cuzk.groth16 import prover as P

res, shape, gb, out = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
sids = sys.argv[5:]
seen = []
orig = P.Prover.prove


def prove(self, *a, **k):
    t = time.perf_counter()
    proof = orig(self, *a, **k)
    seen.append({"seconds": round(time.perf_counter() - t, 3),
                 "msm": {n: {"resident": c.resident, "chunks": c.last_chunks} for n, c in self.ctx.items()}})
    return proof


P.Prover.prove = prove
t = time.perf_counter()
pipeline.prove_batch(f"{res}/pce/{shape}.pce", f"{res}/params/{shape}.params", [f"{res}/c1/{s}.c1.json" for s in sids],
                     [f"{res}/witness/{s}" for s in sids], f"/tmp/prove-limit-{gb}", backend="cuda",
                     mem_json=f"/tmp/prove-limit-{gb}.mem.json", gpu_mem_limit_gb=gb)
mem = json.load(open(f"/tmp/prove-limit-{gb}.mem.json"))
mem.pop("timeline", None)
doc = {"limit_gb": gb, "sectors": sids, "wall_seconds": round(time.perf_counter() - t, 2), "proofs": seen, "mem": mem}
json.dump(doc, open(out, "w"), indent=1)
print(json.dumps(doc))
