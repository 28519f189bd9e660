"""What the workflow should declare for ``benchmarks/configs/h200-32gib-windowpost.yaml`` (one
synthetic 32 GiB sector padded over a WindowPoSt partition): the memory model's prediction per
rule, with the config merged over config.yaml as Snakemake merges them."""

from pathlib import Path

import yaml

from cuzk.circuits.registry import shape_by_name
from cuzk.memory.budget import declared_gb
from cuzk.memory.model import predict_step_bytes

ROOT = Path(__file__).resolve().parents[1]
WINDOWPOST_CONFIG = ROOT / "benchmarks/configs/h200-32gib-windowpost.yaml"
# rule: (model step, backend of the config: cuda)
WINDOWPOST_RULES = {"pce_extract": ("pce_extract", "cpu"), "post_vanilla_window": ("post_vanilla", "cpu"),
                    "check_window_post": ("check_c1", "cpu"), "setup": ("setup", "cuda"),
                    "synthesize_window_post": ("synthesize", "cpu"), "prove_window_post": ("prove", "cuda"),
                    "verify_window_post": ("verify", "cpu")}


def windowpost_declarations() -> dict[str, int]:
    """{rule: mem_gb} of the config's PoSt chain: its threads and ``witness_poseidon``, and
    synthesize counting the target's distinct sectors (``PoStShape.distinct_share``)."""
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text()) | yaml.safe_load(WINDOWPOST_CONFIG.read_text())
    shape = shape_by_name("window-post-32GiB")
    st, share = shape.stats(), shape.distinct_share(len({s["id"] for s in cfg["sectors"]}))
    return {rule: declared_gb(predict_step_bytes(step, st, threads=cfg["threads"], backend=backend,
                                                 distinct=share if step == "synthesize" else 1.0,
                                                 wide_values=cfg["witness_poseidon"] == "values"))
            for rule, (step, backend) in WINDOWPOST_RULES.items()}
