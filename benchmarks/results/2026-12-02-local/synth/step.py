"""``cuzk.pipeline.synthesize_partition`` of partition 0 on the inputs ``make_inputs.py`` wrote in
DIR (the checked C1; ORDER: ``upstream`` or ``block``, the header-only PCE of that order): the
whole ``synthesize`` step in one process, as the workflow runs it. The cuzk imported is the one
on PYTHONPATH.

Run: PYTHONPATH=src python benchmarks/results/2026-12-02-local/synth/step.py DIR ORDER OUT.wit
"""
import os
import sys

from cuzk.pipeline import synthesize_partition

d, order, out = sys.argv[1:4]
synthesize_partition(os.path.join(d, "c1.json"), os.path.join(d, "checked.json"), os.path.join(d, f"{order}.pce"), 0, out)
