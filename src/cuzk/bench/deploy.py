"""Deployment prediction: the steady seconds per sector, jobs in flight and peak host memory of a
batch on another machine (cores, RAM, GPU memory), from the memory model (what each job
declares, so what Snakemake lets run at once under ``--resources mem_gb``) and timings measured
through the workflow on one machine (the records of its runs).

The pipeline model (one GPU; ``P`` partitions per sector, batches of ``b`` sectors):

- synthesis: ``c`` partitions at once, the fewest of the cores left beside the prove job (its
  ``threads``) and what the budget left beside it holds (declared ``mem_gb`` each); a sector's
  partitions take ``P · t_synth / c`` seconds (``t_synth``: the measured mean of one job);
- the GPU: ``P · t_part + (t_job + t_gap) / b`` seconds a sector (``t_part``: a partition's proof,
  ``t_job``: a prove job's fixed part, key and PCE loading; ``t_gap``: between two prove jobs);
  both fitted to the prove jobs measured, and the steady gap to the sweep's intervals;
- steady seconds per sector: the slower of the two; peak host memory: the prove job's and ``c``
  syntheses' predicted peaks (not the declarations, which carry headroom).

The constants come from measurements (``calibrate``); only the machine's shape is an input. Cores
are taken as fast as the measured machine's; a GPU with less memory than the measured prove jobs
used (their key resident) is not predicted (the chunked path of small GPUs is another
measurement).
"""

from __future__ import annotations

import csv
import json
import math
import statistics
from dataclasses import asdict, dataclass
from pathlib import Path

from ..circuits.registry import shape_by_name
from ..memory.budget import declared_gb
from ..memory.model import predict_step_bytes

GIB = 1 << 30


@dataclass
class Calibration:
    """Timings of one machine (seconds), fitted by :func:`calibrate`."""

    t_synth: float   # one partition's synthesis job (mean of the runs' jobs)
    t_part: float    # one partition's proof inside a prove job (slope of job seconds over partitions)
    t_job: float     # a prove job's fixed part (key and PCE loading; intercept of the same fit)
    t_gap: float     # between two prove jobs in a steady run (scheduling, job start-up)
    gpu_gib: float   # the most GPU memory a measured prove job used


def _rows(steps_tsv) -> list[dict]:
    with open(steps_tsv) as f:
        return list(csv.DictReader(f, delimiter="\t"))


def calibrate(runs: list[dict]) -> Calibration:
    """Fit the timings to measured runs.

    Args:
        runs: each ``{"steps": path of a report's steps.tsv, "partitions_per_job": int, and
            optionally "steady_s_per_sector": float}`` (a sweep point: the interval between its
            sectors' proofs, batches of one). Prove jobs of at least two sizes are needed.

    Raises:
        ValueError: fewer than two prove job sizes, or no synthesis job.
    """
    synth, points, gaps, gpu = [], {}, [], [0.0]
    for run in runs:
        rows = _rows(run["steps"])
        synth += [float(r["seconds"]) for r in rows if r["rule"] == "synthesize"]
        prove = [float(r["seconds"]) for r in rows if r["rule"] == "prove"]
        gpu += [float(r["gpu_peak_gib"]) for r in rows if r["rule"] == "prove" and r.get("gpu_peak_gib")]
        points.setdefault(int(run["partitions_per_job"]), []).extend(prove)
        if run.get("steady_s_per_sector") and prove:
            gaps.append(float(run["steady_s_per_sector"]) - statistics.mean(prove))
    if len(points) < 2 or not synth:
        raise ValueError("calibrate: needs synthesis jobs and prove jobs of two sizes")
    (n0, s0), (n1, s1) = [(n, statistics.mean(v)) for n, v in sorted(points.items())[:2]]
    t_part = (s1 - s0) / (n1 - n0)
    return Calibration(t_synth=statistics.mean(synth), t_part=t_part, t_job=s0 - n0 * t_part,
                       t_gap=statistics.median(gaps) if gaps else 0.0, gpu_gib=max(gpu))


def sweep_runs(sweep_dir, partitions_per_job: int) -> list[dict]:
    """``calibrate``'s runs of a sweep folder (``cuzk bench sweep --out``): each budget's report
    with its steady interval (``sweep.json``); ``partitions_per_job``: partitions of a batch."""
    sweep_dir = Path(sweep_dir)
    return [{"steps": sweep_dir / f"mem{p['budget_gb']:g}/report/steps.tsv", "partitions_per_job": partitions_per_job,
             "steady_s_per_sector": p["steady_s_per_proof"]}
            for p in json.loads((sweep_dir / "sweep.json").read_text())]


@dataclass
class Prediction:
    """One machine's predicted steady state."""

    cores: int
    mem_gb: float
    gpu_gb: float
    batch: int
    synth_in_flight: int
    s_per_sector: float | None     # None: not predicted (see note)
    bound: str                     # "synthesis" or "GPU"
    peak_rss_gib: float
    note: str = ""


def predict(cal: Calibration, shape_name: str, cores: int, mem_gb: float, gpu_gb: float, batch: int = 1,
            threads: int = 4) -> Prediction:
    """The steady state of a batch of ``shape_name`` sectors (see the module docstring).

    Args:
        cal: measured timings. shape_name: the PoRep shape (partitions, counts).
        cores: ``--cores``. mem_gb: ``--resources mem_gb``. gpu_gb: GiB of the one GPU.
        batch: ``max_batch_size``. threads: the config's ``threads`` (the prove job's cores).
    """
    shape = shape_by_name(shape_name)
    st, parts = shape.stats(), shape.partitions
    prove_b = predict_step_bytes("prove", st, threads=threads, batch=batch, backend="cuda")
    synth_b = predict_step_bytes("synthesize", st)
    room = mem_gb - declared_gb(prove_b)
    c = max(0, min(cores - threads, math.floor(room / declared_gb(synth_b))))
    peak = (prove_b + c * synth_b) / GIB
    if gpu_gb < cal.gpu_gib:
        return Prediction(cores, mem_gb, gpu_gb, batch, c, None, "", round(peak, 1),
                          f"measured with {cal.gpu_gib:.0f} GiB of GPU memory")
    if c == 0:
        return Prediction(cores, mem_gb, gpu_gb, batch, 0, None, "", round(peak, 1),
                          "no room for a synthesis beside the prove job")
    synth = parts * cal.t_synth / c
    gpu = parts * cal.t_part + (cal.t_job + cal.t_gap) / batch
    return Prediction(cores, mem_gb, gpu_gb, batch, c, round(max(synth, gpu), 1),
                      "synthesis" if synth > gpu else "GPU", round(peak, 1))


def table(preds: list[Prediction], measured: dict | None = None) -> str:
    """Markdown rows; ``measured`` maps (cores, mem_gb, batch) to measured s/sector, shown with
    the prediction's error."""
    measured = measured or {}
    out = ["| cores | mem_gb | GPU GiB | batch | syntheses at once | predicted s/sector | bound | "
           "predicted peak RSS GiB | measured s/sector | error |",
           "|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|"]
    for p in preds:
        m = measured.get((p.cores, p.mem_gb, p.batch))
        err = f"{(p.s_per_sector - m) / m:+.0%}" if m and p.s_per_sector else ""
        sp = f"{p.s_per_sector:.1f}" if p.s_per_sector is not None else p.note
        out.append(f"| {p.cores} | {p.mem_gb:g} | {p.gpu_gb:g} | {p.batch} | {p.synth_in_flight} | {sp} | "
                   f"{p.bound} | {p.peak_rss_gib:.1f} | {'' if m is None else f'{m:.1f}'} | {err} |")
    return "\n".join(out) + "\n"


def write(path, cal: Calibration, preds: list[Prediction], measured: dict | None = None) -> None:
    """``path`` (.json) and its .md beside it."""
    path = Path(path)
    path.write_text(json.dumps({"calibration": asdict(cal), "predictions": [asdict(p) for p in preds]}, indent=1) + "\n")
    path.with_suffix(".md").write_text(table(preds, measured))
