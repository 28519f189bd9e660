"""SDR parent graph and labeling against rust-fil-proofs' published values.

Upstream vectors used (rust-fil-proofs, commit 87348a7):
* ``storage-proofs-porep/parent_cache.json``: SHA-256 of the parent cache file (the (N, 14) u32 LE
  table) and its file name ``v28-sdr-parent-<sha256 of hasher name, graph identifier, feistel keys,
  cache entries>`` per sector size and porep id (checked by ``ParentCache::generate``/``open``).
* ``storage-proofs-porep/src/stacked/vanilla/create_label/multi.rs`` ``test_create_labels``:
  last label of layer 11 for 2 KiB / 4 KiB sectors, replica_id = [9; 32].
* ChaCha: draft-strombergson-chacha-test-vectors TC1 (ChaCha8, zero key and IV; also in nettle's
  chacha-test.c) and RFC 7539 §2.3.2 (ChaCha20 block function).
"""

from __future__ import annotations

import hashlib
import os

import numpy as np
import pytest

from cuzk.sector import graph as g
from cuzk.sector.labels import label_header, label_layers


def porep_id(n: int) -> bytes:
    return n.to_bytes(8, "little") + bytes(24)


# (sector size, registered proof id, api version) -> (manifest key, SHA-256 of the cache file)
PARENT_CACHE_MANIFEST = {
    (2048, 0, "1.0"): (
        "v28-sdr-parent-3f0eef38bb48af1f48ad65e14eb85b4ebfc167cec18cd81764f6d998836c9899",
        "3da49221e2ed55371b86d0bf3d6526fcf128af61bed904f966428db1b531750d",
    ),
    (2048, 5, "1.1"): (
        "v28-sdr-parent-494d91dc80f2df5272c4b9e129bc7ade9405225993af9fe34e6542a39a47554b",
        "840057702eea7652cf97e04306c30fe57174714d90de156a25eddd6075c25b97",
    ),
    (8 << 20, 1, "1.0"): (
        "v28-sdr-parent-dcdabb0fbe4364bf0ac28b6a18c66de246409fa1a9020a00f33fb3e3053da6dc",
        "a76604f2f59f2744c7151653bbb1d8596b6b57d295e6fa6c1f0c41d725b502ce",
    ),
    (8 << 20, 6, "1.1"): (
        "v28-sdr-parent-5eed212119fd91aa6220a27f31a8966444a9381842bceb3a1ea61525bd47a5b5",
        "03cd13565ded97c240a5f52e54295ad127bd0461b57904cb3a4d79b097bbecab",
    ),
    (512 << 20, 2, "1.0"): (
        "v28-sdr-parent-2aa9c77c3e58259481351cc4be2079cc71e1c9af39700866545c043bfa30fb42",
        "3adcc092423aa76d6a7184016893406da44dd974b219a89cd3ece25e4e3018f5",
    ),
    (512 << 20, 7, "1.1"): (
        "v28-sdr-parent-7ba215a1d2345774ab90b8cb1158d296e409d6068819d7b8c7baf0b25d63dc34",
        "b5877d1963793efebc261fd8fde4dd6bc59e6b5c7abf52617a4ee023b8dc173a",
    ),
}

# test_create_labels: (sector bytes, porep id, api version) -> last label of layer 11 (Fr u64 limbs LE)
CREATE_LABELS = [
    (2048, bytes(32), "1.0", [0xD3FAA96B9A0FBA04, 0xEA81A283D106485E, 0xE3D51B9AFA5AC2B3, 0x0462F4F4F1A68D37]),
    (4096, bytes(32), "1.0", [0x7E191E52C4A8DA86, 0x5AE8A1C9E6FAC148, 0xCE239F3B88A894B8, 0x234C00D1DC1D53BE]),
    (2048, bytes([123]) * 32, "1.1", [0xABB3F38BB70DEFCF, 0x777A2E4D7769119F, 0x3448959D495490BC, 0x06021188C7A71CB5]),
    (4096, bytes([123]) * 32, "1.1", [0x22AB81CF68C4676D, 0x7A77A82FC7C9C189, 0xC6C03D32C1E42D23, 0x0F777C18CC2C55BD]),
]


def upstream_cache_name(nodes: int, pid: bytes) -> str:
    """cache.rs ``cache_path``: SHA-256(H::name() ‖ graph.identifier() ‖ feistel keys LE ‖ u32_le(entries))."""
    ident = (
        "stacked_graph::StackedGraph{expansion_degree: 8 base_graph: "
        f"drgraph::BucketGraph{{size: {nodes}; degree: 6; hasher: poseidon_hasher}} }}"
    )
    h = hashlib.sha256(b"poseidon_hasher" + ident.encode())
    for k in g.feistel_keys(pid):
        h.update(k.to_bytes(8, "little"))
    h.update(nodes.to_bytes(4, "little"))
    return "v28-sdr-parent-" + h.hexdigest()


# ---------------------------------------------------------------- ChaCha


def _state(key: bytes, counter_word12: int, words13_15=(0, 0, 0)) -> np.ndarray:
    s = np.zeros((1, 16), dtype=np.uint32)
    s[0, :4] = np.frombuffer(b"expand 32-byte k", dtype="<u4")
    s[0, 4:12] = np.frombuffer(key, dtype="<u4")
    s[0, 12] = counter_word12
    s[0, 13:16] = words13_15
    return s


def test_chacha8_strombergson_tc1():
    expected = bytes.fromhex(
        "3e00ef2f895f40d67f5bb8e81f09a5a12c840ec3ce9a7f3b181be188ef711a1e"
        "984ce172b9216f419f445367456d5619314a42a3da86b001387bfdb80e0cfe42"
        "d2aefa0deaa5c151bf0adb6c01f2a5adc0fd581259f9a2aadcf20f8fd566a26b"
        "5032ec38bbc5da98ee0c6f568b872a65a08abf251deb21bb4b56e5d8821e68aa"
    )
    got = b"".join(g.chacha_block(_state(bytes(32), b), 8).astype("<u4").tobytes() for b in (0, 1))
    assert got == expected
    # the same through the rand_chacha view: next_u64 = low word | high word << 32
    u = g.chacha8_u64s(np.zeros((1, 32), np.uint8), 16)[0]
    assert [int(x) for x in u] == [int.from_bytes(expected[8 * i : 8 * i + 8], "little") for i in range(16)]


def test_chacha20_rfc7539_block():
    nonce = np.frombuffer(bytes.fromhex("000000090000004a00000000"), dtype="<u4")
    out = g.chacha_block(_state(bytes(range(32)), 1, nonce), 20).astype("<u4").tobytes()
    assert out.hex() == (
        "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
        "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e"
    )


def test_chacha_vectorized_rows_independent():
    rng = np.random.default_rng(1)
    seeds = rng.integers(0, 256, size=(5, 32), dtype=np.uint8)
    many = g.chacha8_u64s(seeds, 10)
    for i in range(5):
        assert np.array_equal(many[i], g.chacha8_u64s(seeds[i : i + 1], 10)[0])


# ---------------------------------------------------------------- parent graph


@pytest.mark.parametrize("size,proof_id,api", [k for k in PARENT_CACHE_MANIFEST if k[0] <= 8 << 20])
def test_parent_cache_matches_upstream_manifest(size, proof_id, api, tmp_path):
    name, digest = PARENT_CACHE_MANIFEST[(size, proof_id, api)]
    pid = porep_id(proof_id)
    assert upstream_cache_name(size // 32, pid) == name  # pins the Feistel keys too
    table = g.all_parents(size, pid, api_version=api, cache_dir=tmp_path)
    assert table.shape == (size // 32, 14) and table.dtype == np.dtype("<u4")
    assert hashlib.sha256(table.tobytes()).hexdigest() == digest
    # the .npy payload is upstream's cache file byte for byte
    path = g.parents_cache_path(size, pid, api_version=api, cache_dir=tmp_path)
    raw = path.read_bytes()
    assert hashlib.sha256(raw[len(raw) - size // 32 * 56 :]).hexdigest() == digest


@pytest.mark.skipif(not os.environ.get("CUZK_SLOW_TESTS"), reason="512 MiB parent tables: ~15 s and 1 GiB each")
@pytest.mark.parametrize("proof_id,api", [(2, "1.0"), (7, "1.1")])
def test_parent_cache_512mib_matches_upstream_manifest(proof_id, api):
    name, digest = PARENT_CACHE_MANIFEST[(512 << 20, proof_id, api)]
    pid = porep_id(proof_id)
    assert upstream_cache_name(1 << 24, pid) == name
    table = g.all_parents(512 << 20, pid, api_version=api, cache=False)
    assert hashlib.sha256(table.tobytes()).hexdigest() == digest


def test_parents_single_node_matches_table_and_is_deterministic():
    pid = porep_id(6)
    table = g.all_parents(8 << 20, pid, cache=False)
    for v in (0, 1, 2, 3, 1000, 123457, (1 << 18) - 1):
        p = g.parents(8 << 20, pid, v)
        assert len(p) == 14 and all(type(x) is int for x in p)
        assert p == table[v].tolist() == g.parents(8 << 20, pid, v)
    nodes = [123457, 0, 1000, 123457, 3]
    many = g.parents_many(8 << 20, pid, nodes)
    assert many.shape == (5, 14) and (many == table[nodes]).all()
    assert (g.parents_many(8 << 20, pid, nodes, api_version="1.0") ==
            g.all_parents(8 << 20, pid, api_version="1.0", cache=False)[nodes]).all()
    with pytest.raises(IndexError):
        g.parents_many(8 << 20, pid, [5, 1 << 18])


@pytest.mark.parametrize("api", ["1.0", "1.1"])
def test_drg_structure(api):
    n = 1 << 14
    t = g.all_parents(n * 32, porep_id(3), api_version=api, cache=False)
    drg = t[:, :6].astype(np.int64)
    assert (drg[:2] == 0).all()  # nodes 0 and 1: all parents are node 0
    v = np.arange(n)[2:, None]
    assert (drg[2:] < v).all()  # strictly earlier nodes: no self reference
    pred = drg[2:, 5] if api == "1.0" else drg[2:, 0]
    assert (pred == v[:, 0] - 1).all()  # the immediate predecessor, first (1.1) or last (1.0)


def test_expander_parents_in_range_and_a_permutation():
    n = 1 << 12
    t = g.all_parents(n * 32, porep_id(5), cache=False)
    exp = t[:, 6:]
    assert exp.max() < n
    # correspondent(): parent = permute(8n, 8v + i) // 8, so every node is an expander parent exactly 8 times
    assert (np.bincount(exp.reshape(-1), minlength=n) == 8).all()


@pytest.mark.parametrize("n", [4**5, 5, 6, 8, 12, 17, 1000, 8 * 64])
def test_feistel_bijection_and_inverse(n):
    keys = g.feistel_keys(porep_id(5))
    x = np.arange(n, dtype=np.uint64)
    p = g.feistel_permute(n, x, keys)
    assert (p < n).all() and np.array_equal(np.sort(p), x)
    assert np.array_equal(g.feistel_invert_permute(n, p, keys), x)
    # upstream's own test keys (feistel.rs tests use [1, 2, 3, 4])
    p = g.feistel_permute(n, x, [1, 2, 3, 4])
    assert np.array_equal(np.sort(p), x)
    assert np.array_equal(g.feistel_invert_permute(n, p, [1, 2, 3, 4]), x)


def test_feistel_precompute():
    assert g.feistel_precompute(512) == (0b11111_00000, 0b11111, 5)
    assert g.feistel_precompute(8 << 31) == (((1 << 17) - 1) << 17, (1 << 17) - 1, 17)  # 64 GiB: 34 bits


def test_porep_id_changes_graph():
    a = g.all_parents(2048, porep_id(5), cache=False)
    b = g.all_parents(2048, porep_id(0), cache=False)
    assert not np.array_equal(a, b)


def test_cache_roundtrip_and_corrupt_cache_regenerated(tmp_path):
    pid = porep_id(5)
    a = np.array(g.all_parents(2048, pid, cache_dir=tmp_path))  # a copy: the result maps the file
    path = g.parents_cache_path(2048, pid, cache_dir=tmp_path)
    assert path.exists() and not list(tmp_path.glob(".*.tmp"))
    b = g.all_parents(2048, pid, cache_dir=tmp_path)
    assert np.array_equal(a, b)
    np.save(path, np.zeros((3, 14), dtype="<u4"))  # wrong shape: regenerated
    c = g.all_parents(2048, pid, cache_dir=tmp_path)
    assert np.array_equal(a, c)
    path.write_bytes(b"garbage")
    assert np.array_equal(a, g.all_parents(2048, pid, cache_dir=tmp_path))


def test_bad_arguments():
    with pytest.raises(ValueError):
        g.parents(3000, porep_id(5), 1)
    with pytest.raises(ValueError):
        g.parents(2048, b"short", 1)
    with pytest.raises(ValueError):
        g.parents(2048, porep_id(5), 1, api_version="2.0")
    with pytest.raises(IndexError):
        g.parents(2048, porep_id(5), 64)


# ---------------------------------------------------------------- labels


@pytest.mark.parametrize("size,pid,api,limbs", CREATE_LABELS)
def test_create_labels_upstream(size, pid, api, limbs, tmp_path):
    layers = label_layers(bytes([9]) * 32, size, 11, pid, api_version=api, cache_dir=tmp_path)
    assert len(layers) == 11
    expected = b"".join(x.to_bytes(8, "little") for x in limbs)
    assert layers[-1][-1].tobytes() == expected


def test_labels_by_definition():
    """Recompute a few labels directly from the documented formula with hashlib."""
    size, pid, rid = 2048, porep_id(5), bytes(range(32))
    L = label_layers(rid, size, 2, pid, cache_dir=None, parents=g.all_parents(size, pid, cache=False))
    assert [x.shape for x in L] == [(64, 32), (64, 32)]
    assert all((x[:, 31] < 0x40).all() for x in L)

    def sha254(b):
        d = bytearray(hashlib.sha256(b).digest())
        d[31] &= 0x3F
        return bytes(d)

    for layer in (1, 2):
        assert L[layer - 1][0].tobytes() == sha254(label_header(rid, layer, 0))
    hdr = label_header(rid, 1, 7)
    assert hdr[32:44] == (1).to_bytes(4, "big") + (7).to_bytes(8, "big") and hdr[44:] == bytes(20)
    p = g.parents(size, pid, 7)
    base = [L[0][q].tobytes() for q in p[:6]]
    assert L[0][7].tobytes() == sha254(hdr + b"".join((base * 7)[:37]))
    allp = [L[1][q].tobytes() for q in p[:6]] + [L[0][q].tobytes() for q in p[6:]]
    assert L[1][7].tobytes() == sha254(label_header(rid, 2, 7) + b"".join((allp * 3)[:37]))


def test_labels_depend_on_replica_id_and_layer():
    pid = porep_id(5)
    P = g.all_parents(2048, pid, cache=False)
    a = label_layers(bytes(32), 2048, 2, pid, parents=P)
    b = label_layers(bytes([1]) + bytes(31), 2048, 2, pid, parents=P)
    assert not np.array_equal(a[0], b[0]) and not np.array_equal(a[0], a[1])
    assert np.array_equal(a[0], label_layers(bytes(32), 2048, 1, pid, parents=P)[0])


def test_label_bad_arguments():
    with pytest.raises(ValueError):
        label_layers(bytes(31), 2048, 2, porep_id(5))
    with pytest.raises(ValueError):
        label_layers(bytes(32), 2048, 0, porep_id(5))
    with pytest.raises(ValueError):
        label_layers(bytes(32), 2048, 2, porep_id(5), parents=np.zeros((3, 14), np.uint32))
