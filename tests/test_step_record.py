"""cuzk.memory.record: the typed per-step record, its one writer and one reader."""

import json

import pytest

from cuzk.memory import MemoryReport, StepRecord, read_record, write_record
from cuzk.memory.record import set_field


def test_round_trip_keeps_every_field(tmp_path):
    rec = StepRecord("prove", seconds=2.5, rss_avg_bytes=10, rss_peak_bytes=30, gpu_peak_bytes=7, samples=4,
                     timeline=[[0.0, 10, 7], [2.5, 30, None]], rss_predicted_bytes=40, mem_gb=2, started_at=1.5,
                     gpu_mem_limit_bytes=1 << 28, gpu_device={"index": 1, "id": "GPU-b", "name": "H200"},
                     gpu_pool_peak_bytes=9, gpu_predicted_bytes=11, sectors=3, staging_seconds=0.5,
                     staging_waited_seconds=0.25, staging_overlapped_seconds=0.25)
    write_record(tmp_path / "a.mem.json", rec)
    assert read_record(tmp_path / "a.mem.json") == rec


def test_json_keys_are_those_of_earlier_files(tmp_path, step_record_dict):
    """An older file reads back; the writer gives the same keys and values, and leaves out the
    optional fields never set (a CPU step has no GPU keys)."""
    old = tmp_path / "old.mem.json"
    old.write_text(json.dumps(step_record_dict))
    rec = read_record(old)
    assert (rec.step, rec.sectors, rec.mem_gb, rec.timeline[1]) == ("prove", 2, 4, [1.0, 3 << 29, None])
    write_record(tmp_path / "new.mem.json", rec)
    assert json.loads((tmp_path / "new.mem.json").read_text()) == step_record_dict
    assert "gpu_device" not in rec.to_dict() and rec.to_dict()["rss_peak_gib"] == 1.5


def test_measured_takes_the_sampler_report():
    rep = MemoryReport(seconds=1.0, rss_avg_bytes=5, rss_peak_bytes=8, gpu_peak_bytes=None, samples=2,
                       timeline=[(0.0, 5, None), (1.0, 8, None)])
    rec = StepRecord("verify").measured(rep)
    assert (rec.seconds, rec.rss_peak_bytes, rec.samples, rec.timeline) == (1.0, 8, 2, [[0.0, 5, None], [1.0, 8, None]])


def test_reader_refuses_what_is_not_a_record(tmp_path, step_record_dict):
    bad = tmp_path / "bad.mem.json"
    bad.write_text(json.dumps({k: v for k, v in step_record_dict.items() if k != "step"}))
    with pytest.raises(ValueError, match="bad.mem.json: not a step memory record: 'step'"):
        read_record(bad)
    bad.write_text("[1, 2]")
    with pytest.raises(ValueError, match="not a step memory record"):
        read_record(bad)


def test_set_field_on_a_record_or_a_dict():
    rec, figures = StepRecord("setup"), {}
    set_field(rec, "gpu_pool_peak_bytes", 5)
    set_field(figures, "gpu_pool_peak_bytes", 5)
    assert rec.gpu_pool_peak_bytes == 5 and figures == {"gpu_pool_peak_bytes": 5}
    with pytest.raises(AttributeError, match="no field 'gpu_pool_peek'"):
        set_field(rec, "gpu_pool_peek", 1)


def test_a_step_writes_a_record_the_report_reads(tmp_path):
    from cuzk import pipeline
    from cuzk.report import load_steps

    mem = tmp_path / "benchmarks" / "pce_extract" / "test-only-commd-128B.mem.json"
    pipeline.pce_extract("test-only-commd-128B", tmp_path / "c.pce", mem_json=mem, mem_gb=2)
    rec = read_record(mem)
    assert rec.step == "pce_extract" and rec.mem_gb == 2 and rec.rss_peak_bytes > 0 and rec.rss_predicted_bytes > 0
    assert rec.gpu_mem_limit_bytes is None and "sectors" not in json.loads(mem.read_text())
    df = load_steps([mem])
    assert df["job"].tolist() == ["test-only-commd-128B"] and df["rule"].tolist() == ["pce_extract"]
    assert df["mem_gb_declared"].tolist() == [2]
