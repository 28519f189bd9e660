"""Replication (encoding, tree_c, tree_r_last, comm_r) against upstream data and naive constructions.

Upstream data used:
* filecoin-project/curio ``lib/proof/testgolden/post.vproof`` and ``postpub.json`` (commit
  e0294b0f948132d41e8f42f59fa949495d5fd3af): a real WindowPoSt vanilla proof of a 32 GiB sector
  (StackedDrg32GiBV1_1, miner 1000, sector 1), serialized by rust-fil-proofs with bincode
  (``FallbackPoStSectorProof``). It carries comm_c, comm_r_last, comm_r and 10 tree_r_last
  inclusion proofs of shape 8-8-0 (9 base levels + 1 sub-tree level). Checked here: comm_r =
  Poseidon₂(comm_c, comm_r_last) (also equal to the sealed CID's digest in postpub.json) and the
  first inclusion proof (embedded below) hashes up to comm_r_last.
* curio ``lib/proof/post_vproof_test.go`` ``TestPoseidonHashMulti``: one arity-8 tree node.

rust-fil-proofs (commit 87348a749d80447d00c595af834a8ed73c09e4d9) publishes no comm_c/comm_r_last/
comm_r for reproducible data: the seal regression records (``filecoin-proofs/tests/
seal_regression_records-v1[68].json``) hold comm_d/comm_r of sectors filled with random bytes that
are not recorded. So the full 2 KiB pipeline is checked structurally: each tree against a naive
recursive construction, comm_r by hand, and the encode/decode round trip.
"""

from __future__ import annotations

import base64
import os

import numpy as np
import pytest

from cuzk.hash.poseidon import R, poseidon_hash
from cuzk.sector.c1 import porep_id
from cuzk.sector.filecoin_post import decode_merkle_proof
from cuzk.sector.fr32 import pad_sector
from cuzk.sector.labels import label_layers
from cuzk.sector import replica as rp

# --- curio's 32 GiB PoSt golden proof ------------------------------------------------------------

GOLDEN_COMM_R = "df691086e3c673c95a45908713d4c5938e5ced43f21b888bd9bc6e181c9f326b"
GOLDEN_COMM_C = "9941e59d24a2a05877558ac5fa1aab256bd12a3e88ef51ee79f58b8d80adb94e"
GOLDEN_COMM_R_LAST = "f56b7f7f318d88ac4d72e5d94efd7de7f1df501b98b01a8564fa4cb4983b9e4b"
GOLDEN_SEALED_CID = "bagboea4b5abcbx3jccdohrttzfneleehcpkmle4oltwuh4q3rcf5tpdodaoj6mtl"
# bincode of the first inclusion proof: ProofData::Sub { base_proof, sub_proof, root, leaf }
GOLDEN_PROOF_0 = (
    "0100000009000000000000000700000000000000f743111428ecda9b74a18826f1cc62d48ae1510de17e58645997559f"
    "86442f31197a6efa37086e3a37108f8460c52bc810e2781aff0091bfd7b74e3f6f752f0201c2c12f7930bbb59e3b36da"
    "e1c694b33ac6b3f199ec32a8665fadb8338f4f21bbe672a853f65cdb2563339ca61d6ad648473b4b4ce44bf3a4848642"
    "4b865a2d937d57295f488cea8099f5525958f1af39c6241614b917835292e8e2314cf9083272570cd8ba38c1183629ca"
    "72d5e9149d76786ed22c1d591db3d2bccfa7d3082d3fc90e11aaf601bd1beae80fc3aba15a9e1f886d8140533ce36cda"
    "3dd9f9360700000000000000070000000000000030a3c6288ce81f97de27bc2f90ddca84074f8aff250d0209ad6b744a"
    "628838307cd6f311903dc195f8ef26af95ae7a9a619981e5abdd97cd33064273bed47316b72997a91b97db39e79f02f7"
    "4fa97a75e834205ad4ed64e9cce7041defd11b5babb5b733f5ddcd49c4205c6f25090d16605bd0ab6d182223b02290c0"
    "1666870a2d8f28798edd554911a1318dfdc9fd7a0ce1f49e84c2e01cd6bf8d1f3d3a5b068ec19b363a4019a7ec74f81b"
    "cd184e2bbb1558dedfb825d791b8c0f74f10974cf1921e23c0ecad1c6b3fe1d212ecf09e60b36dc9e8b867eaa26e1020"
    "3984ef6802000000000000000700000000000000eb5148cc8411178b10a6aa299e1beea3620cf87213a143d52e122c10"
    "d8b40d2327dac8d80c5685c14c0c543244185c619b054c971a163e87c26f73ce6d357a09d3ddc008144f819cc04d122f"
    "b28dea0630111b84444e909a7a2c0ca9b10ef85a0b575a1ca8c4b5ed4b2c2bd6a510f14ce64aec46db01efe860eafc74"
    "3ed5db4404c39eae1f5b1312d29eaeac8a7187d418219213cb928fd71a00a6e0191fca21c60373a5bbfd6b899e95283c"
    "3b97998f64b7252359d28db9148cba1b61a18c041ef3f8c4d3a0b9f89f604faafe8d5e8c38247c0f78df54f6a1fbfe98"
    "82d8e0380700000000000000070000000000000006b693fd95a213ffab2f4427db056dee46eb737e52785255849ac854"
    "e4c9314e680dca2598006cc85bdb2e11ef6e84d2a4e3b1f59c6f2f1d688d750ac9a7d910a27a75d75f7dabfe9e45dfa0"
    "6298f762dcb374cba23e55e2d18871329eac6e15632aed6ca4cf90a0ab32167eec0bf49c04c0e5746598c74c79ff0860"
    "5971415190d89defcec9f4e3aca96b8c115d098e35311af134b7f3cd4034a49bf9dccc68cf7389fceb3f4077ac9366f1"
    "3954e8e7138663e68991766c4d6a662ae724be6b6ca6bd29e24d9d7d6f03883dd6d45dc314def3eac4e0b4e1fbcfcb2f"
    "2145e42d040000000000000007000000000000009661859885bf6120874ecbd9cef141140b8a534c379554b71cd3a206"
    "eede4805077e23cdb0f0acc8e75e8ce00e2d9a29352a41fd0a2205a7b86afaa5f7813b3d36fa1b045cdd2a45bf23f391"
    "da520bd25ebf2a41459f7a58475cede99bd4f1243cf802b39b3e7618c989fd97613e60f5e159e2b88a7f673b408a9a0f"
    "f71a003b3e3055f02d87d458bcc9d505ea4b4e941a5491dddd8a88a638be567663eb5f3169c854cfb03068c9e0ea37d4"
    "8841708a1d5ca6ba133dfffe2bf62d9816cfe609e84cb49966f7225a5656b48ce882abc25e088dde7fc1cfa9505ab1d5"
    "266e173d060000000000000007000000000000000fc8e859caf9d699885065ed4bef850a1c986d1af93f6ca219db11d3"
    "4dfe963e486b07c12567cf7d9e34a75e17ffd5a42dd81bc39a322dea0cce6acd67262a376241817198b0f52aec5785e8"
    "1a683a4d3f110b036dd2a53c1e6a063e60ec4c676e705a36aa8fc69abd057860b09e9929b08cc6d4e0aa7b2fb26c6593"
    "9f1db169dfcebdb858f7f4a213993a3713f5fc38af3d45a55227cfcd4582ff162a5e9356e43d3ab540772e389a5d3299"
    "e795cb13ceda1b64f4e2c4bf673d0e9979436a3b6d5bec74708af0016621da590c02de382995196b8ffe74676c1f4b97"
    "fe8bc01003000000000000000700000000000000e6ee2ead62a5d7f8fa8d769cbbf5be41fb727f01a00768777046da7a"
    "007a7b2b0407e63135289703424f8eda54bafebb6cca3a9a2ce85c27424b6f5a25e0ed631cf7f4d1d801c43e0177cc71"
    "4cb022ee94f2a0c5a5b79e1a4043575547ddb12d5147309eea70e95ac8fb4129fe3bf037dda4440da76c327eee43d717"
    "b679d920aac33cb6b92526e1d3d370bb356f9d0c9c04fac9a0c9c361010d828a4d2a41415047232950b06170b1740995"
    "6812c2fa261c9dc1ca4e7223629cd779b73b8f1144063c58b1103540fb549ab13984e039fb971e6db7a2875da0f68cd2"
    "f9051d6c040000000000000007000000000000007444208d03e2ab7615904ca1647811d6f238b74333eb53cb13d16b35"
    "fb06de1618303b2af9bc8f62236726abcacf81eb18426d78e7c103088ea24a7294ecea279f4c6186d1b57aaedc49bb01"
    "2bfee9127c616edc0c1a0f53b9baf7d3f898bc26158a1334986c5e962705ec1db089446d5ac183ae595717684d0fa199"
    "77ec0d4691736c6a189c638cda07437538b0afc0ee075797e1afc929ad5d94c3a6e32944b570772a660f9cc5a900d2b3"
    "2614c7528400ce54fa0964b36f58ca480af891143af4fedb4c1ebee58e2423a8492ca247ceca89f917a616e1885c8068"
    "55d4d00d01000000000000000700000000000000dc9c1062057dc8a05fcfa6a9b70e012c4d6884ff163df2028e3a68e2"
    "c639b06d66e1e67e0745c4144b5934a4575b62922d40eb08bc1550a99c5b43b4f9033b1f3e0c0c5ef28b955d7ac8a648"
    "8ed277b4a9a8c041481cd152fd105b289aa1a16d017d1a6c6c539c597a8a10ff2efa0ecbc2609a0071238a19170ee50a"
    "d030642d423f6d0021653cdb5776a982c4e6897d9838fb80f3fe38818aa70a6acebbac5eaae377ac61634fb02de4c2aa"
    "a0fd63326a5862e872e2fdf1e683c8ea44d3a9434c24574c9e35740730271c734347996772095fe9709b81a1311a7ef4"
    "cf083b2b020000000000000001000000000000000700000000000000924a00c61658322995d9fc493f8aec72365b30a5"
    "0197e59537df246ca39ffd1bd7958d6ff26877091592ea9b51de5ca3b0ad57af34fefd102291a4db1aec543afafb1164"
    "6c07d01cbf63facc266b46dd1ab00cd3e30560ef18cf50fd40f32d73dcb8d1b4bd3e672ad98c29e5cd05dc2e09a76ef0"
    "0883a487e163fe4e719fe663d846e93787fe6c14f26f49ee610f434d021cc0d1ada562695e08af4d5af6335740672868"
    "4d7fc85e050f31db99752b552a2f9d608709f0eaa2d6c66afc96e46b9cb01c337f13b4bbf4a4ae0296bdd927dbb52479"
    "e8875bd31374c9e567735f2c0500000000000000f56b7f7f318d88ac4d72e5d94efd7de7f1df501b98b01a8564fa4cb4"
    "983b9e4b0a017e264d0728bfcd2edb3c6c60cc5a05a02af31a71cdd7bb2da27616f5f630"
)


def _parse_sub_proof(b: bytes):
    """(base path, sub path, root, leaf) of a bincode ProofData::Sub, read by cuzk.sector.filecoin_post."""
    body = decode_merkle_proof(b)["data"]["Sub"]
    path = [([L(h) for h in el["hashes"]], el["index"]) for s in ("base_proof", "sub_proof") for el in body[s]["path"]]
    return path[:-1], path[-1:], L(body["root"]), L(body["leaf"])


def L(x) -> int:
    return int.from_bytes(bytes(x), "little")


def test_golden_32gib_comm_r():
    c, rl = bytes.fromhex(GOLDEN_COMM_C), bytes.fromhex(GOLDEN_COMM_R_LAST)
    assert rp.comm_r(c, rl).hex() == GOLDEN_COMM_R
    raw = base64.b32decode(GOLDEN_SEALED_CID[1:].upper() + "=" * (-len(GOLDEN_SEALED_CID[1:]) % 8))
    # CIDv1, codec fil-commitment-sealed (0xf102), multihash poseidon-bls12_381-a2-fc1 (0xb401), 32 bytes
    assert raw[:8] == bytes([0x01, 0x82, 0xE2, 0x03, 0x81, 0xE8, 0x02, 0x20])
    assert raw[8:].hex() == GOLDEN_COMM_R


def test_golden_32gib_tree_r_last_path():
    base, sub, root, leaf = _parse_sub_proof(bytes.fromhex("".join(GOLDEN_PROOF_0)))
    assert root == int.from_bytes(bytes.fromhex(GOLDEN_COMM_R_LAST), "little")
    path = base + sub
    assert [len(s) + 1 for s, _ in path] == rp.tree_arities((32 << 30) // 32, rp.tree_shape(32 << 30))
    assert rp.verify_tree_path(leaf, path, root)
    bad = [(list(s), p) for s, p in path]
    bad[3][0][2] = (bad[3][0][2] + 1) % R
    assert not rp.verify_tree_path(leaf, bad, root)
    assert not rp.verify_tree_path(leaf, [(path[0][0], (path[0][1] + 1) % 8)] + path[1:], root)


def test_hash_paths_dedups_shared_ancestors_and_agrees_with_verify_tree_path():
    from cuzk.hash.poseidon import PoseidonMemo
    rng = np.random.default_rng(3)
    shape = (8, 2, 0)
    leaves = np.empty(1024, dtype=object)
    leaves[:] = [int(x) for x in rng.integers(0, 1 << 62, size=1024)]
    levels = rp.build_tree(leaves, shape)
    idx = [5, 1000, 7, 5]
    paths = [rp.tree_path(levels, i, shape) for i in idx]
    stacked = [(np.array([p[l][0] for p in paths], dtype=object), np.array([p[l][1] for p in paths]))
               for l in range(len(paths[0]))]
    memo = PoseidonMemo()
    roots = rp.hash_paths([int(levels[0][i]) for i in idx], stacked, memo)
    assert list(roots) == [int(levels[-1][0])] * 4
    assert all(rp.verify_tree_path(int(levels[0][i]), p, int(levels[-1][0])) for i, p in zip(idx, paths))
    # one hash per distinct (level, group): 5 and 7 share their leaf group, 1000 joins them higher up
    groups, i = set(), np.array(idx)
    for lvl, a in enumerate(rp.tree_arities(1024, shape)):
        i = i // a
        groups |= {(lvl, int(g)) for g in i}
    assert len(memo) == len(groups) < 4 * len(rp.tree_arities(1024, shape))


def test_curio_poseidon_arity8_node():
    ins = [
        "f743111428ecda9b74a18826f1cc62d48ae1510de17e58645997559f86442f31",
        "197a6efa37086e3a37108f8460c52bc810e2781aff0091bfd7b74e3f6f752f02",
        "01c2c12f7930bbb59e3b36dae1c694b33ac6b3f199ec32a8665fadb8338f4f21",
        "bbe672a853f65cdb2563339ca61d6ad648473b4b4ce44bf3a48486424b865a2d",
        "937d57295f488cea8099f5525958f1af39c6241614b917835292e8e2314cf908",
        "3272570cd8ba38c1183629ca72d5e9149d76786ed22c1d591db3d2bccfa7d308",
        "2d3fc90e11aaf601bd1beae80fc3aba15a9e1f886d8140533ce36cda3dd9f936",
        "0a017e264d0728bfcd2edb3c6c60cc5a05a02af31a71cdd7bb2da27616f5f630",
    ]
    levels = rp.build_tree(bytes.fromhex("".join(ins)), (8, 0, 0))
    assert rp.fr_to_nodes(levels[-1]).tobytes().hex() == (
        "0737ca506df7d4544f8512df35aaa07ed8a40691e96ae868c23320220fec6866")


# --- shapes --------------------------------------------------------------------------------------

@pytest.mark.parametrize("size,arities", [
    (2 << 10, [8, 8]), (4 << 10, [8, 8, 2]), (16 << 10, [8, 8, 8]), (32 << 10, [8, 8, 8, 2]),
    (8 << 20, [8] * 6), (16 << 20, [8] * 6 + [2]), (512 << 20, [8] * 8), (1 << 30, [8] * 8 + [2]),
    (32 << 30, [8] * 10), (64 << 30, [8] * 10 + [2]),
])
def test_tree_arities(size, arities):
    assert rp.tree_arities(size // 32, rp.tree_shape(size)) == arities


def test_tree_shape_errors():
    assert rp.tree_shape(256) == (8, 0, 0)  # test-only size: 8 nodes
    # 2**5 nodes (1 KiB) has no rust-fil-proofs shape
    with pytest.raises(ValueError):
        rp.tree_shape(1024)
    with pytest.raises(ValueError):
        rp.tree_arities(64, (8, 8, 2))


# --- naive references ----------------------------------------------------------------------------

def _naive_root(leaves: list[int], arities: list[int]) -> int:
    """Recursive: root of a subtree = H_a(roots of its a children), top level first."""
    if not arities:
        assert len(leaves) == 1
        return leaves[0]
    a = arities[-1]
    k = len(leaves) // a
    return poseidon_hash([_naive_root(leaves[i * k : (i + 1) * k], arities[:-1]) for i in range(a)])


@pytest.fixture(scope="module")
def sealed_2k():
    ss = 2048
    rng = np.random.default_rng(4)
    data = pad_sector(rng.integers(0, 256, ss * 127 // 128, dtype=np.uint8).tobytes(), ss)
    rid = bytes(range(31)) + b"\x01"
    labels = label_layers(rid, ss, 2, porep_id(ss))
    return data, rid, labels, rp.replicate(data, rid, ss, 2, porep_id(ss))


def test_replicate_2k_structure(sealed_2k):
    data, rid, labels, out = sealed_2k
    n = 64
    assert out["shape"] == (8, 0, 0) and out["arities"] == [8, 8]
    assert all(np.array_equal(a, b) for a, b in zip(out["labels"], labels))
    assert np.array_equal(out["key"], labels[-1])
    # encoding, by hand, node by node
    rep = out["replica"]
    assert len(rep) == 2048
    for v in range(n):
        assert L(rep[32 * v : 32 * v + 32]) == (L(data[32 * v : 32 * v + 32]) + L(labels[-1][v])) % R
    # decode round trip
    assert rp.decode(rep, out["key"]).tobytes() == data
    # column hashes and trees against naive constructions
    cols = [poseidon_hash([L(labels[0][v]), L(labels[1][v])]) for v in range(n)]
    assert [int(x) for x in out["tree_c"][0]] == cols
    comm_c = _naive_root(cols, [8, 8])
    comm_r_last = _naive_root([L(rep[32 * v : 32 * v + 32]) for v in range(n)], [8, 8])
    assert L(out["comm_c"]) == comm_c
    assert L(out["comm_r_last"]) == comm_r_last
    assert L(out["comm_r"]) == poseidon_hash([comm_c, comm_r_last], domain_tag=3, arity=2)
    # paths
    for idx in (0, 13, 63):
        p = rp.tree_path(out["tree_r_last"], idx, out["shape"])
        assert rp.verify_tree_path(L(rep[32 * idx : 32 * idx + 32]), p, comm_r_last)
        p = rp.tree_path(out["tree_c"], idx, out["shape"])
        assert rp.verify_tree_path(cols[idx], p, comm_c)


def test_replicate_deterministic_and_sensitive(sealed_2k):
    data, rid, labels, out = sealed_2k
    again = rp.replicate(data, rid, 2048, 2, porep_id(2048), labels=labels)
    assert again["comm_r"] == out["comm_r"]
    d2 = bytearray(data)
    d2[100] ^= 1
    other = rp.replicate(bytes(d2), rid, 2048, 2, porep_id(2048), labels=labels)
    assert other["comm_c"] == out["comm_c"]  # tree_c depends on the labels only
    assert other["comm_r_last"] != out["comm_r_last"] and other["comm_r"] != out["comm_r"]


def test_replicate_11_layers_4k_sub2():
    """Arity-11 column hash (32/64 GiB layer count) and the (8, 2, 0) shape on a 4 KiB sector."""
    ss, n = 4096, 128
    data = pad_sector(os.urandom(ss * 127 // 128), ss)
    rid = bytes(32)
    out = rp.replicate(data, rid, ss, 11, porep_id(ss))
    assert out["arities"] == [8, 8, 2]
    for v in (0, 77, 127):
        col = [L(out["labels"][layer][v]) for layer in range(11)]
        assert int(out["tree_c"][0][v]) == poseidon_hash(col, domain_tag=(1 << 11) - 1)
    comm_c = _naive_root([int(x) for x in out["tree_c"][0]], [8, 8, 2])
    reps = [L(out["replica"][32 * v : 32 * v + 32]) for v in range(n)]
    comm_r_last = _naive_root(reps, [8, 8, 2])
    assert (L(out["comm_c"]), L(out["comm_r_last"])) == (comm_c, comm_r_last)
    assert L(out["comm_r"]) == poseidon_hash([comm_c, comm_r_last])


def test_node_conversions():
    vals = np.array([0, 1, R - 1, 2**254 - 1], dtype=object)
    nodes = rp.fr_to_nodes(vals)
    assert nodes.shape == (4, 32)
    assert nodes[2].tobytes() == (R - 1).to_bytes(32, "little")
    assert [int(v) for v in rp.nodes_to_fr(nodes)] == [int(v) for v in vals]
    with pytest.raises(ValueError):
        rp.nodes_to_fr(R.to_bytes(32, "little"))
    with pytest.raises(ValueError):
        rp.nodes_to_fr(b"\x00" * 31)


def test_replicate_rejects_bad_input():
    with pytest.raises(ValueError):
        rp.replicate(bytes(1024), bytes(32), 2048, 2, porep_id(2048))
    bad = bytearray(2048)
    bad[31] = 0xFF  # node 0 >= r
    with pytest.raises(ValueError):
        rp.replicate(bytes(bad), bytes(32), 2048, 2, porep_id(2048))
