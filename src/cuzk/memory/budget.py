"""Memory declarations and budgets: what a job declares, what a retry asks for, what is refused.

The memory model (:mod:`cuzk.memory.model`) predicts peak bytes; this module turns a prediction
into the whole GiB a Snakemake job declares (``mem_gb``: it counts GiB; and ``mem_mb`` for cluster executors),
raises it on a retry, and refuses a job whose declaration exceeds the run's budget
(``--resources mem_gb``) before any job starts. A step also checks its own prediction against
the budget it was given (:func:`check_budget`) before its expensive work.

Pure arithmetic: imports nothing of cuzk but its error base, and never Snakemake (the workflow's
``common.smk`` calls these functions and turns :class:`MemoryBudgetError` into Snakemake's
``WorkflowError``).
"""

from __future__ import annotations

from ..errors import CuzkError

GIB = 1 << 30
#: Factor a declaration adds above the model's prediction.
HEADROOM = 1.25
#: The least a job declares, GiB.
FLOOR_GB = 1
#: MB per declared GiB (``mem_mb`` = 1024 × ``mem_gb``: the same prediction in SLURM's unit).
MB_PER_GB = 1024
#: MB a cluster job needs beyond its step: each SLURM job runs two Snakemake processes of its own
#: (the jobstep and the one srun starts) besides the step's script. Their summed peak RSS was
#: 0.285 GiB in every job of a test-shape run on a single-node SLURM 22.05 with Snakemake 9.27.1
#: and snakemake-executor-plugin-slurm 2.8.0 (issue 18).
SNAKEMAKE_JOB_MB = 292


class MemoryBudgetError(CuzkError, RuntimeError):
    """A step needs more memory than it is given (names the step or rule, the need and the budget)."""


def declared_gb(predicted_bytes: int, headroom: float = HEADROOM, floor_gb: int = FLOOR_GB) -> int:
    """Whole GiB a rule should declare as ``mem_gb`` for a step predicted to peak at the given bytes:
    ``max(floor_gb, ceil(predicted_bytes × headroom / 2^30))``."""
    gib = predicted_bytes * headroom / GIB
    return max(floor_gb, int(-(-gib // 1)))


def mem_mb(gb: int) -> int:
    """``mem_mb`` (what SLURM reads, MB) of a job declaring ``gb`` GB: the same GB in MB plus
    :data:`SNAKEMAKE_JOB_MB`, the Snakemake processes every cluster job runs besides its step.
    Local runs schedule on ``mem_gb`` alone, so the addition costs them nothing."""
    return MB_PER_GB * gb + SNAKEMAKE_JOB_MB


def retry_gb(gb: int, attempt: int, budget_gb: float | None) -> int:
    """``mem_gb`` asked for by attempt ``attempt`` (1 = the first run) of a job declaring ``gb``.

    Each attempt asks for ``gb × attempt``; with a budget, a retry asks for at most the budget
    (but never less than ``gb``), so a retry never stops the whole run.
    """
    if budget_gb is not None and attempt > 1:
        return min(gb * attempt, max(gb, budget_gb))
    return gb * attempt


def refuse_over_budget(rule: str, gb: int, budget_gb: float | None) -> None:
    """Refuse a job declaring ``gb`` GB under ``--resources mem_gb=budget_gb`` (None: no budget).

    Snakemake would silently lower the request to the budget and run the job anyway.

    Raises:
        MemoryBudgetError: ``gb`` exceeds the budget; the message names the rule, both figures
            and the budget that runs the job.
    """
    if budget_gb is not None and gb > budget_gb:
        raise MemoryBudgetError(
            f"Rule {rule}: the memory model predicts {gb} GiB (mem_gb) but --resources mem_gb={budget_gb}; "
            f"give --resources mem_gb={gb} or more"
        )


def attempt_gb(rule: str, gb: int, attempt: int, budget_gb: float | None) -> int:
    """``mem_gb`` of a job's attempt: the first attempt is refused over the budget
    (:func:`refuse_over_budget`); later ones are raised by :func:`retry_gb`."""
    if attempt <= 1:
        refuse_over_budget(rule, gb, budget_gb)
    return retry_gb(gb, attempt, budget_gb)


def refuse_any_over_budget(jobs, budget_gb: float | None) -> None:
    """The check of a whole run before any job starts: every job must fit ``budget_gb`` alone.

    Args:
        jobs: ``(rule, gb, least_gb)`` of every job still to run: its declaration (``mem_gb``)
            and what it would declare at ``threads: 1`` and ``max_batch_size: 1``.
        budget_gb: ``--resources mem_gb`` (None: no budget, ``jobs`` is not read).

    Raises:
        MemoryBudgetError: one message listing every rule with a job over the budget (its
            largest need and how many of its jobs are over), the smallest budget that runs every
            job (the largest declaration), and whether lowering ``threads``/``max_batch_size``
            could help instead (only when every job would then fit).
    """
    if budget_gb is None:
        return
    jobs = list(jobs)
    over: dict[str, list[int]] = {}
    for rule, gb, _ in jobs:
        if gb > budget_gb:
            over.setdefault(rule, []).append(gb)
    if not over:
        return
    smallest = max(gb for _, gb, _ in jobs)
    least = max(lo for _, _, lo in jobs)
    lines = [f"--resources mem_gb={budget_gb} is too small for this batch; the memory model predicts (mem_gb):"]
    lines += [f"  Rule {rule}: {max(gbs)} GiB ({len(gbs)} job{'s' if len(gbs) > 1 else ''} over the budget)"
              for rule, gbs in over.items()]
    lines.append(f"the smallest budget that runs this batch: --resources mem_gb={smallest}")
    if least <= budget_gb:
        lines.append(f"or lower threads and max_batch_size: at threads 1 and max_batch_size 1 the largest job "
                     f"needs {least} GiB")
    else:
        lines.append(f"lowering threads or max_batch_size cannot help: at threads 1 and max_batch_size 1 the "
                     f"largest job still needs {least} GiB")
    raise MemoryBudgetError("\n".join(lines))


def check_budget(step: str, predicted_bytes: int, budget_gb: float | None) -> None:
    """Raise MemoryBudgetError if ``predicted_bytes`` exceeds ``budget_gb`` GiB (None: no budget).

    Snakemake silently lowers a job's request to the global limit and runs it alone, so a step
    checks its own need against what it was given, before any expensive work.
    """
    if budget_gb is None:
        return
    if predicted_bytes > budget_gb * GIB:
        raise MemoryBudgetError(
            f"{step}: predicted peak {predicted_bytes / GIB:.2f} GiB exceeds the budget of {budget_gb} GiB; "
            f"raise --resources mem_gb or lower the batch size"
        )


__all__ = ["FLOOR_GB", "HEADROOM", "MemoryBudgetError", "SNAKEMAKE_JOB_MB", "attempt_gb", "check_budget", "declared_gb", "mem_mb",
           "refuse_any_over_budget", "refuse_over_budget", "retry_gb"]
