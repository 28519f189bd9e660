"""Peak RSS and seconds of pce_extract's work (shape-mode synthesis, finalize, write_pce) for a
WindowPoSt partition of S sectors x 10 challenges with the 32 GiB tree: the bytes per non-zero of
the PoSt structure (nnz A about 7x nnz B or C) against the model's pce_extract slope.
Run: PYTHONPATH=src nice -n 10 python benchmarks/results/postscale/measure_post_pce.py S OUT_DIR
"""
import json
import os
import resource
import sys
import time

from cuzk.circuits import post as cp
from cuzk.r1cs import ConstraintSystem
from cuzk.r1cs.pce import write_pce

S, out = int(sys.argv[1]), sys.argv[2]
shape = cp.PoStShape(f"test-only-window-post-32GiB-{S}x10", "window", 32 << 30, S, 10, test_only=True)
t = time.perf_counter()
cs = ConstraintSystem(shape=True, witness=False)
cp.synthesize(cs, shape)
r1cs = cs.finalize(consume=True)
path = os.path.join(out, f"S{S}.pce")
write_pce(path, r1cs, shape.describe())
st = shape.stats()
print(json.dumps({"S": S, "nnz": st["nnz_a"] + st["nnz_b"] + st["nnz_c"], "nnz_abc": [st["nnz_a"], st["nnz_b"], st["nnz_c"]],
                  "seconds": round(time.perf_counter() - t, 1), "pce_bytes": os.path.getsize(path),
                  "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
