"""SLURM facts for the workflow's cluster profile (``workflow/profiles/slurm``, ``workflow/rules/slurm.smk``).

Two things the executor plugin (snakemake-executor-plugin-slurm 2.8.0) gets wrong on its own:

- **Job status.** It polls ``sacct`` whenever the binary exists; on a cluster without accounting
  (no slurmdbd) ``sacct`` answers "Slurm accounting storage is disabled" and Snakemake waits
  forever after the last job. :func:`sacct_problem` asks ``sacct`` itself and
  :func:`status_command` picks ``squeue`` when it fails.
- **Memory.** A ``mem_mb_per_cpu`` default (common in site profiles) wins over a rule's ``mem_mb``
  in the plugin's ``sbatch`` call, so a prove the memory model sizes at 14 GB asks for
  1.8 GB × cpus. :func:`mem_per_cpu_settings` finds such settings so the workflow can neutralise
  (defaults) or refuse (per-rule overrides) them.

Imports nothing of Snakemake; ``slurm.smk`` turns :class:`ClusterError` into a ``WorkflowError``.
"""

from __future__ import annotations

import shutil
import subprocess

from .errors import CuzkError

#: The plugin's threshold: with ``squeue`` chosen it switches to ``sacct`` when SLURM's
#: ``MinJobAge`` (how long squeue shows a finished job) is below 3 × the first status-check
#: interval, or unknown (snakemake_executor_plugin_slurm 2.8.0, ``check_active_jobs``).
SQUEUE_AGE_FACTOR = 3
#: The resource that would replace a rule's ``mem_mb`` in the plugin's sbatch call.
MEM_PER_CPU = "mem_mb_per_cpu"


class ClusterError(CuzkError, RuntimeError):
    """The cluster cannot run this workflow safely as configured (names the setting and the remedy)."""


def sacct_problem(timeout_s: float = 30.0) -> str | None:
    """Why ``sacct`` cannot report job states here, or None when it answers.

    Runs ``sacct --noheader -X -j 1 -o JobIdRaw`` (a query for one job id: quick with or without
    accounting). Returns its first error line (e.g. "Slurm accounting storage is disabled"),
    "sacct is not installed", or a timeout note.
    """
    if shutil.which("sacct") is None:
        return "sacct is not installed"
    try:
        r = subprocess.run(["sacct", "--noheader", "-X", "-j", "1", "-o", "JobIdRaw"],
                           capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return f"sacct did not answer within {timeout_s:g} s"
    if r.returncode != 0:
        lines = (r.stderr + r.stdout).strip().splitlines()
        return lines[0] if lines else f"sacct exited with status {r.returncode}"
    return None


def status_command(chosen: str | None, problem: str | None, sacct_installed: bool,
                   min_job_age_s: int | None, first_check_s: int) -> tuple[str | None, str]:
    """The job-status command the plugin should use, and one line saying why.

    ``chosen``: the plugin's setting (``--slurm-status-command``; None without SLURM);
    ``problem``: :func:`sacct_problem`'s answer; ``min_job_age_s``: SLURM's ``MinJobAge`` in
    seconds (None: unknown); ``first_check_s``: the plugin's first status-check interval
    (``--slurm-init-seconds-before-status-checks``, seconds).

    ``sacct`` is kept where it works (it also reports why a job failed); otherwise ``squeue``.

    Raises:
        ClusterError: ``sacct`` fails but is installed and ``MinJobAge`` is unknown or below
            :data:`SQUEUE_AGE_FACTOR` × ``first_check_s``: the plugin would switch from
            ``squeue`` back to ``sacct`` and wait forever.
    """
    if chosen is None:
        return None, "no SLURM status command (SLURM not found here)"
    if problem is None:
        return chosen, f"job status from {chosen} (sacct works here)"
    need = SQUEUE_AGE_FACTOR * first_check_s
    if sacct_installed and min_job_age_s is None:
        raise ClusterError(
            f"SLURM: sacct fails here ({problem}) and MinJobAge is unknown (scontrol show config did "
            f"not answer): the executor plugin would fall back to sacct and wait forever; is "
            f"slurmctld running?"
        )
    if sacct_installed and min_job_age_s < need:
        raise ClusterError(
            f"SLURM: sacct fails here ({problem}) and MinJobAge is {min_job_age_s} s, below the {need} s "
            f"the executor plugin needs to trust squeue (it would fall back to sacct and wait forever): "
            f"set MinJobAge>={need} in slurm.conf, enable accounting (slurmdbd), or lower "
            f"--slurm-init-seconds-before-status-checks"
        )
    return "squeue", f"job status from squeue (sacct: {problem})"


def mem_per_cpu_settings(default_resources: dict, overwrite_resources: dict) -> tuple[object, list[str]]:
    """The ``mem_mb_per_cpu`` settings that would under-size jobs: (the default's value or None,
    rules that override it by name).

    ``default_resources``: ``{resource: value}`` of ``--default-resources`` (profile or command
    line); ``overwrite_resources``: ``{rule: {resource: value}}`` of ``--set-resources``.
    """
    default = default_resources.get(MEM_PER_CPU)
    rules = sorted(rule for rule, res in overwrite_resources.items() if res.get(MEM_PER_CPU) is not None)
    return default, rules


def refuse_mem_per_cpu_overrides(rules: list[str]) -> None:
    """Refuse ``--set-resources <rule>:mem_mb_per_cpu=…`` for the rules named.

    Raises:
        ClusterError: any rule is named; the plugin would send ``--mem-per-cpu`` instead of the
            memory model's ``mem_mb`` for it.
    """
    if rules:
        raise ClusterError(
            f"--set-resources sets {MEM_PER_CPU} for rule(s) {', '.join(rules)}: SLURM would then size "
            f"those jobs per CPU instead of by the memory model's mem_mb; set mem_mb (or mem_gb) instead"
        )


__all__ = ["ClusterError", "MEM_PER_CPU", "SQUEUE_AGE_FACTOR", "mem_per_cpu_settings", "refuse_mem_per_cpu_overrides",
           "sacct_problem", "status_command"]
