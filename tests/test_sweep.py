"""``cuzk bench sweep`` on a test-only batch: shared inputs made once, the same batch run at two
budgets, each point measured from the run itself (process-tree RSS, proof file times)."""

import json
import shutil
from pathlib import Path

import pytest

from cuzk.bench.sweep import TIMEOUT_RC, sample_run, sweep
from cuzk.circuits.registry import shape_by_name
from cuzk.memory.budget import declared_gb
from cuzk.memory.model import predict_step_bytes

ROOT = Path(__file__).resolve().parents[1]

THREADS = 2  # setup and prove on both of the CI machine's cores (they run alone)
CONFIG = """backend: cpu
threads: {threads}
results: {results}
max_batch_size: 1
randomness: sweep
prover_id: "{pid}"
allow_test_shapes: true
circuit: porep-commd
post: {{winning: false, window: false}}
sectors:
  - {{id: 1, generate: 1, sector_size: test-only-128B}}
  - {{id: 2, synthetic: true, sector_size: test-only-128B}}
"""
SHAPE = "test-only-commd-128B"  # one partition: the fewest jobs per point


def test_sample_run_sums_the_process_tree(tmp_path):
    code = "import subprocess, sys; subprocess.run([sys.executable, '-c', 'x = bytearray(200 << 20); import time; time.sleep(1.5)'])"
    import sys

    rc, wall, s = sample_run([sys.executable, "-c", code], interval=0.1)
    assert rc == 0 and wall >= 1.5
    assert max(s.rss) > 200 << 20   # the grandchild's 200 MiB counted in the tree's sum
    rc, wall, _ = sample_run([sys.executable, "-c", "import time; time.sleep(60)"], interval=0.1, timeout=0.5)
    assert rc == TIMEOUT_RC and wall < 30   # stopped at its limit (SIGTERM), not waited for


@pytest.mark.skipif(shutil.which("snakemake") is None, reason="snakemake not installed")
def test_sweep_measures_each_budget(tmp_path):
    cfg = tmp_path / "config.yaml"
    cfg.write_text(CONFIG.format(results=tmp_path / "unused", pid="00" * 32, threads=THREADS))
    st = shape_by_name(SHAPE).stats()
    tight = max(declared_gb(predict_step_bytes(s, st, threads=THREADS)) for s in ("setup", "prove", "pce_extract"))
    points = sweep(cfg, [tight, tight + 2], cores=2, out=tmp_path / "sw", snakefile=ROOT / "Snakefile",
                   interval=0.2)
    assert [p.budget_gb for p in points] == [tight, tight + 2]
    for p in points:
        assert p.rc == 0, p.note
        assert p.proofs == 2 and p.verified == 2
        assert p.steady_s_per_proof is not None and p.steady_s_per_proof >= 0
        assert 0 < p.peak_rss_bytes and p.jobs_max >= 1
    # the shared run made the key once: no budget's run ran setup again
    for b in (tight, tight + 2):
        log = (tmp_path / "sw" / f"mem{b:g}.log").read_text()
        assert "rule setup:" not in log and "rule synthesize:" in log
    table = json.loads((tmp_path / "sw" / "sweep.json").read_text())
    assert len(table) == 2 and (tmp_path / "sw" / "sweep.png").stat().st_size > 0
    assert "| mem_gb |" in (tmp_path / "sw" / "sweep.md").read_text()
    # a later call with another budget into the same folder keeps the earlier points; a run past
    # its time limit is stopped and its row says so
    more = sweep(cfg, [tight + 4], cores=2, out=tmp_path / "sw", snakefile=ROOT / "Snakefile", interval=0.2,
                 point_timeout=1.0)
    assert [p.budget_gb for p in more] == [tight, tight + 2, tight + 4]
    assert more[2].rc == TIMEOUT_RC and "limit" in more[2].note and more[2].proofs == 0
    assert [p.rc for p in more[:2]] == [0, 0]
    assert len(json.loads((tmp_path / "sw" / "sweep.json").read_text())) == 3
