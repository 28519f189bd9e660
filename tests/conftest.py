"""Fixtures shared by several test files: the repository root, the default config with its
results in a fresh folder, a skip when Snakemake is missing, and a small memory record."""

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The repository root (Snakefile, config.yaml, workflow/)."""
    return ROOT


@pytest.fixture
def snakemake_cli():
    """The ``snakemake`` command; skips the test where it is not installed."""
    exe = shutil.which("snakemake")
    if exe is None:
        pytest.skip("snakemake not installed")
    return exe


@pytest.fixture
def default_config(tmp_path):
    """Write the repository's config.yaml with results in ``tmp_path/r`` (and any further
    ``{old: new}`` replacements); returns a function giving the written file's path."""

    def write(replace: dict | None = None, name: str = "config.yaml") -> Path:
        text = (ROOT / "config.yaml").read_text().replace("results: results", f"results: {tmp_path / 'r'}")
        for old, new in (replace or {}).items():
            assert old in text, old
            text = text.replace(old, new)
        cfg = tmp_path / name
        cfg.write_text(text)
        return cfg

    return write


@pytest.fixture
def step_record_dict() -> dict:
    """The JSON object of a small prove step's memory record, as cuzk writes it."""
    return {"seconds": 2.5, "rss_avg_bytes": 1 << 29, "rss_peak_bytes": 3 << 29, "gpu_peak_bytes": None,
            "samples": 3, "timeline": [[0.0, 1 << 29, None], [1.0, 3 << 29, None], [2.5, 1 << 29, None]],
            "rss_peak_gib": 1.5, "rss_avg_gib": 0.5, "step": "prove", "rss_predicted_bytes": 1 << 31,
            "mem_gb": 4, "started_at": 1700000000.0, "sectors": 2}
