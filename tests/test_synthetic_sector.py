"""Sparse synthetic PoRep C1 files (cuzk.sector.synthetic) at 32 GiB, 64 GiB and small sizes.

Checks that do not trust the generator: ``verify_porep_c1`` (every path, column hash, label,
encoding, comm_r), comm_d against an all-zero tree hashed up here with hashlib, sibling values
gathered from all the proofs of a file and required to agree wherever two paths meet, and, with a
really sealed all-zero sector supplying the "random" values, byte-for-byte equality with
``seal_and_prove``.

Cost on the 2-core CI machine: generating the 32 GiB file takes about 10 s (Poseidon), and
``verify_porep_c1`` on it about 12 s (the same 17,000 Poseidon hashes, batched per tree level, plus
1 s of JSON schema). The 32 GiB file is verified in full by default and also gets the cross-proof
consistency checks and an independent re-check of three challenges; the 64 GiB verification and
a 32 GiB tamper (another 10-20 s each) need ``CUZK_SLOW_TESTS=1``, and the tamper tests run
``verify_porep_c1`` on a sparse test-only size (2^21 nodes, 11 layers, 2 × 3 challenges) that
verifies in about a second.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import struct

import pytest

from cuzk.hash.poseidon import R, poseidon_many
from cuzk.sector import graph
from cuzk.sector.c1 import C1Error, porep_id, replica_id
from cuzk.sector.challenges import derive_challenges
from cuzk.sector.porep_c1 import read_porep_c1, seal_and_prove, verify_porep_c1, write_porep_c1
from cuzk.sector.replica import replicate, tree_arities, tree_shape
from cuzk.sector.synthetic import _synthetic_c1, synthetic_c1

PROVER, TICKET, SEED = bytes(range(32)), b"\x11" * 32, b"\x22" * 32
GIB = 1 << 30
slow = pytest.mark.skipif(not os.environ.get("CUZK_SLOW_TESTS"),
                          reason="another 32/64 GiB synthetic C1 to build or verify: 10-20 s each")


def _zero_root(size: int) -> bytes:
    """Root of the all-zero binary sha254 tree over size/32 leaves, hashed up here level by level."""
    node = bytes(32)
    for _ in range((size // 32).bit_length() - 1):
        h = bytearray(hashlib.sha256(node + node).digest())
        h[31] &= 0x3F
        node = bytes(h)
    return node


def _proofs(c1):
    (parts,) = c1["vanilla_proofs"].values()
    return [(k, i, pr) for k, part in enumerate(parts) for i, pr in enumerate(part)]


def _merkle_nodes(proof: dict, index: int, arities) -> dict:
    """(level, node index) → value for every value a MerkleProof states: its leaf and siblings."""
    out = {(0, index): bytes(proof["leaf"])}
    i = index
    for lvl, (el, a) in enumerate(zip(proof["path"], arities)):
        g, pos = divmod(i, a)
        assert el["index"] == pos
        members = [j for j in range(a) if j != pos]
        for j, h in zip(members, el["hashes"]):
            out[(lvl, g * a + j)] = bytes(h)
        i = g
    return out


def _tree_views(c1):
    """Per tree, (level, index) → {value: set of (partition, challenge)}, from every proof of the file."""
    arities = tree_arities(c1["sector_size"] // 32, tree_shape(c1["sector_size"]))
    views = {"tree_c": {}, "tree_r_last": {}}
    roots = {"tree_c": set(), "tree_r_last": set()}

    def add(tree, proof, index, who):
        roots[tree].add(bytes(proof["root"]))
        for key, v in _merkle_nodes(proof, index, arities).items():
            views[tree].setdefault(key, {}).setdefault(v, set()).add(who)

    for k, i, pr in _proofs(c1):
        c = pr["comm_d_proofs"]["index"]
        add("tree_r_last", pr["comm_r_last_proof"], c, (k, i))
        rcp = pr["replica_column_proofs"]
        for cp in [rcp["c_x"]] + rcp["drg_parents"] + rcp["exp_parents"]:
            add("tree_c", cp["inclusion_proof"], cp["column"]["index"], (k, i))
    return views, roots


def _arities(c1):
    return tree_arities(c1["sector_size"] // 32, tree_shape(c1["sector_size"]))


def _assert_shared_ancestor(c1):
    """Two tree_c paths of challenges in different partitions that meet as low as possible (and
    below the root): above the meeting point their path elements are identical, and in the group
    where they meet their sibling lists agree. Returns (level m, (k, i, proof), (k, i, proof))."""
    arities = _arities(c1)
    paths = [(k, i, cp["column"]["index"], cp["inclusion_proof"]) for k, i, pr in _proofs(c1)
             for cp in [pr["replica_column_proofs"]["c_x"]] + pr["replica_column_proofs"]["drg_parents"]
             + pr["replica_column_proofs"]["exp_parents"]]
    below = 1
    for m, a in enumerate(arities, start=1):
        below *= a  # leaves under one level-m node
        first = {}
        for k, i, leaf, proof in paths:  # the first path under each level-m node
            first.setdefault(leaf // below, (k, i, leaf, proof))
        hit = next(((first[leaf // below], (k, i, leaf, proof)) for k, i, leaf, proof in paths
                    if first[leaf // below][0] != k and first[leaf // below][2] != leaf), None)
        if hit:
            break
    assert hit and m < len(arities), "no two paths of different partitions meet below the root"
    (ka, ia, la, pa), (kb, ib, lb, pb) = hit
    for lvl in range(m, len(arities)):  # above the common ancestor: the very same path elements
        assert pa["path"][lvl] == pb["path"][lvl], lvl
    ga, gb = pa["path"][m - 1], pb["path"][m - 1]  # the group where they meet
    a = arities[m - 1]
    if ga["index"] != gb["index"]:
        sa = dict(zip([j for j in range(a) if j != ga["index"]], map(bytes, ga["hashes"])))
        sb = dict(zip([j for j in range(a) if j != gb["index"]], map(bytes, gb["hashes"])))
        common = sa.keys() & sb.keys()
        assert len(common) == a - 2 and all(sa[j] == sb[j] for j in common)
    assert pa["root"] == pb["root"]
    return m, (ka, ia, pa), (kb, ib, pb)


def _poseidon(vals) -> int:
    return int(poseidon_many([[int(v)] for v in vals], arity=len(vals))[0])


def _fe(b) -> int:
    return int.from_bytes(bytes(b), "little")


def _hash_up(proof: dict, index: int, arities) -> bytes:
    node, idx, mul = _fe(proof["leaf"]), 0, 1
    for el, a in zip(proof["path"], arities):
        sibs = [_fe(h) for h in el["hashes"]]
        assert len(sibs) == a - 1
        node = _poseidon(sibs[: el["index"]] + [node] + sibs[el["index"]:])
        idx += el["index"] * mul
        mul *= a
    assert idx == index
    return node.to_bytes(32, "little")


def _sha254(data: bytes) -> bytes:
    h = bytearray(hashlib.sha256(data).digest())
    h[31] &= 0x3F
    return bytes(h)


def _recheck_challenge(c1, k: int, i: int) -> None:
    """One challenge re-checked from scratch (hashlib, struct, Poseidon): comm_d path, parents,
    every column hash and path, the 11 labels, the encoding and comm_r."""
    size, layers, rid = c1["sector_size"], c1["layers"], bytes(c1["replica_id"])
    arities = _arities(c1)
    (parts,) = c1["vanilla_proofs"].values()
    pr = parts[k][i]
    c = derive_challenges(rid, bytes(c1["seed"]), size, k, c1["challenges_per_partition"])[i]
    cd = pr["comm_d_proofs"]
    assert cd["index"] == c and bytes(cd["leaf"]) == bytes(32) and bytes(cd["root"]) == _zero_root(size)
    assert [bytes(x) for x in cd["path"]] == [_zero_root(32 << h) for h in range(len(cd["path"]))]
    rcp = pr["replica_column_proofs"]
    cols = [rcp["c_x"]] + rcp["drg_parents"] + rcp["exp_parents"]
    assert [cp["column"]["index"] for cp in cols] == [c] + graph.parents(size, bytes(c1["porep_id"]), c)
    comm_c = {bytes(cp["inclusion_proof"]["root"]) for cp in cols}
    assert len(comm_c) == 1
    for cp in cols:
        rows = cp["column"]["rows"]
        assert len(rows) == layers and all(r[31] < 0x40 for r in rows)  # sha254 outputs
        assert _poseidon([_fe(r) for r in rows]) == _fe(cp["inclusion_proof"]["leaf"])
        assert _hash_up(cp["inclusion_proof"], cp["column"]["index"], arities) == bytes(cp["inclusion_proof"]["root"])
    drg, exp = rcp["drg_parents"], rcp["exp_parents"]
    for layer in range(1, layers + 1):
        used = [bytes(cp["column"]["rows"][layer - 1]) for cp in drg]
        if layer > 1:
            used += [bytes(cp["column"]["rows"][layer - 2]) for cp in exp]
        full = [used[j % len(used)] for j in range(37)]
        lp = pr["labeling_proofs"][layer - 1]
        assert [bytes(x) for x in lp["parents"]] == full and lp["node"] == c and lp["layer_index"] == layer
        header = rid + struct.pack(">IQ", layer, c) + bytes(20)
        assert _sha254(header + b"".join(full)) == bytes(rcp["c_x"]["column"]["rows"][layer - 1])
    assert pr["encoding_proof"]["parents"] == pr["labeling_proofs"][-1]["parents"]
    rl = pr["comm_r_last_proof"]
    assert _fe(rl["leaf"]) == (0 + _fe(rcp["c_x"]["column"]["rows"][-1])) % R  # zero data + key
    comm_r_last = _hash_up(rl, c, arities)
    assert comm_r_last == bytes(rl["root"])
    assert _poseidon([_fe(comm_c.pop()), _fe(comm_r_last)]).to_bytes(32, "little") == bytes(c1["comm_r"])


@contextlib.contextmanager
def _tampered(lst: list, pos: int):
    """Flip one bit of byte ``pos`` of a 32-byte list in place; restore on exit."""
    old = lst[pos]
    lst[pos] ^= 1
    try:
        yield
    finally:
        lst[pos] = old


def _rejects(c1) -> C1Error:
    with pytest.raises(C1Error) as e:
        verify_porep_c1(c1)
    return e.value


# --- small sizes: verify, and compare with real sealing ------------------------------------------

SMALL = [
    (2048, {}),                                                       # Filecoin's 2 KiB: 1 × 2, 2 layers
    (2048, {"api_version": "1.0"}),                                   # legacy graph
    (16 << 10, {"layers": 2, "partitions": 2, "challenges": 3}),      # shape (8, 8, 0)
    (512, {"layers": 3, "partitions": 2, "challenges": 5}),           # 16 nodes, shape (8, 2, 0): dense overlaps
]


@pytest.mark.parametrize("size,kw", SMALL)
def test_small_synthetic_c1_verifies(size, kw):
    c1 = synthetic_c1(size, 7, PROVER, TICKET, SEED, **kw)
    verify_porep_c1(c1)
    assert c1["synthetic"] is True and c1["porep"] is True
    assert bytes(c1["comm_d"]) == _zero_root(size)
    for _, _, pr in _proofs(c1):
        assert bytes(pr["comm_d_proofs"]["leaf"]) == bytes(32)


def test_challenged_parents_use_computed_labels():
    """At 16 nodes challenged nodes are parents of other challenged nodes; verify still accepts."""
    size, kw = SMALL[3]
    c1 = synthetic_c1(size, 7, PROVER, TICKET, SEED, **kw)
    chal = {pr["comm_d_proofs"]["index"] for _, _, pr in _proofs(c1)}
    linked = [(c, q) for c in chal for q in graph.parents(size, porep_id(size), c) if q in chal and q != c]
    assert linked, "no challenged node has a challenged parent: pick other inputs"
    verify_porep_c1(c1)


class _SealedValues:
    """The 'random' values taken from a really sealed sector instead (labels and tree nodes)."""

    def __init__(self, rep):
        self.rep = rep

    def label(self, layer, node):
        return self.rep["labels"][layer - 1][node].tobytes()

    def fr(self, tree, level, index):
        return int(self.rep[tree.decode()][level][index])


@pytest.mark.parametrize("size,kw", [(2048, {}), (16 << 10, {"layers": 2, "partitions": 2, "challenges": 3})])
def test_with_sealed_values_equals_seal_and_prove(size, kw, tmp_path):
    """With a sealed all-zero sector supplying every off-path value, the sparse construction
    reproduces seal_and_prove's C1 byte for byte: the computed parts (labels, key, replica, column
    hashes, ancestors, comm_c, comm_r_last, comm_r, path layout) are the real ones."""
    layers = kw.get("layers", 2)
    real = seal_and_prove(bytes(size), size, 7, PROVER, TICKET, SEED, layers,
                          partitions=kw.get("partitions"), challenges=kw.get("challenges"), cache_dir=tmp_path)
    pid = porep_id(size)
    rid = replica_id(PROVER, 7, TICKET, _zero_root(size), size, pid)
    assert bytes(real["replica_id"]) == rid
    rep = replicate(bytes(size), rid, size, layers, pid, parents=graph.all_parents(size, pid, cache_dir=tmp_path))
    synth = _synthetic_c1(size, 7, PROVER, TICKET, SEED, layers, None, "1.1", real["partitions"],
                          real["challenges_per_partition"], lambda r: _SealedValues(rep))
    assert synth.pop("synthetic") is True and real.pop("synthetic") is False
    assert synth == real
    # and the random version differs from the real one only in what is random
    rnd = synthetic_c1(size, 7, PROVER, TICKET, SEED, **kw)
    assert rnd["comm_d"] == real["comm_d"] and rnd["replica_id"] == real["replica_id"]
    assert rnd["comm_r"] != real["comm_r"]
    for (_, _, a), (_, _, b) in zip(_proofs(rnd), _proofs(real)):
        assert a["comm_d_proofs"] == b["comm_d_proofs"]
        ra, rb = a["replica_column_proofs"], b["replica_column_proofs"]
        assert [cp["column"]["index"] for cp in [ra["c_x"]] + ra["drg_parents"] + ra["exp_parents"]] == \
            [cp["column"]["index"] for cp in [rb["c_x"]] + rb["drg_parents"] + rb["exp_parents"]]
        assert [e["index"] for e in a["comm_r_last_proof"]["path"]] == [e["index"] for e in b["comm_r_last_proof"]["path"]]


def test_deterministic_and_seeded():
    size, kw = 16 << 10, {"layers": 2, "partitions": 2, "challenges": 3}
    a = synthetic_c1(size, 7, PROVER, TICKET, SEED, rng_seed=5, **kw)
    assert a == synthetic_c1(size, 7, PROVER, TICKET, SEED, rng_seed=5, **kw)
    b = synthetic_c1(size, 7, PROVER, TICKET, SEED, rng_seed=6, **kw)
    verify_porep_c1(b)
    assert a["replica_id"] == b["replica_id"] and a["comm_d"] == b["comm_d"]
    assert a["comm_r"] != b["comm_r"]  # the random parts (hence comm_c, comm_r_last) depend on rng_seed


def test_write_read_round_trip(tmp_path):
    c1 = synthetic_c1(2048, 3, PROVER, TICKET, SEED)
    write_porep_c1(tmp_path / "s.c1.json", c1)
    assert read_porep_c1(tmp_path / "s.c1.json") == c1


@pytest.mark.parametrize("args,kw,msg", [
    ((16 << 10,), {}, "layers"),
    ((16 << 10,), {"layers": 2}, "partitions"),
    ((3000,), {}, "power of two"),
    ((128,), {"layers": 2, "partitions": 1, "challenges": 1}, "power of two"),
    ((2048,), {"rng_seed": -1}, "rng_seed"),
    ((2048,), {"api_version": "2.0"}, "api_version"),
    ((2048,), {"layers": 0}, "layers"),
    ((2048,), {"porep_id": b"x"}, "porep_id"),
])
def test_bad_arguments_raise(args, kw, msg):
    with pytest.raises(ValueError, match=msg):
        synthetic_c1(*args, 7, PROVER, TICKET, SEED, **kw)


def test_bad_byte_lengths_raise():
    with pytest.raises(ValueError, match="ticket"):
        synthetic_c1(2048, 7, PROVER, b"short", SEED)
    with pytest.raises(ValueError, match="seed"):
        synthetic_c1(2048, 7, PROVER, TICKET, SEED + b"x")


# --- a sparse test-only size: 2^21 nodes (64 MiB), 11 layers, 2 × 3 challenges -------------------

MID = 64 << 20
MID_KW = {"layers": 11, "partitions": 2, "challenges": 3}


@pytest.fixture(scope="module")
def c1_mid():
    return synthetic_c1(MID, 9, PROVER, TICKET, SEED, **MID_KW)


def test_mid_verifies_and_shares_ancestors(c1_mid):
    verify_porep_c1(c1_mid)
    assert bytes(c1_mid["comm_d"]) == _zero_root(MID)
    _assert_shared_ancestor(c1_mid)
    views, roots = _tree_views(c1_mid)
    assert all(len(r) == 1 for r in roots.values())
    assert not [key for t in views.values() for key, v in t.items() if len(v) > 1]
    _recheck_challenge(c1_mid, 1, 2)


def test_mid_tampered_shared_sibling_is_rejected(c1_mid):
    """A path element that two challenges' tree_c paths both state (above their common ancestor),
    changed in one copy only: verify_porep_c1 rejects it at that copy."""
    m, (ka, ia, pa), (kb, ib, pb) = _assert_shared_ancestor(c1_mid)
    (k, i, el, other) = (ka, ia, pa["path"][m], pb["path"][m]) if (ka, ia) > (kb, ib) else (kb, ib, pb["path"][m], pa["path"][m])
    with _tampered(el["hashes"][0], 5):
        assert el != other
        e = _rejects(c1_mid)
    assert e.field.startswith(f"vanilla_proofs/{_key(c1_mid)}/{k}/{i}/replica_column_proofs/")
    assert "inclusion_proof/path" in e.field
    # a tree_r_last sibling at the top level, which every challenge's path states
    k, i, pr = _proofs(c1_mid)[-1]
    with _tampered(pr["comm_r_last_proof"]["path"][-1]["hashes"][0], 0):
        assert _rejects(c1_mid).field.startswith(f"vanilla_proofs/{_key(c1_mid)}/{k}/{i}/comm_r_last_proof")


def test_mid_tampered_label_is_rejected(c1_mid):
    pr = _proofs(c1_mid)[0][2]
    base = f"vanilla_proofs/{_key(c1_mid)}/0/0"
    # a random parent's label: its column no longer hashes to the committed leaf
    with _tampered(pr["replica_column_proofs"]["exp_parents"][2]["column"]["rows"][4], 0):
        assert _rejects(c1_mid).field == base + "/replica_column_proofs/exp_parents/2/column/rows"
    # a challenged node's computed label
    with _tampered(pr["replica_column_proofs"]["c_x"]["column"]["rows"][6], 0):
        assert _rejects(c1_mid).field == base + "/replica_column_proofs/c_x/column/rows"
    # a labeling proof's parent label
    with _tampered(pr["labeling_proofs"][5]["parents"][10], 0):
        assert _rejects(c1_mid).field == base + "/labeling_proofs/5/parents/10"


def _key(c1) -> str:
    (key,) = c1["vanilla_proofs"]
    return key


# --- 32 GiB --------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def c1_32g():
    return synthetic_c1(32 * GIB, 7, PROVER, TICKET, SEED)


def test_32gib_shape_and_comm_d(c1_32g):
    c1 = c1_32g
    assert (c1["partitions"], c1["challenges_per_partition"], c1["layers"]) == (10, 18, 11)
    assert c1["registered_proof"] == "StackedDrg32GiBV1_1" and c1["synthetic"] is True
    assert bytes(c1["comm_d"]) == _zero_root(32 * GIB)
    rid, seed = bytes(c1["replica_id"]), bytes(c1["seed"])
    assert rid == replica_id(PROVER, 7, TICKET, _zero_root(32 * GIB), 32 * GIB)
    parts = c1["vanilla_proofs"]["StackedDrg32GiBV1"]
    for k, part in enumerate(parts):
        assert [pr["comm_d_proofs"]["index"] for pr in part] == derive_challenges(rid, seed, 32 * GIB, k, 18)
    pr = parts[3][5]
    c = pr["comm_d_proofs"]["index"]
    rcp = pr["replica_column_proofs"]
    assert [cp["column"]["index"] for cp in rcp["drg_parents"] + rcp["exp_parents"]] == \
        graph.parents(32 * GIB, porep_id(32 * GIB), c)
    assert len(pr["comm_d_proofs"]["path"]) == 30
    assert [len(e["hashes"]) for e in pr["comm_r_last_proof"]["path"]] == [7] * 10
    assert all(len(cp["column"]["rows"]) == 11 for cp in [rcp["c_x"]] + rcp["drg_parents"] + rcp["exp_parents"])
    # encoding of zero data: replica leaf = key = last-layer label of c
    assert pr["comm_r_last_proof"]["leaf"] == rcp["c_x"]["column"]["rows"][-1]
    assert all(int.from_bytes(bytes(r), "little") < R for r in rcp["c_x"]["column"]["rows"])


def test_32gib_sparse_trees_are_consistent_across_all_proofs(c1_32g):
    views, roots = _tree_views(c1_32g)
    for tree in ("tree_c", "tree_r_last"):
        assert len(roots[tree]) == 1, f"{tree}: one root for all 180 challenges"
        conflicts = {key: vals for key, vals in views[tree].items() if len(vals) > 1}
        assert not conflicts, f"{tree}: nodes with two values: {list(conflicts)[:3]}"
        # nodes that more than one challenge states (shared ancestors' siblings), across partitions
        shared = [next(iter(v.values())) for key, v in views[tree].items() if key[0] > 0]
        multi = [who for who in shared if len({k for k, _ in who}) > 1]
        assert len(multi) >= 7, f"{tree}: too few siblings shared across partitions"


def test_32gib_two_challenges_share_an_ancestor_and_agree_there(c1_32g):
    _assert_shared_ancestor(c1_32g)


def test_32gib_challenges_recheck_independently(c1_32g):
    """Re-check three challenges without verify_porep_c1's code (a check that does not trust it)."""
    for k, i in [(0, 0), (4, 9), (9, 17)]:
        _recheck_challenge(c1_32g, k, i)


def test_32gib_synthetic_c1_verifies(c1_32g):
    verify_porep_c1(c1_32g)


@slow
def test_32gib_tampered_shared_sibling_is_rejected(c1_32g):
    """Challenge (0, 1)'s c_x path, a sibling at the top level, which every tree_c path states."""
    el = c1_32g["vanilla_proofs"]["StackedDrg32GiBV1"][0][1]["replica_column_proofs"]["c_x"]["inclusion_proof"]["path"][-1]
    with _tampered(el["hashes"][0], 3):
        e = _rejects(c1_32g)
    assert e.field.startswith("vanilla_proofs/StackedDrg32GiBV1/0/1/replica_column_proofs/c_x/inclusion_proof")


# --- 64 GiB --------------------------------------------------------------------------------------

@slow
def test_64gib_synthetic_c1_verifies():
    c1 = synthetic_c1(64 * GIB, 7, PROVER, TICKET, SEED)
    assert bytes(c1["comm_d"]) == _zero_root(64 * GIB)
    pr = c1["vanilla_proofs"]["StackedDrg64GiBV1"][9][17]
    assert [len(e["hashes"]) for e in pr["comm_r_last_proof"]["path"]] == [7] * 10 + [1]
    assert len(pr["comm_d_proofs"]["path"]) == 31
    views, roots = _tree_views(c1)
    assert all(len(r) == 1 for r in roots.values())
    assert not [k for t in views.values() for k, v in t.items() if len(v) > 1]
    verify_porep_c1(c1)
