"""What one PoRep partition's synthesis still costs on the CPU once the SHA-256 compressions'
bits come from elsewhere (the GPU kernel of ``cuzk.backend.cuda.witness``; here its host build,
``host_core``, stands in: the same bits, checked). Every ``_WordWitness.compress`` is replaced by
the core on the call's input words; the CPU then only appends the call's bits and builds the
8 output words from a per-kind template (their positions relative to the call's base, taken
once per kind of call from a real ``_WordWitness`` run). The witness (``assignment_compact``)
must equal the CPU path's. Prints and writes JSON: the C1 read, both runs (read included), the
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

import numpy as np

from cuzk import pipeline
from cuzk.backend.cuda import witness
from cuzk.circuits.registry import shape_by_name
from cuzk.r1cs import sha256 as S

shape, d, out = sys.argv[1:4]
c1, rec = os.path.join(d, "c1.json"), os.path.join(d, "checked.json")
t = time.perf_counter()
pipeline._read_input(c1, shape_by_name(shape), rec)   # timed alone: both runs below read it too
res = {"shape": shape, "read_s": time.perf_counter() - t}
t = time.perf_counter()
ref_cs, _ = witness.synthesize_recorded(c1, rec, shape, 0)
res["cpu_path_s"] = time.perf_counter() - t
ref = ref_cs.assignment_compact()

_real = S._WordWitness.compress
kinds: dict = {}       # (k, input masks) → (bits of the call, output words' refs − base)
core_s = [0.0]


def compress(self, H, W):
    hw, ww = [self.from_word(x) for x in H], [self.from_word(x) for x in W]
    cs, k = self.sha.cs, self.k
    key = (k, tuple((w.c, w.n) for w in hw + ww))
    if key not in kinds:   # once per kind: the real gadget gives the size and the output refs
        base = cs.num_aux
        words = _real(self, H, W)
        kinds[key] = (cs.num_aux - base, [w.l - base for w in words])
        return words
    size, refs = kinds[key]
    base = cs.num_aux
    t = time.perf_counter()
    table = witness.job_table([S.Compression(0, size, k, hw, ww, [])])
    slots, outw = run(table, size)
    core_s[0] += time.perf_counter() - t
    cs.alloc_aux_block(size, slots)
    return [S._Word(base + r, outw[:, j], np.zeros(32, dtype=np.int8)) for j, r in enumerate(refs)]


with tempfile.TemporaryDirectory() as tmp:
    run = witness.host_core(tmp)
    S._WordWitness.compress = compress
    t = time.perf_counter()
    cs, _ = witness.synthesize_recorded(c1, rec, shape, 0)
    res["with_core_s"] = time.perf_counter() - t
    S._WordWitness.compress = _real
res["core_and_table_s"] = core_s[0]
res["kinds_run_on_cpu"] = len(kinds)
got = cs.assignment_compact()
res["identical"] = all(np.array_equal(getattr(ref, f), getattr(got, f)) for f in ("inputs", "mask", "bits", "wide")) \
    and (ref.num_aux, ref.num_bits) == (got.num_aux, got.num_bits)
# the synthesis left on the CPU: read and core (with its per-call job table) taken out
res["cpu_remainder_s"] = res["with_core_s"] - res["core_and_table_s"] - res["read_s"]
res["cpu_path_synthesis_s"] = res["cpu_path_s"] - res["read_s"]
print(json.dumps(res, indent=1))
with open(out, "w") as f:
    json.dump(res, f, indent=1)
sys.exit(0 if res["identical"] else 1)
