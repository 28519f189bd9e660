"""cuzk.bench.deploy: the timings fitted to measured runs, and predictions worked by hand; on the
H200 runs of stop 12, the one point left out of the fit is predicted within 20 %."""

import json
import math
from pathlib import Path

import pytest

from cuzk.bench.deploy import calibrate, predict, sweep_runs, table
from cuzk.circuits.registry import shape_by_name
from cuzk.memory.budget import declared_gb
from cuzk.memory.model import predict_step_bytes

ROOT = Path(__file__).resolve().parents[1]
STOP12 = ROOT / "benchmarks/results/2026-12-01-h200/stop12"
COLS = ["rule", "job", "seconds", "rss_peak_gib", "gpu_peak_gib"]


def _tsv(path, rows):
    path.write_text("\t".join(COLS) + "\n" + "".join("\t".join(map(str, r)) + "\n" for r in rows))
    return path


def test_fit_and_prediction_by_hand(tmp_path):
    a = _tsv(tmp_path / "a.tsv", [("synthesize", "1-p0", 20, 2.7, ""), ("synthesize", "1-p1", 30, 2.7, ""),
                                  ("prove", "b0", 70, 3.8, 100.0)])           # 20 partitions
    b = _tsv(tmp_path / "b.tsv", [("prove", "b0", 45, 3.8, 90.0), ("prove", "b1", 45, 3.8, 90.0)])  # 10 each
    cal = calibrate([{"steps": a, "partitions_per_job": 20},
                     {"steps": b, "partitions_per_job": 10, "steady_s_per_sector": 57}])
    assert cal.t_synth == 25 and cal.t_part == pytest.approx(2.5) and cal.t_job == pytest.approx(20)
    assert cal.t_gap == pytest.approx(12) and cal.gpu_gib == 100
    st = shape_by_name("porep-32GiB").stats()
    synth_gb = declared_gb(predict_step_bytes("synthesize", st))
    prove_gb = declared_gb(predict_step_bytes("prove", st, threads=4, batch=2, backend="cuda"))
    # 16 cores, 4 of them the prove job's: at most 12 syntheses, and what the budget leaves
    for mem, cores in ((32, 16), (200, 16), (64, 8)):
        c = min(cores - 4, math.floor((mem - prove_gb) / synth_gb))
        p = predict(cal, "porep-32GiB", cores, mem, 141, batch=2)
        assert p.synth_in_flight == c
        synth, gpu = 10 * 25 / c, 10 * 2.5 + (20 + 12) / 2
        assert p.s_per_sector == pytest.approx(max(synth, gpu), abs=0.05)
        assert p.bound == ("synthesis" if synth > gpu else "GPU")
    assert predict(cal, "porep-32GiB", 16, 64, 80).s_per_sector is None   # less GPU than measured
    with pytest.raises(ValueError):
        calibrate([{"steps": b, "partitions_per_job": 10}])                 # one job size only


def test_the_h200_point_left_out_of_the_fit():
    """Fitted to the sweep (batches of one) and call A's prove jobs, the steady rate of call A
    itself (four sectors, batches of two: first to last proof) is predicted within 20 %."""
    cal = calibrate([{"steps": STOP12 / "run-a/report/steps.tsv", "partitions_per_job": 20}]
                    + sweep_runs(STOP12 / "sweep", 10))
    t = sorted(json.loads((STOP12 / "run-a/proof-times.json").read_text())["proofs"].values())
    measured = (t[-1] - t[0]) / (len(t) - 1)
    p = predict(cal, "porep-32GiB", 16, 64, 141, batch=2)
    assert abs(p.s_per_sector - measured) <= 0.2 * measured
    assert "| 16 | 64 | 141 | 2 |" in table([p], {(16, 64, 2): measured})
