"""Sector inputs at scale, in small: the workflow's mechanics for 32 GiB sectors on a test-only
shape with two partitions (porep-commd, test-only-128B-2p): a sector from data, a synthetic one, and
a C1 file made elsewhere, each checked once (check_c1), synthesized one job per partition,
proved in batches (of 2 and 1: a damaged proof of the second costs one sector's proving again)
and verified; under the tightest budget that runs every job; and a C1 changed after its check
refused by the steps that read it."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from cuzk import pipeline
from cuzk.damaged import damaged_files
from cuzk.circuits.registry import shape_by_name
from cuzk.memory.budget import declared_gb
from cuzk.memory.model import predict_step_bytes
from cuzk.memory.record import read_record
from cuzk.sector.c1 import C1Error, build_c1, write_c1

ROOT = Path(__file__).resolve().parents[1]
SHAPE = "test-only-commd-128B-2p"
pytestmark = pytest.mark.skipif(shutil.which("snakemake") is None, reason="snakemake not installed")

THREADS = 2  # setup and prove on both of the CI machine's cores (they run alone)
BATCH = 2
CONFIG = """backend: cpu
threads: {threads}
results: {results}
max_batch_size: 2
randomness: inputs
prover_id: "{pid}"
allow_test_shapes: true
circuit: porep-commd
post: {{winning: false, window: false}}
sectors:
  - {{id: 1, generate: 1, sector_size: test-only-128B-2p}}
  - {{id: 2, synthetic: true, sector_size: test-only-128B-2p}}
  - {{id: 3, c1: {ext}, sector_size: test-only-128B-2p}}
"""


def _external_c1(path: Path) -> dict:
    """A C1 made outside the workflow (cuzk's format): a real sector's comm_d proofs."""
    shape = shape_by_name(SHAPE)
    data = bytes((7 * i) & 0x3F for i in range(shape.sector_size))  # Fr32: top two bits clear
    c1 = build_c1(data, shape.sector_size, 3, bytes(32), bytes([9] * 32), bytes([8] * 32), shape.partitions,
                  shape.challenges)
    write_c1(path, c1)
    return c1


def _run(cfg: Path, budget: int, *extra):
    cmd = ["snakemake", "-s", str(ROOT / "Snakefile"), "--cores", "2", "--resources", f"mem_gb={budget}",
           "--configfile", str(cfg), *extra]
    return subprocess.run(cmd, cwd=cfg.parent, capture_output=True, text=True, timeout=900)


def _tightest_budget() -> int:
    """The largest mem_gb any job of this config declares: the smallest budget that runs them all."""
    st = shape_by_name(SHAPE).stats()
    steps = ("prepare", "check_c1", "synthesize", "pce_extract", "setup", "prove", "verify", "report")
    # a PoRep partition's synthesis job runs in one process (no threads)
    return max(declared_gb(predict_step_bytes(s, st, threads=1 if s == "synthesize" else THREADS, batch=BATCH))
               for s in steps)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("inputs")
    ext = tmp / "elsewhere" / "s3.c1.json"
    ext.parent.mkdir()
    _external_c1(ext)
    cfg = tmp / "config.yaml"
    cfg.write_text(CONFIG.format(results=tmp / "results", pid="00" * 32, ext=ext, threads=THREADS))
    budget = _tightest_budget()
    first = _run(cfg, budget)
    again = _run(cfg, budget)
    return tmp / "results", ext, budget, first, again


def test_every_input_kind_is_checked_once_synthesized_per_partition_and_verified(run):
    res, ext, budget, first, again = run
    assert first.returncode == 0, first.stderr[-4000:]
    for sid in ("1", "2", "3"):
        v = json.loads((res / "verify" / f"{sid}.json").read_text())
        assert v["verified"] and v["partitions"] == 2
        assert v["synthetic"] is (sid == "2")
        rec = json.loads((res / "c1" / f"{sid}.checked.json").read_text())
        assert rec["synthetic"] is (sid == "2") and len(rec["sha256"]) == 64
        for k in (0, 1):
            assert (res / "witness" / sid / f"partition-{k}.wit").stat().st_size > 0
            assert read_record(res / "benchmarks" / "synthesize" / f"{sid}-p{k}.mem.json").step == "synthesize"
    # the external C1 is read where it lies: not copied, not prepared
    assert not (res / "c1" / "3.c1.json").exists() and not (res / "benchmarks" / "prepare" / "3.mem.json").exists()
    assert json.loads((res / "c1" / "3.checked.json").read_text())["path"] == str(ext)
    summary = (res / "report" / "summary.md").read_text()
    assert "proofs verified (PoRep sectors and PoSt): 3 of 3" in summary
    assert "synthetic sectors (not real data): 1" in summary
    assert (res / "report" / "memory" / "run.png").stat().st_size > 0
    assert "Nothing to be done" in again.stdout + again.stderr


def test_tightest_budget_is_held_by_the_declared_sum(run):
    """Jobs ran concurrently only while their declared mem_gb summed to at most the budget."""
    res, _, budget, first, _ = run
    assert first.returncode == 0, first.stderr[-4000:]
    spans = []
    for p in (res / "benchmarks").rglob("*.mem.json"):
        r = read_record(p)
        spans.append((r.started_at, r.started_at + r.seconds, r.mem_gb))
    assert len(spans) >= 2 + 3 + 6 + 1 + 1 + 2 + 3  # prepare, check, synthesize, pce, setup, prove, verify
    for t, _, _ in spans:
        live = sum(gb for a, b, gb in spans if a <= t + 1e-3 and b > t + 1e-3)
        assert live <= budget


def test_budget_below_one_job_stops_before_any_job(tmp_path):
    ext = tmp_path / "s3.c1.json"
    _external_c1(ext)
    cfg = tmp_path / "config.yaml"
    cfg.write_text(CONFIG.format(results=tmp_path / "results", pid="00" * 32, ext=ext, threads=THREADS))
    out = _run(cfg, _tightest_budget() - 1)
    assert out.returncode != 0
    assert "the memory model predicts" in out.stderr and "Rule " in out.stderr
    assert not (tmp_path / "results").exists() or not any((tmp_path / "results").rglob("*.mem.json"))


def test_c1_changed_after_its_check_is_refused_by_the_steps_that_read_it(tmp_path):
    """Synthesis and verification read a C1 through its check record: a changed file (a flipped
    leaf, still well-formed) is refused naming the file, before any work."""
    shape = shape_by_name(SHAPE)
    c1p, rec = tmp_path / "s.c1.json", tmp_path / "s.checked.json"
    c1 = _external_c1(c1p)
    from cuzk.r1cs.pce import write_pce
    from cuzk.r1cs import ConstraintSystem
    from cuzk.circuits.registry import family_of

    pipeline.check_input(c1p, rec, SHAPE)
    cs = ConstraintSystem(shape=True, witness=False)
    family_of(shape).synthesize(cs, shape)
    write_pce(tmp_path / "s.pce", cs.finalize(), shape.describe())
    pipeline.synthesize_partition(c1p, rec, tmp_path / "s.pce", 1, tmp_path / "p1.wit")   # as checked: fine
    key = next(iter(c1["vanilla_proofs"]))
    c1["vanilla_proofs"][key][0][0]["comm_d_proofs"]["leaf"][0] ^= 1
    write_c1(c1p, c1)
    with pytest.raises(C1Error) as e:
        pipeline.synthesize_partition(c1p, rec, tmp_path / "s.pce", 0, tmp_path / "p0.wit")
    assert str(c1p) in str(e.value) and "changed after it was checked" in str(e.value)
    assert not (tmp_path / "p0.wit").exists()
    with pytest.raises(C1Error, match="changed after it was checked"):
        pipeline.verify_sector(tmp_path / "none.vk", c1p, tmp_path / "none.proof", tmp_path / "v.json",
                               shape_name=SHAPE, checked=rec)
    with pytest.raises(C1Error, match="partition 2 was asked for"):
        write_c1(c1p, _external_c1(tmp_path / "fresh.c1.json"))
        pipeline.check_input(c1p, rec, SHAPE)
        pipeline.synthesize_partition(c1p, rec, tmp_path / "s.pce", 2, tmp_path / "p2.wit")


def test_post_vanilla_checked_once_and_refused_when_changed(tmp_path, monkeypatch):
    """A PoSt vanilla file (WindowPoSt over three synthetic sectors, two partitions) is checked
    fully once (check_input: verify_post runs once); synthesis, the batch prove and verification
    then trust it by its record (verify_post not run again) and make a proof that verifies. The
    file changed after its check (a flipped leaf byte, still well-formed) is refused by each of
    them, naming the file, before anything is written."""
    from cuzk.circuits import registry
    from cuzk.sector import post as sp

    shape = "test-only-window-post-256B-2x2"
    calls = []
    real = sp.verify_post

    def spy(doc, path=None):
        calls.append(path)
        return real(doc, path)

    monkeypatch.setattr(sp, "verify_post", spy)          # read_post's full check
    monkeypatch.setattr(registry, "verify_post", spy)    # the family's verify (check_input)
    van, rec, pce = tmp_path / "w.vanilla.json", tmp_path / "w.checked.json", tmp_path / "w.pce"
    pipeline.post_vanilla("window", shape, [], van, "inputs", "00" * 32, synthetic_ids=[1, 2, 3])
    assert pipeline.check_input(van, rec, shape, partitions=2)["label"] == "window-post"
    assert len(calls) == 1
    pipeline.pce_extract(shape, pce)
    pipeline.setup_params(pce, tmp_path / "w.params", tmp_path / "w.vk", backend="cpu")
    pipeline.synthesize_sector(van, pce, tmp_path / "wit", checked=rec)
    pipeline.prove_batch(pce, tmp_path / "w.params", [van], [tmp_path / "wit"], tmp_path / "proofs", backend="cpu",
                         checked=[rec])
    proof = tmp_path / "proofs" / "window-post.proof"
    res = pipeline.verify_sector(tmp_path / "w.vk", van, proof, tmp_path / "v.json", shape_name=shape, checked=rec)
    assert res["verified"] and res["partitions"] == 2
    assert len(calls) == 1                                # trusted by digest in all three steps
    pipeline.synthesize_sector(van, pce, tmp_path / "wit-full")   # without the record: checked again
    assert len(calls) == 2
    doc = json.loads(van.read_text())
    doc["partitions"][1][0]["inclusion_proofs"][0]["leaf"][0] ^= 1
    van.write_text(json.dumps(doc))
    steps = {
        "synthesize": lambda: pipeline.synthesize_sector(van, pce, tmp_path / "wit2", checked=rec),
        "prove": lambda: pipeline.prove_batch(pce, tmp_path / "w.params", [van], [tmp_path / "wit"],
                                              tmp_path / "proofs2", backend="cpu", checked=[rec]),
        "verify": lambda: pipeline.verify_sector(tmp_path / "w.vk", van, proof, tmp_path / "v2.json",
                                                 shape_name=shape, checked=rec),
    }
    for name, step in steps.items():
        with pytest.raises(sp.PoStError) as e:
            step()
        assert e.value.field == "<sha256>" and str(van) in str(e.value), name
        assert "changed after it was checked" in str(e.value), name
    assert not any((tmp_path / n).exists() for n in ("wit2", "proofs2", "v2.json"))
    assert len(calls) == 2


def test_damaged_intermediates_are_found(run, tmp_path):
    """The check made while the DAG is built (``damaged_files``) passes the run's intermediate
    files and names a cut copy of each kind: PCE, key, verifying key, proof, witness, check record."""
    res, *_ = run
    files = [res / "pce" / f"{SHAPE}.pce", res / "params" / f"{SHAPE}.params", res / "params" / f"{SHAPE}.vk",
             next((res / "proofs").glob("*/1.proof")), res / "witness" / "1" / "partition-0.wit",
             res / "c1" / "1.checked.json"]
    assert damaged_files(files) == []
    cut = []
    for f in files:   # past the middle: half a two-partition proof file is one whole proof
        cut.append(tmp_path / f.name)
        cut[-1].write_bytes(f.read_bytes()[: f.stat().st_size // 2 + 1])
    found = damaged_files(cut)
    assert [p for p, _ in found] == list(map(str, cut))
    assert not any(str(p) in why for p, why in found)   # each reason names its path once, beside it


def test_damaged_intermediates_stop_the_run_before_any_job_and_are_rebuilt(run):
    """After a complete run: a truncated witness and a proof file with a flipped byte (sector 3's,
    the second batch's only sector) are found while the DAG is built; the run stops naming both,
    before any job (no good output is deleted), the damaged files are moved aside, and the next
    run rebuilds them (that witness, the batch's proofs and what reads them; the key, the other
    witnesses and the other batch's proofs are kept), every proof verified. A dry run before it
    names them too and moves nothing."""
    res, ext, budget, first, _ = run
    assert first.returncode == 0, first.stderr[-4000:]
    cfg = res.parent / "config.yaml"
    wit = res / "witness" / "3" / "partition-1.wit"
    wit.write_bytes(wit.read_bytes()[:-100])
    proof = next((res / "proofs").glob("*/3.proof"))
    proof_dir = proof.parent
    raw = bytearray(proof.read_bytes())
    raw[20] ^= 0x10
    proof.write_bytes(bytes(raw))
    other = next(p for p in (res / "proofs").iterdir() if p != proof_dir)
    kept = [res / "witness" / "1" / "partition-0.wit", res / "params" / f"{SHAPE}.params", other / "1.proof"]
    before = [p.stat().st_mtime for p in kept]
    dry = _run(cfg, budget, "-n")               # a dry run names them and moves nothing
    assert dry.returncode != 0
    err = dry.stderr + dry.stdout
    assert str(wit) in err and str(proof) in err and "will move it aside" in err
    assert "cuzk: DamagedFilesError: damaged intermediate files" in err and "InputFunctionException" not in err
    assert wit.exists() and proof.exists() and not Path(str(wit) + ".damaged").exists()
    out = _run(cfg, budget)
    assert out.returncode != 0
    err = out.stderr + out.stdout
    assert str(wit) in err and str(proof) in err and "before any job ran" in err
    assert not wit.exists() and Path(str(wit) + ".damaged").exists()
    assert not proof_dir.exists() and Path(str(proof_dir) + ".damaged").is_dir()
    assert [p.stat().st_mtime for p in kept] == before      # nothing else was touched
    again = _run(cfg, budget)
    assert again.returncode == 0, again.stderr[-4000:]
    log = again.stdout + again.stderr
    assert "rule synthesize:" in log and "rule prove:" in log and "rule setup:" not in log
    assert [p.stat().st_mtime for p in kept] == before
    for sid in ("1", "2", "3"):
        assert json.loads((res / "verify" / f"{sid}.json").read_text())["verified"]
    assert wit.exists() and proof_dir.is_dir()
