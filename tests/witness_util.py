"""The small WindowPoSt of the ``witness_poseidon`` tests (``test_witness_inputs.py`` and its GPU
twin): three synthetic sectors in two partitions of ``test-only-window-post-256B-2x2`` (the
second padded), its PCE and a development key, and both forms of its witness."""

from __future__ import annotations

from pathlib import Path

import pytest

from cuzk import pipeline
from cuzk.r1cs import parallel

SHAPE = "test-only-window-post-256B-2x2"


def post_witness_forms(d: Path) -> dict:
    """In ``d``: the vanilla file, its check record, the PCE, ``k.params``/``k.vk``, and the
    witness files of both forms: ``inputs`` (the native core, the digests in 2 workers) and
    ``values`` (gmpy2, an independent reference). Returns their paths by name."""
    van, rec, pce = d / "w.vanilla.json", d / "w.checked.json", d / "w.pce"
    pipeline.post_vanilla("window", SHAPE, [], van, "inputs", "00" * 32, synthetic_ids=[1, 2, 3])
    pipeline.check_input(van, rec, SHAPE, partitions=2)
    pipeline.pce_extract(SHAPE, pce)
    pipeline.setup_params(pce, d / "k.params", d / "k.vk", backend="cpu", threads=2)
    mp = pytest.MonkeyPatch()
    mp.setattr(parallel, "MIN_ROWS", 2)   # the digests computed by the workers too
    try:
        inputs = pipeline.synthesize_sector(van, pce, d / "in", checked=rec, threads=2, poseidon="native", keep="inputs")
    finally:
        mp.undo()
    values = pipeline.synthesize_sector(van, pce, d / "val", checked=rec, poseidon="python", keep="values")
    return {"d": d, "van": van, "rec": rec, "pce": pce, "inputs": inputs, "values": values}
