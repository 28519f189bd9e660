"""The cuzk command and the Snakemake workflow (dry run and one small real job)."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from cuzk.circuits.registry import shape_by_name
from cuzk.cli import main
from cuzk.memory.budget import declared_gb
from cuzk.memory.model import predict_step_bytes

ROOT = Path(__file__).resolve().parents[1]


def test_bench_prove_cli(tmp_path, capsys):
    out = tmp_path / "b.json"
    rc = main(["bench", "prove", "--constraints", "64", "--backend", "cpu", "--json", str(out)])
    assert rc == 0
    d = json.loads(out.read_text())
    assert d["verified"] is True
    assert d["r1cs"]["constraints"] == 64 + 4 + 1  # N + inputs + ONE rows
    for k in ("setup", "witness", "ntt", "msm_a", "msm_b_g2", "msm_l", "msm_h", "verify"):
        assert k in d["seconds"]
    assert d["rss_peak_bytes"] > 0
    assert "verified=True" in capsys.readouterr().out


def test_bench_help_says_what_n_counts(capsys):
    with pytest.raises(SystemExit):
        main(["bench", "prove", "--help"])
    text = capsys.readouterr().out
    assert "N + inputs + 1 rows" in text and "bits" in text


def test_version_and_backend_choices(capsys):
    """``cuzk --version`` prints the package's version, which is the installed distribution's
    (pyproject reads it from ``cuzk.__version__``); every ``--backend`` takes only auto, cpu or
    cuda (check-params took any string)."""
    import importlib.metadata

    import cuzk

    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0 and capsys.readouterr().out.strip() == f"cuzk {cuzk.__version__}"
    assert importlib.metadata.version("cuzk") == cuzk.__version__
    for cmd in (["check-params"], ["prove"], ["bench", "msm"], ["snarkjs-prove"]):
        with pytest.raises(SystemExit) as e:
            main([*cmd, "--backend", "gpu"])
        assert e.value.code == 2 and "invalid choice: 'gpu'" in capsys.readouterr().err, cmd


def test_cli_errors_are_clean(capsys):
    assert main(["bench", "prove", "--constraints", "1"]) == 2
    assert "at least 2 constraints" in capsys.readouterr().err
    assert main(["bench", "prove", "--constraints", "16", "--backend", "cuda"]) == 2


def test_snakemake_dry_run(snakemake_cli, default_config):
    cfg = default_config()  # the default config, with results in a fresh folder
    r = subprocess.run(["snakemake", "-n", "--cores", "2", "--configfile", str(cfg)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr + r.stdout
    for rule in ("prepare", "pce_extract", "setup", "synthesize", "prove", "verify", "report"):
        assert rule in r.stdout


def test_gpu_jobs_declare_a_gpu_and_the_gpu_memory_model(snakemake_cli, default_config):
    """backend: cuda (a dry run needs no device): setup and prove declare gpu=1 and the cuda
    host-memory model (porep-2KiB setup: the key never on the host, less than the CPU's); without --resources gpu=N the
    DAG build warns that GPU jobs may all start at once."""
    cfg = default_config({"backend: auto": "backend: cuda"})
    warn = "--resources gpu=N is not set"
    r = subprocess.run(["snakemake", "-n", "--cores", "2", "--configfile", str(cfg)], cwd=ROOT, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr + r.stdout
    out = r.stdout + r.stderr
    assert warn in out
    from cuzk.backend.cuda.runtime import cuda_available
    if not cuda_available():   # a dry run here warns; a real run stops before any job (below)
        assert "backend: cuda, but on this host backend 'cuda' is not available" in out, out[-2000:]
        real = subprocess.run(["snakemake", "--cores", "2", "--configfile", str(cfg)], cwd=ROOT, capture_output=True,
                              text=True, timeout=120)
        assert real.returncode != 0 and "cuzk: BackendUnavailableError" in real.stdout + real.stderr
        assert "localrule" not in real.stdout + real.stderr and "rule prepare" not in real.stdout
    jobs = {b.split(":")[0] + " " + b.split("wildcards: ")[1].split("\n")[0]: b
            for b in r.stdout.split("\nrule ") if "wildcards: " in b}
    setup = jobs["setup shape=porep-2KiB"]
    threads = int(setup.split("threads: ")[1].split("\n")[0])
    want = declared_gb(predict_step_bytes("setup", shape_by_name("porep-2KiB").stats(), threads=threads, backend="cuda"))
    assert want < declared_gb(predict_step_bytes("setup", shape_by_name("porep-2KiB").stats(), threads=threads))
    assert f"mem_gb={want}, gpu=1," in setup
    assert "mem_gb=1, mem_mb" in jobs["pce_extract shape=porep-2KiB"]    # a CPU step: no gpu
    r = subprocess.run(["snakemake", "-n", "--cores", "2", "--resources", "gpu=1", "--configfile", str(cfg)], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and warn not in r.stdout + r.stderr


def test_gpu_synthesis_declares_a_gpu(snakemake_cli, default_config):
    """synthesis_poseidon: gpu (backend cpu: a dry run needs no device): the synthesize jobs declare
    gpu=1, other CPU steps none, and without --resources gpu=N the DAG build warns; by default
    synthesize declares no GPU."""
    def synth(cfg, *extra):
        r = subprocess.run(["snakemake", "-n", "--cores", "2", *extra, "--configfile", str(cfg)], cwd=ROOT,
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr + r.stdout
        jobs = [b for b in r.stdout.split("\nrule ") if b.startswith("synthesize:")]
        pce = [b for b in r.stdout.split("\nrule ") if b.startswith("pce_extract:")]
        assert jobs and pce
        return jobs, pce, r.stdout + r.stderr

    warn = "--resources gpu=N is not set"
    cfg = default_config({"backend: auto": "backend: cpu", "synthesis_poseidon: auto": "synthesis_poseidon: gpu"},
                         name="gpu-synth.yaml")
    jobs, pce, out = synth(cfg)
    assert all("gpu=1" in j for j in jobs) and not any("gpu=1" in j for j in pce) and warn in out
    assert warn not in synth(cfg, "--resources", "gpu=1")[2]
    jobs, _, out = synth(default_config({"backend: auto": "backend: cpu"}, name="cpu.yaml"))
    assert not any("gpu=1" in j for j in jobs) and warn not in out


def test_snakemake_small_job(snakemake_cli, default_config, tmp_path):
    cfg = default_config({"constraints: [1024, 16384]": "constraints: [32]"})
    res = tmp_path / "r"
    r = subprocess.run(
        ["snakemake", "bench_all", "--cores", "1", "--resources", "mem_gb=4", "--configfile", str(cfg), "--directory", str(ROOT)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    d = json.loads((res / "bench" / "prove_32.json").read_text())
    assert d["verified"] is True
    assert (res / "benchmarks" / "bench_prove" / "32.tsv").exists()


def test_schema_rejects_bad_config(snakemake_cli, default_config, tmp_path):
    cfg = default_config({"backend: auto": "backend: tpu"}, name="bad.yaml")
    r = subprocess.run(["snakemake", "-n", "--configfile", str(cfg)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode != 0
    out = r.stderr + r.stdout
    assert "tpu" in out and "backend: 'tpu' is not one of" in out
    # every problem on a line of its own, with its place; not the schema dumped after it
    cfg.write_text(cfg.read_text().replace("backend: tpu", "backend: cpu").replace("threads:", "thread:"))
    r = subprocess.run(["snakemake", "-n", "-s", str(ROOT / "Snakefile"), "--configfile", str(cfg)], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120)
    out = r.stderr + r.stdout
    assert r.returncode != 0 and "'thread' was unexpected" in out, out[-2000:]
    assert "Failed validating" not in out and len(out.splitlines()) < 40, out
    # one cuzk error naming the file, not Snakemake's frame of the .smk file and line
    assert f"cuzk: ConfigError: {cfg}" in out and "WorkflowError" not in out and "config.smk" not in out, out


def test_lint_and_format(snakemake_cli):
    r = subprocess.run(["snakemake", "--lint"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "Lints for" not in r.stdout + r.stderr, r.stdout + r.stderr
    if shutil.which("snakefmt"):
        f = subprocess.run(["snakefmt", "--check", "Snakefile", "workflow/rules"], cwd=ROOT, capture_output=True, text=True)
        assert f.returncode == 0, f.stderr


@pytest.mark.parametrize("profile", ["default", "slurm"])
def test_profiles_build_the_dag(snakemake_cli, default_config, profile):
    cfg = default_config()
    r = subprocess.run(["snakemake", "--profile", f"workflow/profiles/{profile}", "-n", "--configfile", str(cfg)],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "prove" in r.stdout


def test_step_subcommands(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["pce-extract", "--shape", "test-only-commd-128B", "-o", "c.pce", "--mem-json", "m.json"]) == 0
    assert json.loads(Path("m.json").read_text())["step"] == "pce_extract"
    assert main(["prepare", "--sector-id", "4", "--shape", "test-only-commd-128B", "--generate", "1", "-o", "s.json"]) == 0
    assert main(["synthesize", "--c1", "s.json", "--pce", "c.pce", "-o", "wit"]) == 0
    assert (tmp_path / "wit" / "partition-0.wit").exists()
    assert main(["prepare", "--sector-id", "4", "--shape", "porep-commd-2KiB", "--data", "nope.txt", "-o", "x.json"]) == 2


@pytest.mark.parametrize("what", [["ntt"], ["compute-h"], ["msm", "--group", "g1"], ["msm", "--group", "g2"], ["spmv"]])
def test_kernel_benchmarks(tmp_path, what):
    out = tmp_path / "k.json"
    assert main(["bench", *what, "--log-sizes", "4,6", "--backend", "cpu", "--repeat", "2", "--json", str(out)]) == 0
    d = json.loads(out.read_text())
    assert [r["n"] for r in d["sizes"]] == [16, 64]
    assert all(r["seconds_min"] > 0 for r in d["sizes"]) and d["rss_peak_bytes"] > 0
    assert what != ["compute-h"] or all(r["h_ok"] for r in d["sizes"])


def test_compute_h_bench_check_refuses_wrong_h():
    """``cuzk bench compute-h``'s check (H·Z = A·B − C on the coset) holds for compute_h's H and
    fails for a tampered H or an unsatisfied system (c ≠ a·b at one row)."""
    import numpy as np

    from cuzk.backend import get_backend
    from cuzk.bench.kernels import _h_ok
    from cuzk.field import FR, int_array

    rng, n = np.random.default_rng(), 64
    with get_backend("cpu") as bk:
        a, b = bk.to_device(FR.random(n, rng)), bk.to_device(FR.random(n, rng))
        c = bk.mul(a, b)
        h = bk.compute_h(a, b, c, n)
        assert _h_ok(bk, a, b, c, h, n)
        bad = h.copy()
        bad[5] = FR.add(bad[5:6], int_array([1]))[0]
        assert not _h_ok(bk, a, b, c, bad, n)
        c2 = c.copy()
        c2[3] = FR.add(c2[3:4], int_array([1]))[0]
        assert not _h_ok(bk, a, b, c2, bk.compute_h(a, b, c2, n), n)


def test_step_stopped_by_bad_input_prints_one_line(tmp_path):
    """A workflow step stopped by a typed input error prints its message alone (the file and the
    fault), and its log keeps the traceback; a bug keeps its traceback on stderr."""
    import sys

    log = tmp_path / "step.log"
    code = ("from cuzk.pipeline import start_log\nstart_log({log!r})\n"
            "from cuzk.r1cs.witness import WitnessFormatError\n{body}\n")
    r = subprocess.run([sys.executable, "-c", code.format(log=str(log), body="raise WitnessFormatError('w/partition-0.wit', 'checksum mismatch')")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1
    assert r.stderr.strip() == "cuzk: WitnessFormatError: w/partition-0.wit: checksum mismatch"
    assert "Traceback" in log.read_text() and "checksum mismatch" in log.read_text()
    r = subprocess.run([sys.executable, "-c", code.format(log=str(log), body="raise KeyError('bug')")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "Traceback" in r.stderr and "KeyError" in r.stderr


def test_an_official_key_replaces_setup_in_upstream_order(snakemake_cli, default_config, tmp_path):
    """With Filecoin's 2 KiB PoRep, winning and window PoSt and SnapDeals .params in params_dir
    (stand-ins under their official names: a verifying key of the shape's IC length, all a dry
    run reads; the two PoSt files told apart by it) and upstream_order: true, each shape's key
    comes from the official_params rule, not setup; with the block order, setup makes development
    keys and the console names each file it did not use. When no file has a shape's IC length
    (the winning stand-in replaced by one of 3), the upstream-order run stops naming the files;
    the block-order run warns and makes development keys."""
    from conftest import vk_head
    from cuzk.groth16.official import family_files, porep_file

    d = tmp_path / "fil"
    d.mkdir()
    window, winning = family_files("post", 2048)   # which name is which kind: the hash alone says
    files = {"porep-2KiB": porep_file(2048), "window-post-2KiB": window, "winning-post-2KiB": winning,
             "update-2KiB": family_files("update", 2048)[0]}
    for sh, name in files.items():
        vk_head(d / name, shape_by_name(sh).stats()["inputs"])

    def dry_run(upstream):
        cfg = default_config({"params_dir: null": f"params_dir: {d}",
                              "upstream_order: false": f"upstream_order: {str(upstream).lower()}",
                              "sectors:\n": "sectors:\n  - {id: 6, update: {synthetic: true}, sector_size: 2KiB}\n"},
                             name=f"official-{upstream}.yaml")
        r = subprocess.run(["snakemake", "-n", "--cores", "2", "--configfile", str(cfg)], cwd=ROOT,
                           capture_output=True, text=True, timeout=120)
        return r, {b.split(":")[0] + " " + b.split("wildcards: ")[1].split("\n")[0]
                   for b in r.stdout.split("\nrule ") if "wildcards: " in b}

    for upstream in (True, False):
        r, jobs = dry_run(upstream)
        assert r.returncode == 0, r.stderr + r.stdout
        for sh, name in files.items():
            assert (f"official_params shape={sh}" in jobs) is upstream, sh
            assert (f"setup shape={sh}" in jobs) is not upstream, sh
            assert (f"{d / name}: Filecoin's key for {sh} is present, but upstream_order is false"
                    in r.stdout + r.stderr) is not upstream, sh
    vk_head(d / winning, 3)
    r, _ = dry_run(True)
    assert r.returncode != 0 and f"{d}: ic: 0 of the files present for winning-post-2KiB have its IC length 133" in r.stdout + r.stderr
    r, jobs = dry_run(False)
    assert r.returncode == 0 and "setup shape=winning-post-2KiB" in jobs, r.stdout + r.stderr
    assert f"{d}: ic: 0 of the files present for winning-post-2KiB" in r.stdout + r.stderr


def test_verify_exit_status(tmp_path, monkeypatch, commd_128b_key, capsys):
    """``cuzk verify``: 0 for a proof that verifies (its result JSON written), 1 for one that does
    not (another sector's proof: named with its sector and partition, nothing written), 2 for an
    error (a missing proof file)."""
    from conftest import KEY_SHAPE
    from cuzk.paths import Results

    monkeypatch.chdir(tmp_path)
    r = Results(str(commd_128b_key))
    pce, params, vk = r.pce(KEY_SHAPE), r.params(KEY_SHAPE), r.vk(KEY_SHAPE)
    for sid in (4, 5):
        assert main(["prepare", "--sector-id", str(sid), "--shape", KEY_SHAPE, "--generate", str(sid), "-o", f"{sid}.json"]) == 0
        assert main(["synthesize", "--c1", f"{sid}.json", "--pce", pce, "-o", f"w{sid}"]) == 0
    assert main(["prove", "--pce", pce, "--params", params, "--c1", "4.json", "5.json", "--witness", "w4", "w5",
                 "-o", "proofs", "--backend", "cpu"]) == 0
    assert main(["verify", "--vk", vk, "--c1", "4.json", "--proof", "proofs/4.proof", "-o", "ok.json"]) == 0
    assert json.loads(Path("ok.json").read_text())["verified"]
    capsys.readouterr()
    assert main(["verify", "--vk", vk, "--c1", "4.json", "--proof", "proofs/5.proof", "-o", "bad.json"]) == 1
    assert "cuzk: not verified: proofs/5.proof: sector 4 partition 0 does not verify" in capsys.readouterr().err
    assert not Path("bad.json").exists()
    assert main(["verify", "--vk", vk, "--c1", "4.json", "--proof", "proofs/6.proof", "-o", "err.json"]) == 2


def test_quick_config_builds_its_dag(snakemake_cli, tmp_path):
    """README's first run (``quick.yaml``) passes the config check and plans its two sectors'
    steps within the 4 GB budget it is run with (a dry run, results elsewhere: the quick start's
    own ``results-quick/``, there or not from a real run, is left as it was)."""
    quick_before = (ROOT / "results-quick").exists()
    r = subprocess.run(["snakemake", "-n", "--cores", "2", "--resources", "mem_gb=4", "--configfile", "quick.yaml",
                        "--config", f"results={tmp_path / 'res'}"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out[-2000:]
    assert "prove" in out and "setup" in out and "_post" not in out, out[-2000:]   # no PoSt rule
    assert not (tmp_path / "res").exists() and (ROOT / "results-quick").exists() == quick_before
