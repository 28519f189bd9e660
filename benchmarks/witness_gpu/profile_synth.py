"""Where one PoRep partition's witness-only synthesis (block order, as the workflow's default
``synthesize`` step) spends its time and which gadgets allocate how many aux values.

Inputs: a directory written by ``benchmarks/results/2026-12-02-local/synth/make_inputs.py``.
Prints and writes JSON (OUT): the aux count per allocating function (the nearest caller outside
``cuzk.r1cs.system``/``values``), the SHA-256 compressions' calls (k, aux, seconds), and
cProfile's top functions by own time and the cumulative time of the circuit's steps
(functions of ``porep.py``, ``labeling.py``, ``sha254.py``; under cProfile, so inflated).

Run: PYTHONPATH=src python benchmarks/witness_gpu/profile_synth.py DIR OUT.json [--no-cprofile]
"""
import cProfile
import collections
import json
import os
import pstats
import sys
import time

from cuzk import pipeline
from cuzk.r1cs import sha256 as sha_mod
from cuzk.r1cs import system as sys_mod

d, out = sys.argv[1:3]
use_prof = "--no-cprofile" not in sys.argv
shape = pipeline.shape_of_pce(os.path.join(d, "block.pce"))
fam = pipeline.family_of(shape)
t0 = time.perf_counter()
inp = pipeline._read_input(os.path.join(d, "c1.json"), shape, os.path.join(d, "checked.json"))
t_read = time.perf_counter() - t0

aux_by = collections.Counter()
orig_alloc = sys_mod.ConstraintSystem._alloc_aux
orig_limbs = sys_mod.ConstraintSystem.alloc_aux_limbs
_SKIP = ("system.py", "values.py")


def _who():
    f = sys._getframe(2)
    while f is not None and f.f_code.co_filename.endswith(_SKIP):
        f = f.f_back
    return f"{os.path.basename(f.f_code.co_filename)}:{f.f_code.co_name}"


def alloc(self, n, vals, lanes=None):
    aux_by[_who()] += n
    return orig_alloc(self, n, vals, lanes)


def limbs(self, shape, lv):
    r = orig_limbs(self, shape, lv)
    aux_by[_who()] += r.size
    return r


sys_mod.ConstraintSystem._alloc_aux = alloc
sys_mod.ConstraintSystem.alloc_aux_limbs = limbs
comp = []
orig_compress = sha_mod._WordWitness.compress


def compress(self, H, W):
    t = time.perf_counter()
    base = self.sha.cs.num_aux
    r = orig_compress(self, H, W)
    comp.append((self.k, self.sha.cs.num_aux - base, time.perf_counter() - t, self.sha.g,
                 sum(1 for w in H if w.is_const())))
    return r


sha_mod._WordWitness.compress = compress
stats = shape.stats()
cs = sys_mod.ConstraintSystem(shape=False, witness=True, aux_capacity=stats["aux"], upstream_order=False)
prof = cProfile.Profile() if use_prof else None
t0 = time.perf_counter()
if prof:
    prof.enable()
fam.synthesize(cs, shape, fam.values(inp, 0))
if prof:
    prof.disable()
t_syn = time.perf_counter() - t0
t0 = time.perf_counter()
cs.assignment_compact()
t_compact = time.perf_counter() - t0
kinds = collections.defaultdict(lambda: [0, 0, 0.0, 0])
for k, aux, t, g, hc in comp:
    key = f"{g} k={k} const_state_words={hc}"
    e = kinds[key]
    e[0] += 1
    e[1] += aux
    e[2] += t
    e[3] = aux // k
res = {"shape": shape.name, "aux": cs.num_aux, "read_s": t_read, "synthesis_s": t_syn,
       "compact_s": t_compact, "cprofile": use_prof,
       "aux_by_caller": dict(aux_by.most_common()),
       "sha_calls": {k: {"calls": v[0], "aux": v[1], "seconds": v[2], "aux_per_instance": v[3]}
                     for k, v in kinds.items()},
       "sha_total": {"calls": len(comp), "aux": sum(c[1] for c in comp), "seconds": sum(c[2] for c in comp)}}
if prof:
    st = pstats.Stats(prof)
    rows = sorted(st.stats.items(), key=lambda kv: -kv[1][2])[:25]
    res["circuit_steps_cumtime"] = {
        f"{os.path.basename(f[0])}:{f[2]}": v[3] for f, v in sorted(st.stats.items(), key=lambda kv: -kv[1][3])
        if os.path.basename(f[0]) in ("porep.py", "labeling.py", "sha254.py") and v[3] > 0.005}
    res["top_tottime"] = [{"func": f"{os.path.basename(f[0])}:{f[1]}:{f[2]}", "calls": v[1],
                           "tottime": v[2], "cumtime": v[3]} for f, v in rows]
print(json.dumps(res, indent=1))
with open(out, "w") as f:
    json.dump(res, f, indent=1)
