"""Where one PoRep partition's synthesize step spends its time, in one process without the step's
sampler and progress threads: read the checked C1, synthesis (and CPU seconds per circuit part:
wrappers on the gadgets ``cuzk.circuits.porep`` calls), compact witness, file written; user/sys
CPU seconds, minor page faults and peak RSS after each phase. The inputs are synth_partition.py's.

Run: PYTHONPATH=src python benchmarks/results/2026-12-02-cpu-2core-synth/breakdown.py SHAPE INPUTS_DIR [PARTITION]
"""
import collections
import os
import resource
import sys
import time

import cuzk.circuits.porep as P
from cuzk.circuits.registry import family_of
from cuzk.pipeline import _read_input, pce_digest, shape_of_pce
from cuzk.r1cs import ConstraintSystem
from cuzk.r1cs.witness import write_witness_compact

name, d = sys.argv[1], sys.argv[2]
k = int(sys.argv[3]) if len(sys.argv) > 3 else 0
parts = collections.defaultdict(float)
depth = [0]


def wrap(fname, label):
    f = getattr(P, fname)

    def g(*a, **kw):
        depth[0] += 1
        t = time.process_time()
        try:
            return f(*a, **kw)
        finally:
            depth[0] -= 1
            if depth[0] == 0:
                parts[label] += time.process_time() - t
    setattr(P, fname, g)


for fname, label in (("sha254_hash2", "comm_d path SHA-256"), ("create_label_num", "labels SHA-256"),
                     ("poseidon_hash", "Poseidon (columns, tree_c, tree_r_last)"), ("num_to_bits", "num_to_bits"),
                     ("insert", "Merkle insert")):
    wrap(fname, label)
last = [time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)]


def mark(what):
    t, r = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
    print(f"{what:12s} wall {t - last[0]:6.2f}  user {r.ru_utime - last[1].ru_utime:6.2f}  sys "
          f"{r.ru_stime - last[1].ru_stime:6.2f}  minflt {r.ru_minflt - last[1].ru_minflt:8d}  "
          f"maxrss {r.ru_maxrss / 1e6:.2f} GB", flush=True)
    last[:] = [t, r]


pce = os.path.join(d, "stub.pce")
shape = shape_of_pce(pce)
fam = family_of(shape)
inp = _read_input(os.path.join(d, "c1.json"), shape, os.path.join(d, "checked.json"))
mark("read")
vals = fam.values(inp, k)
cs = ConstraintSystem(shape=False, witness=True, aux_capacity=shape.stats()["aux"])
mark("values")
fam.synthesize(cs, shape, vals)
mark("synthesize")
cw = cs.assignment_compact()
mark("compact")
write_witness_compact(os.path.join(d, f"breakdown-{k}.wit"), cw, pce_digest(pce))
mark("write")
for label, s in sorted(parts.items(), key=lambda x: -x[1]):
    print(f"  {label:40s} {s:6.2f} CPU-s")
