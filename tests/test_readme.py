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
    declaration (setup and prove on the GPU) with the config's threads."""
    section = README.split("### One 32 GiB WindowPoSt partition", 1)[1].split("\n### ", 1)[0]
    stated = {rule: int(gb) for rule, gb in re.findall(r"`(\w+)`(?: \(GPU\))? (\d+)[,;]", section)}
    st = registry.shape_by_name("window-post-32GiB").stats()
    threads = yaml.safe_load((ROOT / "benchmarks/configs/h200-32gib-windowpost.yaml").read_text())["threads"]
    steps = {"pce_extract": ("pce_extract", "cpu"), "post_vanilla_window": ("post_vanilla", "cpu"),
             "check_window_post": ("check_c1", "cpu"), "setup": ("setup", "cuda"),
             "synthesize_window_post": ("synthesize", "cpu"), "prove_window_post": ("prove", "cuda"),
             "verify_window_post": ("verify", "cpu")}
    assert stated == {rule: declared_gb(predict_step_bytes(step, st, threads=threads, backend=backend))
                      for rule, (step, backend) in steps.items()}


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
