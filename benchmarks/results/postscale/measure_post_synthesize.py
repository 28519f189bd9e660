"""Peak RSS and seconds of one PoSt partition's synthesis (what the synthesize step does: read the
vanilla file with its full check, witness-mode synthesis, the compact witness written) for a
WindowPoSt over synthetic 32 GiB sectors with S sectors per partition (10 challenges each, the 32
GiB tree arities), and the witness's bit / wide counts. One process per measurement.

Run: PYTHONPATH=src nice -n 10 python benchmarks/results/postscale/measure_post_synthesize.py S OUT_DIR
"""
import json
import os
import resource
import sys
import time

from cuzk.circuits import post as cp
from cuzk.r1cs import ConstraintSystem
from cuzk.r1cs.witness import write_witness_compact
from cuzk.sector.post import generate_post, read_post, write_post
from cuzk.sector.post_synthetic import SyntheticSector

S, out = int(sys.argv[1]), sys.argv[2]
size = 32 << 30
path = os.path.join(out, f"window-32GiB-S{S}.vanilla.json")
if not os.path.exists(path):   # made in a child-free first pass so its memory does not count
    doc = generate_post("window", [SyntheticSector(500 + i, size) for i in range(S)], bytes(range(1, 32)) + b"\x0f",
                        bytes(32), sector_count=S)
    write_post(path, doc)
    os.execv(sys.executable, [sys.executable] + sys.argv)
shape = cp.PoStShape(f"test-only-window-post-32GiB-{S}x10", "window", size, S, 10, test_only=True)
t = time.perf_counter()
doc = read_post(path)
t_read = time.perf_counter() - t
rss_read = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
st = shape.stats()
cs = ConstraintSystem(shape=False, witness=True, aux_capacity=st["aux"])
cp.synthesize(cs, shape, cp.values(doc, 0))
cw = cs.assignment_compact(lazy=True)   # as the synthesize step writes it (since stop 41)
write_witness_compact(os.path.join(out, f"S{S}.wit"), cw)
print(json.dumps({"S": S, "aux": st["aux"], "post_challenges": shape.challenges, "num_bits": int(cw.num_bits),
                  "num_wide": len(cw.wide), "read_post_s": round(t_read, 1), "rss_after_read_bytes": rss_read,
                  "seconds": round(time.perf_counter() - t, 1),
                  "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
                  "witness_bytes": os.path.getsize(os.path.join(out, f"S{S}.wit"))}))
