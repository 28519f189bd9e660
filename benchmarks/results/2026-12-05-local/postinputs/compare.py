"""Whether a ``values`` and an ``inputs`` witness file of the same partition hold the same
assignment: inputs, bit mask and bits byte for byte, and the wide values chunk by chunk (the
``inputs`` file's computed by the native core as they are streamed: ``LimbRuns.chunks``), never
both whole.

Usage: PYTHONPATH=<checkout>/src python compare.py VALUES.wit INPUTS.wit
"""
import sys
import time

import numpy as np

from cuzk.r1cs.witness import read_witness_compact

t = time.perf_counter()
v, i = read_witness_compact(sys.argv[1]), read_witness_compact(sys.argv[2])
same = all(np.array_equal(getattr(v, k), getattr(i, k)) for k in ("inputs", "mask", "bits"))
same &= (v.num_aux, v.num_bits, len(v.wide)) == (i.num_aux, i.num_bits, len(i.wide))
at = 0
for chunk in i.wide.chunks():
    same &= bool(np.array_equal(v.wide[at:at + len(chunk)], chunk))
    at += len(chunk)
same &= at == len(v.wide)
print(f"{len(v.wide):,} wide values of {v.num_aux:,} aux compared in {time.perf_counter() - t:.1f} s: "
      f"{'equal' if same else 'DIFFERENT'}")
sys.exit(0 if same else 1)
