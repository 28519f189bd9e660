"""A PCE file of a shape's header only: what the synthesize steps read of a PCE (its shape, its
order and its digest; ``benchmarks/results/2026-12-02-local/synth/make_inputs.py``), so a test
synthesizes witnesses without extracting the matrices."""

from __future__ import annotations

import hashlib
import json
import struct
from pathlib import Path

from cuzk import pipeline
from cuzk.circuits.registry import shape_by_name
from cuzk.r1cs.pce import MAGIC, VERSION


def header_pce(path: Path, shape: str, upstream: bool = False) -> Path:
    """Write a matrix-less PCE of ``shape`` (upstream order or not) to ``path``; returns ``path``."""
    hdr = json.dumps({"description": pipeline.pce_description(shape_by_name(shape), upstream)}).encode()
    path.write_bytes(MAGIC + struct.pack("<II", VERSION, len(hdr)) + hdr + hashlib.sha256(hdr).digest())
    return path
