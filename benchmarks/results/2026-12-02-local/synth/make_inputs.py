"""Inputs of one PoRep partition's ``synthesize`` step (``cuzk.pipeline.synthesize_partition``)
in OUT: a synthetic sector's C1 (``pipeline.prepare``), its check record
(``pipeline.check_input``) and two header-only PCEs, ``upstream.pce`` asking for
rust-fil-proofs' order (``pce_description(shape, upstream_order=True)``: what a PCE built for
Filecoin's parameters says) and ``block.pce`` for cuzk's block order (the workflow's default).
synthesize_partition reads only a PCE's header and its last 32 bytes; a real
32 GiB PCE is 18 GiB. As ``../../2026-12-02-cpu-2core-synth/synth_partition.py`` does for the
block order.

Run: PYTHONPATH=src python benchmarks/results/2026-12-02-local/synth/make_inputs.py SHAPE OUT
"""
import hashlib
import json
import os
import struct
import sys

from cuzk import pipeline
from cuzk.circuits.registry import shape_by_name
from cuzk.r1cs.pce import MAGIC, VERSION

shape, out = sys.argv[1:3]
os.makedirs(out, exist_ok=True)
c1, rec = os.path.join(out, "c1.json"), os.path.join(out, "checked.json")
pipeline.prepare({"id": 7, "synthetic": True}, c1, shape, "bench", "00" * 32)
pipeline.check_input(c1, rec, shape)
for order in ("upstream", "block"):
    hdr = json.dumps({"description": pipeline.pce_description(shape_by_name(shape), order == "upstream")}).encode()
    with open(os.path.join(out, f"{order}.pce"), "wb") as f:
        f.write(MAGIC + struct.pack("<II", VERSION, len(hdr)) + hdr + hashlib.sha256(hdr).digest())
