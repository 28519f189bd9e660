"""cuzk.progress: bars as periodic log lines outside a terminal (rate and time left), and a
watched counter read from a side thread."""

import logging
import re
import time

import pytest
from tqdm import tqdm

from cuzk import progress


@pytest.fixture
def lines(caplog, monkeypatch):
    monkeypatch.setattr(progress, "LOG_EVERY_S", 0.2)
    monkeypatch.setattr(progress, "WATCH_EVERY_S", 0.02)
    progress.log_mode()
    caplog.set_level(logging.INFO, logger="cuzk.progress")
    yield lambda: [r.getMessage() for r in caplog.records if r.name == "cuzk.progress"]
    progress.log_mode(False)


def test_log_mode_is_not_interactive():
    progress.log_mode()
    try:
        assert not progress.interactive()
    finally:
        progress.log_mode(False)


def test_bar_logs_rate_and_time_left_every_interval(lines):
    with progress.bar(4, "prove x", "partition") as b:
        for _ in range(4):
            time.sleep(0.25)       # longer than LOG_EVERY_S: a line per update
            b.update(1)
    got = lines()
    assert got[0].startswith("prove x:   0%") and got[-1].startswith("prove x: 100%")
    assert "4/4" in got[-1]
    # each line: count, elapsed<left and a rate (tqdm's own format), no carriage returns
    mid = [g for g in got if " 50%" in g]
    assert mid and re.search(r"2/4 \[00:00<00:00, +[\d.]+partition/s\]", mid[0]), got
    assert not any("\r" in g for g in got)


def test_time_left_is_the_average_rate(lines, monkeypatch):
    """Units of uneven length (a prove partition: its H phase, then five quick MSMs): time left is
    what the average since the start gives (104 s for 5 more units after 5 in 104 s), not what the
    last quick units alone suggest (a moving average gave about a tenth of it)."""
    import tqdm.std

    clock = [0.0]
    monkeypatch.setattr(tqdm.std, "time", lambda: clock[0])
    with progress.bar(10, "prove x", "MSM") as b:
        for dt in (100, 1, 1, 1, 1):
            clock[0] += dt
            b.update(1)
        text = tqdm.std.tqdm.format_meter(**b.format_dict)
    assert "5/10 [01:44<01:44," in text, text


def test_bar_lines_are_throttled(lines):
    with progress.bar(10_000, "fast", "it") as b:
        for _ in range(10_000):
            b.update(1)                # far quicker than LOG_EVERY_S: a few lines, not 10,000
    assert 2 <= len(lines()) <= 4
    assert lines()[-1].startswith("fast: 100%") and "10.0k/10.0k" in lines()[-1]   # large counts scaled


def test_watch_reads_the_counter_to_its_total(lines):
    state = {"n": 0}
    with progress.watch(lambda: state["n"], 1000, "pce y", "aux"):
        for _ in range(10):
            time.sleep(0.05)
            state["n"] += 100
    got = lines()
    assert got[-1].startswith("pce y: 100%") and "1000/1000" in got[-1], got
    assert len(got) >= 2               # at least one line while it ran, then the last


def test_log_lines_keep_coming_while_no_unit_ends(lines):
    """A long phase (one unit taking several intervals) still logs its elapsed time."""
    with progress.bar(2, "setup z", "phase"):
        time.sleep(0.9)                # no update at all: about four intervals of 0.2 s
    got = lines()
    assert len(got) >= 4, got
    assert got[-1].startswith("setup z:   0%") and "0/2" in got[-1]


def test_setup_bar_has_its_total_from_the_first_line(lines, tmp_path, monkeypatch):
    """The setup step's bar counts the key's fixed-base points (``point_counts``) from its first
    line on (it read 0/1 while the scalars were computed). The key itself is not computed here:
    setup stops at its first progress call."""
    from cuzk import pipeline
    from cuzk.groth16.setup import point_counts
    from cuzk.r1cs.pce import read_pce

    class Stop(Exception):
        pass

    def first_step_only(r1cs, bk, step=None, plan=None):
        step(0, sum(point_counts(r1cs).values()))
        raise Stop

    pce = tmp_path / "s.pce"
    pipeline.pce_extract("test-only-commd-128B", pce)
    monkeypatch.setattr(pipeline, "setup", first_step_only)
    with pytest.raises(Stop):
        pipeline.setup_params(pce, tmp_path / "s.params", tmp_path / "s.vk", backend="cpu")
    total = sum(point_counts(read_pce(pce)[0]).values())
    bars = [m for m in lines() if m.startswith("setup test-only-commd-128B:") and "%|" in m]
    assert bars and all(f"/{tqdm.format_sizeof(total)} [" in m for m in bars), (total, bars)
