"""Synthetic PoSt sectors (sparse tree_r_last, never sealed): the sparse trees equal naively built
full trees, the vanilla proofs pass the PoSt verifier and satisfy the circuit, tampering is refused
naming the field, and sealed and synthetic sectors mix in one WindowPoSt, each marked.

Independent references: full trees built by hashing every group (:func:`cuzk.sector.replica.build_tree`
over all leaves, the same values the sparse builder draws) and scalar Poseidon for comm_r;
challenges straight from rust-fil-proofs' byte layout (hashlib/struct, as tests/test_post.py).
"""

import copy
import hashlib
import struct

import numpy as np
import pytest

from cuzk.circuits import post as cp
from cuzk.hash.poseidon import R, poseidon_hash
from cuzk.r1cs import ConstraintSystem
from cuzk.sector import post as sp
from cuzk.sector.fr32 import pad_sector
from cuzk.sector.porep_c1 import merkle_proof
from cuzk.sector.post_synthetic import SyntheticSector, synthetic_openings
from cuzk.sector.replica import build_tree, replicate, tree_shape
from cuzk.sector.c1 import porep_id

RANDOMNESS = bytes(range(1, 32)) + b"\x0f"
PROVER_ID = (1000).to_bytes(8, "little") + bytes(24)


def _full_tree(sector: SyntheticSector):
    n = sector.sector_size // 32
    leaves = np.empty(n, dtype=object)
    leaves[:] = [sector.random_fr(b"tree_r_last", 0, i) for i in range(n)]
    return build_tree(leaves, tree_shape(sector.sector_size))


@pytest.mark.parametrize("size", [2 << 10, 4 << 10, 16 << 10])   # arities [8, 8], [8, 8, 2], [8, 8, 8]
def test_sparse_tree_equals_full_tree(size):
    secs = [SyntheticSector(5, size), SyntheticSector(6, size, rng_seed=9)]
    full = [_full_tree(s) for s in secs]
    n = size // 32
    ch = [[0, 3, n - 1, 3], [n // 2, n // 2 + 1]]   # a repeat, neighbours sharing every ancestor
    got = synthetic_openings(secs, ch, fill=lambda s, lvl, i: full[s][lvl][i])
    for s, (o, f) in enumerate(zip(got, full)):
        assert o["comm_r_last"] == int(f[-1][0]).to_bytes(32, "little")
        assert sorted(o["proofs"]) == sorted(set(ch[s]))
        for c in ch[s]:
            assert o["proofs"][c] == merkle_proof(f, c, tree_shape(size))
        c_int = int.from_bytes(o["comm_c"], "little")
        assert int.from_bytes(o["comm_r"], "little") == poseidon_hash([c_int, int(f[-1][0])])
    # with the default (random) fill the open leaves are the full tree's leaves too: same position, same value
    rnd = synthetic_openings(secs, ch)
    assert rnd[0]["proofs"][3]["leaf"] == list(int(full[0][0][3]).to_bytes(32, "little"))
    assert rnd[0]["comm_r_last"] != got[0]["comm_r_last"]    # its inner nodes are sparse, not full


def test_bad_arguments():
    s = SyntheticSector(1, 2048)
    with pytest.raises(ValueError, match="outside"):
        synthetic_openings([s], [[64]])
    with pytest.raises(ValueError, match="one size"):
        synthetic_openings([s, SyntheticSector(2, 4096)], [[0], [0]])
    with pytest.raises(ValueError, match="no challenges"):
        synthetic_openings([s], [[]])
    with pytest.raises(ValueError, match="u64"):
        SyntheticSector(-1, 2048)
    with pytest.raises(ValueError, match="tree shape"):
        SyntheticSector(1, 8192)


def _want_leaf(sector_id, index, nodes):
    h = hashlib.sha256(RANDOMNESS + struct.pack("<Q", sector_id) + struct.pack("<Q", index)).digest()
    return struct.unpack("<Q", h[:8])[0] % nodes


@pytest.fixture(scope="module")
def window():
    secs = [SyntheticSector(i, 2048) for i in (40, 12, 33)]   # sorted by id in the proof
    return sp.generate_post("window", secs, RANDOMNESS, PROVER_ID)


def test_window_synthetic_verifies_and_is_marked(window):
    doc = window
    sp.verify_post(doc)
    assert doc["synthetic"] is True
    assert [s["id"] for s in doc["sectors"]] == [12, 33, 40]
    assert all(s["synthetic"] is True for s in doc["sectors"])
    assert [len(p) for p in doc["partitions"]] == [2, 2]             # 3 sectors, 2 per partition: padded
    assert doc["partitions"][1][1] == doc["partitions"][1][0]
    for e, sid in zip(doc["partitions"][0], (12, 33)):               # API 1.2: challenge index = n
        for n, pr in enumerate(e["inclusion_proofs"]):
            assert sum(el["index"] * 8**lvl for lvl, el in enumerate(pr["path"])) == _want_leaf(sid, n, 64)


def test_window_synthetic_satisfies_the_circuit(window):
    shape = cp.shape_of(window)
    for k in range(2):
        cs = ConstraintSystem(shape=True, witness=True)
        cp.synthesize(cs, shape, cp.values(window, k))
        cs.finalize().check(cs.full_assignment())
        assert [int(v) for v in cs.assignment()[0][1:]] == cp.public_inputs(window, k)


@pytest.mark.parametrize("what,field", [
    ("leaf", "partitions/0/1/inclusion_proofs/4"),
    ("sibling", "partitions/0/1/inclusion_proofs/4"),
    ("index", "partitions/0/1/inclusion_proofs/4/path"),
    ("comm_r", "sectors/1/comm_r"),
    ("comm_c", "sectors/1/comm_r"),
    ("unmarked", "synthetic"),
])
def test_tampered_synthetic_window_refused(window, what, field):
    bad = copy.deepcopy(window)
    pr = bad["partitions"][0][1]["inclusion_proofs"][4]
    if what == "leaf":
        pr["leaf"][3] ^= 1
    elif what == "sibling":
        pr["path"][1]["hashes"][0][7] ^= 1
    elif what == "index":
        pr["path"][0]["index"] = (pr["path"][0]["index"] + 1) % 8
    elif what == "comm_r":
        bad["sectors"][1]["comm_r"][0] ^= 1
    elif what == "comm_c":
        bad["partitions"][0][1]["comm_c"][0] ^= 1
    else:
        del bad["synthetic"]      # a sector still says synthetic: the file may not claim otherwise
    with pytest.raises(sp.PoStError) as e:
        sp.verify_post(bad, "w.json")
    assert e.value.field == field and "w.json" in str(e.value)


def test_mixed_window_and_winning_over_synthetic(tmp_path):
    """A sealed 2 KiB sector beside synthetic ones: one WindowPoSt over all, each marked; WinningPoSt
    marks the file synthetic exactly when its chosen sector is."""
    data = pad_sector(bytes((3 * i) & 0xFF for i in range(2032)), 2048)
    rep = replicate(data, bytes([1] * 31) + b"\x00", 2048, 2, porep_id(2048))
    sealed = tmp_path / "7.sealed.npz"
    sp.write_sealed(sealed, 7, rep)
    synth = [SyntheticSector(3, 2048), SyntheticSector(9, 2048)]
    doc = sp.generate_post("window", [sealed] + synth, RANDOMNESS, PROVER_ID)
    sp.verify_post(doc)
    assert [(s["id"], s.get("synthetic", False)) for s in doc["sectors"]] == [(3, True), (7, False), (9, True)]
    assert doc["sectors"][1]["comm_r"] == list(rep["comm_r"]) and doc["synthetic"] is True
    seen = set()
    for rnd in range(8):   # the winning choice depends on the randomness: see both cases
        r = bytes([rnd]) + RANDOMNESS[1:]
        w = sp.generate_post("winning", [sealed] + synth, r, PROVER_ID, sector_count=3)
        sp.verify_post(w)
        chosen = w["winning_sector_set"]["index"]
        assert w.get("synthetic", False) is (chosen != 0)
        seen.add(chosen != 0)
    assert seen == {True, False}
    assert int.from_bytes(bytes(doc["sectors"][0]["comm_r"]), "little") < R


def test_memory_model_counts_match_a_built_partition(window):
    """The PoSt terms of the memory model count what a partition really holds: the 32-byte values
    of its inclusion proofs in the vanilla file, and (an upper bound within 1 %) the wide values of
    its witness."""
    shape = cp.shape_of(window)
    st = shape.stats()
    part = window["partitions"][0]
    values = sum(2 + sum(len(el["hashes"]) for el in pr["path"]) for e in part for pr in e["inclusion_proofs"])
    assert st["post_path_values"] == values
    cs = ConstraintSystem(shape=False, witness=True)
    cp.synthesize(cs, shape, cp.values(window, 0))
    wide = len(cs.assignment_compact().wide)
    assert wide <= st["wide_aux"] <= 1.01 * wide


def test_h200_windowpost_config_dry_run(tmp_path):
    """benchmarks/configs/h200-32gib-windowpost.yaml plans exactly the WindowPoSt chain (no PoRep;
    the vanilla file checked once, by check_window_post), each job declaring the memory model's prediction for window-post-32GiB on the GPU
    (synthesize with the target's distinct sectors counted)."""
    import re
    import shutil
    import subprocess
    from pathlib import Path

    import yaml

    from cuzk.memory.budget import declared_gb
    from cuzk.memory.model import predict_step_bytes
    from workflow_util import WINDOWPOST_RULES, windowpost_declarations

    if shutil.which("snakemake") is None:
        pytest.skip("snakemake not installed")
    root = Path(__file__).resolve().parents[1]
    r = subprocess.run(["snakemake", "-s", str(root / "Snakefile"), "-n", "--cores", "16", "--resources", "mem_gb=96",
                        "gpu=1", "--configfile", str(root / "benchmarks/configs/h200-32gib-windowpost.yaml")],
                       cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    declared = dict(re.findall(r"rule (\w+):.*?mem_gb=(\d+)", r.stdout, re.S))
    assert set(declared) == {"pce_extract", "post_vanilla_window", "check_window_post", "setup",
                             "synthesize_window_post", "prove_window_post", "verify_window_post", "report"}
    # synthesize counts the target's one distinct sector (PoStShape.distinct_share): the padded
    # slots' Poseidon rows are kept once, so it declares far less than a full partition would
    assert {rule: int(declared[rule]) for rule in WINDOWPOST_RULES} == windowpost_declarations()
    st = cp.shape_by_name("window-post-32GiB").stats()
    full = predict_step_bytes("synthesize", st, threads=yaml.safe_load((root / "benchmarks/configs/h200-32gib-windowpost.yaml").read_text())["threads"])
    assert int(declared["synthesize_window_post"]) < declared_gb(full) - 4
