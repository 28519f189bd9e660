"""The test-shape workflow through ``--profile workflow/profiles/slurm`` on a real SLURM cluster.

CI brings up a single-node cluster before pytest (``.ci/run`` → ``.ci/slurm-single-node.sh up``; no
accounting daemon, so ``sacct`` fails and the workflow must poll ``squeue``). One run with a
``mem_mb_per_cpu`` default and the prove job cancelled (``scancel``) while it runs: the job is
retried with doubled memory and the run finishes; every proof verifies (again here, from the
files); every sbatch call asks ``--mem`` from the rule's mem_mb (never ``--mem-per-cpu``) and cpus
from its threads; a second run does nothing. Without a cluster the test skips with the reason.
"""

import json
import re
import shutil
import subprocess
import time

import pytest

from cuzk.memory.budget import MB_PER_GB, SNAKEMAKE_JOB_MB
from slurm_util import PROFILE, ROOT, write_config

pytestmark = pytest.mark.slow
# written by .ci/run when the cluster could not start
UNAVAILABLE = ROOT / ".ci" / "slurm-unavailable"
THREADS = 2

def _cluster_missing() -> str | None:
    """Why no SLURM cluster is usable here, or None."""
    why = UNAVAILABLE.read_text().strip() + "; " if UNAVAILABLE.exists() else ""
    if shutil.which("sinfo") is None:
        return why + "sinfo not found (no SLURM client installed)"
    r = subprocess.run(["sinfo", "-h", "-o", "%T"], capture_output=True, text=True, timeout=30)
    states = r.stdout.split()
    if r.returncode != 0 or not {"idle", "mixed", "allocated"} & set(states):
        return why + f"no usable SLURM node (sinfo: {(r.stdout + r.stderr).strip() or 'nothing'})"
    return None


def _cmd(cfg, *extra):
    return ["snakemake", "-s", str(ROOT / "Snakefile"), "--profile", str(PROFILE),
            "--configfile", str(cfg), "--slurm-init-seconds-before-status-checks", "2", "--verbose", *extra]


def _running_prove_job(deadline: float, proc) -> str | None:
    """The SLURM id of the prove job once it runs (None if the run ends or time is up first)."""
    while time.time() < deadline and proc.poll() is None:
        r = subprocess.run(["squeue", "-h", "--states=RUNNING", "-o", "%i|%k"], capture_output=True, text=True)
        for line in r.stdout.splitlines():
            jobid, _, comment = line.partition("|")
            if comment.startswith("rule_prove_"):
                return jobid
        time.sleep(0.2)
    return None


@pytest.fixture(scope="module")
def slurm_run(tmp_path_factory):
    missing = _cluster_missing()
    if missing:
        pytest.skip(f"no SLURM cluster: {missing}")
    tmp = tmp_path_factory.mktemp("slurm")
    cfg = write_config(tmp, THREADS)
    t0 = time.time()
    # a site-wide mem_mb_per_cpu default would under-size every job: the rules' mem_mb must win
    extra = ("--default-resources", "runtime=30", "mem_mb_per_cpu=100")
    proc = subprocess.Popen(_cmd(cfg, *extra), cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    cancelled = _running_prove_job(time.time() + 240, proc)
    if cancelled:
        subprocess.run(["scancel", cancelled], check=True)
    try:
        out, _ = proc.communicate(timeout=240)
    except subprocess.TimeoutExpired:
        proc.kill()
        out = proc.communicate()[0]
        pytest.fail("the SLURM run did not finish in 240 s:\n" + out[-4000:])
    first_s = time.time() - t0
    again = subprocess.run(_cmd(cfg), cwd=tmp, capture_output=True, text=True, timeout=120)
    return tmp, proc.returncode, out, cancelled, first_s, again


def _sbatch_calls(log: str) -> list[str]:
    return [line.split("--wrap")[0] for line in log.splitlines() if line.startswith("sbatch call: ")]


def test_run_finishes_with_every_proof_verified(slurm_run):
    tmp, rc, out, cancelled, first_s, _ = slurm_run
    assert rc == 0, out[-6000:]
    assert "cuzk: SLURM job status from squeue (sacct: Slurm accounting storage is disabled)" in out
    assert "command=squeue" in out and "command=sacct" not in out
    res = tmp / "results"
    v = json.loads((res / "verify" / "1.json").read_text())
    assert v["verified"] is True
    # verified again here, from the files the cluster wrote
    from cuzk.pipeline import verify_sector

    proof = next((res / "proofs").glob("*/1.proof"))
    shape = proof.parent.name.rsplit("-b", 1)[0]
    again = verify_sector(res / "params" / f"{shape}.vk", res / "c1" / "1.c1.json", proof, tmp / "reverify.json",
                          shape_name=shape)
    assert again["verified"] is True
    assert "proofs verified (PoRep sectors and PoSt): 1 of 1" in (res / "report" / "summary.md").read_text()
    print(f"SLURM run: {first_s:.0f} s")


def test_cancelled_job_is_retried_with_more_memory(slurm_run):
    tmp, rc, out, cancelled, *_ = slurm_run
    assert cancelled, "the prove job was never seen running: " + out[-3000:]
    assert f"SLURM-job '{cancelled}' failed, SLURM status is: 'CANCELLED'" in out
    proves = [c for c in _sbatch_calls(out) if "--comment rule_prove_" in c]
    assert len(proves) == 2, proves
    first, retry = (int(re.search(r"--mem (\d+)", c).group(1)) - SNAKEMAKE_JOB_MB for c in proves)
    assert retry == 2 * first  # the retry's mem_gb doubled (cuzk.memory.budget.retry_gb)


def test_sbatch_asks_mem_from_the_model_and_cpus_from_threads(slurm_run):
    tmp, rc, out, *_ = slurm_run
    calls = _sbatch_calls(out)
    assert len(calls) >= 8  # prepare, check_c1, pce_extract, setup, synthesize, prove (×2), verify, report
    assert "default resource mem_mb_per_cpu=100 ignored" in out
    for c in calls:
        assert "--mem-per-cpu" not in c, c
        mem = int(re.search(r"--mem (\d+)", c).group(1))
        # whole GB of the model plus the job's own Snakemake processes
        assert mem >= MB_PER_GB + SNAKEMAKE_JOB_MB and (mem - SNAKEMAKE_JOB_MB) % MB_PER_GB == 0, c
        threaded = "--comment rule_setup_" in c or "--comment rule_prove_" in c
        assert f"--cpus-per-task={THREADS if threaded else 1}" in c, c
    # the evidence a reader of the run wants (pytest -s shows it): the calls and the status checks
    print("\n".join(calls + [line for line in out.splitlines() if "squeue" in line][:5]))


def test_second_run_does_nothing(slurm_run):
    *_, again = slurm_run
    assert again.returncode == 0, again.stderr[-3000:]
    assert "Nothing to be done" in again.stdout + again.stderr
    assert "sbatch call" not in again.stdout + again.stderr
