"""PoSt first, read from real run logs (``cuzk.runlog``). The fresh default-batch run on the
2-core CPU machine after the PoSt priority fix (benchmarks/results/2026-12-02-cpu-2core/newuser:
five 2 KiB sectors, two PoRep batches, WinningPoSt and WindowPoSt) finished every PoSt job before
any PoRep prove started, WinningPoSt's proof before WindowPoSt's, and started the three keys
(setup), all ready at once, in priority order; the older H200 run of the same batch
(2026-11-30-h200/workflow-porep-v4, before the fix) had a PoSt prove and a PoRep prove ready
together and proved PoSt first. Logs in which a lower-priority job jumps a waiting one are caught."""

import time
from pathlib import Path

import pytest

from cuzk.runlog import RunLogError, priority_inversions, read_run_log, ready_together

ROOT = Path(__file__).resolve().parents[1]
RUN = ROOT / "benchmarks" / "results" / "2026-11-30-h200" / "workflow-porep-v4" / "workflow.log"
FRESH = ROOT / "benchmarks" / "results" / "2026-12-02-cpu-2core" / "newuser" / "console.log"
POST = {"prove_winning_post", "prove_window_post"}


def _setup_of(shape):
    return lambda job: job.rule == "setup" and job.wildcards == f"shape={shape}"


def _is_post(job):
    return job.rule.endswith("_post") or job.rule.startswith("post_vanilla") or "-post-" in job.wildcards


def test_fresh_cpu_run_proved_post_first():
    jobs = read_run_log(FRESH)
    assert len(jobs) == 38 and all(j.finished is not None for j in jobs)
    post = [j for j in jobs if _is_post(j)]
    assert len(post) == 12   # per kind: vanilla, PCE, key, witness, proof, verify
    porep = [j for j in jobs if j.rule == "prove"]
    assert len(porep) == 2 and max(j.finished for j in post) <= min(j.started for j in porep)
    win, window = (next(j for j in jobs if j.rule == r) for r in ("prove_winning_post", "prove_window_post"))
    assert win.finished <= window.started
    # the keys: all three ready and waiting once the PoRep PCE was written; started by priority
    win_key, window_key, porep_key = (_setup_of(s) for s in ("winning-post-2KiB", "window-post-2KiB", "porep-2KiB"))
    assert ready_together(jobs, win_key, window_key) and ready_together(jobs, window_key, porep_key)
    for hi, lo in ((win_key, window_key), (win_key, porep_key), (window_key, porep_key)):
        assert priority_inversions(jobs, hi, lo) == []
    started = [next(j for j in jobs if k(j)).started for k in (win_key, window_key, porep_key)]
    assert started == sorted(started) and len(set(started)) == 3


def test_a_porep_key_jumping_a_waiting_post_key_is_found():
    """The fresh log with the PoRep setup's start stamp moved to one second before WindowPoSt's
    setup started (that one was ready and waiting then) is an inversion."""
    lines = FRESH.read_text().splitlines()
    jobs = read_run_log(FRESH)
    window = next(j for j in jobs if _setup_of("window-post-2KiB")(j))
    at = next(i for i, line in enumerate(lines)
              if line.endswith("rule setup:") and "shape=porep-2KiB" in "\n".join(lines[i : i + 12]))
    assert lines[at - 1].startswith("[")   # the block's start stamp
    lines[at - 1] = f"[{time.ctime(window.started - 1)}]"
    found = priority_inversions(read_run_log("\n".join(lines)), _setup_of("window-post-2KiB"), _setup_of("porep-2KiB"))
    assert [(a.wildcards, b.wildcards) for a, b in found] == [("shape=window-post-2KiB", "shape=porep-2KiB")]


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
