"""One GPU per job: lock-file claims (``cuzk.backend.gpus``), the step backend that uses them, and
the workflow's GPU resources. No device needed: the devices are named, the locks are real."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from cuzk import pipeline
from cuzk.backend.gpus import GPU, GPULockError, claim, lock_dir

ROOT = Path(__file__).resolve().parents[1]
TWO = [GPU(0, "GPU-aa", "first"), GPU(1, "GPU-bb", "second")]


def test_claims_take_different_gpus(tmp_path):
    with claim(TWO, tmp_path) as a, claim(TWO, tmp_path) as b:
        assert (a.index, b.index) == (0, 1)
        assert (tmp_path / "GPU-aa.lock").read_text().split()[0] == str(os.getpid())
    with claim(TWO, tmp_path) as c:                 # both released
        assert c.index == 0


def test_a_claim_waits_while_all_are_held(tmp_path):
    held = contextlib.ExitStack()
    held.enter_context(claim(TWO, tmp_path))
    held.enter_context(claim(TWO, tmp_path))
    waits = []

    def sleep(s):                                   # the other job ends while we wait
        waits.append(s)
        held.close()

    with claim(TWO, tmp_path, poll=0.25, sleep=sleep) as g:
        assert g.index == 0
    assert waits == [0.25]


def test_a_claim_from_another_thread_is_exclusive(tmp_path):
    got, gate = [], threading.Event()

    def job():
        with claim(TWO[:1], tmp_path, poll=0.01) as g:
            got.append(g.index)
            gate.wait(5)

    with claim(TWO[:1], tmp_path):
        t = threading.Thread(target=job)
        t.start()
        t.join(0.3)
        assert t.is_alive() and not got               # waits for the one device
    for _ in range(500):
        if got:
            break
        time.sleep(0.01)
    gate.set()
    t.join(5)
    assert got == [0]


def test_a_killed_holder_frees_its_gpu(tmp_path):
    code = ("import sys, time; from cuzk.backend.gpus import GPU, claim\n"
            f"with claim([GPU(0, 'GPU-aa')], {str(tmp_path)!r}):\n"
            "    print('held', flush=True); time.sleep(60)\n")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "held"
        with claim(TWO, tmp_path) as g:
            assert g.index == 1                       # the other process holds GPU 0
        proc.kill()
        proc.wait(10)
        with claim(TWO, tmp_path) as g:
            assert g.index == 0                       # the kernel dropped its lock
    finally:
        proc.kill()


def test_claim_errors(tmp_path):
    with pytest.raises(ValueError):
        with claim([], tmp_path):
            pass
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(GPULockError, match="CUZK_GPU_LOCK_DIR"):
        with claim(TWO, blocker / "locks"):
            pass


def test_lock_dir_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("CUZK_GPU_LOCK_DIR", str(tmp_path))
    assert lock_dir() == tmp_path
    monkeypatch.delenv("CUZK_GPU_LOCK_DIR")
    assert lock_dir().name.startswith("cuzk-gpu-locks-")


def test_step_backends_run_on_different_gpus(tmp_path, monkeypatch):
    """Two cuda steps at once get devices 0 and 1, named in their records; a cpu step claims
    nothing."""
    monkeypatch.setenv("CUZK_GPU_LOCK_DIR", str(tmp_path))
    monkeypatch.setattr(pipeline, "backend_kind", lambda name: "cuda" if name == "cuda" else "cpu")
    monkeypatch.setattr(pipeline, "visible_gpus", lambda: list(TWO))
    made = []

    @contextlib.contextmanager
    def fake(name, threads=1, gpu_mem_limit=None, device=None):
        made.append((name, device, gpu_mem_limit))
        yield object()

    monkeypatch.setattr(pipeline, "get_backend", fake)
    e1, e2, e3 = {}, {}, {}
    with pipeline.step_backend("cuda", 1, 7, e1), pipeline.step_backend("cuda", 1, None, e2):
        with pipeline.step_backend("cpu", 1, None, e3):
            pass
    assert made == [("cuda", 0, 7), ("cuda", 1, None), ("cpu", None, None)]
    assert e1["gpu_device"] == {"index": 0, "id": "GPU-aa", "name": "first"}
    assert e2["gpu_device"]["index"] == 1 and e3 == {}


def test_setup_records_its_gpu(tmp_path, monkeypatch):
    """The setup step's memory record names the device it claimed."""
    monkeypatch.setenv("CUZK_GPU_LOCK_DIR", str(tmp_path / "locks"))
    monkeypatch.setattr(pipeline, "backend_kind", lambda name: "cuda")
    monkeypatch.setattr(pipeline, "visible_gpus", lambda: list(TWO))

    class Stop(Exception):
        pass

    def fake(name, threads=1, gpu_mem_limit=None, device=None):
        raise Stop

    monkeypatch.setattr(pipeline, "get_backend", fake)
    pce, mem = tmp_path / "c.pce", tmp_path / "m.json"
    pipeline.pce_extract("test-only-commd-128B", pce)
    with claim(TWO, tmp_path / "locks"):              # another job holds GPU 0
        with pytest.raises(Stop):
            pipeline.setup_params(pce, tmp_path / "p", tmp_path / "v", backend="cuda", mem_json=mem)
    assert json.loads(mem.read_text())["gpu_device"]["index"] == 1


def test_gpu_rules_declare_a_gpu():
    rules = ROOT / "workflow" / "rules"
    for f in ("prove.smk", "setup.smk", "post.smk"):
        assert "gpu=JOB_GPUS" in (rules / f).read_text(), f


def test_report_names_each_steps_gpu(tmp_path):
    from cuzk.report import load_steps

    rec = {"step": "prove", "seconds": 1.0, "rss_avg_bytes": 1, "rss_peak_bytes": 2}
    (tmp_path / "a.mem.json").write_text(json.dumps(rec | {"gpu_device": {"index": 1, "id": "GPU-bb", "name": "x"}}))
    (tmp_path / "b.mem.json").write_text(json.dumps(rec))
    df = load_steps(sorted(tmp_path.glob("*.mem.json")))
    assert df["gpu"].tolist()[0] == 1 and df["gpu"].isna().tolist() == [False, True]
    assert df[["rule", "gpu"]].to_csv(sep="\t", index=False, float_format="%.4f").split("\n")[1:3] == ["prove\t1", "prove\t"]
