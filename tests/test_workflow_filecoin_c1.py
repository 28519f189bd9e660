"""A sector whose C1 comes in Filecoin's form (config ``c1:``, detected): converted by import_c1,
checked once, proved and verified through the workflow (the comm_d circuit on a test-only
256 B sector, which keeps the run short; the conversion is the PoRep C1's); the lotus-bench
2 KiB fixture is planned the same way under the PoRep circuit."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from cuzk.circuits.registry import shape_by_name
from cuzk.sector import filecoin_c1 as fc
from cuzk.sector.porep_c1 import seal_and_prove

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(shutil.which("snakemake") is None, reason="snakemake not installed")
PID = fc.prover_id_of_actor(1000)

CONFIG = """backend: cpu
threads: 2
results: {results}
max_batch_size: 2
randomness: inputs
prover_id: "{pid}"
allow_test_shapes: true
circuit: {circuit}
post: {{winning: false, window: false}}
sectors:
  - {{id: {sid}, c1: {c1}, sector_size: {size}}}
"""


def _snakemake(tmp: Path, sid: int, c1: Path, size: str, circuit: str, *extra):
    cfg = tmp / "config.yaml"
    cfg.write_text(CONFIG.format(results=tmp / "results", pid=PID.hex(), sid=sid, c1=c1, size=size, circuit=circuit))
    cmd = ["snakemake", "-s", str(ROOT / "Snakefile"), "--cores", "2", "--configfile", str(cfg), *extra]
    return subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, timeout=900)


@pytest.mark.slow
def test_filecoin_form_c1_is_imported_checked_proved_and_verified(tmp_path):
    shape = shape_by_name("test-only-commd-256B")
    data = bytes((5 * i) & 0x3F for i in range(256))
    c1 = seal_and_prove(data, 256, 4, PID, bytes([3] * 32), bytes([4] * 32), 2,
                        partitions=shape.partitions, challenges=shape.challenges)
    src = tmp_path / "s4.c2in.json"
    fc.write_filecoin(src, c1, lotus_bench=True)
    out = _snakemake(tmp_path, 4, src, "test-only-256B", "porep-commd")
    assert out.returncode == 0, out.stderr[-4000:]
    res = tmp_path / "results"
    imported = res / "c1" / "4.imported.c1.json"
    assert fc.read_any(imported)[1] == c1   # cuzk's form, the very C1 that was sealed
    assert json.loads((res / "c1" / "4.checked.json").read_text())["path"] == str(imported)
    v = json.loads((res / "verify" / "4.json").read_text())
    assert v["verified"] and v["partitions"] == shape.partitions and v["sector_id"] == 4
    assert v["comm_d"] == bytes(c1["comm_d"]).hex()
    steps = (res / "report" / "steps.tsv").read_text()   # the import is a step of the report too
    assert any(line.startswith("import_c1\t") for line in steps.splitlines()), steps


def test_a_damaged_c1_stops_the_run_before_the_key(tmp_path):
    """A truncated Filecoin-form C1 (the first 20,000 bytes of a venus 2 KiB one: its form is
    still detected while the DAG is built) is rejected by its import_c1 job (a rejection record
    in place of the converted C1, never a C1), its check passes the rejection on, and its verify
    job fails with the C1Error naming the file; no PCE or key job runs (they wait for the
    check_c1 checkpoint, and no sector is left to prove)."""
    from cuzk.sector.jsondoc import rejection

    bad = tmp_path / "cut.c1.json"
    bad.write_bytes((ROOT / "tests" / "fixtures" / "filecoin" / "venus-t0106-2kib-s0.c1.json").read_bytes()[:20_000])
    cfg = tmp_path / "config.yaml"
    cfg.write_text(CONFIG.format(results=tmp_path / "results", pid=PID.hex(), sid=1, c1=bad, size="2KiB",
                                 circuit="porep"))
    out = subprocess.run(["snakemake", "-s", str(ROOT / "Snakefile"), "--cores", "1", "--configfile", str(cfg)],
                         cwd=tmp_path, capture_output=True, text=True, timeout=600)
    log = out.stdout + out.stderr
    assert out.returncode != 0 and "rule import_c1:" in log, log[-4000:]
    res = tmp_path / "results"
    why = rejection(res / "c1" / "1.imported.c1.json")
    assert why is not None and str(bad) in why
    assert why in (rejection(res / "c1" / "1.checked.json") or ""), why
    vlog = (res / "logs" / "verify" / "1.log").read_text()
    assert "C1Error" in vlog and str(bad) in vlog, vlog[-3000:]
    assert "rule setup:" not in log and "rule pce_extract:" not in log, log[-4000:]


def test_lotus_bench_fixture_is_planned_through_import(tmp_path):
    fix = ROOT / "tests" / "fixtures" / "filecoin" / "lotus-bench-2kib-s1.c2in.json"
    out = _snakemake(tmp_path, 1, fix, "2KiB", "porep", "-n", "--quiet", "rules")
    assert out.returncode == 0, out.stderr[-4000:]
    jobs = out.stdout + out.stderr
    assert "import_c1" in jobs and "check_c1" in jobs and "prepare" not in jobs.replace("prepare.smk", "")
