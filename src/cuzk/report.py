"""The batch report: per-step time and memory (measured and predicted), plots and a summary.

Reads the record every step writes (:class:`cuzk.memory.StepRecord`, through its one reader
:func:`cuzk.memory.read_record`), tabulates it with pandas and writes ``steps.tsv``, one
memory-timeline PNG per rule, and ``summary.md``.
"""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd

matplotlib.use("Agg")  # files only, never a screen
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

from .circuits.registry import SHAPES, family_of
from .fileio import atomic_dir, atomic_write_text
from .groth16 import file_digest
from .memory.record import read_record
from .paths import record_job, record_rule
from .sector.jsondoc import rejection

GIB = 1 << 30


def _gib(nbytes: int | None) -> float | None:
    return nbytes / GIB if nbytes is not None else None


def load_steps(mem_jsons) -> pd.DataFrame:
    """One row per job: rule, job, started_at, seconds, rss_avg/peak/predicted (GiB; the peak sampled),
    rss_kernel_peak (GiB: the kernel's ru_maxrss/VmHWM, None in older records), mem_gb, gpu_peak
    (live arrays), gpu_pool_peak (CuPy's pool, cached blocks included) and gpu_predicted (GiB; None
    off the GPU), gpu (the CUDA ordinal the step claimed, or None).

    Raises:
        ValueError: a file is not a step memory record (names the file).
    """
    rows = []
    for p in map(Path, mem_jsons):
        r = read_record(p)
        rows.append({
            "rule": record_rule(p) or r.step,   # the rule (prepare_synthetic), not the step it runs
            "job": record_job(p),
            "started_at": r.started_at,
            "seconds": r.seconds,
            "rss_avg_gib": r.rss_avg_bytes / GIB,
            "rss_peak_gib": r.rss_peak_bytes / GIB,
            "rss_kernel_peak_gib": _gib(r.rss_kernel_peak_bytes),
            "rss_predicted_gib": (r.rss_predicted_bytes or 0) / GIB,
            "mem_gb_declared": r.mem_gb,
            "gpu_peak_gib": _gib(r.gpu_peak_bytes),
            "gpu": (r.gpu_device or {}).get("index"),
            "gpu_pool_peak_gib": _gib(r.gpu_pool_peak_bytes),
            "gpu_predicted_gib": _gib(r.gpu_predicted_bytes),
            "timeline": r.timeline,
        })
    df = pd.DataFrame(rows)
    if "rss_kernel_peak_gib" in df:
        df["rss_kernel_peak_gib"] = df["rss_kernel_peak_gib"].astype(float)  # None (older records): NaN
    if "gpu" in df:
        df["gpu"] = df["gpu"].astype("Int64")   # an ordinal, blank off the GPU (not 0.0000)
    return df


#: Per-rule plots use a log scale when the largest job peaks this many times above the smallest
#: (PoSt jobs beside PoRep ones), so the small ones are not flattened at the bottom.
LOG_SCALE_RATIO = 4.0


def job_label(job: str) -> str:
    """A job as a legend names it: ``"1"`` → ``"sector 1"``, ``"1-p0"`` → ``"sector 1 partition 0"``;
    shapes, batches and PoSt targets as they are."""
    if job.isdigit():
        return f"sector {job}"
    sid, _, k = job.partition("-p")
    if sid.isdigit() and k.isdigit():
        return f"sector {sid} partition {k}"
    return job


#: Jobs of one rule whose lengths differ more than this many times get panels of their own, each
#: with its own time axis (a PoSt proof of seconds is not squeezed beside a PoRep batch of minutes).
TIME_PANEL_RATIO = 4.0


def _length(tl) -> float:
    return float(tl[-1][0]) if tl else 0.0


def time_panels(g: pd.DataFrame) -> list[pd.DataFrame]:
    """``g``'s rows grouped for :func:`rule_figure`'s panels, shortest jobs first: sorted by
    timeline length, a job more than ``TIME_PANEL_RATIO`` times longer than the first of its
    group starts the next group."""
    lengths = g["timeline"].map(_length)
    groups: list[list] = []
    first = 0.0
    for idx in lengths.sort_values(kind="stable").index:
        if not groups or lengths[idx] > TIME_PANEL_RATIO * max(first, 1e-9):
            groups.append([])
            first = lengths[idx]
        groups[-1].append(idx)
    return [g.loc[ix] for ix in groups]


def _memory_panel(ax, g: pd.DataFrame) -> None:
    for _, row in g.iterrows():
        tl = row["timeline"]
        if tl:
            ax.plot([t[0] for t in tl], [t[1] / GIB for t in tl], label=job_label(row["job"]), lw=1)
    pred = g["rss_predicted_gib"].max()
    if pred:
        ax.axhline(pred, ls="--", c="k", lw=0.8, label="predicted peak")
    for gb in sorted(g["mem_gb_declared"].dropna().unique()):
        ax.axhline(gb, ls=":", c="r", lw=0.8, label=f"declared mem_gb={gb:g}")
    peaks = g["rss_peak_gib"][g["rss_peak_gib"] > 0]
    if len(peaks) and peaks.max() > LOG_SCALE_RATIO * peaks.min():
        ax.set_yscale("log")
    ax.set_xlabel("seconds since step start")
    ax.set_ylabel("host RSS (GiB)" + (", log scale" if ax.get_yscale() == "log" else ""))
    if len(g) <= 10:
        ax.legend(fontsize=7)


def rule_figure(rule: str, g: pd.DataFrame):
    """One rule's memory plot: each job's RSS timeline (GiB over seconds since its start),
    labelled by :func:`job_label`; one panel per group of :func:`time_panels` (jobs of
    similar length), each with its own time axis, the predicted peak of its jobs (dashed) and
    their declared ``mem_gb`` (dotted, GiB as the declaration counts them), and a log scale when
    its peaks differ more than ``LOG_SCALE_RATIO`` times. ``g``: the rule's rows of
    :func:`load_steps`. Returns the figure (its axes in panel order, shortest jobs first)."""
    panels = time_panels(g)
    fig, axes = plt.subplots(len(panels), 1, figsize=(7, 3.5 if len(panels) == 1 else 2.8 * len(panels)),
                             squeeze=False)
    for ax, sub in zip(axes[:, 0], panels):
        _memory_panel(ax, sub)
    axes[0, 0].set_title(f"{rule}: memory over time")
    fig.tight_layout()
    return fig


def _plots(df: pd.DataFrame, out_dir: Path) -> None:
    for rule, g in df.groupby("rule"):
        fig = rule_figure(rule, g)
        fig.savefig(out_dir / f"{rule}.png", dpi=100)
        plt.close(fig)


def _busy_seconds(df: pd.DataFrame) -> float:
    """Seconds during which at least one step ran: the length of the union of the steps'
    [start, start + seconds] intervals (a rerun days later adds its own time, not the gap)."""
    busy, end = 0.0, None
    for a, d in sorted(zip(df["started_at"], df["seconds"])):
        b = a + d
        if end is None or a > end:
            busy += d
            end = b
        elif b > end:
            busy += b - end
            end = b
    return busy


def run_timeline(df: pd.DataFrame, step: float = 0.5) -> pd.DataFrame:
    """The whole run's memory over time: at every ``step`` seconds from the first step's start,
    the summed host RSS and GPU memory of every job running then (each job's last sample at or
    before that time; a job counts only between its start and end).

    Returns:
        columns ``t`` (seconds since the run's first step started), ``rss_gib``, ``gpu_gib``,
        ``jobs`` (jobs running); empty when no record has a timeline.
    """
    jobs = [(r["started_at"], r["seconds"], r["timeline"]) for _, r in df.iterrows()
            if r["timeline"] and r["started_at"] is not None]
    if not jobs:
        return pd.DataFrame(columns=["t", "rss_gib", "gpu_gib", "jobs"])
    t0 = min(a for a, _, _ in jobs)
    t1 = max(a + d for a, d, _ in jobs)
    grid = np.arange(0.0, t1 - t0 + step, step)
    rss, gpu, running = np.zeros(len(grid)), np.zeros(len(grid)), np.zeros(len(grid), dtype=int)
    for a, d, tl in jobs:
        ts = np.array([row[0] for row in tl], dtype=float) + (a - t0)
        idx = np.searchsorted(ts, grid, side="right") - 1
        live = (idx >= 0) & (grid <= a - t0 + d)
        r = np.array([row[1] for row in tl], dtype=float)
        g = np.array([(row[2] if len(row) > 2 and row[2] is not None else 0) for row in tl], dtype=float)
        rss[live] += r[idx[live]]
        gpu[live] += g[idx[live]]
        running[live] += 1
    return pd.DataFrame({"t": grid, "rss_gib": rss / GIB, "gpu_gib": gpu / GIB, "jobs": running})


def run_figure(tl: pd.DataFrame, budget_gb: float | None):
    """The whole run's memory (:func:`run_timeline`): all jobs' RSS against the budget (mem_gb
    counts GiB, as every declaration does: ``cuzk.memory.budget.declared_gb``), and below it
    the GPU memory, only when some job used a GPU."""
    gpu = bool((tl["gpu_gib"] > 0).any())
    fig, axes = plt.subplots(2 if gpu else 1, 1, figsize=(8, 5.5 if gpu else 3.5), sharex=True, squeeze=False)
    a = axes[0][0]
    a.plot(tl["t"], tl["rss_gib"], lw=1, label="all jobs' RSS")
    if budget_gb:
        a.axhline(budget_gb, color="red", ls="--", lw=1, label=f"--resources mem_gb={budget_gb:g}")
    a.set_ylabel("host RSS, GiB")
    a.legend(fontsize=8)
    if gpu:
        axes[1][0].plot(tl["t"], tl["gpu_gib"], lw=1, color="tab:green")
        axes[1][0].set_ylabel("GPU memory, GiB")
    axes[-1][0].set_xlabel("seconds since the first step started")
    fig.tight_layout()
    return fig


def _run_plot(tl: pd.DataFrame, budget_gb: float | None, path: Path) -> None:
    fig = run_figure(tl, budget_gb)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _is_update(shape_name) -> bool:
    """Whether a verify result's shape is a SnapDeals one (the registry's update family)."""
    return shape_name in SHAPES and family_of(SHAPES[shape_name]).name == "update"


def write_report(mem_jsons, verify_jsons, steps_tsv, summary_md, plots_dir, budget_gb: float | None = None,
                 rejected=()) -> pd.DataFrame:
    """Write steps.tsv, summary.md and the plots (per rule, and ``run.png``: the whole run's
    RSS against ``budget_gb``, the run's ``--resources mem_gb``, and its GPU memory); return the
    step table. A proof counts as verified only while the file on disk is the one verified
    (its SHA-256, recorded by the verify step). ``rejected``: check records of inputs their check
    rejected (``cuzk.sector.jsondoc.reject``; their sectors are not proved), listed with the reason."""
    df = load_steps(mem_jsons)
    cols = ["rule", "job", "seconds", "rss_avg_gib", "rss_peak_gib", "rss_kernel_peak_gib", "rss_predicted_gib",
            "mem_gb_declared", "gpu",
            "gpu_peak_gib", "gpu_pool_peak_gib", "gpu_predicted_gib"]
    atomic_write_text(steps_tsv, df[cols].to_csv(sep="\t", index=False, float_format="%.4f"))
    tl = run_timeline(df)
    with atomic_dir(plots_dir) as tmp:
        _plots(df, tmp)
        if len(tl):
            _run_plot(tl, budget_gb, tmp / "run.png")
    verified = [json.loads(Path(p).read_text()) for p in verify_jsons]
    for v in verified:
        path = v.get("proof_file")
        if path and v.get("proof_sha256") and (not Path(path).exists() or file_digest(path) != v["proof_sha256"]):
            v["verified"] = False  # the file on disk is not the one verified (changed or gone)
    prove = df[df["rule"].str.startswith("prove")]
    proofs = sum(v.get("partitions", 0) for v in verified)
    by_rule = df.groupby("rule").agg(jobs=("job", "count"), seconds=("seconds", "sum"), peak=("rss_peak_gib", "max"),
                                     kernel_peak=("rss_kernel_peak_gib", "max"),
                                     predicted=("rss_predicted_gib", "max"), declared=("mem_gb_declared", "max"))
    by_rule = by_rule.sort_values("seconds", ascending=False)
    start = df["started_at"].min()
    end = (df["started_at"] + df["seconds"]).max()
    over = df[df["mem_gb_declared"].notna() & (df["rss_peak_gib"] > df["mem_gb_declared"])]
    lines = [
        "# cuzk batch report",
        "",
        f"- proofs verified (PoRep sectors and PoSt): {sum(v['verified'] for v in verified)} of {len(verified)}"
        f" (SnapDeals sectors among them: {sum(_is_update(v.get('shape')) for v in verified)})",
        f"- wall time from the first step's start to the last step's end: {end - start:.1f} s "
        f"(steps running: {_busy_seconds(df):.1f} s; the rest had no step running: job start-up, scheduling, gaps between runs)",
        f"- dominant rule: {by_rule.index[0]} ({by_rule['seconds'].iloc[0]:.1f} s over {int(by_rule['jobs'].iloc[0])} jobs)",
        f"- jobs whose measured peak exceeded their declared mem_gb: {len(over)}",
        f"- peak RSS of all concurrent jobs: {tl['rss_gib'].max() if len(tl) else 0:.2f} GiB"
        + (f" (budget --resources mem_gb={budget_gb:g})" if budget_gb else "")
        + f"; GPU memory of concurrent jobs: {tl['gpu_gib'].max() if len(tl) else 0:.2f} GiB; most jobs at once: "
        f"{int(tl['jobs'].max()) if len(tl) else 0}",
        f"- partition proofs: {proofs}; prove steps {prove['seconds'].sum():.1f} s in all"
        + (f" ({prove['seconds'].sum() / proofs:.2f} s per proof)" if proofs else ""),
        f"- synthetic sectors (not real data): {sum(bool(v.get('synthetic')) and 'sector_id' in v for v in verified)}"
        + (f"; PoSt proofs over synthetic sectors: {n}" if (n := sum(bool(v.get('synthetic')) and 'sector_id' not in v
                                                                    for v in verified)) else ""),
    ]
    reasons = [why for why in map(rejection, rejected) if why is not None]
    if reasons:
        lines += [f"- inputs rejected by their check (their sectors not proved): {len(reasons)}",
                  *(f"  - {why}" for why in reasons)]
    lines += [
        "",
        "| rule | jobs | seconds (sum) | peak RSS GiB (sampled) | peak RSS GiB (kernel) | predicted GiB | declared mem_gb |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for rule, r in by_rule.iterrows():
        kernel = "" if pd.isna(r["kernel_peak"]) else f"{r['kernel_peak']:.3f}"
        lines.append(f"| {rule} | {int(r['jobs'])} | {r['seconds']:.2f} | {r['peak']:.3f} | {kernel} | {r['predicted']:.3f} "
                     f"| {r['declared']} |")
    atomic_write_text(summary_md, "\n".join(lines) + "\n")
    return df
