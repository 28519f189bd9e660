"""PoRep C1 (full StackedDRG vanilla proofs) of really sealed sectors: build, verify, tamper, round trip."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from cuzk.hash.poseidon import R
from cuzk.sector import graph
from cuzk.sector.c1 import C1Error, porep_id, read_c1
from cuzk.sector.fr32 import pad_sector, unpadded_size
from cuzk.sector.porep_c1 import (
    TOTAL_PARENTS,
    read_porep_c1,
    seal_and_prove,
    verify_porep_c1,
    write_porep_c1,
)

KEY = "StackedDrg2KiBV1"


def _seal(size=2048, sector_id=7, seed=1, cache_dir=None):
    payload = np.random.default_rng(seed).integers(0, 256, size=unpadded_size(size), dtype=np.uint8).tobytes()
    return seal_and_prove(pad_sector(payload, size), size, sector_id, bytes(range(32)), b"\x11" * 32, b"\x22" * 32,
                          layers=2, cache_dir=cache_dir)


@pytest.fixture(scope="module")
def c1(tmp_path_factory):
    return _seal(cache_dir=tmp_path_factory.mktemp("parents"))


def _bad(c1, mutate):
    bad = copy.deepcopy(c1)
    mutate(bad)
    with pytest.raises(C1Error) as e:
        verify_porep_c1(bad)
    return e.value


def test_sealed_2kib_c1_verifies_and_has_upstream_shape(c1):
    verify_porep_c1(c1)
    assert c1["porep"] is True and c1["layers"] == 2 and len(c1["comm_r"]) == 32
    parts = c1["vanilla_proofs"][KEY]
    assert len(parts) == 1 and len(parts[0]) == 2
    pr = parts[0][0]
    c = pr["comm_d_proofs"]["index"]
    rcp = pr["replica_column_proofs"]
    assert rcp["c_x"]["column"]["index"] == c
    assert [cp["column"]["index"] for cp in rcp["drg_parents"] + rcp["exp_parents"]] == \
        graph.parents(2048, porep_id(2048), c)
    assert all(len(cp["column"]["rows"]) == 2 for cp in rcp["drg_parents"] + rcp["exp_parents"] + [rcp["c_x"]])
    # 64 nodes: tree_c and tree_r_last are two arity-8 levels
    assert [len(e["hashes"]) for e in pr["comm_r_last_proof"]["path"]] == [7, 7]
    assert [lp["layer_index"] for lp in pr["labeling_proofs"]] == [1, 2]
    assert all(len(lp["parents"]) == TOTAL_PARENTS and lp["node"] == c for lp in pr["labeling_proofs"])
    # layer 1 repeats the 6 DRG parents; layer 2 the 14 (6 DRG from layer 2, 8 expander from layer 1)
    l1, l2 = (lp["parents"] for lp in pr["labeling_proofs"])
    assert l1[:6] == [cp["column"]["rows"][0] for cp in rcp["drg_parents"]] and l1[36] == l1[0] and l1[6] == l1[0]
    assert l2[6:14] == [cp["column"]["rows"][0] for cp in rcp["exp_parents"]] and l2[14:28] == l2[:14]
    assert pr["encoding_proof"] == {"parents": l2, "layer_index": 2, "node": c}
    # encoding: replica = data + key
    key = int.from_bytes(bytes(rcp["c_x"]["column"]["rows"][1]), "little")
    data = int.from_bytes(bytes(pr["comm_d_proofs"]["leaf"]), "little")
    assert int.from_bytes(bytes(pr["comm_r_last_proof"]["leaf"]), "little") == (data + key) % R


def test_write_read_round_trip_and_comm_d_reader_still_accepts(c1, tmp_path):
    p = tmp_path / "s.c1.json"
    write_porep_c1(p, c1)
    assert read_porep_c1(p) == c1
    assert read_c1(p)["comm_d"] == c1["comm_d"]  # the comm_d-only reader accepts the extended file


def test_deterministic(c1, tmp_path):
    again = _seal(cache_dir=tmp_path)
    assert json.dumps(again) == json.dumps(c1)
    other = _seal(sector_id=8, cache_dir=tmp_path)
    assert other["comm_r"] != c1["comm_r"]


def _flip(arr, i=0):
    arr[i] ^= 1


def test_tampered_column_label(c1):
    e = _bad(c1, lambda d: _flip(d["vanilla_proofs"][KEY][0][0]["replica_column_proofs"]["c_x"]["column"]["rows"][1]))
    assert e.field == f"vanilla_proofs/{KEY}/0/0/replica_column_proofs/c_x/column/rows"
    e = _bad(c1, lambda d: _flip(d["vanilla_proofs"][KEY][0][1]["replica_column_proofs"]["exp_parents"][3]["column"]["rows"][0]))
    assert e.field == f"vanilla_proofs/{KEY}/0/1/replica_column_proofs/exp_parents/3/column/rows"


def test_tampered_labeling_parent(c1):
    e = _bad(c1, lambda d: _flip(d["vanilla_proofs"][KEY][0][0]["labeling_proofs"][1]["parents"][20], 5))
    assert e.field == f"vanilla_proofs/{KEY}/0/0/labeling_proofs/1/parents/20"


def test_wrong_parent_index(c1):
    def m(d):
        d["vanilla_proofs"][KEY][0][0]["replica_column_proofs"]["drg_parents"][2]["column"]["index"] += 1
    e = _bad(c1, m)
    assert e.field == f"vanilla_proofs/{KEY}/0/0/replica_column_proofs/drg_parents/2/column/index"


def test_tampered_encoding(c1):
    e = _bad(c1, lambda d: _flip(d["vanilla_proofs"][KEY][0][0]["encoding_proof"]["parents"][0]))
    assert e.field == f"vanilla_proofs/{KEY}/0/0/encoding_proof/parents"

    def m(d):
        d["vanilla_proofs"][KEY][0][1]["encoding_proof"]["layer_index"] = 1
    assert _bad(c1, m).field == f"vanilla_proofs/{KEY}/0/1/encoding_proof/layer_index"


def test_tampered_tree_r_last_sibling(c1):
    e = _bad(c1, lambda d: _flip(d["vanilla_proofs"][KEY][0][0]["comm_r_last_proof"]["path"][1]["hashes"][4], 3))
    assert e.field == f"vanilla_proofs/{KEY}/0/0/comm_r_last_proof/path"

    def m(d):  # a path that proves another node
        d["vanilla_proofs"][KEY][0][0]["comm_r_last_proof"]["path"][0]["index"] ^= 1
    assert _bad(c1, m).field == f"vanilla_proofs/{KEY}/0/0/comm_r_last_proof/path"


def test_tampered_comm_r(c1):
    assert _bad(c1, lambda d: _flip(d["comm_r"], 2)).field == "comm_r"


def test_schema_names_a_bad_field(c1, tmp_path):
    """A large document gets the first violation the compiled validator finds, with its field
    path (listing every one walks the whole document: seconds at 32 GiB)."""
    bad = copy.deepcopy(c1)
    del bad["comm_r"]
    pr = bad["vanilla_proofs"][KEY][0][0]
    pr["replica_column_proofs"]["drg_parents"].pop()
    pr["labeling_proofs"][0]["parents"].append(list(range(32)))
    p = tmp_path / "bad.json"
    write_porep_c1(p, bad)
    with pytest.raises(C1Error) as e:
        read_porep_c1(p)
    msg = str(e.value)
    assert str(p) in msg
    named = ["comm_r", f"vanilla_proofs/{KEY}/0/0/replica_column_proofs/drg_parents",
             f"vanilla_proofs/{KEY}/0/0/labeling_proofs/0/parents"]
    assert any(f in msg for f in named), msg



# --- batched hashing (verify_porep_c1's _prefetch_hashes) is only a cache ---------------------------

def _sequential(monkeypatch):
    """verify_porep_c1 with every Poseidon hash computed on its own, when a check asks for it."""
    from cuzk.sector import porep_c1
    monkeypatch.setattr(porep_c1, "_prefetch_hashes", lambda *a: None)


def _error(c1, verify=verify_porep_c1):
    try:
        verify(c1)
    except C1Error as e:
        return e.field, str(e)
    return None


def test_tampered_tree_c_node_and_first_bad_field_wins(c1):
    pr0, pr1 = c1["vanilla_proofs"][KEY][0]
    # a tree_c sibling of an expander parent's path
    e = _bad(c1, lambda d: _flip(d["vanilla_proofs"][KEY][0][1]["replica_column_proofs"]["exp_parents"][5]
                                 ["inclusion_proof"]["path"][0]["hashes"][2], 1))
    assert e.field == f"vanilla_proofs/{KEY}/0/1/replica_column_proofs/exp_parents/5/inclusion_proof/path"
    # a tree_c leaf: the column no longer hashes to it
    e = _bad(c1, lambda d: _flip(d["vanilla_proofs"][KEY][0][0]["replica_column_proofs"]["drg_parents"][4]
                                 ["inclusion_proof"]["leaf"], 0))
    assert e.field == f"vanilla_proofs/{KEY}/0/0/replica_column_proofs/drg_parents/4/column/rows"

    # two faults: the batched pass hashes both paths, yet the error names the one checked first
    def two(d):
        _flip(d["vanilla_proofs"][KEY][0][1]["replica_column_proofs"]["c_x"]["inclusion_proof"]["path"][1]["hashes"][0])
        _flip(d["vanilla_proofs"][KEY][0][0]["labeling_proofs"][1]["parents"][36], 7)
    assert _bad(c1, two).field == f"vanilla_proofs/{KEY}/0/0/labeling_proofs/1/parents/36"


def test_batched_and_sequential_agree_on_random_tamperings(c1, monkeypatch):
    """Flip a bit of random 32-byte values / bump random indices anywhere in the proofs; the batched
    verifier and the one hashing each value on its own reject with the same field and message."""
    sites = []

    def walk(x, at):
        if isinstance(x, list) and len(x) == 32 and all(isinstance(v, int) for v in x):
            sites.append((at, "bytes"))
        elif isinstance(x, list):
            for j, v in enumerate(x):
                walk(v, at + (j,))
        elif isinstance(x, dict):
            for k, v in x.items():
                if isinstance(v, int) and not isinstance(v, bool):
                    sites.append((at + (k,), "int"))
                else:
                    walk(v, at + (k,))

    walk(c1["vanilla_proofs"], ("vanilla_proofs",))
    walk({"comm_r": c1["comm_r"]}, ())
    rng = np.random.default_rng(5)
    picks = [sites[j] for j in rng.choice(len(sites), size=16, replace=False)]
    docs = []
    for at, kind in picks:
        d = copy.deepcopy(c1)
        *head, last = at
        obj = d
        for k in head:
            obj = obj[k]
        if kind == "bytes":
            obj[last][int(rng.integers(32))] ^= 1 << int(rng.integers(8))
        else:
            obj[last] += 1
        docs.append(d)
    fast = [_error(d) for d in docs]
    assert all(fast), "every tampering is rejected"
    with monkeypatch.context() as m:
        _sequential(m)
        assert [_error(d) for d in docs] == fast
        assert _error(c1) is None


def test_valid_c1_hashes_one_batch_per_level(c1, monkeypatch):
    """A valid C1 needs no Poseidon call per path node: one for the columns, one per tree level, one
    for comm_r."""
    from cuzk.hash import poseidon
    calls = []
    real = poseidon.poseidon_many
    monkeypatch.setattr(poseidon, "poseidon_many", lambda *a, **kw: calls.append(kw.get("arity")) or real(*a, **kw))
    verify_porep_c1(c1)
    assert calls == [2, 8, 8, 2]  # columns (2 layers), the two arity-8 levels, comm_r
