"""What one PoRep partition's synthesis still costs on the CPU once the SHA-256 compressions'
bits come from elsewhere (the GPU kernel of ``cuzk.backend.cuda.witness``; here its host build,
``host_core``, stands in: the same bits, checked): ``cuzk.r1cs.sha_calls.delegate_compressions``
with ``witness.host_compute``. The witness (``assignment_compact``) and constraint count must
equal the CPU path's. Prints and writes JSON: the C1 read, both runs (read included), the
core's share, and the synthesis left on the CPU (``cpu_remainder_s``: with the core, less the
core and the read; the few real calls, one per kind, stay in it).

Run: PYTHONPATH=src python benchmarks/witness_gpu/remainder.py SHAPE DIR OUT.json
(DIR: ``benchmarks/results/2026-12-02-local/synth/make_inputs.py SHAPE DIR``)
"""
import json
import os
import sys
import tempfile
import time

from cuzk import pipeline
from cuzk.backend.cuda import witness
from cuzk.bench import witness as check
from cuzk.circuits.registry import shape_by_name

shape, d, out = sys.argv[1:4]
c1, rec = os.path.join(d, "c1.json"), os.path.join(d, "checked.json")
t = time.perf_counter()
pipeline._read_input(c1, shape_by_name(shape), rec)   # timed alone: both runs below read it too
res = {"shape": shape, "read_s": time.perf_counter() - t}
t = time.perf_counter()
ref_cs, _ = check.synthesize_recorded(c1, rec, shape, 0)
res["cpu_path_s"] = time.perf_counter() - t

core_s = [0.0, 0]   # seconds in the delegate (per-call job table and core), calls delegated


def timed(compute):
    def call(c):
        t = time.perf_counter()
        out = compute(c)
        core_s[0] += time.perf_counter() - t
        core_s[1] += 1
        return out
    return call


with tempfile.TemporaryDirectory() as tmp:
    compute = timed(witness.host_compute(witness.host_core(tmp)))
    t = time.perf_counter()
    cs, calls = check.synthesize_recorded(c1, rec, shape, 0, compute=compute)
    res["with_core_s"] = time.perf_counter() - t
res["core_and_table_s"] = core_s[0]
res["calls_run_on_cpu"] = len(calls) - core_s[1]   # one per kind of call (its template)
res["identical"] = check.same_witness(ref_cs, cs) and ref_cs.num_constraints == cs.num_constraints
# the synthesis left on the CPU: read and core (with its per-call job table) taken out
res["cpu_remainder_s"] = res["with_core_s"] - res["core_and_table_s"] - res["read_s"]
res["cpu_path_synthesis_s"] = res["cpu_path_s"] - res["read_s"]
print(json.dumps(res, indent=1))
with open(out, "w") as f:
    json.dump(res, f, indent=1)
sys.exit(0 if res["identical"] else 1)
