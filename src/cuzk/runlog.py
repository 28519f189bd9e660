"""The order jobs ran in, read from a Snakemake run's log (``.snakemake/log/*.snakemake.log``, or
what ``snakemake`` prints on stderr), for checking that priorities held end to end.

Snakemake logs each job as it starts: a ``[Tue Dec  1 17:23:26 2026]`` time stamp (1-second
resolution), ``rule NAME:`` (``localrule`` for local rules) and indented ``input:``,
``output:``, ``jobid:`` and ``wildcards:`` lines; and as it ends: a time stamp then ``Finished
jobid: N (Rule: NAME)`` (Snakemake 9; ``Finished job N.`` before). A job is *ready* when the
last job of this run that made one of its inputs finished (at the log's first time stamp when
none did: its inputs existed). Snakemake starts the ready job of highest priority first, so a
job of a higher-priority target that was ready and waiting while a lower one started is a
priority inversion (:func:`priority_inversions`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from .errors import CuzkError

_STAMP = re.compile(r"^\[(\w{3} \w{3} +\d{1,2} \d{2}:\d{2}:\d{2} \d{4})\]$")
_RULE = re.compile(r"^(?:local)?rule (\w+):$")
_FIELD = re.compile(r"^ {4}(input|output|jobid|wildcards): (.*)$")
_FINISHED = re.compile(r"^Finished job(?:id:)? (\d+)")


class RunLogError(CuzkError, ValueError):
    """A text is not a Snakemake run log (no job in it); names the log."""


@dataclass
class LoggedJob:
    """One job of a run log.

    Attributes:
        jobid: Snakemake's job id in this run.
        rule: the rule name.
        wildcards: the ``wildcards:`` line as logged ("" without wildcards).
        inputs, outputs: the file paths logged.
        started: POSIX seconds of its start (local time of the log, 1-s resolution).
        finished: POSIX seconds of its end, None when it did not finish in this log.
        ready: when its inputs were all there (see the module docstring), None when one of the
            jobs making them did not finish.
    """

    jobid: int
    rule: str
    wildcards: str
    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    started: float = 0.0
    finished: float | None = None
    ready: float | None = None


def read_run_log(log, name: str = "") -> list[LoggedJob]:
    """Every job a Snakemake run log shows starting, in start order, with its readiness.

    Args:
        log: a path to the log, or its text.
        name: what to call the log in errors (default: the path, or "the log").

    Raises:
        RunLogError: no job start in the text (not a run log, or a dry run's).
        OSError: the file cannot be read.
    """
    if isinstance(log, Path):
        name, text = name or str(log), log.read_text(errors="replace")
    else:
        text = log
    blocks: list[dict] = []
    finished: dict[int, float] = {}
    stamp, block, first = None, None, None
    for line in text.splitlines():
        m = _STAMP.match(line)
        if m:
            stamp = datetime.strptime(m.group(1), "%a %b %d %H:%M:%S %Y").timestamp()
            first = stamp if first is None else first
            block = None
        elif (m := _RULE.match(line)) and stamp is not None:
            block = {"jobid": None, "rule": m.group(1), "wildcards": "", "inputs": [], "outputs": [], "started": stamp}
            blocks.append(block)
        elif (m := _FIELD.match(line)) and block is not None:
            key, value = m.groups()
            if key == "jobid":
                block["jobid"] = int(value)
            elif key == "wildcards":
                block["wildcards"] = value.strip()
            else:
                block[key + "s"] = [p.strip() for p in value.split(",") if p.strip()]
        elif m := _FINISHED.match(line):
            finished.setdefault(int(m.group(1)), stamp)
    jobs: dict[int, LoggedJob] = {}
    for b in blocks:   # a retried job keeps its first start
        if b["jobid"] is not None and b["jobid"] not in jobs:
            jobs[b["jobid"]] = LoggedJob(**b, finished=finished.get(b["jobid"]))
    if not jobs:
        raise RunLogError(f"{name or 'the log'}: no job start found: not a Snakemake run log")
    made_by = {out: job for job in jobs.values() for out in job.outputs}
    for job in jobs.values():
        ends = [made_by[p].finished for p in job.inputs if p in made_by and made_by[p] is not job]
        job.ready = None if None in ends else max(ends, default=first)
    return sorted(jobs.values(), key=lambda j: (j.started, j.jobid))


def _picks(which) -> Callable[[LoggedJob], bool]:
    """A set of rule names, or a test of a job (e.g. one rule's jobs of one shape), as a test."""
    return which if callable(which) else (lambda job: job.rule in which)


def priority_inversions(jobs: list[LoggedJob], first, then) -> list[tuple[LoggedJob, LoggedJob]]:
    """(waiting, jumped) pairs: a ``first`` job was ready a whole second or more before a
    ``then`` job started, yet started after it.

    Args:
        jobs: :func:`read_run_log`'s jobs.
        first, then: sets of rule names, or tests ``job -> bool``; the ``first`` jobs have the
            higher priority.
    """
    first, then = _picks(first), _picks(then)
    return [(a, b) for a in jobs if first(a) and a.ready is not None
            for b in jobs if then(b) and a.ready < b.started < a.started]


def ready_together(jobs: list[LoggedJob], first, then) -> list[tuple[LoggedJob, LoggedJob]]:
    """(a, b) pairs of a ``first`` job and a ``then`` job (as in :func:`priority_inversions`)
    both ready and waiting at one moment (each ready before either started): the cases in which
    priority decided their order."""
    first, then = _picks(first), _picks(then)
    return [(a, b) for a in jobs if first(a) and a.ready is not None
            for b in jobs if then(b) and b.ready is not None
            and max(a.ready, b.ready) < min(a.started, b.started)]


__all__ = ["LoggedJob", "RunLogError", "priority_inversions", "read_run_log", "ready_together"]
