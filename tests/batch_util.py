"""A small batch of sectors for ``prove_batch`` tests (cpu and gpu), and fixed blinding scalars."""

import itertools
import shutil
from pathlib import Path

from cuzk import pipeline
from cuzk.groth16 import prover as prover_mod


def make_batch(root: Path, shape: str, sectors: int, backend: str = "cpu", key: Path | None = None) -> dict:
    """PCE, parameters (development setup on ``backend``), C1 files and witness directories of
    ``sectors`` sectors (ids 1..sectors) of a comm_d ``shape``, under ``root``. With ``key`` (a
    results folder holding that shape's PCE and key: conftest's ``commd_128b_key``) the PCE and
    parameters are copies of its files instead of made here.

    Returns:
        {"pce", "params", "vk", "c1": [paths], "wit": [dirs]}.
    """
    root.mkdir(parents=True, exist_ok=True)
    pce, params, vk = root / "s.pce", root / "s.params", root / "s.vk"
    if key is None:
        pipeline.pce_extract(shape, pce)
        pipeline.setup_params(pce, params, vk, backend=backend, threads=2)
    else:
        for made, there in ((pce, f"pce/{shape}.pce"), (params, f"params/{shape}.params"), (vk, f"params/{shape}.vk")):
            shutil.copy2(key / there, made)
    c1s, wits = [], []
    for i in range(1, sectors + 1):
        c1, wit = root / f"{i}.c1.json", root / f"wit-{i}"
        pipeline.prepare({"id": i, "generate": i}, c1, shape, "batch-test", "00" * 32)
        pipeline.synthesize_sector(c1, pce, wit)
        c1s.append(c1)
        wits.append(wit)
    return {"pce": pce, "params": params, "vk": vk, "c1": c1s, "wit": wits}


def fixed_blinding(monkeypatch, start: int = 1000):
    """Make the prover's fresh r, s a fixed sequence (start, start + 1, … in call order: r then
    s per proof); returns a function giving the (r, s) of the proof numbered j (from 0)."""
    counter = itertools.count(start)
    monkeypatch.setattr(prover_mod.secrets, "randbelow", lambda n: next(counter) % n)
    return lambda j: (start + 2 * j, start + 2 * j + 1)
