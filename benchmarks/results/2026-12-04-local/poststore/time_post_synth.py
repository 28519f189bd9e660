"""A padded 32 GiB WindowPoSt partition's synthesis (one synthetic sector over the 2,349 slots,
native Poseidon in this process, the aux capacity given as the synthesize step gives it), timed
twice in one process; the code is whatever PYTHONPATH points at.

Usage: PYTHONPATH=<checkout>/src python time_post_synth.py DIR
(DIR gets the vanilla file and its check record once: about 30 s on the 2-core box.)
"""
import os
import sys
import time

from cuzk import pipeline
from cuzk.circuits.registry import shape_by_name
from cuzk.r1cs import ConstraintSystem
from cuzk.r1cs.poseidon_path import choose_poseidon

d = sys.argv[1]
name = "window-post-32GiB"
van, rec = os.path.join(d, "window.vanilla.json"), os.path.join(d, "window.checked.json")
if not os.path.exists(rec):
    os.makedirs(d, exist_ok=True)
    pipeline.post_vanilla("window", name, [], van, "bench", "00" * 32, synthetic_ids=[1])
    pipeline.check_input(van, rec, name, partitions=1)
shape = shape_by_name(name)
fam = pipeline.family_of(shape)
inp = pipeline._read_input(van, shape, rec)
pp = choose_poseidon("native")
for run in range(2):
    cs = ConstraintSystem(shape=False, witness=True, aux_capacity=shape.stats()["aux"])
    t = time.perf_counter()
    with pp.active():
        fam.synthesize(cs, shape, fam.values(inp, 0))
    print(f"run {run}: {time.perf_counter() - t:.2f} s, {cs.num_aux} aux", flush=True)
    del cs
