"""Fallback PoSt (WinningPoSt / WindowPoSt): challenges, sealed-sector files, vanilla proofs of
really sealed 2 KiB sectors, the circuit (exact sizes, satisfaction, tampering) and one Groth16 proof.

Expected values are computed independently here: challenges with hashlib/struct straight from
rust-fil-proofs' byte layout (``storage-proofs-post/src/fallback/vanilla.rs``), leaves by reading
the replica bytes, roots with the scalar Poseidon.
"""

import copy
import hashlib
import json
import struct
import warnings

import numpy as np
import pytest

from cuzk.backend import get_backend
from cuzk.circuits import post as cp
from cuzk.field import from_limbs, to_limbs
from cuzk.groth16 import DevelopmentSetupWarning, Prover, setup, verify
from cuzk.hash.poseidon import R, poseidon_hash
from cuzk.r1cs import ConstraintSystem, Unsatisfied
from cuzk.sector import post as sp
from cuzk.sector.c1 import porep_id
from cuzk.sector.fr32 import pad_sector
from cuzk.sector.replica import replicate

SS = 2048
NODES = SS // 32
RANDOMNESS = bytes(range(1, 32)) + b"\x0f"  # canonical (top byte small)
PROVER_ID = (1000).to_bytes(8, "little") + bytes(24)


def _u64(b: bytes) -> int:
    return struct.unpack("<Q", b[:8])[0]


def want_leaf(randomness, sector_id, index):
    return _u64(hashlib.sha256(randomness + struct.pack("<Q", sector_id) + struct.pack("<Q", index)).digest()) % NODES


# --- challenges -----------------------------------------------------------------------------------


def test_leaf_challenges_and_indices():
    for sid, idx in ((0, 0), (7, 3), (2**64 - 1, 123456)):
        assert sp.leaf_challenge(RANDOMNESS, sid, idx, SS) == want_leaf(RANDOMNESS, sid, idx)
    # get_challenge_index: 1.0/1.1 offset by sector position, 1.2 not
    assert sp.challenge_index("1.0", 3, 10, 4) == 34 == sp.challenge_index("1.1", 3, 10, 4)
    assert sp.challenge_index("1.2", 3, 10, 4) == 4
    n = 5
    want = _u64(hashlib.sha256(PROVER_ID + RANDOMNESS + struct.pack("<Q", 0)).digest()) % n
    assert sp.winning_sector_challenges(RANDOMNESS, PROVER_ID, n) == [want]
    with pytest.raises(ValueError, match="canonical"):
        sp.winning_sector_challenges(b"\xff" * 32, PROVER_ID, n)
    with pytest.raises(ValueError, match="empty"):
        sp.winning_sector_challenges(RANDOMNESS, PROVER_ID, 0)


def test_params_and_names():
    w = sp.post_params("winning", SS)
    assert (w.sector_count, w.challenge_count, w.api_version) == (66, 1, "1.0")
    assert sp.registered_post_proof(w) == "StackedDrgWinning2KiBV1"
    d = sp.post_params("window", 32 << 30)
    assert (d.sector_count, d.challenge_count) == (2349, 10)
    assert sp.registered_post_proof(d) == "StackedDrgWindow32GiBV1_2"
    assert sp.post_params("window", 64 << 30).sector_count == 2300
    assert sp.registered_post_proof(sp.post_params("window", SS, api_version="1.0")) == "StackedDrgWindow2KiBV1"
    assert sp.registered_post_proof(sp.post_params("window", SS, sector_count=1)).startswith("TestOnly")
    with pytest.raises(ValueError, match="1.2"):
        sp.post_params("winning", SS, api_version="1.2")


# --- sealed sectors -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sealed(tmp_path_factory):
    d = tmp_path_factory.mktemp("sealed")
    rng = np.random.default_rng(11)
    out = []
    for sid in (9, 4, 17):  # not in id order: window proves them sorted
        data = pad_sector(rng.integers(0, 256, SS * 127 // 128, dtype=np.uint8).tobytes(), SS)
        rid = bytes(rng.integers(0, 256, 31, dtype=np.uint8)) + b"\x00"
        rep = replicate(data, rid, SS, 2, porep_id(SS))
        p = d / f"s{sid}.npz"
        sp.write_sealed(p, sid, rep)
        out.append((sid, p, rep))
    return out


def test_sealed_round_trip_and_errors(sealed, tmp_path):
    sid, p, rep = sealed[0]
    s = sp.read_sealed(p)
    assert (s.sector_id, s.sector_size, s.shape) == (sid, SS, (8, 0, 0))
    assert (s.comm_c, s.comm_r_last, s.comm_r) == (rep["comm_c"], rep["comm_r_last"], rep["comm_r"])
    assert all(np.array_equal(a, b) for a, b in zip(s.tree_r_last, rep["tree_r_last"]))
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(sp.PoStError, match="bad.npz"):
        sp.read_sealed(bad)
    with np.load(p) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["comm_r"] = arrays["comm_r"].copy()
    arrays["comm_r"][0] ^= 1
    np.savez(tmp_path / "cr.npz", **arrays)
    with pytest.raises(sp.PoStError) as e:
        sp.read_sealed(tmp_path / "cr.npz")
    assert e.value.field == "comm_r" and "cr.npz" in str(e.value)
    arrays = {k: v for k, v in arrays.items() if k != "level_2"}
    np.savez(tmp_path / "lv.npz", **arrays)
    with pytest.raises(sp.PoStError) as e:
        sp.read_sealed(tmp_path / "lv.npz")
    assert e.value.field == "level_2"


def _leaf_of(rep, node: int) -> int:
    return int.from_bytes(rep["replica"][32 * node : 32 * node + 32], "little")


def _root_of(leaf: int, path) -> int:
    node = leaf
    for el in path:
        sibs = [int.from_bytes(bytes(h), "little") for h in el["hashes"]]
        node = poseidon_hash(sibs[: el["index"]] + [node] + sibs[el["index"] :])
    return node


@pytest.fixture(scope="module")
def window(sealed, tmp_path_factory):
    doc = sp.generate_post("window", [p for _, p, _ in sealed], RANDOMNESS, PROVER_ID)
    f = tmp_path_factory.mktemp("post") / "window.json"
    sp.write_post(f, doc)
    return f, doc


def test_window_vanilla(window, sealed):
    f, doc = window
    assert sp.read_post(f) == doc
    reps = {sid: rep for sid, _, rep in sealed}
    assert doc["registered_proof"] == "StackedDrgWindow2KiBV1_2"
    assert [s["id"] for s in doc["sectors"]] == [4, 9, 17]
    assert len(doc["partitions"]) == 2 and all(len(p) == 2 for p in doc["partitions"])
    assert doc["partitions"][1][1] == doc["partitions"][1][0]  # padding repeats the last sector
    for j, part in enumerate(doc["partitions"]):
        for i, e in enumerate(part[: 1 if j else 2]):
            sid = doc["sectors"][2 * j + i]["id"]
            rep = reps[sid]
            assert bytes(e["comm_c"]) == rep["comm_c"] and bytes(e["comm_r_last"]) == rep["comm_r_last"]
            for n, pr in enumerate(e["inclusion_proofs"]):
                c = want_leaf(RANDOMNESS, sid, n)  # API 1.2: challenge index = n
                assert int.from_bytes(bytes(pr["leaf"]), "little") == _leaf_of(rep, c)
                assert sum(el["index"] * 8**lvl for lvl, el in enumerate(pr["path"])) == c
                assert _root_of(_leaf_of(rep, c), pr["path"]) == int.from_bytes(rep["comm_r_last"], "little")


def test_window_api_1_0_challenges(sealed):
    doc = sp.generate_post("window", [p for _, p, _ in sealed], RANDOMNESS, PROVER_ID, api_version="1.0")
    sp.verify_post(doc)
    # API 1.0: index = sector_index · 10 + n; the third sector (index 2) sits in partition 1
    pr = doc["partitions"][1][0]["inclusion_proofs"][3]
    c = want_leaf(RANDOMNESS, 17, 2 * 10 + 3)
    assert sum(el["index"] * 8**lvl for lvl, el in enumerate(pr["path"])) == c


@pytest.mark.parametrize("what", ["sibling", "leaf", "comm_r", "index", "padding"])
def test_tampered_window_files(window, tmp_path, what):
    _, doc = window
    bad = copy.deepcopy(doc)
    pr = bad["partitions"][0][1]["inclusion_proofs"][4]
    if what == "sibling":
        pr["path"][1]["hashes"][2][0] ^= 1
        field = "partitions/0/1/inclusion_proofs/4"
    elif what == "leaf":
        pr["leaf"][5] ^= 1
        field = "partitions/0/1/inclusion_proofs/4"
    elif what == "comm_r":
        bad["sectors"][1]["comm_r"][0] ^= 1
        field = "sectors/1/comm_r"
    elif what == "index":
        el = pr["path"][0]
        el["index"] = (el["index"] + 1) % 8
        field = "partitions/0/1/inclusion_proofs/4/path"
    else:
        bad["partitions"][1][1]["comm_c"][0] ^= 1
        field = "partitions/1/1"
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(bad))
    with pytest.raises(sp.PoStError) as e:
        sp.read_post(f)
    assert e.value.field == field and "bad.json" in str(e.value)


@pytest.mark.parametrize("what", ["valid", "256", "negative", "bool", "short", "long", "string", "null", "float",
                                  "leaf", "root", "path_not_list", "proof_not_dict", "hashes_str", "bad_and_later"])
def test_merkle_bytes_checked_at_once_judge_as_the_whole_schema(window, monkeypatch, what):
    """The Merkle proofs' byte arrays are checked in C loops and the validator then skips their
    bytes (``post._all_bytes32``, ``_SCHEMA_PATHS_CHECKED``): every document gets the whole
    schema's verdict, the same error field included; a valid one is never validated byte by byte."""
    from cuzk.sector import c1

    _, doc = window
    bad = copy.deepcopy(doc)
    pr = bad["partitions"][0][1]["inclusion_proofs"][3]
    h = pr["path"][0]["hashes"]
    edit = {"256": lambda: h[1].__setitem__(5, 256), "negative": lambda: h[0].__setitem__(0, -1),
            "bool": lambda: h[0].__setitem__(31, True), "short": lambda: h[1].pop(),
            "long": lambda: h[1].append(0), "string": lambda: h.__setitem__(0, "00" * 32),
            "null": lambda: h[0].__setitem__(2, None), "float": lambda: h[0].__setitem__(2, 1.0),
            "leaf": lambda: pr["leaf"].__setitem__(0, 300), "root": lambda: pr.__setitem__("root", [0] * 33),
            "path_not_list": lambda: pr.__setitem__("path", {"hashes": h}),
            "proof_not_dict": lambda: bad["partitions"][0][1]["inclusion_proofs"].__setitem__(2, [h]),
            "hashes_str": lambda: pr["path"][0].__setitem__("hashes", "x"),
            "bad_and_later": lambda: (h[0].__setitem__(0, 999),
                                      bad["partitions"][-1][-1]["inclusion_proofs"][-1]["path"][0].pop("index"))}
    if what != "valid":
        edit[what]()

    def verdict(fn):
        try:
            fn()
        except sp.PoStError as e:
            return e.field
        return None

    want = verdict(lambda: c1.check_schema(bad, sp.SCHEMA, "x", error=sp.PoStError))
    seen = []
    real = c1._fast_validator
    monkeypatch.setattr(c1, "_fast_validator", lambda schema: seen.append(schema is sp.SCHEMA) or real(schema))
    assert verdict(lambda: sp._check_schema(bad, "x")) == want
    assert (want is None) == (what in ("valid", "float"))   # fastjsonschema takes 1.0 as an integer
    assert seen == [False] if what == "valid" else seen[-1]   # else the whole schema has the last word


def test_all_bytes32_checks_every_chunk():
    arrs = [list(range(i, i + 32)) for i in range(10)]
    assert sp._all_bytes32(arrs, chunk=3) and sp._all_bytes32([], chunk=3)
    for bad in (256, -1, True, None, "a"):
        for at in (0, 7, 9):
            b = [list(a) for a in arrs]
            b[at][31] = bad
            assert not sp._all_bytes32(b, chunk=3), (bad, at)
    assert not sp._all_bytes32(arrs[:9] + [arrs[9][:31]], chunk=3)
    assert not sp._all_bytes32(arrs[:9] + [tuple(arrs[9])], chunk=3)


def test_schema_errors_name_the_field(window, tmp_path):
    _, doc = window
    bad = copy.deepcopy(doc)
    bad["partitions"][0][0]["comm_c"] = [1, 2]
    f = tmp_path / "s.json"
    f.write_text(json.dumps(bad))
    with pytest.raises(sp.PoStError) as e:
        sp.read_post(f)
    assert e.value.field == "partitions/0/0/comm_c"


@pytest.fixture(scope="module")
def winning(sealed):
    return sp.generate_post("winning", [p for _, p, _ in sealed], RANDOMNESS, PROVER_ID)


def test_winning_vanilla(winning, sealed):
    doc = winning
    sp.verify_post(doc)
    idx = _u64(hashlib.sha256(PROVER_ID + RANDOMNESS + bytes(8)).digest()) % 3
    sid, _, rep = sealed[idx]
    assert doc["winning_sector_set"] == {"size": 3, "index": idx}
    assert doc["registered_proof"] == "StackedDrgWinning2KiBV1"
    assert [s["id"] for s in doc["sectors"]] == [sid] * 66
    (part,) = doc["partitions"]
    assert len(part) == 66
    for i, e in enumerate(part):  # API 1.0, one challenge per circuit sector: index = i
        (pr,) = e["inclusion_proofs"]
        c = want_leaf(RANDOMNESS, sid, i)
        assert int.from_bytes(bytes(pr["leaf"]), "little") == _leaf_of(rep, c)
    bad = copy.deepcopy(doc)
    bad["winning_sector_set"]["index"] = (idx + 1) % 3
    with pytest.raises(sp.PoStError) as e:
        sp.verify_post(bad)
    assert e.value.field == "winning_sector_set/index"


# --- circuit ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["test-only-window-post-2KiB-1x1", "test-only-window-post-2KiB-2x2",
                                  "test-only-winning-post-2KiB-3", "test-only-window-post-4KiB-1x2",
                                  "window-post-2KiB"])
def test_stats_formula_is_exact(name):
    shape = cp.shape_by_name(name)
    cs = ConstraintSystem(shape=True, witness=False)
    cp.synthesize(cs, shape)
    got, want = cs.finalize().stats(), shape.stats()
    for key in ("inputs", "aux", "constraints", "nnz_a", "nnz_b", "nnz_c"):
        assert got[key] == want[key], key
    assert want["domain"] == 1 << (got["constraints"] - 1).bit_length()


def test_upstream_constraint_counts():
    # filecoin-proofs/src/constants.rs comments on WINDOW_POST_SECTOR_COUNT
    assert cp.shape_by_name("window-post-32GiB").stats()["circuit_constraints"] == 125_279_217
    assert cp.shape_by_name("window-post-64GiB").stats()["circuit_constraints"] == 129_887_900
    assert cp.shape_by_name("winning-post-2KiB").sector_count == 66
    assert cp.shape_for("window", SS).name == "window-post-2KiB"
    with pytest.raises(ValueError):
        cp.shape_for("window", SS, 1, 1)
    assert cp.shape_for("window", SS, 1, 1, allow_test=True).test_only


def build(shape, vals):
    cs = ConstraintSystem(shape=True, witness=True)
    cp.synthesize(cs, shape, vals)
    return cs.finalize(), cs


def test_circuit_satisfied_window(window):
    _, doc = window
    shape = cp.shape_of(doc)
    assert shape.name == "window-post-2KiB"
    for k in range(2):
        r1cs, cs = build(shape, cp.values(doc, k))
        r1cs.check(cs.full_assignment())
        ins = [int(v) for v in cs.assignment()[0][1:]]
        assert ins == cp.public_inputs(doc, k)
        # independent: comm_r then the ten challenges of each (padded) sector
        ids = [s["id"] for s in doc["sectors"]]
        for i in range(2):
            g = min(2 * k + i, len(ids) - 1)
            assert ins[11 * i] == int.from_bytes(bytes(doc["sectors"][g]["comm_r"]), "little")
            assert ins[11 * i + 1 : 11 * i + 11] == [want_leaf(RANDOMNESS, ids[g], n) for n in range(10)]


@pytest.fixture(scope="module")
def small(sealed):
    doc = sp.generate_post("winning", [p for _, p, _ in sealed], RANDOMNESS, PROVER_ID, sector_count=3)
    sp.verify_post(doc)
    return cp.shape_of(doc), doc


def test_circuit_satisfied_test_only_winning(small):
    shape, doc = small
    assert shape.name == "test-only-winning-post-2KiB-3"
    r1cs, cs = build(shape, cp.values(doc, 0))
    r1cs.check(cs.full_assignment())
    assert [int(v) for v in cs.assignment()[0][1:]] == cp.public_inputs(doc, 0)


_ROOT, _PATH = "post/tree_r_last/root", "post/tree_r_last/path_input"


@pytest.mark.parametrize("what,gadgets", [("leaf", {_ROOT}), ("sibling", {_ROOT}), ("comm_c", {"post/comm_r"}),
                                          ("index", {_PATH, _ROOT}), ("challenge", {_PATH})])
def test_circuit_rejects_tampering(small, what, gadgets):
    """Each tampered value fails exactly the rows that check it (the path position both the
    packed challenge and the root, the public challenge the packing alone)."""
    shape, doc = small
    v = cp.values(doc, 0)
    if what == "leaf":
        v["leaves"][1] = (v["leaves"][1] + 1) % R
    elif what == "sibling":
        v["siblings"][1][2, 3] = to_limbs([(from_limbs(v["siblings"][1][2, 3:4])[0] + 1) % R], 4)[0]   # limbs
    elif what == "comm_c":
        v["comm_c"][0] = (v["comm_c"][0] + 1) % R
    elif what == "index":  # the path's position: the node is inserted elsewhere
        v["positions"][0, 0] ^= 1
    else:  # the public challenge alone
        v["challenges"][2] ^= 1
    r1cs, cs = build(shape, v)
    with pytest.raises(Unsatisfied):
        r1cs.check(cs.full_assignment())
    a, b, c = r1cs.evaluate(cs.full_assignment())
    assert {r1cs.gadget_of(int(i)) for i in np.flatnonzero(np.mod(a * b - c, R) != 0)} == gadgets


def test_mixed_arity_tree_4kib():
    # 4 KiB: tree_r_last levels [8, 8, 2] (sub-tree arity 2): two merkle-gadget runs
    rep = replicate(pad_sector(bytes(range(256)) * 15 + bytes(4064 - 3840), 4096), bytes(32), 4096, 2,
                    porep_id(4096))
    s = sp.sealed_from_replica(3, rep)
    doc = sp.generate_post("window", [s], RANDOMNESS, PROVER_ID, sector_count=1, challenge_count=2)
    sp.verify_post(doc)
    pr = doc["partitions"][0][0]["inclusion_proofs"][1]
    c = _u64(hashlib.sha256(RANDOMNESS + struct.pack("<QQ", 3, 1)).digest()) % 128
    assert [len(el["hashes"]) for el in pr["path"]] == [7, 7, 1]
    assert sum(el["index"] * m for el, m in zip(pr["path"], (1, 8, 64))) == c
    assert _root_of(_leaf_of(rep, c), pr["path"]) == int.from_bytes(rep["comm_r_last"], "little")
    shape = cp.shape_of(doc)
    assert shape.name == "test-only-window-post-4KiB-1x2"
    r1cs, cs = build(shape, cp.values(doc, 0))
    r1cs.check(cs.full_assignment())
    assert [int(v) for v in cs.assignment()[0][1:]] == cp.public_inputs(doc, 0)


def test_groth16_round_trip(sealed):
    doc = sp.generate_post("window", [sealed[1][1]], RANDOMNESS, PROVER_ID, sector_count=1, challenge_count=1)
    shape = cp.shape_of(doc)
    assert shape.name == "test-only-window-post-2KiB-1x1"
    r1cs, cs = build(shape, cp.values(doc, 0))
    ins, aux = (list(map(int, a)) for a in cs.assignment())
    with get_backend("cpu", threads=1) as bk:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DevelopmentSetupWarning)
            pk = setup(r1cs, bk)
        with Prover(pk, r1cs, bk) as pr:
            proof = pr.prove(ins, aux)
    pub = cp.public_inputs(doc, 0)
    assert ins[1:] == pub
    assert verify(pk.vk, proof, pub)
    bad = list(pub)
    bad[1] = (bad[1] + 1) % NODES  # another challenge
    assert not verify(pk.vk, proof, bad)
