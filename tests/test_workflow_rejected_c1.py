"""A sector whose C1 fails its check does not cost its batch-mates their proofs: the check_c1
checkpoint writes a rejection record (cuzk.sector.jsondoc.reject), the batch is proved without
the sector, and the sector's verify job fails with the check's error, after the report (so also
without ``--keep-going``); a batch whose every C1 was
rejected has no prove job, and its shape no PCE or key. Real runs of the workflow (comm_d circuit, test-only 256 B
sectors sealed here: the shortest proof the workflow makes)."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from cuzk.circuits.registry import shape_by_name
from cuzk.groth16.setup import DEV_SETUP_WARNING
from cuzk.sector import filecoin_c1 as fc
from cuzk.sector.jsondoc import rejection, write_doc
from cuzk.sector.porep_c1 import seal_and_prove

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(shutil.which("snakemake") is None, reason="snakemake not installed")
PID = fc.prover_id_of_actor(1000)
SHAPE = shape_by_name("test-only-commd-256B")

CONFIG = """backend: cpu
threads: 1
results: {results}
max_batch_size: 2
randomness: inputs
prover_id: "{pid}"
allow_test_shapes: true
circuit: porep-commd
post: {{winning: false, window: false}}
sectors:
{sectors}
"""


def _c1(tmp: Path, sid: int, tamper: bool) -> Path:
    """A cuzk-form C1 of a 256 B sector sealed here; ``tamper``: its comm_d's first byte flipped
    (the file still parses; its check refuses it: the tree's root is another)."""
    data = bytes((7 * i + sid) & 0x3F for i in range(256))
    c1 = seal_and_prove(data, 256, sid, PID, bytes([3] * 32), bytes([4] * 32), 2,
                        partitions=SHAPE.partitions, challenges=SHAPE.challenges)
    if tamper:
        c1["comm_d"] = [c1["comm_d"][0] ^ 1, *c1["comm_d"][1:]]
    path = tmp / f"s{sid}.c1.json"
    write_doc(path, c1)
    return path


def _run(tmp: Path, c1s: dict, *extra, keep_going: bool = True):
    """``snakemake`` on these sectors (``keep_going``: with ``--keep-going``, as the profiles run
    it; else the plain command, which stops at the first failed job)."""
    cfg = tmp / "config.yaml"
    sectors = "\n".join(f"  - {{id: {sid}, c1: {p}, sector_size: test-only-256B}}" for sid, p in c1s.items())
    cfg.write_text(CONFIG.format(results=tmp / "results", pid=PID.hex(), sectors=sectors))
    # extra (a target, -n) first: after --configfile a target would be read as one more config file
    cmd = ["snakemake", *extra, "-s", str(ROOT / "Snakefile"), "--cores", "2", *(["--keep-going"] if keep_going else []),
           "--configfile", str(cfg)]
    out = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, timeout=900)
    return out, out.stdout + out.stderr


@pytest.mark.slow
def test_a_rejected_c1_leaves_its_batch_mate_proved(tmp_path):
    """Two sectors in one batch, the second's C1 tampered: the first is proved and verified, the
    second's verify fails with the check's reason, last, so the plain command (no
    ``--keep-going``) gets that far too; a second run redoes only that; once the C1 is replaced by
    a sound one (older than the rejection: a copy that kept its time), the next run checks it
    again and proves the batch with both."""
    c1s = {7: _c1(tmp_path, 7, False), 8: _c1(tmp_path, 8, True)}
    res = tmp_path / "results"
    out, log = _run(tmp_path, c1s, keep_going=False)
    assert out.returncode != 0, log[-4000:]
    # the development-keys warning on the console once, in the run whose setup (behind the
    # checks' checkpoints) makes the key; not in the runs after
    assert log.count(DEV_SETUP_WARNING) == 1, log[-3000:]
    # the bad C1's check succeeded as a job, with the reason in its record
    why = rejection(res / "c1" / "8.checked.json")
    assert why is not None and str(c1s[8]) in why and "comm_d" in why, why
    assert rejection(res / "c1" / "7.checked.json") is None
    # its batch-mate was proved without it and verified
    proofs = sorted(f.name for f in (res / "proofs").rglob("*.proof"))
    assert proofs == ["7.proof"], proofs
    v = json.loads((res / "verify" / "7.json").read_text())
    assert v["verified"] and v["sector_id"] == 7 and v["partitions"] == SHAPE.partitions
    # the rejected sector: no witness made, its verify job failed with the check's error
    assert not (res / "witness" / "8").exists() or not any((res / "witness" / "8").iterdir())
    assert not (res / "verify" / "8.json").exists()
    vlog = (res / "logs" / "verify" / "8.log").read_text()
    assert "C1Error" in vlog and "rejected by its check" in vlog, vlog[-2000:]
    # the report covers the proved sector and names the rejected C1 with its reason
    summary = (res / "report" / "summary.md").read_text()
    assert "proofs verified (PoRep sectors and PoSt): 1 of 1" in summary, summary
    assert "inputs rejected by their check (their sectors not proved): 1" in summary and why in summary, summary
    # a second run redoes only the failing verify job (the good outputs stay as they were)
    before = {p: p.stat().st_mtime_ns for p in (res / "verify" / "7.json", *(res / "proofs").rglob("*.proof"))}
    out2, log2 = _run(tmp_path, c1s, keep_going=False)
    assert out2.returncode != 0 and "rejected by its check" in (res / "logs" / "verify" / "8.log").read_text()
    assert "rule prove:" not in log2 and "rule synthesize:" not in log2 and "checkpoint check_c1:" not in log2, log2[-3000:]
    assert DEV_SETUP_WARNING not in log2
    assert {p: p.stat().st_mtime_ns for p in before} == before
    # the reverify target checks the one proof there is (none is looked for the rejected sector)
    rv, rvlog = _run(tmp_path, c1s, "reverify")
    assert rv.returncode == 0, rvlog[-3000:]
    rows = (res / "report" / "reverify.tsv").read_text().strip().splitlines()[1:]
    assert len(rows) == 1 and "7.proof" in rows[0], rows
    # a dry run plans nothing for the rejected sector but its verify job
    dry, dlog = _run(tmp_path, c1s, "-n")
    assert dry.returncode == 0, dlog[-3000:]
    assert "rule verify:" in dlog and "rule prove:" not in dlog and "rule synthesize:" not in dlog, dlog[-3000:]
    # the C1 replaced by a sound one with an older modification time (as cp -p leaves it; Snakemake
    # sees no newer input): the stale rejection is planned as admitted by a dry run, which keeps
    # it; a real run removes it, checks the C1 again, synthesizes it, proves its batch with it
    rec8 = res / "c1" / "8.checked.json"
    _c1(tmp_path, 8, False)
    old = rec8.stat().st_mtime - 3600
    os.utime(c1s[8], (old, old))
    dry2, dlog2 = _run(tmp_path, c1s, "-n")
    assert dry2.returncode == 0 and "rule prove:" in dlog2, dlog2[-3000:]
    assert rejection(rec8) is not None
    out3, log3 = _run(tmp_path, c1s)
    assert out3.returncode == 0, log3[-4000:]
    assert "a rejection of a file that changed since" in log3 and "checkpoint check_c1:" in log3, log3[-4000:]
    assert rejection(rec8) is None
    assert sorted(f.name for f in (res / "proofs").rglob("*.proof")) == ["7.proof", "8.proof"]
    assert all(json.loads((res / "verify" / f"{s}.json").read_text())["verified"] for s in (7, 8))


def test_a_batch_of_rejected_c1s_makes_no_key(tmp_path):
    """The only sector's C1 is rejected: its check, the report and its verify run (the verify
    fails with the reason, after the report, also without ``--keep-going``), but no PCE, key,
    witness or prove job: they wait on the checkpoint."""
    out, log = _run(tmp_path, {9: _c1(tmp_path, 9, True)}, keep_going=False)
    assert out.returncode != 0, log[-4000:]
    assert "checkpoint check_c1:" in log and "rule verify:" in log, log[-4000:]
    summary = (tmp_path / "results" / "report" / "summary.md").read_text()
    assert "inputs rejected by their check (their sectors not proved): 1" in summary, summary
    for rule in ("pce_extract", "setup", "synthesize", "prove"):
        assert f"rule {rule}:" not in log, (rule, log[-4000:])
    assert "rejected by its check" in (tmp_path / "results" / "logs" / "verify" / "9.log").read_text()
