"""SnapDeals vanilla side (cuzk.sector.update) against upstream's vectors and naive recomputation.

Upstream data (tests/fixtures/filecoin, see its README):
* ``unit-vectors.json`` ``snapdeals_challenges`` and ``snapdeals-challenges.json`` (all 24 cases of
  rust-fil-proofs ``storage-proofs-update/src/challenges.rs`` ``test_challenges_against_hardcoded``):
  the first 5 challenges of a partition for ``comm_r_new = Fr::random(XorShiftRng::from_seed(TEST_SEED))``.
  Reproducing them needs that random element, so rand_xorshift 0.3's ``XorShiftRng`` (seed = four
  little-endian u32 x, y, z, w; ``next_u64`` = low u32 then high u32) and blstrs 0.7.1's
  ``Scalar::random`` (four ``next_u64`` limbs, little-endian, top bit masked, rejected if ≥ r) are
  ported below.
* ``venus-presealed-2kib.json``, ``venus-sealed/``: a real sealed 2 KiB replica (filecoin-project/venus genesis sector
  t0106 #0) with its comm_c, comm_r_last and comm_r, used as the sector key of an update. Its data
  is random rather than a CC sector's zeros; the update does not depend on what the key encodes.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cuzk.hash.poseidon import R, poseidon_hash
from cuzk.sector import update as up
from cuzk.sector.commd import comm_d
from cuzk.sector.fr32 import pad_sector, unpadded_size
from cuzk.sector.replica import build_tree, comm_r, fr_to_nodes, tree_arities

FIX = Path(__file__).parent / "fixtures" / "filecoin"
_M32 = (1 << 32) - 1


def _le(b) -> int:
    return int.from_bytes(bytes(b), "little")


def _node(v: int) -> bytes:
    return int(v).to_bytes(32, "little")


class _XorShift:
    """rand_xorshift 0.3 ``XorShiftRng`` (Marsaglia xorshift128, 32-bit words)."""

    def __init__(self, seed: bytes):
        self.x, self.y, self.z, self.w = (int.from_bytes(seed[i : i + 4], "little") for i in range(0, 16, 4))

    def next_u32(self) -> int:
        t = (self.x ^ (self.x << 11)) & _M32
        self.x, self.y, self.z = self.y, self.z, self.w
        self.w = (self.w ^ (self.w >> 19) ^ (t ^ (t >> 8))) & _M32
        return self.w

    def next_u64(self) -> int:
        lo = self.next_u32()
        return (self.next_u32() << 32) | lo


def _fr_random(rng: _XorShift) -> int:
    """blstrs 0.7.1 ``Scalar::random``: rejection sampling of 255-bit little-endian limbs."""
    while True:
        v = sum(rng.next_u64() << (64 * i) for i in range(4)) & ((1 << 255) - 1)
        if v < R:
            return v


def _upstream_comm_r_new(seed_hex: str) -> bytes:
    return _node(_fr_random(_XorShift(bytes.fromhex(seed_hex))))


# --- challenges ----------------------------------------------------------------------------------

def _challenge_cases():
    doc = json.loads((FIX / "snapdeals-challenges.json").read_text())
    return doc["test_seed"], [(c["sector_size"], c["partition"], c["first_5"]) for c in doc["cases"]]


SEED, CASES = _challenge_cases()


def test_unit_vectors_snapdeals_challenges():
    vec = json.loads((FIX / "unit-vectors.json").read_text())["snapdeals_challenges"]
    comm_r_new = _upstream_comm_r_new(SEED)
    for key, size in (("2048_partition0", 2048), ("8MiB_partition0", 8 << 20), ("8MiB_partition1", 8 << 20)):
        k = int(key.rsplit("partition", 1)[1])
        assert up.challenges(comm_r_new, size, k)[:5].tolist() == vec[key], key


@pytest.mark.parametrize("size,k,first5", CASES)
def test_all_upstream_challenge_vectors(size, k, first5):
    assert up.challenges(_upstream_comm_r_new(SEED), size, k)[:5].tolist() == first5


@pytest.mark.parametrize("size", up.ALLOWED_SECTOR_SIZES)
def test_challenge_bucketing_and_counts(size):
    """As upstream's ``test_challenge_bucketing``: count per partition, each in partition k's slice."""
    comm_r_new = _node(12345678901234567890)
    n, parts = size // 32, up.partition_count(size)
    for k in range(parts):
        c = up.challenges(comm_r_new, size, k)
        assert len(c) == up.challenge_count(size)
        assert (c >= k * n // parts).all() and (c < (k + 1) * n // parts).all()


def test_challenges_naive_bits():
    """Partition 1 of 32 KiB from the digests by hand: 9 random bits per challenge, 28 per digest."""
    root = 987654321
    got = up.challenges(_node(root), 32 << 10, 1)
    # 10 challenges need 1 digest per partition: partition 1 uses digest index 1
    d = poseidon_hash([root, 1], arity=2, domain_tag=1 << 40)
    assert got.tolist() == [((d >> (9 * i)) & 511) + 512 for i in range(10)]


def test_challenge_errors():
    with pytest.raises(up.UpdateError, match="partition k=2"):
        up.challenges(_node(1), 32 << 10, 2)
    with pytest.raises(up.UpdateError, match="sector_size 3000"):
        up.challenges(_node(1), 3000, 0)
    with pytest.raises(up.UpdateError, match="comm_r_new"):
        up.challenges(_node(R), 2048, 0)


def test_constants():
    assert [up.partition_count(s) for s in (2048, 16 << 10, 8 << 20, 32 << 30)] == [1, 2, 4, 16]
    assert [up.challenge_count(s) for s in (2048, 16 << 20, 512 << 20, 64 << 30)] == [10, 10, 86, 86]
    assert up.h_default(32 << 30) == 10 and up.hs(2048) == (1,) * 6
    assert up.tree_r_shape(8 << 10) == (8, 4, 0) and up.tree_r_shape(32 << 30) == (8, 8, 0)


# --- encoding ------------------------------------------------------------------------------------

def _cc_sector(size: int, seed: int):
    """A random 'CC' replica (canonical nodes) with its comm_r_last, and a comm_c."""
    rng = np.random.default_rng(seed)
    key = [int.from_bytes(rng.bytes(32), "little") % R for _ in range(size // 32)]
    shape = up.tree_r_shape(size)
    comm_r_last = _node(build_tree(np.array(key, dtype=object), shape)[-1][0])
    return b"".join(map(_node, key)), comm_r_last, _node(int.from_bytes(rng.bytes(31), "little"))


def _deal_data(size: int, seed: int) -> bytes:
    """Random payload bytes, Fr32-padded to the sector size."""
    return pad_sector(np.random.default_rng(seed).bytes(unpadded_size(size)), size)


@pytest.fixture(scope="module", params=[2048, 8 << 10, 32 << 10])  # trees 8-0-0, 8-4-0, 8-8-2
def updated(request):
    size = request.param
    key, comm_r_last_old, comm_c = _cc_sector(size, 1)
    data = _deal_data(size, 2)
    h = up.h_default(size)
    return size, key, data, comm_c, comm_r_last_old, up.encode(key, data, comm_c, comm_r_last_old, h, size)


def test_encode_decode_round_trip(updated):
    size, key, data, comm_c, comm_r_last_old, out = updated
    assert up.decode(out["replica"], key, out["comm_d_new"], out["comm_r_old"], out["h"], size) == data
    assert out["replica"] != key


def test_encode_against_naive(updated):
    """comm_d, phi, rho, a few nodes, tree_r_new's root and comm_r_new recomputed with plain ints."""
    size, key, data, comm_c, comm_r_last_old, out = updated
    n, h, tag = size // 32, out["h"], 1 << 40
    assert out["comm_d_new"] == comm_d(data)
    comm_r_old = poseidon_hash([_le(comm_c), _le(comm_r_last_old)], arity=2, domain_tag=3)
    assert _le(out["comm_r_old"]) == comm_r_old
    phi = poseidon_hash([_le(out["comm_d_new"]), comm_r_old], arity=2, domain_tag=tag)
    assert _le(out["phi"]) == phi
    rep = out["replica"]
    shr = n.bit_length() - 1 - h
    for v in (0, 1, n // 2 - 1, n // 2, n - 1):
        rho = poseidon_hash([phi, v >> shr], arity=2, domain_tag=tag)
        want = (_le(key[32 * v : 32 * v + 32]) + rho * _le(data[32 * v : 32 * v + 32])) % R
        assert _le(rep[32 * v : 32 * v + 32]) == want, v
    # the root by a plain recursive tree over the replica's ints
    leaves = [_le(rep[32 * v : 32 * v + 32]) for v in range(n)]
    arities = tree_arities(n, up.tree_r_shape(size))

    def root(xs, ar):
        if not ar:
            return xs[0]
        m = len(xs) // ar[-1]
        return poseidon_hash([root(xs[i * m : (i + 1) * m], ar[:-1]) for i in range(ar[-1])])

    r_last = root(leaves, arities)
    assert _le(out["comm_r_last_new"]) == r_last
    assert _le(out["comm_r_new"]) == poseidon_hash([_le(comm_c), r_last], arity=2, domain_tag=3)
    assert out["comm_r_new"] == comm_r(comm_c, out["comm_r_last_new"])


def test_node_rhos_8mib_naive():
    """rho per node at 8 MiB with every allowed h: the h high bits of the 18-bit node index."""
    size, ph = 8 << 20, _node(424242)
    n = size // 32
    for h in (7, 12):
        rhos = up.node_rhos(ph, h, size)
        assert len(rhos) == n
        for v in (0, (1 << (18 - h)) - 1, 1 << (18 - h), 123457, n - 1):
            assert int(rhos[v]) == poseidon_hash([424242, v >> (18 - h)], arity=2, domain_tag=1 << 40), (h, v)


def test_encode_errors(updated):
    size, key, data, comm_c, comm_r_last_old, _ = updated
    with pytest.raises(up.UpdateError, match="h=2"):
        up.encode(key, data, comm_c, comm_r_last_old, 2, size)
    with pytest.raises(up.UpdateError, match=f"data has {size // 32 - 1} nodes"):
        up.encode(key, data[:-32], comm_c, comm_r_last_old, 1, size)
    bad = bytearray(data)
    bad[31] = 0xFF
    with pytest.raises(up.UpdateError, match="data: node 0"):
        up.encode(key, bytes(bad), comm_c, comm_r_last_old, 1, size)
    with pytest.raises(up.UpdateError, match="comm_c must be 32 bytes"):
        up.encode(key, data, comm_c[:31], comm_r_last_old, 1, size)


# --- partition vanilla proofs --------------------------------------------------------------------

def _prove_all(size, key, comm_c, out):
    tree_r_old = build_tree(key, up.tree_r_shape(size))
    return tree_r_old, [up.prove_partition(k, sector_size=size, comm_c=comm_c, comm_r_new=out["comm_r_new"],
                                           tree_r_old=tree_r_old, tree_d_new=out["tree_d_new"],
                                           tree_r_new=out["tree_r_new"])
                        for k in range(up.partition_count(size))]


def _publics(out, size):
    return dict(sector_size=size, comm_r_old=out["comm_r_old"], comm_d_new=out["comm_d_new"],
                comm_r_new=out["comm_r_new"], h=out["h"])


@pytest.fixture(scope="module")
def proved(updated):
    size, key, data, comm_c, comm_r_last_old, out = updated
    return _prove_all(size, key, comm_c, out)


def test_partition_proofs_verify_and_open_the_right_nodes(updated, proved):
    size, key, data, comm_c, comm_r_last_old, out = updated
    _, proofs = proved
    assert len(proofs) == up.partition_count(size)
    rep = out["replica"]
    for k, proof in enumerate(proofs):
        up.verify_partition(proof, k, **_publics(out, size))
        assert len(proof.apex_leafs) == up.apex_leaf_count(size)
        for c, p in zip(up.challenges(out["comm_r_new"], size, k).tolist(), proof.challenge_proofs):
            assert p.leaf_r_old == _le(key[32 * c : 32 * c + 32])
            assert p.leaf_d_new == data[32 * c : 32 * c + 32]
            assert p.leaf_r_new == _le(rep[32 * c : 32 * c + 32])
            assert p.root_r_old == _le(comm_r_last_old) and _node(p.root_r_new) == out["comm_r_last_new"]


def test_partition_proof_for_the_wrong_partition_is_refused(updated, proved):
    size, _, _, _, _, out = updated
    _, proofs = proved
    if len(proofs) == 1:
        pytest.skip("one partition")
    with pytest.raises(up.UpdateProofError) as e:
        up.verify_partition(proofs[0], 1, **_publics(out, size))
    assert e.value.what in ("tree_r_old", "tree_r_new")


def test_tampered_public_inputs_are_refused(updated, proved):
    size, _, _, _, _, out = updated
    _, proofs = proved
    for field in ("comm_r_new", "comm_d_new", "comm_r_old"):
        pub = _publics(out, size)
        pub[field] = _node((_le(pub[field]) + 1) % R)
        with pytest.raises(up.UpdateProofError, match=field) as e:
            up.verify_partition(proofs[0], 0, **pub)
        assert e.value.what == field


def test_tampered_proof_fields_are_refused(updated, proved):
    size, _, _, _, _, out = updated
    _, proofs = proved
    p0 = proofs[0]
    cp = p0.challenge_proofs[3]
    cases = [
        ("tree_r_new", {"leaf_r_new": (cp.leaf_r_new + 1) % R}),
        ("tree_r_new", {"path_r_new": cp.path_r_new[:-1]}),
        ("tree_r_old", {"leaf_r_old": (cp.leaf_r_old + 1) % R}),
        ("comm_d_new", {"leaf_d_new": _node(_le(cp.leaf_d_new) ^ 1)}),
        ("comm_d_new", {"path_d_new": cp.path_d_new[:-1]}),
    ]
    for what, change in cases:
        bad = up.PartitionProof(p0.comm_c, p0.apex_leafs,
                                p0.challenge_proofs[:3] + [cp.__class__(**{**cp.__dict__, **change})]
                                + p0.challenge_proofs[4:])
        with pytest.raises(up.UpdateProofError) as e:
            up.verify_partition(bad, 0, **_publics(out, size))
        assert e.value.what == what and "challenge 3" in str(e.value)
    bad = up.PartitionProof(p0.comm_c, p0.apex_leafs[:-1], p0.challenge_proofs)
    with pytest.raises(up.UpdateProofError, match="apex_leafs"):
        up.verify_partition(bad, 0, **_publics(out, size))
    bad = up.PartitionProof(p0.comm_c, [bytes(32)] + p0.apex_leafs[1:], p0.challenge_proofs)
    with pytest.raises(up.UpdateProofError, match="apex_leafs: .* not in the apex tree"):
        up.verify_partition(bad, 0, **_publics(out, size))
    bad = up.PartitionProof(_node(_le(p0.comm_c) + 1), p0.apex_leafs, p0.challenge_proofs)
    with pytest.raises(up.UpdateProofError, match="comm_r_old"):
        up.verify_partition(bad, 0, **_publics(out, size))


def test_one_wrong_replica_node_is_refused():
    """A replica with one node off (trees and comm_r_new built over it) is refused at that node.

    The node must be challenged, and the challenges follow comm_r_new, so the first node whose
    tampering makes it challenged in partition 0 is taken.
    """
    size = 2048
    key, comm_r_last_old, comm_c = _cc_sector(size, 5)
    data = _deal_data(size, 6)
    out = up.encode(key, data, comm_c, comm_r_last_old, 1, size)
    vals = [_le(out["replica"][32 * v : 32 * v + 32]) for v in range(64)]
    for v in range(64):
        bad = vals.copy()
        bad[v] = (bad[v] + 1) % R
        tree = build_tree(np.array(bad, dtype=object), up.tree_r_shape(size))
        comm_r_new = comm_r(comm_c, _node(tree[-1][0]))
        if v in up.challenges(comm_r_new, size, 0).tolist():
            break
    else:
        pytest.fail("no node becomes challenged when tampered")
    tampered = {**out, "tree_r_new": tree, "comm_r_new": comm_r_new}
    _, (proof,) = _prove_all(size, key, comm_c, tampered)
    with pytest.raises(up.UpdateProofError) as e:
        up.verify_partition(proof, 0, **_publics(tampered, size))
    assert e.value.what == "replica node" and f"(node {v})" in str(e.value)


def test_prove_partition_rejects_inconsistent_trees(updated):
    size, key, data, comm_c, comm_r_last_old, out = updated
    tree_r_old = build_tree(key, up.tree_r_shape(size))
    leaves = tree_r_old[0].copy()
    leaves[:] = [(int(x) + 1) % R for x in leaves]
    with pytest.raises(up.UpdateError, match="tree_r_old"):
        up.prove_partition(0, sector_size=size, comm_c=comm_c, comm_r_new=out["comm_r_new"],
                           tree_r_old=[leaves] + tree_r_old[1:], tree_d_new=out["tree_d_new"],
                           tree_r_new=out["tree_r_new"])
    with pytest.raises(up.UpdateError, match="partition k=9"):
        up.prove_partition(9, sector_size=size, comm_c=comm_c, comm_r_new=out["comm_r_new"],
                           tree_r_old=tree_r_old, tree_d_new=out["tree_d_new"], tree_r_new=out["tree_r_new"])


def test_update_of_a_real_sealed_2kib_replica():
    """The real replica's tree gives its published comm_r_last and comm_r (= comm_r_old); the update
    over it proves, verifies and decodes back to the deal data."""
    doc = json.loads((FIX / "venus-presealed-2kib.json").read_text())
    sec = doc["sectors"][0]
    key = (FIX / "venus-sealed" / sec["sealed_file"].split("/")[-1]).read_bytes()
    comm_c, comm_r_last = bytes.fromhex(sec["comm_c"]), bytes.fromhex(sec["comm_r_last"])
    tree_r_old = build_tree(key, up.tree_r_shape(2048))
    assert fr_to_nodes(tree_r_old[-1]).tobytes() == comm_r_last
    data = _deal_data(2048, 7)
    out = up.encode(key, data, comm_c, comm_r_last, 1, 2048)
    assert out["comm_r_old"] == bytes.fromhex(sec["comm_r"])
    proof = up.prove_partition(0, sector_size=2048, comm_c=comm_c, comm_r_new=out["comm_r_new"],
                               tree_r_old=tree_r_old, tree_d_new=out["tree_d_new"], tree_r_new=out["tree_r_new"])
    up.verify_partition(proof, 0, **_publics(out, 2048))
    assert up.decode(out["replica"], key, out["comm_d_new"], out["comm_r_old"], 1, 2048) == data
