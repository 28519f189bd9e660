"""The README's checkable claims kept in step with the code: the smallest mem_gb of the default
batch (worked out here from the memory model, and as the workflow's refusal names it), every
`cuzk` subcommand in its command list, the cross-check install, one npm command."""

import argparse
import re
import subprocess
from pathlib import Path

import yaml

from cuzk.circuits import registry
from cuzk.cli import build_parser
from cuzk.memory.budget import declared_gb
from cuzk.memory.model import predict_step_bytes
from workflow_util import windowpost_declarations

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def _stated_minimum() -> int:
    m = re.search(r"smallest\s+budget\s+that\s+runs\s+the\s+default\s+batch\s+is\s+`mem_gb=(\d+)`", README)
    assert m, "the README states the default batch's smallest mem_gb"
    return int(m.group(1))


def _model_minimum() -> int:
    """The largest declaration of any job of config.yaml's batch (every job must fit alone), on
    the CPU backend: per shape PCE and setup (threads workers), per sector its steps, per batch
    of up to max_batch_size sectors one prove; each PoSt one prove of its shape."""
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    threads, size = cfg["threads"], cfg["max_batch_size"]
    porep = [registry.sector_shape(cfg["circuit"], s["sector_size"]) for s in cfg["sectors"]]
    posts = [registry.post_shape(k, s) for k, on in cfg["post"].items() if on for s in {x["sector_size"] for x in cfg["sectors"]}]
    needs = []
    for name in set(porep) | set(posts):
        st = registry.shape_by_name(name).stats()
        needs += [predict_step_bytes("pce_extract", st), predict_step_bytes("setup", st, threads=threads),
                  predict_step_bytes("synthesize", st)]
    for name in set(porep):
        st = registry.shape_by_name(name).stats()
        n = porep.count(name)
        needs += [predict_step_bytes("prove", st, threads=threads, batch=min(size, n - i)) for i in range(0, n, size)]
        needs += [predict_step_bytes(s, st) for s in ("prepare", "check_c1", "verify")]
    for name in posts:
        needs.append(predict_step_bytes("prove", registry.shape_by_name(name).stats(), threads=threads))
    return max(declared_gb(b) for b in needs)


def test_readme_minimum_mem_gb_is_the_models():
    assert _stated_minimum() == _model_minimum()


def test_readme_minimum_mem_gb_is_what_the_workflow_asks_for(snakemake_cli, default_config):
    cfg = default_config()
    r = subprocess.run(["snakemake", "-n", "--cores", "2", "--resources", "mem_gb=1", "--configfile", str(cfg)],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    out = r.stdout + r.stderr
    assert r.returncode != 0
    assert f"the smallest budget that runs this batch: --resources mem_gb={_stated_minimum()}" in out, out[-2000:]
    r = subprocess.run(["snakemake", "-n", "--cores", "2", "--resources", f"mem_gb={_stated_minimum()}",
                        "--configfile", str(cfg)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, (r.stdout + r.stderr)[-2000:]


def test_readme_windowpost_declarations_are_the_models():
    """The 32 GiB WindowPoSt section's mem_gb list: every rule of the PoSt chain, each the model's
    declaration (setup and prove on the GPU) with the config as the workflow reads it."""
    section = README.split("### One 32 GiB WindowPoSt partition", 1)[1].split("\n### ", 1)[0]
    stated = {rule: int(gb) for rule, gb in re.findall(r"`(\w+)`(?: \(GPU\))? (\d+)[,;]", section)}
    assert stated == windowpost_declarations()


def _subcommands(parser, prefix=()):
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            for name, sub in a.choices.items():
                yield (*prefix, name)
                yield from _subcommands(sub, (*prefix, name))


def test_every_subcommand_is_in_the_readme_command_list():
    section = README.split("## Other tools", 1)[1].split("\n## ", 1)[0]
    tokens = {t for span in re.findall(r"`([^`]+)`", section) for t in re.split(r"[\s|,]+", span)}
    missing = [" ".join(c) for c in _subcommands(build_parser()) if c[-1] not in tokens]
    assert missing == []


def test_every_option_has_a_description():
    def walk(p, path):
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                for name, sub in a.choices.items():
                    yield from walk(sub, f"{path} {name}")
            elif not isinstance(a, argparse._HelpAction) and not a.help:
                yield f"{path} {'/'.join(a.option_strings) or a.dest}"

    assert list(walk(build_parser(), "cuzk")) == []


def test_cross_check_install_and_one_npm_command():
    assert "requirements-crosscheck.txt" in README and (ROOT / "requirements-crosscheck.txt").exists()
    said = [str(p.relative_to(ROOT)) for d in ("src", "tests", "workflow") for p in (ROOT / d).rglob("*")
            if p.is_file() and p.suffix in (".py", ".sh", ".smk", ".md") and p != Path(__file__)
            and "npm install" in p.read_text()]
    assert said == [] and "npm install" not in README


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_readme_default_batch_figures_are_the_codes():
    """What the README says of the default batch from the registry and the memory model: the
    2 KiB PoRep constraint count, WindowPoSt's partitions over five 2 KiB sectors, and the prove
    (three sectors, two workers) and setup predictions with what they declare."""
    from cuzk.memory.budget import HEADROOM
    from cuzk.sector.post import partition_count, post_params

    text = _flat(README)
    st = registry.shape_by_name("porep-2KiB").stats()
    assert f"five 2 KiB PoRep proofs of {st['constraints']:,} constraints each" in text
    assert f"(WindowPoSt over five 2 KiB sectors: {partition_count(post_params('window', 2048), 5)})" in text
    m = re.search(r"The memory model predicts ([\d.]+) GiB for a prove job of three 2 KiB sectors with 2 workers and "
                  r"([\d.]+) GiB for the 2 KiB setup; with the ([\d.]+) headroom they declare (\d+) and (\d+)", text)
    assert m, "the README gives the model's prove and setup figures"
    prove, setup = predict_step_bytes("prove", st, threads=2, batch=3), predict_step_bytes("setup", st, threads=2)
    assert m.groups() == (f"{prove / 2**30:.1f}", f"{setup / 2**30:.1f}", f"{HEADROOM:g}",
                          str(declared_gb(prove)), str(declared_gb(setup)))


def test_readme_cpu_seconds_are_the_cited_runs():
    """The default batch's CPU-seconds as the README gives them equal the sums of `cpu_time` in
    the Snakemake benchmark files committed with the run it cites."""
    import csv

    text = _flat(README)
    m = re.search(r"took ([\d,]+) CPU-seconds in its jobs on a clean clone .*?: setup (\d+) \((\d+) of them the 2 KiB "
                  r"PoRep shape\), PoRep prove ([\d,]+) \((\d+)–(\d+) per 2 KiB sector\), everything else (\d+) "
                  r"\(`([^`]+)`\)", text)
    assert m, "the README gives the default batch's CPU-seconds and the run they come from"
    cpu = {}
    for f in (ROOT / m.group(8) / "benchmarks").glob("*/*.tsv"):
        row = next(csv.DictReader(f.open(), delimiter="\t"))
        cpu[(f.parent.name, f.stem)] = float(row["cpu_time"])
    assert len(cpu) == 36   # every job of the default batch but all and report
    rule = lambda r: sum(v for (r_, _), v in cpu.items() if r_ == r)  # noqa: E731
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    n, size = len(cfg["sectors"]), cfg["max_batch_size"]
    per_sector = [cpu[("prove", f"porep-2KiB-b{b}")] / min(size, n - b * size) for b in range(-(-n // size))]
    total = sum(cpu.values())
    want = (f"{total:,.0f}", f"{rule('setup'):.0f}", f"{cpu[('setup', 'porep-2KiB')]:.0f}", f"{rule('prove'):,.0f}",
            f"{min(per_sector):.0f}", f"{max(per_sector):.0f}", f"{total - rule('setup') - rule('prove'):.0f}")
    assert m.groups()[:7] == want


def test_ci_runs_the_readme_test_command():
    """.ci/run's last command is README's test command, and the pytest plugins it names (``-n``:
    pytest-xdist) are in the ``test`` extra that .ci/run installs."""
    import tomllib

    cmd = README.split("Run the tests:", 1)[1].split("```", 2)[1].strip()
    assert cmd.startswith("python -m pytest ") and "\n" not in cmd
    ci = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line.strip()]
    assert ci[-1] == cmd and "pip install -q -e '.[test]'" in "\n".join(ci)
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    assert (" -n " in f" {cmd} ") == any(r.startswith("pytest-xdist") for r in extra)
