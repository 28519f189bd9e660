"""The memory/throughput sweep: one batch of sectors run through the whole workflow at several
RAM budgets, each point measured (never predicted), and the deployment table made from them.

``cuzk sweep --configfile CFG --budgets 32,48,64 --cores 16 --out DIR``:

1. **Shared inputs once.** The budget-independent outputs (PCE and parameters) are made by one
   Snakemake run into ``DIR/shared`` (the workflow's ``keys`` target, with the checked C1s) and hard-linked, with their records,
   into every budget's results folder, so each point measures the batch (its sectors entering
   and being checked, synthesis, proving and verification), not the key setup.
2. **One run per budget.** ``snakemake --cores N --resources mem_gb=B gpu=G`` into
   ``DIR/mem<B>``, while this process samples, every ``interval`` seconds, the summed RSS of
   Snakemake's whole process tree (every concurrent job counted: what ``mem_gb`` promises to
   bound), the GPU memory in use (NVML, where there is a GPU), and the jobs in flight (the job
   scripts running).
3. **The table.** Per budget: wall seconds, proofs, steady seconds per proof (from the first to
   the last proof file written, over proofs − 1: the pipeline's rate once it is full), peak total
   RSS, peak GPU memory, the most and mean jobs in flight, and whether every proof verified.
   Written as ``DIR/sweep.json`` and ``DIR/sweep.md``, with a Pareto plot ``DIR/sweep.png``
   (budget against steady seconds per proof).

A run that fails (budget too small for one job: Snakemake refuses before any job starts) is a
row with its return code and the refusal's first line, not an exception.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import matplotlib
import psutil

from ..progress import bar

matplotlib.use("Agg")  # files only
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

try:  # NVML's binding (nvidia-ml-py): GPU memory where there is a GPU
    import pynvml
except ImportError:
    pynvml = None

SHARED_TARGET = "keys"   # the workflow's target of the shared run: the PCE, key and checked inputs
TIMEOUT_RC = 124  # a run stopped at its time limit (as timeout(1) reports it)
SHARED_DIRS = ("c1", "pce", "params", "sealed", "post", "benchmarks", "logs")  # budget-independent outputs (and their records), linked


@dataclass
class Samples:
    """Whole-run samples (seconds since the run started)."""

    t: list = field(default_factory=list)
    rss: list = field(default_factory=list)        # bytes, Snakemake's process tree
    gpu: list = field(default_factory=list)        # bytes in use on the device (None without NVML)
    jobs: list = field(default_factory=list)       # job scripts running


@dataclass
class SweepPoint:
    """One budget's measured run."""

    budget_gb: float
    rc: int
    wall_s: float
    proofs: int
    verified: int
    steady_s_per_proof: float | None
    peak_rss_bytes: int
    peak_gpu_bytes: int | None
    jobs_max: int
    jobs_mean: float
    note: str = ""


def _gpu_reader():
    """A function returning the bytes in use on GPU 0 (NVML), or None when there is none."""
    if pynvml is None:
        return None
    try:
        pynvml.nvmlInit()
        handle = pynvml.nvmlDeviceGetHandleByIndex(0)
        return lambda: int(pynvml.nvmlDeviceGetMemoryInfo(handle).used)
    except Exception:
        return None


def _tree(proc: psutil.Process) -> list[psutil.Process]:
    try:
        return [proc] + proc.children(recursive=True)
    except psutil.Error:
        return []


def sample_run(cmd: list[str], interval: float = 0.25, env=None, cwd=None, log=None,
               timeout: float | None = None) -> tuple[int, float, Samples]:
    """Run ``cmd`` and sample its process tree until it exits; past ``timeout`` seconds it is
    stopped (SIGTERM, which Snakemake passes to its jobs; SIGKILL 60 s later).

    Returns:
        (return code, wall seconds, samples); the return code is ``TIMEOUT_RC`` when stopped.
    """
    gpu = _gpu_reader()
    out = Samples()
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=log, stderr=subprocess.STDOUT if log else None)
    root = psutil.Process(proc.pid)
    done = threading.Event()

    def run():
        while not done.is_set():
            rss, jobs = 0, 0
            for p in _tree(root):
                try:
                    rss += p.memory_info().rss
                    if any("snakemake/scripts" in a or "workflow/scripts" in a for a in p.cmdline()[1:3]):
                        jobs += 1
                except psutil.Error:
                    pass
            out.t.append(time.monotonic() - t0)
            out.rss.append(rss)
            out.gpu.append(gpu() if gpu else None)
            out.jobs.append(jobs)
            done.wait(interval)

    th = threading.Thread(target=run, daemon=True)
    th.start()
    try:
        rc = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        rc = TIMEOUT_RC
    done.set()
    th.join()
    return rc, time.monotonic() - t0, out


def _link_tree(src: Path, dst: Path) -> None:
    """Hard-link every file of ``src`` into ``dst`` (copy across file systems), keeping mtimes."""
    for f in src.rglob("*"):
        if f.is_file():
            t = dst / f.relative_to(src)
            t.parent.mkdir(parents=True, exist_ok=True)
            if not t.exists():
                try:
                    os.link(f, t)
                except OSError:
                    shutil.copy2(f, t)


def _proof_times(results: Path) -> list[float]:
    return sorted(p.stat().st_mtime for p in (results / "proofs").rglob("*.proof"))


def _verified(results: Path) -> int:
    n = 0
    for v in (results / "verify").glob("*.json"):
        try:
            n += bool(json.loads(v.read_text()).get("verified"))
        except (OSError, ValueError):
            pass
    return n


def _point(budget: float, rc: int, wall: float, s: Samples, results: Path, note: str) -> SweepPoint:
    times = _proof_times(results)
    steady = (times[-1] - times[0]) / (len(times) - 1) if len(times) > 1 else None
    gpus = [g for g in s.gpu if g is not None]
    return SweepPoint(
        budget_gb=budget, rc=rc, wall_s=round(wall, 2), proofs=len(times), verified=_verified(results),
        steady_s_per_proof=None if steady is None else round(steady, 3),
        peak_rss_bytes=max(s.rss, default=0), peak_gpu_bytes=max(gpus) if gpus else None,
        jobs_max=max(s.jobs, default=0), jobs_mean=round(sum(s.jobs) / max(1, len(s.jobs)), 2), note=note,
    )


def _first_error(log: Path) -> str:
    try:
        for line in log.read_text(errors="replace").splitlines():
            if "Error" in line or "refuse" in line.lower() or "exceeds" in line:
                return line.strip()[:200]
    except OSError:
        pass
    return ""


def table(points: list[SweepPoint]) -> str:
    """The deployment table (markdown): budget → steady s/proof, peaks, jobs in flight."""
    rows = ["| mem_gb | steady s/proof | wall s | proofs (verified) | peak total RSS GiB | peak GPU GiB | jobs in flight (max / mean) | note |",
            "|---:|---:|---:|---:|---:|---:|---:|---|"]
    for p in points:
        gpu = "" if p.peak_gpu_bytes is None else f"{p.peak_gpu_bytes / 2**30:.1f}"
        sp = "" if p.steady_s_per_proof is None else f"{p.steady_s_per_proof:.1f}"
        rows.append(f"| {p.budget_gb:g} | {sp} | {p.wall_s:.0f} | {p.proofs} ({p.verified}) | "
                    f"{p.peak_rss_bytes / 2**30:.1f} | {gpu} | {p.jobs_max} / {p.jobs_mean:.1f} | {p.note} |")
    return "\n".join(rows) + "\n"


def _plot(points: list[SweepPoint], samples: dict, out: Path) -> None:
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    ok = [p for p in points if p.steady_s_per_proof is not None]
    a.plot([p.budget_gb for p in ok], [p.steady_s_per_proof for p in ok], "o-")
    for p in ok:
        a.annotate(f"{p.peak_rss_bytes / 2**30:.0f} GiB peak", (p.budget_gb, p.steady_s_per_proof), fontsize=8)
    a.set_xlabel("--resources mem_gb (budget)")
    a.set_ylabel("steady seconds per proof")
    a.set_title("throughput against RAM budget (measured)")
    for p in points:
        s = samples.get(p.budget_gb)
        if s is not None and s.t:
            line, = b.plot(s.t, [r / 2**30 for r in s.rss], label=f"mem_gb={p.budget_gb:g}")
            b.axhline(p.budget_gb * 1e9 / 2**30, color=line.get_color(), ls=":", lw=0.8)
    b.set_xlabel("seconds")
    b.set_ylabel("total RSS of all jobs, GiB (dotted: budget)")
    b.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def _load_points(out: Path) -> dict[float, SweepPoint]:
    """Points already measured into ``out`` (an earlier invocation: a sweep can be run a few budgets
    at a time into one folder and one table)."""
    try:
        return {p["budget_gb"]: SweepPoint(**p) for p in json.loads((out / "sweep.json").read_text())}
    except (OSError, ValueError, TypeError):
        return {}


def _write_table(out: Path, points: dict[float, SweepPoint]) -> list[SweepPoint]:
    """``sweep.json``, ``sweep.md`` and ``sweep.png`` of every point in ``out``, by budget."""
    rows = [points[b] for b in sorted(points)]
    (out / "sweep.json").write_text(json.dumps([asdict(p) for p in rows], indent=1) + "\n")
    (out / "sweep.md").write_text(table(rows))
    samples = {}
    for b in points:
        try:
            samples[b] = Samples(**json.loads((out / f"mem{b:g}.samples.json").read_text()))
        except (OSError, ValueError, TypeError):
            pass
    _plot(rows, samples, out / "sweep.png")
    plt.close("all")
    return rows


def sweep(configfile, budgets: list[float], cores: int, out, gpus: int = 1, snakefile="Snakefile",
          extra_args: list[str] | None = None, interval: float = 0.25,
          point_timeout: float | None = None) -> list[SweepPoint]:
    """Run the sweep (see the module docstring) and write ``sweep.json``, ``sweep.md``, ``sweep.png``.

    Args:
        configfile: the batch (its ``results`` is replaced per run).
        budgets: ``mem_gb`` values, in the order to run them.
        cores: ``--cores`` of every run. gpus: ``--resources gpu=`` (0: none declared).
        out: the sweep's folder. extra_args: more Snakemake arguments (e.g. a profile).
        point_timeout: seconds one budget's run may take (None: no limit); a run stopped there
            is a row with ``rc`` ``TIMEOUT_RC`` and what it finished.

    The table is rewritten after each point, and points measured into ``out`` before (by an
    earlier call with other budgets) stay in it, so a sweep can be run a few budgets at a time.

    Returns every point of the folder's table, by budget.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    def snakemake(*targets):   # targets ahead of the options (after one, a target reads as its value)
        return [sys.executable, "-m", "snakemake", *targets, "-s", str(snakefile), "--configfile", str(configfile),
                "--cores", str(cores)] + (extra_args or [])

    gpu_res = [f"gpu={gpus}"] if gpus else []
    shared = out / "shared"
    with open(out / "shared.log", "w") as log:
        rc, wall, _ = sample_run(snakemake(SHARED_TARGET) + ["--config", f"results={shared}", "--resources",
                                                           f"mem_gb={max(budgets):g}", *gpu_res], interval, log=log)
    if rc != 0:
        raise RuntimeError(f"the shared run (PCE, key, checked inputs) failed (rc {rc}); see {out / 'shared.log'}")
    points, rows = _load_points(out), []
    with bar(len(budgets), "sweep", "budget") as progress:
        for b in budgets:
            res = out / f"mem{b:g}"
            for d in SHARED_DIRS:
                if (shared / d).exists():
                    _link_tree(shared / d, res / d)
            logp = out / f"mem{b:g}.log"
            with open(logp, "w") as log:
                rc, wall, s = sample_run(snakemake() + ["--config", f"results={res}", "--resources", f"mem_gb={b:g}", *gpu_res],
                                         interval, log=log, timeout=point_timeout)
            note = "" if rc == 0 else (f"stopped at the {point_timeout:g} s limit" if rc == TIMEOUT_RC
                                       else f"rc {rc}: {_first_error(logp)}")
            points[b] = _point(b, rc, wall, s, res, note)
            (out / f"mem{b:g}.samples.json").write_text(json.dumps(asdict(s)))
            rows = _write_table(out, points)   # after each point: a stopped sweep keeps its table
            progress.update(1)
    return rows
