"""PoSt first, read from real run logs (``cuzk.runlog``): in the committed H200 run of the
default 2 KiB batch (benchmarks/results/2026-11-30-h200/workflow-porep-v4, five sectors, two
PoRep batches, WinningPoSt and WindowPoSt, one GPU), every PoSt prove started before any PoRep
prove that was ready with it, and WinningPoSt before WindowPoSt; a log in which a PoRep prove
jumps a waiting PoSt prove is caught."""

import time
from pathlib import Path

import pytest

from cuzk.runlog import RunLogError, priority_inversions, read_run_log, ready_together

ROOT = Path(__file__).resolve().parents[1]
RUN = ROOT / "benchmarks" / "results" / "2026-11-30-h200" / "workflow-porep-v4" / "workflow.log"
POST = {"prove_winning_post", "prove_window_post"}


def test_real_run_proved_post_first():
    jobs = read_run_log(RUN)
    assert len(jobs) == 33 and all(j.finished is not None for j in jobs)
    by = {(j.rule, j.wildcards): j for j in jobs}
    win = by[("prove_winning_post", "kind=winning, size=2KiB")]
    b1 = by[("prove", "batch=porep-2KiB-b1")]
    # the PoRep batch was ready while WinningPoSt's prove waited for the GPU; WinningPoSt went first
    assert (win, b1) in ready_together(jobs, POST, {"prove"})
    assert b1.ready < b1.started and win.ready < win.started < b1.started
    # readiness comes from the log's own input/output lines: b1's last input job (a synthesis)
    last = max((j for j in jobs if set(j.outputs) & set(b1.inputs)), key=lambda j: j.finished)
    assert last.rule == "synthesize" and last.finished == b1.ready
    assert priority_inversions(jobs, POST, {"prove"}) == []
    assert priority_inversions(jobs, {"prove_winning_post"}, {"prove_window_post"}) == []


def test_a_porep_prove_jumping_a_waiting_post_prove_is_found():
    """The same log with PoRep batch b1's start stamp moved to one second before WinningPoSt's
    prove started (WinningPoSt was ready and waiting then) is an inversion; at the same second,
    a tie, it is not."""
    lines = RUN.read_text().splitlines()
    jobs = read_run_log(RUN)
    win = next(j for j in jobs if j.rule == "prove_winning_post")
    at = next(i for i, line in enumerate(lines)
              if line.endswith("rule prove:") and "batch=porep-2KiB-b1" in "\n".join(lines[i : i + 12]))
    assert lines[at - 1].startswith("[")   # the block's start stamp
    for shift, inverted in ((1, True), (0, False)):
        lines[at - 1] = f"[{time.ctime(win.started - shift)}]"
        moved = read_run_log("\n".join(lines))
        found = priority_inversions(moved, POST, {"prove"})
        assert [(a.rule, b.wildcards) for a, b in found] == ([("prove_winning_post", "batch=porep-2KiB-b1")]
                                                             if inverted else [])


def test_not_a_run_log():
    with pytest.raises(RunLogError, match="not a Snakemake run log"):
        read_run_log("Building DAG of jobs...\nNothing to be done.\n", "dry.log")
