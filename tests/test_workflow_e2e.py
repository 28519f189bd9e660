"""The Snakemake workflow end to end on a test-only shape: every proof verifies, a SIGKILL in the
middle of `prove` is recovered by --rerun-incomplete without redoing finished jobs, a rerun does
nothing, and a bad sector stops only its own jobs under --keep-going."""

import hashlib
import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pandas as pd
import pytest

from cuzk.circuits.registry import shape_by_name
from cuzk.groth16.setup import DEV_SETUP_WARNING
from cuzk.memory.budget import declared_gb
from cuzk.memory.model import predict_step_bytes

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(shutil.which("snakemake") is None, reason="snakemake not installed")

CONFIG = """backend: cpu
threads: 2
results: {results}
max_batch_size: 1
randomness: e2e
prover_id: "{pid}"
allow_test_shapes: true
circuit: porep-commd
sectors:
  - {{id: 1, generate: 1, sector_size: test-only-128B}}
  - {{id: 2, data: {data}, sector_size: test-only-128B}}
{extra}"""


def _config(tmp, extra=""):
    data = tmp / "two-lines.txt"
    data.write_bytes(b"A sector of 128 bytes holds 127 bytes of payload.\n")
    cfg = tmp / "config.yaml"  # runs happen in tmp: Snakemake's lock and metadata stay there
    cfg.write_text(CONFIG.format(results=tmp / "results", pid="ab" * 32, data=data, extra=extra))
    return cfg


def _cmd(cfg, *extra):
    return ["snakemake", "-s", str(ROOT / "Snakefile"), "--cores", "2", "--resources", "mem_gb=8", "--configfile", str(cfg), *extra]


def _snakemake(cfg, *extra, **kw):
    return subprocess.run(_cmd(cfg, *extra), cwd=cfg.parent, capture_output=True, text=True, timeout=900, **kw)


@pytest.fixture(scope="module")
def killed_and_rerun(tmp_path_factory, commd_128b_key):
    """Run 1 killed (SIGKILL to its process group) once its prove job starts, unlock, rerun with
    --rerun-incomplete, run again. The shape's PCE and key are the session's (copied in first:
    the setup rule runs in other workflow tests), so run 1 reaches prove without waiting for it."""
    tmp = tmp_path_factory.mktemp("e2e")
    cfg = _config(tmp)
    res = tmp / "results"
    shutil.copytree(commd_128b_key, res)
    proc = subprocess.Popen(_cmd(cfg), cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.time() + 600
    prove_logs = res / "logs" / "prove"
    while time.time() < deadline and proc.poll() is None:
        if prove_logs.exists() and any(prove_logs.iterdir()):
            time.sleep(0.5)  # let the prove job get going
            break
        time.sleep(0.1)
    killed = proc.poll() is None
    if killed:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    first = proc.stdout.read().decode()
    # the memory records of the jobs finished before the kill (a job writes its record last)
    done = {p: p.stat().st_mtime_ns for p in (res / "benchmarks").glob("*/*.mem.json")}
    _snakemake(cfg, "--unlock")  # a killed Snakemake leaves its lock behind
    rerun = _snakemake(cfg, "--rerun-incomplete")
    again = _snakemake(cfg)
    return tmp, cfg, res, killed, first, rerun, again, done


def test_kill_during_prove_then_rerun(killed_and_rerun):
    tmp, cfg, res, killed, first, rerun, again, done = killed_and_rerun
    assert killed, "the first run finished before it could be killed: " + first[-2000:]
    assert "rule setup:" not in first   # the copied key was taken as it is (no metadata of this run)
    assert rerun.returncode == 0, rerun.stderr[-4000:]
    out = rerun.stdout + rerun.stderr
    # the jobs finished before the kill are not redone: the key (setup, pce_extract) and at
    # least the killed prove's sector's synthesis; their records are untouched
    assert "rule setup:" not in out and "rule pce_extract:" not in out
    assert any(p.parent.name == "synthesize" for p in done), sorted(done)
    assert {p: p.stat().st_mtime_ns for p in done} == done
    assert "rule prove:" in out
    for sid in (1, 2):
        v = json.loads((res / "verify" / f"{sid}.json").read_text())
        assert v["verified"] is True
    # no half-written proof directories are left behind
    assert not [p for p in (res / "proofs").iterdir() if p.name.startswith(".")]


def test_rerun_does_nothing(killed_and_rerun):
    *_, again, _ = killed_and_rerun
    assert again.returncode == 0
    assert "Nothing to be done" in again.stdout + again.stderr


def test_report_within_declared_memory(killed_and_rerun):
    tmp, cfg, res, *_ = killed_and_rerun
    steps = pd.read_csv(res / "report" / "steps.tsv", sep="\t")
    assert set(steps["rule"]) == {"prepare", "check_c1", "pce_extract", "setup", "synthesize", "prove", "verify"}
    assert (steps["rss_peak_gib"] <= steps["mem_gb_declared"]).all()
    assert (steps["rss_peak_gib"] > 0).all()
    summary = (res / "report" / "summary.md").read_text()
    assert "proofs verified (PoRep sectors and PoSt): 2 of 2" in summary
    assert (res / "report" / "memory" / "prove.png").stat().st_size > 1000
    for tsv in (res / "benchmarks" / "prove").glob("*.tsv"):
        assert "max_rss" in tsv.read_text()


def test_reverify_names_a_proof_that_no_longer_verifies(killed_and_rerun):
    """`snakemake reverify` verifies every proof file again: sector 1's file holding sector 2's
    proof (valid points, so the DAG-time check passes it) fails the target naming the file, and
    its table and the report say so; restored, all pass (the table lists both, verified)."""
    tmp, cfg, res, *_ = killed_and_rerun
    table = res / "report" / "reverify.tsv"

    def reverify():  # the target before --configfile, which takes every word after it
        return subprocess.run(["snakemake", "reverify", *_cmd(cfg)[1:]], cwd=tmp, capture_output=True, text=True,
                              timeout=300)

    one, two = (next((res / "proofs").glob(f"*/{sid}.proof")) for sid in (1, 2))
    good = one.read_bytes()
    assert good != two.read_bytes()
    one.write_bytes(two.read_bytes())
    try:
        bad = reverify()
        assert bad.returncode != 0
        assert f"{one}: sector 1 partition 0 does not verify" in bad.stdout + bad.stderr
        rows = pd.read_csv(table, sep="\t", keep_default_na=False).set_index("proof_file")
        assert not rows.loc[str(one), "verified"] and rows.loc[str(two), "verified"]
        assert "proofs verified (PoRep sectors and PoSt): 1 of 2" in (res / "report" / "summary.md").read_text()
    finally:
        one.write_bytes(good)
    again = reverify()
    assert again.returncode == 0, again.stderr[-3000:]
    rows = pd.read_csv(table, sep="\t", keep_default_na=False)
    assert len(rows) == 2 and rows["verified"].all()
    assert "proofs verified (PoRep sectors and PoSt): 2 of 2" in (res / "report" / "summary.md").read_text()
    # the report made again (as after a batch proved again): the table of proofs as they were goes
    rerun = _snakemake(cfg, "--forcerun", "report")
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert not table.exists() and (res / "report" / "summary.md").exists()


def test_oversized_data_stops_the_run_before_any_job(killed_and_rerun):
    """A data: file larger than its sector's payload stops the run while the DAG is built (even
    under --keep-going, as a missing one does), in one typed line naming the sector, the file and
    both sizes; no job runs and the other sectors' outputs are intact."""
    tmp, cfg, res, *_ = killed_and_rerun
    big = tmp / "too-big.bin"
    big.write_bytes(b"x" * 200)   # over a 128-byte sector's 127 bytes of payload
    cfg2 = _config(tmp, extra=f"  - {{id: 3, data: {big}, sector_size: test-only-128B}}\n")
    r = _snakemake(cfg2, "--keep-going")
    out = r.stdout + r.stderr
    assert r.returncode != 0
    want = (f"cuzk: SectorInputError: {cfg2}: sector 3: data {big}: 200 bytes do not fit a 128-byte sector "
            "(at most 127 bytes of payload)")
    assert want in out.splitlines(), out[-3000:]
    assert "Traceback" not in out and not (res / "logs" / "prepare" / "3.log").exists()
    assert json.loads((res / "verify" / "1.json").read_text())["verified"]


@pytest.mark.parametrize("key, what, name", [("data", "data", "gettysburg-adress.txt"), ("c1", "C1", "s3.c1.json")])
def test_missing_input_file_stops_the_dry_run(tmp_path, key, what, name):
    """A misspelled data: or c1: path fails while the DAG is built (a dry run), in one typed line
    naming the sector and the path (not Snakemake's MissingInputException); nothing runs."""
    missing = tmp_path / name
    cfg = _config(tmp_path, extra=f"  - {{id: 3, {key}: {missing}, sector_size: test-only-128B}}\n")
    r = subprocess.run(["snakemake", "-s", str(ROOT / "Snakefile"), "-n", "--cores", "2", "--configfile", str(cfg)],
                       cwd=tmp_path, capture_output=True, text=True, timeout=120)
    out = r.stdout + r.stderr
    assert r.returncode != 0
    assert f"cuzk: SectorInputError: {cfg}: sector 3: {what} file {missing} does not exist" in out.splitlines(), out[-3000:]
    assert "Traceback" not in out and "InputFunctionException" not in out and "MissingInputException" not in out
    assert not (tmp_path / "results").exists()


def test_memory_budget_checked_at_dag_build(tmp_path):
    cfg = _config(tmp_path)
    r = subprocess.run(["snakemake", "-s", str(ROOT / "Snakefile"), "-n", "--cores", "2",
                       "--resources", "mem_gb=0", "--configfile", str(cfg)], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    out = r.stdout + r.stderr
    assert r.returncode != 0
    assert "memory model predicts" in out and "--resources mem_gb=0 is too small" in out
    assert "Traceback" not in out and "InputFunctionException" not in out, out[-3000:]


def test_budget_refused_before_any_job_runs(tmp_path):
    """A 2 KiB PoRep setup (13 GB declared) under --resources mem_gb=4: the run stops when the
    DAG is built, naming the rule, before any sector is prepared."""
    cfg = _config(tmp_path)
    cfg.write_text(cfg.read_text().replace("circuit: porep-commd", "circuit: porep")
                   .replace("sector_size: test-only-128B}\n  - {id: 2", "sector_size: 2KiB}\n  - {id: 2")
                   .replace("  - {id: 2, data:", "#  - {id: 2, data:"))
    assert "2KiB" in cfg.read_text()
    r = subprocess.run(["snakemake", "-s", str(ROOT / "Snakefile"), "--cores", "2", "--resources", "mem_gb=4",
                        "--configfile", str(cfg)], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    out = r.stdout + r.stderr
    assert r.returncode != 0
    # one message, no traceback: every rule over the budget with its need, the smallest budget
    # (the largest declaration: prove's, with its batch of 1), and no advice to lower threads (at
    # threads 1 setup alone needs more than 4 GB)
    st = shape_by_name("porep-2KiB").stats()
    setup_gb = declared_gb(predict_step_bytes("setup", st, threads=2))
    prove_gb = declared_gb(predict_step_bytes("prove", st, threads=2))
    assert setup_gb > 4 and prove_gb >= setup_gb
    assert "Traceback" not in out and "InputFunctionException" not in out, out[-3000:]
    assert f"  Rule setup: {setup_gb} GiB" in out and f"  Rule prove: {prove_gb} GiB" in out, out[-3000:]
    assert f"the smallest budget that runs this batch: --resources mem_gb={prove_gb}" in out
    assert "cannot help" in out and "mem_gb=4 is too small" in out
    assert not (tmp_path / "results" / "c1").exists()


def test_deleted_batch_directory_is_proved_again(killed_and_rerun, tmp_path):
    """The proofs are targets of their own: a batch directory removed by hand is proved again
    (and its sectors re-verified); the rest is left alone (dry run)."""
    tmp, _cfg, res, *_ = killed_and_rerun
    cfg = _config(tmp)   # the fixture's two sectors (another test adds a third to the same file)
    batch = sorted((res / "proofs").iterdir())[0]
    moved = tmp_path / batch.name
    shutil.move(batch, moved)
    try:
        r = _snakemake(cfg, "-n")
    finally:
        shutil.move(moved, batch)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out[-3000:]
    assert "rule prove:" in out and "rule verify:" in out
    assert "rule setup:" not in out and "rule synthesize:" not in out
    # one proof file removed from its directory: nothing to redo for Snakemake, so it is named as a
    # missing intermediate: the run moves the batch folder aside and stops (the next proves it again)
    proof = next(batch.glob("*.proof"))
    shutil.move(proof, tmp_path / proof.name)
    try:
        r = _snakemake(cfg, "-n")
    finally:
        shutil.move(tmp_path / proof.name, proof)
    out = r.stdout + r.stderr
    assert r.returncode != 0 and "cuzk: DamagedFilesError" in out, out[-3000:]
    assert f"{proof}: missing from its batch's proofs folder" in out, out[-3000:]
    assert f"(the run will move it aside to {batch}.damaged)" in out and batch.is_dir()


def test_test_shapes_refused_by_default(tmp_path):
    cfg = _config(tmp_path)
    cfg.write_text(cfg.read_text().replace("allow_test_shapes: true", "allow_test_shapes: false"))
    r = subprocess.run(["snakemake", "-s", str(ROOT / "Snakefile"), "-n", "--configfile", str(cfg)], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode != 0 and "not a Filecoin sector size" in r.stdout + r.stderr


def test_html_report(killed_and_rerun):
    tmp, cfg, res, *_ = killed_and_rerun
    r = _snakemake(cfg, "--report", str(res / "report" / "report.html"))
    assert r.returncode == 0, r.stderr[-2000:]
    assert (res / "report" / "report.html").stat().st_size > 10_000
    assert oct((res / "report" / "summary.md").stat().st_mode & 0o777) != oct(0o600)


def test_prove_refuses_witness_of_another_sector(killed_and_rerun, tmp_path):
    from cuzk.pipeline import ShapeMismatchError, prove_batch

    _, _, res, *_ = killed_and_rerun
    shape = "test-only-commd-128B"
    with pytest.raises(ShapeMismatchError, match="another C1"):
        prove_batch(res / "pce" / f"{shape}.pce", res / "params" / f"{shape}.params", [res / "c1" / "2.c1.json"],
                    [res / "witness" / "1"], tmp_path / "proofs", backend="cpu")
    assert not (tmp_path / "proofs").exists()


POST_CONFIG = """backend: cpu
threads: 2
results: {results}
max_batch_size: 3
randomness: e2e-post
prover_id: "{pid}"
allow_test_shapes: true
circuit: porep-commd
porep: false
post: {{winning: true, window: true}}
sectors:
  - {{id: 11, generate: 11, sector_size: test-only-256B}}
  - {{id: 12, generate: 12, sector_size: test-only-256B}}
  - {{id: 13, generate: 13, sector_size: test-only-256B}}
  - {{id: 14, synthetic: true, sector_size: test-only-256B}}
  - {{id: 15, synthetic: true, sector_size: test-only-256B}}
"""


def test_post_targets_prove_and_verify(tmp_path):
    """WinningPoSt and WindowPoSt as their own targets, over sealed and synthetic sectors, with
    PoRep off (porep: false): only prepare, the PoSt chain and the report run; every proof
    verified; the synthetic sectors marked in the vanilla files, the verify records and the report.
    Run in two parts so that both PoSt proves are ready at once: everything up to them, then the
    rest, where WinningPoSt's prove must start first (each prove takes both cores)."""
    from cuzk.runlog import read_run_log
    from cuzk.sector.post import read_post

    cfg = tmp_path / "config.yaml"
    res = tmp_path / "results"
    cfg.write_text(POST_CONFIG.format(results=res, pid="0c" * 32))
    proves = ("prove_winning_post", "prove_window_post")
    r = _snakemake(cfg, "--omit-from", *proves)
    assert r.returncode == 0 and not (res / "proofs").exists(), (r.stdout + r.stderr)[-3000:]
    # the development-keys warning on the console once in the run that makes the keys, not after
    assert (r.stdout + r.stderr).count(DEV_SETUP_WARNING) == 1
    r = _snakemake(cfg)
    assert r.returncode == 0, (r.stdout + r.stderr)[-3000:]
    assert DEV_SETUP_WARNING not in r.stdout + r.stderr
    # the order, from this run's log: both proves waited from the start (their inputs existed),
    # WinningPoSt's went first and WindowPoSt's only once it had finished
    jobs = read_run_log(r.stderr, "the run's log")
    win, window = (next(j for j in jobs if j.rule == p) for p in proves)
    assert win.ready == window.ready == jobs[0].started and win is jobs[0]
    assert window.started >= win.finished
    # window: 5 sectors, 2 per partition (the last one padded); winning: its randomness picks
    # index 3 of the sector set [11, 12, 13, 14, 15], the synthetic sector 14
    for k, parts in (("winning", 1), ("window", 3)):
        out = json.loads((res / "verify" / f"{k}-post-test-only-256B.json").read_text())
        proof = res / "proofs" / f"{k}-post-test-only-256B" / f"{k}-post.proof"
        assert out == {"proof": f"{k}-post", "shape": f"test-only-{k}-post-256B-{'3' if k == 'winning' else '2x2'}",
                       "partitions": parts, "verified": True, "synthetic": True, "proof_file": str(proof),
                       "proof_sha256": hashlib.sha256(proof.read_bytes()).hexdigest()}
        van = res / "post" / f"{k}-test-only-256B.vanilla.json"
        doc = read_post(van)  # checked again on read
        # checked once, by its own job; synthesize, prove and verify read it through this record
        rec = json.loads((res / "post" / f"{k}-test-only-256B.checked.json").read_text())
        assert rec["sha256"] == hashlib.sha256(van.read_bytes()).hexdigest() and rec["label"] == f"{k}-post"
        assert (res / "benchmarks" / f"check_{k}_post" / f"{k}-test-only-256B.mem.json").exists()
        assert len(doc["partitions"]) == parts and doc["synthetic"] is True
        marks = [(s["id"], s.get("synthetic", False)) for s in doc["sectors"]]
        if k == "window":
            assert marks == [(11, False), (12, False), (13, False), (14, True), (15, True)]
        else:
            assert doc["winning_sector_set"] == {"size": 5, "index": 3} and set(marks) == {(14, True)}
    assert not (res / "proofs" / "test-only-commd-256B-b0").exists()  # PoRep was not needed
    assert not list((res / "c1").glob("*.checked.json")) and not (res / "c1" / "14.c1.json").exists()
    assert sorted(p.name for p in (res / "sealed").iterdir()) == [f"{i}.sealed.npz" for i in (11, 12, 13)]
    summary = (res / "report" / "summary.md").read_text()
    assert "proofs verified (PoRep sectors and PoSt): 2 of 2" in summary
    assert "synthetic sectors (not real data): 0; PoSt proofs over synthetic sectors: 2" in summary
    # reverify reads each vanilla file through its check record too
    again = subprocess.run(["snakemake", "reverify", *_cmd(cfg)[1:]], cwd=tmp_path, capture_output=True, text=True,
                           timeout=300)
    assert again.returncode == 0, again.stderr[-3000:]
    table = (res / "report" / "reverify.tsv").read_text().splitlines()
    assert len(table) == 3 and all(row.split("\t")[1] == "True" for row in table[1:])


def test_post_rules_have_priority_over_porep(tmp_path):
    """WinningPoSt outranks WindowPoSt, which outranks PoRep (Snakemake runs higher priority first),
    down to the PCE, key and sealed-sector jobs each target waits on; a PoRep shape's PCE and key
    outrank every synthesis, which would otherwise take the memory they wait for."""
    import re

    from cuzk.circuits import registry

    cfg = tmp_path / "config.yaml"
    cfg.write_text(POST_CONFIG.format(results=tmp_path / "results", pid="0c" * 32).replace("porep: false", "porep: true"))
    r = subprocess.run(["snakemake", "-s", str(ROOT / "Snakefile"), "-n", "--configfile", str(cfg)], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    prio = {}   # (rule, the job's wildcards) -> priority
    for block in re.split(r"\n(?=rule |localrule )", r.stdout):
        m = re.match(r"(?:local)?rule (\w+):", block)
        if m:
            p = re.search(r"priority: ([\d.]+)", block)
            w = re.search(r"wildcards: (.*)", block)
            prio[(m.group(1), w.group(1) if w else "")] = float(p.group(1)) if p else 0.0

    def top(rule, wildcards=""):
        return max(v for (r_, w), v in prio.items() if r_ == rule and wildcards in w)

    assert top("prove_winning_post") > top("prove_window_post") > top("prove")
    assert top("synthesize_winning_post") > top("synthesize")
    size = "test-only-256B"
    winning, window = (registry.post_shape(k, size) for k in ("winning", "window"))
    porep = registry.sector_shape("porep-commd", size)
    for rule in ("pce_extract", "setup"):
        assert top(rule, f"shape={winning}") == top("prove_winning_post")
        assert top(rule, f"shape={window}") == top("prove_window_post")
        assert top("synthesize") < top(rule, f"shape={porep}") < top("prove_window_post")
    assert top("prepare") == top("prove_winning_post")   # every sealed sector feeds WinningPoSt
    # Snakemake maximises the sum of the chosen jobs' priorities: all syntheses together must not
    # outweigh one PCE, key or prove job of their shape (else they take the memory it waits for)
    synth = sum(v for (r_, _), v in prio.items() if r_ == "synthesize")
    assert 0 < synth < min(top(r_, f"shape={porep}") for r_ in ("pce_extract", "setup"))
    assert synth < top("prove")


UPDATE_CONFIG = """backend: cpu
threads: 2
results: {results}
max_batch_size: 2
randomness: e2e-update
prover_id: "{pid}"
circuit: porep-commd
post: {{winning: false, window: false}}
sectors:
  - {{id: 1, generate: 1, sector_size: 2KiB}}
  - {{id: 21, update: {{cc: 1, data: {data}}}, sector_size: 2KiB}}
  - {{id: 22, update: {{cc: 1, data: {data}}}, sector_size: 2KiB}}
  - {{id: 23, update: {{cc: 1, data: {data}}}, sector_size: 2KiB}}
"""


def test_update_sectors_are_batched_like_porep(tmp_path):
    """SnapDeals sectors: their own shape (update-2KiB), PCE, key and batches of max_batch_size,
    one synthesis job per partition, memory declared from the model, proofs verified per sector
    (dry run); then the real chain up to one partition's witness (the CC sector sealed, the update
    file written and checked, the PCE, the witness), which satisfies the PCE's R1CS; and the DAG
    of a synthetic 32 GiB update."""
    import re

    from cuzk.r1cs.pce import read_pce
    from cuzk.r1cs.witness import read_witness
    from cuzk.sector.update_doc import read_update

    data = tmp_path / "deal.txt"
    data.write_bytes(b"Deal data for a SnapDeals update of a 2 KiB CC sector.\n" * 20)
    cfg = tmp_path / "config.yaml"
    res = tmp_path / "results"
    cfg.write_text(UPDATE_CONFIG.format(results=res, pid="0d" * 32, data=data))
    r = _snakemake(cfg, "-n")
    assert r.returncode == 0, (r.stdout + r.stderr)[-3000:]
    jobs = {}
    for block in re.split(r"\n(?=(?:local)?(?:rule|checkpoint) )", r.stdout):   # check_c1 is a checkpoint
        m, w = re.match(r"(?:local)?(?:rule|checkpoint) (\w+):", block), re.search(r"wildcards: (.*)", block)
        if m and w:
            jobs[(m.group(1), w.group(1))] = block
    for sid in ("21", "22", "23"):
        for rule in ("update_vanilla", "check_c1", "verify"):
            assert (rule, f"sid={sid}") in jobs, (rule, sid)
        assert ("synthesize", f"sid={sid}, k=0") in jobs
    assert ("prepare", "sid=1") in jobs and ("update_vanilla", "sid=1") not in jobs
    assert {w for (rule, w) in jobs if rule == "prove"} == {
        "batch=update-2KiB-b0", "batch=update-2KiB-b1", "batch=porep-commd-2KiB-b0"}
    stats = shape_by_name("update-2KiB").stats()
    for rule, step, wc, threads, batch in (("setup", "setup", "shape=update-2KiB", 2, 1),
                                           ("prove", "prove", "batch=update-2KiB-b0", 2, 2),
                                           ("synthesize", "synthesize", "sid=21, k=0", 1, 1)):
        want = declared_gb(predict_step_bytes(step, stats, threads=threads, batch=batch))
        assert f"mem_gb={want}," in jobs[(rule, wc)], (rule, jobs[(rule, wc)])

    wit = res / "witness" / "21" / "partition-0.wit"
    cmd = _cmd(cfg)
    r = subprocess.run(cmd[:3] + [str(wit)] + cmd[3:], cwd=tmp_path, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, (r.stdout + r.stderr)[-3000:]
    doc = read_update(res / "update" / "21.update.json")   # checked again on read
    assert doc["sector_id"] == 21 and len(doc["partitions"]) == 1
    assert json.loads((res / "c1" / "21.checked.json").read_text())["shape"] == "update-2KiB"
    r1cs, _ = read_pce(res / "pce" / "update-2KiB.pce")
    ins, aux = read_witness(wit)
    r1cs.check([int(x) for x in ins] + [int(x) for x in aux])
    assert [int(x) for x in ins[1:]] == [1] + [int.from_bytes(bytes(doc[k]), "little")
                                             for k in ("comm_r_old", "comm_d_new", "comm_r_new")]

    # a synthetic 32 GiB update: 16 partitions, one synthesis job each, all in one update-32GiB batch
    cfg.write_text(UPDATE_CONFIG.split("sectors:")[0].format(results=res, pid="0d" * 32)
                   + "sectors:\n  - {id: 31, update: {synthetic: true}, sector_size: 32GiB}\n")
    r = subprocess.run(["snakemake", "-s", str(ROOT / "Snakefile"), "-n", "--configfile", str(cfg)], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, (r.stdout + r.stderr)[-3000:]
    blocks = re.split(r"\n(?=rule |localrule )", r.stdout)
    assert sum(b.startswith("rule synthesize:") and "sid=31" in b for b in blocks) == 16
    assert any(b.startswith("rule prove:") and "batch=update-32GiB-b0" in b for b in blocks)
    want = declared_gb(predict_step_bytes("prepare_synthetic", shape_by_name("update-32GiB").stats()))
    assert any(b.startswith("rule update_vanilla:") and f"mem_gb={want}," in b for b in blocks)
