"""The batch report: per-step time and memory (measured and predicted), plots and a summary.

Reads the record every step writes (:class:`cuzk.memory.StepRecord`, through its one reader
:func:`cuzk.memory.read_record`), tabulates it with pandas and writes ``steps.tsv``, one
memory-timeline PNG per rule, and ``summary.md``.
"""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib
import pandas as pd

matplotlib.use("Agg")  # files only, never a screen
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

from .fileio import atomic_dir, atomic_write_text
from .memory.record import read_record
from .paths import record_job

GIB = 1 << 30


def _gib(nbytes: int | None) -> float | None:
    return nbytes / GIB if nbytes is not None else None


def load_steps(mem_jsons) -> pd.DataFrame:
    """One row per job: rule, job, started_at, seconds, rss_avg/peak/predicted (GiB), mem_gb, gpu_peak
    (live arrays), gpu_pool_peak (CuPy's pool, cached blocks included) and gpu_predicted (GiB; None
    off the GPU), gpu (the CUDA ordinal the step claimed, or None).

    Raises:
        ValueError: a file is not a step memory record (names the file).
    """
    rows = []
    for p in map(Path, mem_jsons):
        r = read_record(p)
        rows.append({
            "rule": r.step,
            "job": record_job(p),
            "started_at": r.started_at,
            "seconds": r.seconds,
            "rss_avg_gib": r.rss_avg_bytes / GIB,
            "rss_peak_gib": r.rss_peak_bytes / GIB,
            "rss_predicted_gib": (r.rss_predicted_bytes or 0) / GIB,
            "mem_gb_declared": r.mem_gb,
            "gpu_peak_gib": _gib(r.gpu_peak_bytes),
            "gpu": (r.gpu_device or {}).get("index"),
            "gpu_pool_peak_gib": _gib(r.gpu_pool_peak_bytes),
            "gpu_predicted_gib": _gib(r.gpu_predicted_bytes),
            "timeline": r.timeline,
        })
    df = pd.DataFrame(rows)
    if "gpu" in df:
        df["gpu"] = df["gpu"].astype("Int64")   # an ordinal, blank off the GPU (not 0.0000)
    return df


def _plots(df: pd.DataFrame, out_dir: Path) -> None:
    for rule, g in df.groupby("rule"):
        fig, ax = plt.subplots(figsize=(7, 3.5))
        for _, row in g.iterrows():
            tl = row["timeline"]
            if tl:
                ax.plot([t[0] for t in tl], [t[1] / GIB for t in tl], label=row["job"], lw=1)
        pred = g["rss_predicted_gib"].max()
        if pred:
            ax.axhline(pred, ls="--", c="k", lw=0.8, label="predicted peak")
        ax.set_xlabel("seconds since step start")
        ax.set_ylabel("host RSS (GiB)")
        ax.set_title(f"{rule}: memory over time")
        if len(g) <= 10:
            ax.legend(fontsize=7)
        fig.tight_layout()
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


def write_report(mem_jsons, verify_jsons, steps_tsv, summary_md, plots_dir) -> pd.DataFrame:
    """Write steps.tsv, summary.md and the per-rule plots; return the step table."""
    df = load_steps(mem_jsons)
    cols = ["rule", "job", "seconds", "rss_avg_gib", "rss_peak_gib", "rss_predicted_gib", "mem_gb_declared", "gpu",
            "gpu_peak_gib", "gpu_pool_peak_gib", "gpu_predicted_gib"]
    atomic_write_text(steps_tsv, df[cols].to_csv(sep="\t", index=False, float_format="%.4f"))
    with atomic_dir(plots_dir) as tmp:
        _plots(df, tmp)
    verified = [json.loads(Path(p).read_text()) for p in verify_jsons]
    by_rule = df.groupby("rule").agg(jobs=("job", "count"), seconds=("seconds", "sum"), peak=("rss_peak_gib", "max"),
                                     predicted=("rss_predicted_gib", "max"), declared=("mem_gb_declared", "max"))
    by_rule = by_rule.sort_values("seconds", ascending=False)
    start = df["started_at"].min()
    end = (df["started_at"] + df["seconds"]).max()
    over = df[df["mem_gb_declared"].notna() & (df["rss_peak_gib"] > df["mem_gb_declared"])]
    lines = [
        "# cuzk batch report",
        "",
        f"- proofs verified (PoRep sectors and PoSt): {sum(v['verified'] for v in verified)} of {len(verified)}",
        f"- wall time from the first step's start to the last step's end: {end - start:.1f} s "
        f"(steps running: {_busy_seconds(df):.1f} s; the rest had no step running: job start-up, scheduling, gaps between runs)",
        f"- dominant rule: {by_rule.index[0]} ({by_rule['seconds'].iloc[0]:.1f} s over {int(by_rule['jobs'].iloc[0])} jobs)",
        f"- jobs whose measured peak exceeded their declared mem_gb: {len(over)}",
        "",
        "| rule | jobs | seconds (sum) | peak RSS GiB | predicted GiB | declared mem_gb |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for rule, r in by_rule.iterrows():
        lines.append(f"| {rule} | {int(r['jobs'])} | {r['seconds']:.2f} | {r['peak']:.3f} | {r['predicted']:.3f} | {r['declared']} |")
    atomic_write_text(summary_md, "\n".join(lines) + "\n")
    return df
