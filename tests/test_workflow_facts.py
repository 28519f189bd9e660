"""Facts the workflow takes from the library: sector sizes, the shape of each, output file names."""

from pathlib import Path

import yaml

from cuzk.circuits import registry
from cuzk.paths import Results, partition_witness, post_label, post_target, proof_file, record_job

ROOT = Path(__file__).resolve().parents[1]
FILECOIN = ("2KiB", "8MiB", "512MiB", "32GiB", "64GiB")


def test_schema_names_the_registry_sizes():
    schema = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())
    enum = schema["properties"]["sectors"]["items"]["properties"]["sector_size"]["enum"]
    assert tuple(enum) == registry.WORKFLOW_SIZES


def test_shapes_of_configured_sizes():
    """The shapes the workflow proved each configured size with before the registry named them."""
    assert {s: registry.sector_shape("porep", s) for s in FILECOIN} == {s: f"porep-{s}" for s in FILECOIN}
    assert {s: registry.sector_shape("porep-commd", s) for s in FILECOIN} == {s: f"porep-commd-{s}" for s in FILECOIN}
    assert registry.sector_shape("porep", "test-only-256B") == "test-only-porep-256B"
    assert registry.sector_shape("porep", "test-only-128B") is None
    assert registry.sector_shape("porep-commd", "test-only-128B") == "test-only-commd-128B"
    for kind in ("winning", "window"):
        assert [registry.post_shape(kind, s) for s in FILECOIN] == [f"{kind}-post-{s}" for s in FILECOIN]
        assert registry.post_shape(kind, "test-only-128B") is None
    assert registry.post_shape("winning", "test-only-256B") == "test-only-winning-post-256B-3"
    assert registry.post_shape("window", "test-only-256B") == "test-only-window-post-256B-2x2"
    for name in registry.WORKFLOW_SIZES:   # every shape named exists
        for sh in [registry.sector_shape(c, name) for c in registry.POREP_CIRCUITS] + \
                  [registry.post_shape(k, name) for k in registry.POST_KINDS]:
            assert sh is None or registry.shape_by_name(sh).name == sh


def test_result_paths():
    r = Results("res")
    assert [r.c1(1), r.sealed(1), r.pce("s"), r.params("s"), r.vk("s"), r.witness(1), r.proofs("s-b0"),
            r.verified(1)] == ["res/c1/1.c1.json", "res/sealed/1.sealed.npz", "res/pce/s.pce", "res/params/s.params",
                               "res/params/s.vk", "res/witness/1", "res/proofs/s-b0", "res/verify/1.json"]
    assert r.post_vanilla("winning", "2KiB") == "res/post/winning-2KiB.vanilla.json"
    assert r.post_checked("winning", "2KiB") == "res/post/winning-2KiB.checked.json"
    assert r.proof(post_target("window", "2KiB"), post_label("window")) == "res/proofs/window-post-2KiB/window-post.proof"
    assert r.proof("s-b0", "{sid}") == proof_file("res/proofs/s-b0", "{sid}") == "res/proofs/s-b0/{sid}.proof"
    assert (r.benchmark("prove", "{batch}"), r.record("prove", "{batch}"), r.log("prove", "{batch}")) == (
        "res/benchmarks/prove/{batch}.tsv", "res/benchmarks/prove/{batch}.mem.json", "res/logs/prove/{batch}.log")
    assert record_job(r.record("setup", "porep-2KiB")) == "porep-2KiB"
    assert partition_witness("w", 3) == Path("w/partition-3.wit")
    assert r.report("summary.md") == "res/report/summary.md" and r.bench(32) == "res/bench/prove_32.json"
