"""The SLURM profile without a cluster: the status-command choice and mem_mb_per_cpu handling of
cuzk.cluster, and the sbatch calls the executor plugin makes for GPU jobs (a stand-in ``sbatch``
on PATH records each call and refuses it, so nothing runs)."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cuzk import cluster
from cuzk.errors import CuzkError
from cuzk.memory.budget import MB_PER_GB, SNAKEMAKE_JOB_MB
from slurm_util import PROFILE, ROOT, write_config

needs_snakemake = pytest.mark.skipif(shutil.which("snakemake") is None, reason="snakemake not installed")

def _bin(tmp, name, body):
    d = tmp / "bin"
    d.mkdir(exist_ok=True)
    f = d / name
    f.write_text("#!/bin/sh\n" + body)
    f.chmod(0o755)
    return d


def _fake_slurm(tmp) -> dict:
    """An environment whose PATH starts with stand-ins for every SLURM command the executor plugin
    runs (no cluster, or a stopped one, then matters): ``sbatch`` appends its arguments to
    ``$SBATCH_LOG`` and refuses the job; ``sinfo`` names a default partition; ``sacct`` works."""
    d = _bin(tmp, "sbatch", 'printf "%s\\n" "$*" >> "$SBATCH_LOG"\necho "sbatch: error: test stand-in" >&2\nexit 1\n')
    _bin(tmp, "sinfo", 'echo PARTITION\necho "main*"\n')
    _bin(tmp, "scontrol", 'echo "MinJobAge = 300 sec"\n')
    _bin(tmp, "sacct", "exit 0\n")
    return dict(os.environ, SBATCH_LOG=str(tmp / "sbatch.log"), PATH=f"{d}{os.pathsep}{os.environ['PATH']}")


def test_status_command_keeps_sacct_where_it_answers():
    assert cluster.status_command("sacct", None, True, 300, 40) == ("sacct", "job status from sacct (sacct works here)")
    assert cluster.status_command("squeue", None, True, None, 40)[0] == "squeue"
    assert cluster.status_command(None, "sacct is not installed", False, None, 40)[0] is None


def test_status_command_switches_to_squeue_without_accounting():
    cmd, why = cluster.status_command("sacct", "Slurm accounting storage is disabled", True, 300, 40)
    assert cmd == "squeue" and "Slurm accounting storage is disabled" in why
    # no sacct binary: the plugin never falls back to it, so an unknown MinJobAge is fine
    assert cluster.status_command("squeue", "sacct is not installed", False, None, 40)[0] == "squeue"
    # MinJobAge 120 s is exactly 3 × 40 s: squeue is trusted
    assert cluster.status_command("sacct", "disabled", True, 120, 40)[0] == "squeue"


def test_status_command_refuses_what_would_hang():
    """sacct broken but installed and MinJobAge under 3 × the first check: the plugin would go
    back to sacct and wait forever."""
    with pytest.raises(cluster.ClusterError, match="MinJobAge is 119 s, below the 120 s"):
        cluster.status_command("sacct", "disabled", True, 119, 40)
    with pytest.raises(cluster.ClusterError, match="MinJobAge is unknown"):
        cluster.status_command("squeue", "disabled", True, None, 40)
    assert issubclass(cluster.ClusterError, CuzkError)


def test_sacct_problem_asks_sacct_itself(tmp_path, monkeypatch):
    sleep = shutil.which("sleep")
    d = _bin(tmp_path, "sacct", "echo 'Slurm accounting storage is disabled' >&2\nexit 1\n")
    monkeypatch.setenv("PATH", str(d))
    assert cluster.sacct_problem() == "Slurm accounting storage is disabled"
    _bin(tmp_path, "sacct", "exit 0\n")
    assert cluster.sacct_problem() is None
    _bin(tmp_path, "sacct", f"{sleep} 5\n")
    assert cluster.sacct_problem(timeout_s=0.5) == "sacct did not answer within 0.5 s"
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))
    assert cluster.sacct_problem() == "sacct is not installed"


def test_mem_per_cpu_settings_found_and_overrides_refused():
    default, rules = cluster.mem_per_cpu_settings({"runtime": 30, "mem_mb_per_cpu": 1800},
                                                  {"setup": {"mem_mb_per_cpu": 1}, "prove": {"runtime": 5}})
    assert default == 1800 and rules == ["setup"]
    assert cluster.mem_per_cpu_settings({"runtime": 30}, {}) == (None, [])
    cluster.refuse_mem_per_cpu_overrides([])
    with pytest.raises(cluster.ClusterError, match="rule.s. prove, setup"):
        cluster.refuse_mem_per_cpu_overrides(["prove", "setup"])


@needs_snakemake
def test_per_rule_mem_per_cpu_refused_at_parse(tmp_path):
    cfg = write_config(tmp_path)
    r = subprocess.run(["snakemake", "-s", str(ROOT / "Snakefile"), "-n", "--profile", str(PROFILE), "--configfile",
                        str(cfg), "--set-resources", "prove:mem_mb_per_cpu=100"], cwd=tmp_path, env=_fake_slurm(tmp_path),
                       capture_output=True, text=True, timeout=120)
    assert r.returncode != 0
    assert "--set-resources sets mem_mb_per_cpu for rule(s) prove" in r.stdout + r.stderr


@needs_snakemake
def test_no_gpu_limit_warning_in_a_slurm_dry_run(tmp_path):
    """The local run's warning about --resources gpu=N (tests/test_cli_workflow.py checks it is
    printed there) does not apply under the SLURM profile, where each GPU job asks SLURM for its
    GPU: a dry run through the profile plans gpu=1 jobs and prints no such warning."""
    cfg = write_config(tmp_path)
    r = subprocess.run(["snakemake", "-s", str(ROOT / "Snakefile"), "-n", "--profile", str(PROFILE), "--configfile",
                        str(cfg), "--config", "backend=cuda"], cwd=tmp_path, env=_fake_slurm(tmp_path),
                       capture_output=True, text=True, timeout=120)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out[-3000:]
    assert "gpu=1" in out and "rule setup:" in out
    assert "--resources gpu=N is not set" not in out


def _dry_run_resources(cfg, cwd) -> dict:
    """{rule: its first job's resources line} as Snakemake's own dry run lists them (backend cuda)."""
    r = subprocess.run(["snakemake", "-s", str(ROOT / "Snakefile"), "-n", "--cores", "2", "--configfile", str(cfg),
                        "--config", "backend=cuda", "--forceall"], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    out = {}
    for b in r.stdout.split("\nrule ")[1:]:
        out.setdefault(b.split(":")[0], next(line for line in b.splitlines() if "resources:" in line))
    return out


@needs_snakemake
@pytest.mark.slow
def test_gpu_jobs_ask_slurm_for_a_gpu_and_their_mem_mb(tmp_path, commd_128b_key):
    """With backend cuda, setup goes to sbatch with --gpus=1, cpus from its threads and --mem of
    its rule's mem_mb (the model's GB plus the job's Snakemake), never --mem-per-cpu from a
    default; synthesize, a CPU step, asks for no GPU. prove declares the same gpu=1 resource."""
    cfg = write_config(tmp_path)
    # the PCE and its record (the session's copy, not the key), and the sector's C1 and check made
    # here first (setup and synthesize wait for the check_c1 checkpoint): both are then ready at once
    for d in ("pce", "benchmarks/pce_extract"):
        shutil.copytree(commd_128b_key / d, tmp_path / "results" / d)
    pre = subprocess.run(["snakemake", "-s", str(ROOT / "Snakefile"), "--cores", "1", "--configfile", str(cfg),
                          "--until", "check_c1"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert pre.returncode == 0, (pre.stdout + pre.stderr)[-3000:]
    env = _fake_slurm(tmp_path)
    a = subprocess.run(["snakemake", "-s", str(ROOT / "Snakefile"), "--profile", str(PROFILE), "--configfile", str(cfg),
                        "--config", "backend=cuda", "--default-resources", "runtime=30", "mem_mb_per_cpu=1800",
                        "--slurm-init-seconds-before-status-checks", "1"],  # nothing to wait for: all refused
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert a.returncode != 0  # every submission was refused
    assert "default resource mem_mb_per_cpu=1800 ignored" in a.stdout + a.stderr
    calls = (tmp_path / "sbatch.log").read_text().splitlines()
    listed = _dry_run_resources(cfg, tmp_path)
    assert "gpu=1" in listed["prove"] and "gpu=1" in listed["setup"] and "gpu" not in listed["prepare"]
    for rule, gpus, cpus in (("setup", "--gpus=1", 2), ("synthesize", None, 1)):
        mine = [c.split("--wrap")[0] for c in calls if f"--comment rule_{rule}_" in c]
        assert len(mine) == 2, f"{rule}: not one refused call and its retry: {calls}"
        gb = int(re.search(r"mem_gb=(\d+)", listed[rule]).group(1))
        for attempt, c in enumerate(mine, start=1):  # a refused submission is retried once, memory doubled
            assert (gpus in c) if gpus else ("--gpus" not in c), c
            assert "--mem-per-cpu" not in c, c
            assert f"--mem {attempt * gb * MB_PER_GB + SNAKEMAKE_JOB_MB} " in c, c
            assert f"--cpus-per-task={cpus}" in c, c


def test_one_onstart_runs_every_start_hook():
    """Snakemake keeps only the last ``onstart`` it parses: the workflow has one, and it chooses the
    SLURM status command (without it a cluster without accounting hangs after the last job) and
    warns about development keys."""
    import re

    root = Path(__file__).resolve().parents[1]
    files = [root / "Snakefile", *sorted((root / "workflow/rules").glob("*.smk"))]
    hooks = [(f.name, m.end()) for f in files for m in re.finditer(r"^onstart:", f.read_text(), re.M)]
    assert [h[0] for h in hooks] == ["Snakefile"]
    body = (root / "Snakefile").read_text()[hooks[0][1]:].split("\n\n")[0]
    assert "slurm_status_command()" in body and "warn_development_keys()" in body
