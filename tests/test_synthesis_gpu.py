"""``synthesis_sha: gpu`` and ``synthesis_poseidon: gpu`` through the synthesize steps
(``cuzk.pipeline.synthesize_partition`` / ``synthesize_sector``, ``cuzk.r1cs.sha_path`` and
``poseidon_path``): the witness files are the same bytes as the native cores' (a real 2 KiB PoRep
sector sealed from a public-domain text; a small WindowPoSt over synthetic sectors, whose step
asks for 2 workers and runs none), with the kernels counted so that a silent CPU run fails; the
step claims a GPU (its lock held while it synthesizes)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu

pytest.importorskip("cupy")

from cuzk import pipeline  # noqa: E402
from cuzk.backend import gpus  # noqa: E402
from cuzk.backend.cuda import cuda_available  # noqa: E402
from cuzk.backend.cuda import poseidon as gpos  # noqa: E402
from cuzk.backend.cuda import witness as gsha  # noqa: E402
from cuzk.r1cs import parallel  # noqa: E402
from pce_util import header_pce  # noqa: E402

if not cuda_available():
    pytest.skip("no CUDA device", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def counted(monkeypatch, tmp_path):
    """Calls of the two kernels, and the GPU claims (a lock directory of this test's own)."""
    calls = {"sha": 0, "poseidon": 0, "claims": []}
    real_sha, real_pos, real_claim = gsha.sha_aux, gpos.legacy_limbs_device, pipeline.claim

    def sha(*a, **k):
        calls["sha"] += 1
        return real_sha(*a, **k)

    def pos(*a, **k):
        calls["poseidon"] += 1
        return real_pos(*a, **k)

    def claim(g, *a, **k):
        calls["claims"].append(len(g))
        return real_claim(g, *a, **k)

    monkeypatch.setattr(gsha, "sha_aux", sha)
    monkeypatch.setattr(gpos, "legacy_limbs_device", pos)   # every GPU Poseidon call: values and digests
    monkeypatch.setattr(pipeline, "claim", claim)
    monkeypatch.setenv("CUZK_GPU_LOCK_DIR", str(tmp_path / "locks"))
    return calls


def test_porep_2kib_gpu_paths_write_the_native_bytes(tmp_path, counted):
    c1, rec = tmp_path / "c1.json", tmp_path / "checked.json"
    pipeline.prepare({"id": 1, "data": str(ROOT / "data/samples/gettysburg-address.txt")}, c1, "porep-2KiB",
                     "gpusyn", "00" * 32)
    pipeline.check_input(c1, rec, "porep-2KiB")
    pce = header_pce(tmp_path / "block.pce", "porep-2KiB")
    nat = pipeline.synthesize_partition(c1, rec, pce, 0, tmp_path / "native.wit", sha="native", poseidon="native")
    assert counted == {"sha": 0, "poseidon": 0, "claims": []}
    gpu = pipeline.synthesize_partition(c1, rec, pce, 0, tmp_path / "gpu.wit", sha="gpu", poseidon="gpu")
    assert counted["sha"] > 40 and counted["poseidon"] >= 5 and len(counted["claims"]) == 1
    assert gpu.read_bytes() == nat.read_bytes()
    files = pipeline.synthesize_sector(c1, pce, tmp_path / "sector", checked=rec, sha="native", poseidon="gpu")
    assert [f.read_bytes() for f in files] == [nat.read_bytes()] and len(counted["claims"]) == 2


def test_window_post_gpu_poseidon_runs_in_the_step_without_workers(tmp_path, counted, monkeypatch):
    shape = "test-only-window-post-256B-2x2"
    van, rec, pce = tmp_path / "w.vanilla.json", tmp_path / "w.checked.json", tmp_path / "w.pce"
    pipeline.post_vanilla("window", shape, [], van, "inputs", "00" * 32, synthetic_ids=[1, 2, 3])
    pipeline.check_input(van, rec, shape, partitions=2)
    pipeline.pce_extract(shape, pce)
    monkeypatch.setattr(parallel, "MIN_ROWS", 2)
    nat = pipeline.synthesize_sector(van, pce, tmp_path / "nat", checked=rec, threads=2, poseidon="native")
    started = []
    real = parallel.synthesis_workers
    monkeypatch.setattr(pipeline, "synthesis_workers", lambda n: started.append(n) or real(n))
    gpu = pipeline.synthesize_sector(van, pce, tmp_path / "gpu", checked=rec, threads=2, poseidon="gpu")
    assert started == [1] and counted["poseidon"] > 0 and len(counted["claims"]) == 1
    assert [f.read_bytes() for f in gpu] == [f.read_bytes() for f in nat] and len(nat) == 2


def test_claim_waits_for_a_held_gpu_lock_directory(tmp_path, counted):
    """The synthesize step takes its GPU through the same locks as prove: the lock of the device it
    got is held while it runs (a second claim on a one-GPU list would wait)."""
    visible = gpus.visible_gpus()
    assert visible
    held = []
    with pipeline._synthesis_gpu(type("P", (), {"name": "gpu"})(), type("P", (), {"name": "native"})()) as g:
        held.append(gpus._try_lock(gpus.lock_dir() / f"{g.id}.lock"))
    assert held == [None]   # flock held by the step while it ran
