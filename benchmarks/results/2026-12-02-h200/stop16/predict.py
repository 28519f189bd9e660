"""The deployment prediction of stop 16 (cuzk.bench.deploy): timings fitted to the H200 runs
(call A: one prove job of 40 partitions; the sweep: jobs of 10 and the steady intervals), then
predicted for the measured points (to show the error) and for other machines.
Run from the repository root:  python benchmarks/results/2026-12-02-h200/stop16/predict.py"""
import json
from pathlib import Path

from cuzk.bench.deploy import calibrate, predict, sweep_runs, write

HERE = Path(__file__).parent
sweep = {p["budget_gb"]: p for p in json.loads((HERE / "sweep/sweep.json").read_text())}
cal = calibrate([{"steps": HERE / "run-a/report/steps.tsv", "partitions_per_job": 40}] + sweep_runs(HERE / "sweep", 10))
proofs = sorted(json.loads((HERE / "run-a/proof-times.json").read_text())["proofs"].values())
measured = {(16, b, 1): p["steady_s_per_proof"] for b, p in sweep.items()}
measured[(16, 64, 4)] = (proofs[-1] - proofs[0]) / (len(proofs) - 1)
points = [(16, b, 141, 1) for b in sorted(sweep)] + [(16, 64, 141, 4)]
others = [(8, 32, 141, 2), (8, 32, 141, 4), (16, 32, 141, 4), (32, 128, 141, 8), (32, 256, 141, 8),
          (64, 512, 141, 8), (32, 256, 80, 4)]
preds = [predict(cal, "porep-32GiB", c, m, g, b) for c, m, g, b in points + others]
write(HERE / "deploy.json", cal, preds, measured)
print(json.dumps(cal.__dict__, indent=1))
print((HERE / "deploy.md").read_text())
