"""The workflow config checked strictly (cuzk.configcheck): values JSON Schema would let through
(``2.0`` for an integer, NaN, an empty or root path) are refused, every problem listed at once."""

import math
from pathlib import Path

import yaml

from cuzk.configcheck import config_problems

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = yaml.safe_load((ROOT / "workflow/schemas/config.schema.yaml").read_text())


def _config(**over):
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    cfg.update(over)
    return cfg


def test_the_default_config_is_good():
    assert config_problems(_config(), SCHEMA) == []


def test_every_problem_at_once_one_line_each():
    cfg = _config(threads=2.0, max_batch_size=True, gpu_mem_limit_gb=math.nan, results="/")
    cfg["sectors"][0]["id"] = 1.0
    cfg["sectors"][1]["data"] = ""
    probs = config_problems(cfg, SCHEMA)
    joined = "\n".join(probs)
    assert len(probs) == 6, joined
    for place in ("threads:", "max_batch_size:", "gpu_mem_limit_gb:", "results: '/' is the file system's root",
                  "sectors.0.id:", "sectors.1.data: '' is an empty path"):
        assert place in joined, (place, joined)


def test_infinity_and_negative_budgets_refused():
    assert any("gpu_mem_limit_gb" in p for p in config_problems(_config(gpu_mem_limit_gb=math.inf), SCHEMA))
    assert any("gpu_mem_limit_gb" in p for p in config_problems(_config(gpu_mem_limit_gb=-1), SCHEMA))
    assert config_problems(_config(gpu_mem_limit_gb=24), SCHEMA) == []


def test_sector_ids_and_test_shapes_listed_with_the_rest():
    """A sector id given twice and a test-only shape without ``allow_test_shapes`` are listed with
    the schema's problems in one refusal (not one per run); allowed test shapes pass."""
    cfg = _config(threads=2.0)
    cfg["sectors"][1]["id"] = cfg["sectors"][0]["id"]
    cfg["sectors"][2]["sector_size"] = "test-only-128B"
    cfg.pop("allow_test_shapes", None)
    joined = "\n".join(config_problems(cfg, SCHEMA))
    sid = cfg["sectors"][0]["id"]
    for line in ("threads:", f"sectors: sector id {sid} appears 2 times",
                 "sectors.2.sector_size: test-only-128B is a test-only shape"):
        assert line in joined, (line, joined)
    cfg = _config()
    cfg["sectors"][2]["sector_size"] = "test-only-128B"
    assert config_problems(dict(cfg, allow_test_shapes=True), SCHEMA) == []
