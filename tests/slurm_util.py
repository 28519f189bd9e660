"""The smallest workflow config the SLURM tests run (one generated sector of the 128-byte test
shape, comm_d circuit, no PoSt), and the profile they run it through."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROFILE = ROOT / "workflow" / "profiles" / "slurm"

_CONFIG = """backend: cpu
threads: {threads}
results: {results}
max_batch_size: 1
randomness: slurm-test
prover_id: "{pid}"
allow_test_shapes: true
circuit: porep-commd
post: {{winning: false, window: false}}
sectors:
  - {{id: 1, generate: 1, sector_size: test-only-128B}}
"""


def write_config(tmp: Path, threads: int = 2) -> Path:
    """``tmp/config.yaml`` with results under ``tmp/results``; returns its path."""
    cfg = tmp / "config.yaml"
    cfg.write_text(_CONFIG.format(threads=threads, results=tmp / "results", pid="ab" * 32))
    return cfg
