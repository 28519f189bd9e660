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
