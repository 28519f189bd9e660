"""One partition's ``synthesize`` step (``cuzk.pipeline.synthesize_partition``, partition 0) with
a chosen SHA-256 witness path, as the workflow's rule runs it with ``synthesis_sha: SHA``; the
step's own record (seconds and peak RSS of the step, imports excluded) goes to MEM.json.

Inputs in DIR: ``../../2026-12-02-local/synth/make_inputs.py SHAPE DIR`` (a synthetic sector's
checked C1 and header-only PCEs; ORDER ``block`` is the workflow's default).

Run: PYTHONPATH=src python benchmarks/results/2026-12-03-local/nativesha/step.py DIR ORDER SHA OUT.wit MEM.json
"""
import os
import sys

from cuzk.pipeline import synthesize_partition

d, order, sha, out, mem = sys.argv[1:6]
synthesize_partition(os.path.join(d, "c1.json"), os.path.join(d, "checked.json"), os.path.join(d, f"{order}.pce"), 0,
                     out, mem_json=mem, sha=sha)
