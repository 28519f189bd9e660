"""Staged assignments (``Prover.stage``) and the pipelined ``prove_batch`` on the cpu backend:
the same proof bytes as the sequential path, the next partition staged in a background thread
during the current proof, and the sequential loop's errors with nothing written."""

import json
import logging
import threading
import warnings

import pytest
from batch_util import fixed_blinding, make_batch

from cuzk import pipeline
from cuzk.backend import get_backend
from cuzk.circuits import synthetic
from cuzk.groth16 import DevelopmentSetupWarning, Prover, StagingError, WitnessError, read_params, read_proofs, setup, verify
from cuzk.r1cs import ConstraintSystem
from cuzk.r1cs.pce import read_pce
from cuzk.r1cs.witness import WitnessFormatError, read_witness


def test_staged_and_unstaged_proofs_identical():
    cs = ConstraintSystem(shape=True, witness=True)
    synthetic.synthesize(cs, 300, 3, 0.9, seed=3)
    r1cs = cs.finalize()
    ins, aux = cs.assignment()
    with get_backend("cpu", threads=1) as bk, warnings.catch_warnings():
        warnings.simplefilter("ignore", DevelopmentSetupWarning)
        pk = setup(r1cs, bk)
        with Prover(pk, r1cs, bk) as p, Prover(pk, r1cs, bk) as other:
            ref = p.prove(ins, aux, r=12345, s=67890)
            staged = p.stage(ins, aux)
            assert staged.length == len(ins) + len(aux) and staged.seconds >= 0
            assert p.prove(staged, r=12345, s=67890).to_bytes() == ref.to_bytes()
            assert "stage" in p.times.seconds
            with pytest.raises(ValueError, match="this Prover"):
                other.prove(staged)
            with pytest.raises(ValueError, match="no aux"):
                p.prove(staged, aux)
            with pytest.raises(WitnessError):
                p.stage(ins, aux[:-1])
    assert verify(pk.vk, ref, [int(v) for v in ins[1:]])


@pytest.fixture(scope="module")
def batch(tmp_path_factory, commd_128b_key):
    return make_batch(tmp_path_factory.mktemp("batch"), "test-only-commd-128B", 2, key=commd_128b_key)


def test_batch_overlaps_staging_and_writes_the_sequential_bytes(batch, tmp_path, monkeypatch, caplog):
    """Job j + 1 is staged (in the stager thread) while job j is proved; never more than one
    ahead; the files hold the bytes the unstaged Prover gives for the same r, s, and verify.
    Progress counts the five MSMs of each partition."""
    events = {"staged": [], "proved": 0, "threads": set()}
    started = [threading.Event() for _ in batch["c1"]]
    stage, prove = Prover.stage_compact, Prover.prove

    def spy_stage(self, cw, stream=None, defer=False):
        j = len(events["staged"])
        assert j - events["proved"] <= 1, "staged more than one assignment ahead"
        events["staged"].append(j)
        events["threads"].add(threading.current_thread().name)
        started[j].set()
        return stage(self, cw, stream, defer)

    def spy_prove(self, inputs, aux=None, r=None, s=None):
        j = events["proved"]
        if j + 1 < len(started):
            assert started[j + 1].wait(60), "the next partition was not staged during this proof"
        out = prove(self, inputs, aux, r, s)
        events["proved"] += 1
        return out

    monkeypatch.setattr(Prover, "stage_compact", spy_stage)
    monkeypatch.setattr(Prover, "prove", spy_prove)
    rs = fixed_blinding(monkeypatch)
    mem = tmp_path / "mem.json"
    out = tmp_path / "proofs"
    caplog.set_level(logging.INFO, logger="cuzk.progress")
    pipeline.prove_batch(batch["pce"], batch["params"], batch["c1"], batch["wit"], out, backend="cpu", threads=2,
                         mem_json=mem)
    monkeypatch.undo()
    bars = [r.getMessage() for r in caplog.records if r.name == "cuzk.progress" and "%|" in r.getMessage()]
    n = 5 * len(batch["c1"])   # one partition per sector here
    assert bars[-1].startswith("prove test-only-commd-128B: 100%") and f" {n}/{n} [" in bars[-1], bars
    assert events["proved"] == len(batch["c1"]) and all(t.startswith("cuzk-stage") for t in events["threads"])
    info = json.loads(mem.read_text())
    assert info["staging_seconds"] >= info["staging_overlapped_seconds"] >= 0 and "staging_waited_seconds" in info
    ph = info["phase_seconds"]   # the job's phases in order, together within the step's time
    assert list(ph) == ["key_read", "backend_start", "pce_read", "prover_start", "partitions"]
    assert min(ph.values()) >= 0 and sum(ph.values()) <= info["seconds"]

    r1cs, _ = read_pce(batch["pce"])
    pk = read_params(batch["params"])
    with get_backend("cpu", threads=2) as bk, Prover(pk, r1cs, bk) as p:
        for j, (c1, wit) in enumerate(zip(batch["c1"], batch["wit"])):
            ins, aux = read_witness(wit / "partition-0.wit")
            want = p.prove(ins, aux, *rs(j))
            assert (out / f"{j + 1}.proof").read_bytes() == want.to_bytes()
            res = pipeline.verify_sector(batch["vk"], c1, out / f"{j + 1}.proof", tmp_path / f"v{j}.json",
                                         shape_name="test-only-commd-128B")
            assert res["verified"] and len(read_proofs(out / f"{j + 1}.proof")) == 1


def _copy_witnesses(batch, tmp_path):
    import shutil

    dirs = []
    for i, wit in enumerate(batch["wit"]):
        dirs.append(tmp_path / f"w{i}")
        shutil.copytree(wit, dirs[-1])
    return dirs


def _corrupt(path):
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    path.write_bytes(bytes(raw))


@pytest.mark.parametrize("bad", [0, 1])
def test_corrupt_witness_raises_from_the_stager_and_writes_nothing(batch, tmp_path, bad, monkeypatch):
    """Sector ``bad``'s witness is corrupt: job 0 fails before any proof, job 1 while proof 0 runs.
    The damaged file is moved aside to ``.damaged`` (the error says so; the workflow's next run
    makes it again) and the other sector's witness stays."""
    dirs = _copy_witnesses(batch, tmp_path)
    wit = dirs[bad] / "partition-0.wit"
    _corrupt(wit)
    damaged = wit.read_bytes()
    out = tmp_path / "proofs"
    with pytest.raises(WitnessFormatError, match="checksum") as e:
        pipeline.prove_batch(batch["pce"], batch["params"], batch["c1"], dirs, out, backend="cpu", threads=2)
    moved = dirs[bad] / "partition-0.wit.damaged"
    assert f"moved aside to {moved}" in str(e.value) and e.value.path == str(wit)
    assert not wit.exists() and moved.read_bytes() == damaged
    assert (dirs[1 - bad] / "partition-0.wit").is_file()
    assert not out.exists()
    assert not [t for t in threading.enumerate() if t.name.startswith("cuzk-stage")]
    # the same job again (the profile's retry) names the copy set aside, before any key is read
    monkeypatch.setattr(pipeline, "read_params", lambda *a: pytest.fail("the key was read"))
    with pytest.raises(WitnessFormatError, match=f"missing: moved aside to {moved}"):
        pipeline.prove_batch(batch["pce"], batch["params"], batch["c1"], dirs, out, backend="cpu", threads=2)


def test_witness_of_another_sector_is_a_shape_mismatch(batch, tmp_path):
    out = tmp_path / "proofs"
    with pytest.raises(pipeline.ShapeMismatchError, match="another C1"):
        pipeline.prove_batch(batch["pce"], batch["params"], batch["c1"], batch["wit"][::-1], out, backend="cpu")
    assert not out.exists()


def test_failed_verification_comes_before_the_next_staging_error(batch, tmp_path, monkeypatch):
    """Proof 0 does not verify and sector 1's witness (staged meanwhile) is corrupt: the
    sequential loop's error, ProofVerificationError, is the one raised; nothing is written."""
    dirs = _copy_witnesses(batch, tmp_path)
    _corrupt(dirs[1] / "partition-0.wit")
    monkeypatch.setattr(pipeline, "verify", lambda *a: False)
    out = tmp_path / "proofs"
    with pytest.raises(pipeline.ProofVerificationError, match="1 partition 0"):
        pipeline.prove_batch(batch["pce"], batch["params"], batch["c1"], dirs, out, backend="cpu", threads=2)
    assert not out.exists()
    assert not [t for t in threading.enumerate() if t.name.startswith("cuzk-stage")]


@pytest.mark.parametrize("fault", ["stall", "memory", "exit"])
def test_staging_watchdog_stops_the_batch(fault):
    """Job 1's staging stalls (blocks past ``stage_timeout``), runs out of memory or ends its
    thread (SystemExit) while proof 0 is made: the batch stops with a StagingError naming job 1
    (soon after the bound for a stall), proof 0 delivered, proof 1 never started; a stalled
    thread does not hold the caller."""
    import time

    cs = ConstraintSystem(shape=True, witness=True)
    synthetic.synthesize(cs, 60, 2, 0.9, seed=3)
    r1cs = cs.finalize()
    ins, aux = cs.assignment()
    release = threading.Event()
    with get_backend("cpu", threads=1) as bk, warnings.catch_warnings():
        warnings.simplefilter("ignore", DevelopmentSetupWarning)
        pk = setup(r1cs, bk)
        with Prover(pk, r1cs, bk) as p:
            def stage(job):
                if job == 1 and fault == "stall":
                    release.wait(60)
                elif job == 1:
                    raise MemoryError if fault == "memory" else SystemExit(3)
                return [int(v) for v in ins[1:]], p.stage(ins, aux)

            delivered = []
            t = time.monotonic()
            with pytest.raises(StagingError, match="job 1") as err:
                p.prove_many([0, 1, 2], stage, lambda proof, pub: verify(pk.vk, proof, pub),
                             lambda bp: delivered.append((bp.index, bp.verified)), stage_timeout=1.0)
            elapsed = time.monotonic() - t
    release.set()
    assert delivered == [(0, True)]
    if fault == "stall":
        assert "did not finish in 1 s" in str(err.value) and 1.0 <= elapsed < 5, elapsed
    elif fault == "memory":
        assert "out of memory" in str(err.value) and isinstance(err.value.__cause__, MemoryError)
    else:
        assert "staging thread of job 1 died: SystemExit(3)" in str(err.value)
