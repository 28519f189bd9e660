"""The SnapDeals circuit (cuzk.circuits.update): upstream's constraint counts, a real 2 KiB update
proved end to end, and tampering refused by the gadget that checks it.

The sector key is a real sealed 2 KiB replica (venus genesis sector t0106 #0, tests/fixtures/filecoin,
see its README) with its published comm_c / comm_r_last; the deal data is random, Fr32-padded.
Expected values come from elsewhere: constraint counts from rust-fil-proofs
``storage-proofs-update/tests/circuit.rs`` and ``gadgets.rs``; challenges from the vanilla side
(:mod:`cuzk.sector.update`, itself checked against upstream's challenge vectors); public inputs
from the commitments' bytes.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from cuzk.backend.cuda import cuda_available
from cuzk.circuits import update as cu
from cuzk.hash.poseidon import R
from cuzk.r1cs import ConstraintSystem, Unsatisfied, lc
from cuzk.sector import update as su
from cuzk.sector.fr32 import pad_sector, unpadded_size
from cuzk.sector.replica import build_tree, comm_r

FIX = Path(__file__).parent / "fixtures" / "filecoin"
SIZE = 2048

# storage-proofs-update/tests/circuit.rs: TestConstraintSystem / BenchCS num_constraints (no input rows)
UPSTREAM_CONSTRAINTS = {
    "test-only-update-1KiB": 1_248_389, "update-2KiB": 1_705_039, "test-only-update-4KiB": 2_165_109,
    "test-only-update-8KiB": 2_620_359, "test-only-update-16KiB": 6_300_021,
    "test-only-update-32KiB": 6_760_091, "update-32GiB": 81_049_499,
}


def _le(b) -> int:
    return int.from_bytes(bytes(b), "little")


def test_upstream_constraint_counts_and_shapes():
    for name, want in UPSTREAM_CONSTRAINTS.items():
        st = cu.shape_by_name(name).stats()
        assert st["circuit_constraints"] == want, name
        assert st["inputs"] == 5 and st["constraints"] == want + 5
    for name, parts, k in (("update-32GiB", 16, 86), ("update-64GiB", 16, 86), ("update-2KiB", 1, 10),
                           ("test-only-update-16KiB", 2, 10), ("update-8MiB", 4, 10)):
        s = cu.shape_by_name(name)
        assert (s.partitions, s.challenges) == (parts, k)
    assert cu.shape_by_name("update-64GiB").arities == [8] * 9 + [8, 2]
    assert cu.shape_by_name("update-32GiB").apex_depth == 30 - 4 - 7


def _sha_counts():
    """gadgets.rs test_gen_challenge_bits_gadget (568 a digest) and test_apex_por_gadget
    (317,654 for 8 apex leaves, 5,808,515 for 128 leaves and one partition level)."""
    return cu._update_digests(32 << 30)["constraints"], cu._update_sha(0)["constraints"], cu._update_sha(1)["constraints"]


def test_gadget_counts_are_upstreams():
    digests, sha, level = _sha_counts()
    assert digests == 5680  # 10 digests at 32 GiB
    assert cu._update_digests(SIZE)["constraints"] == 568
    assert 7 * sha + 1 == 317_654
    assert 127 * sha + level + 1 == 5_808_515


@pytest.fixture(scope="module")
def update():
    doc = json.loads((FIX / "venus-presealed-2kib.json").read_text())
    sec = doc["sectors"][0]
    key = (FIX / "venus-sealed" / sec["sealed_file"].split("/")[-1]).read_bytes()
    comm_c, comm_r_last = bytes.fromhex(sec["comm_c"]), bytes.fromhex(sec["comm_r_last"])
    tree_r_old = build_tree(key, su.tree_r_shape(SIZE))
    data = pad_sector(np.random.default_rng(11).bytes(unpadded_size(SIZE)), SIZE)
    out = su.encode(key, data, comm_c, comm_r_last, 1, SIZE)
    assert out["comm_r_old"] == bytes.fromhex(sec["comm_r"])
    pub = dict(sector_size=SIZE, h=1, comm_r_old=out["comm_r_old"], comm_d_new=out["comm_d_new"],
               comm_r_new=out["comm_r_new"])
    proof = su.prove_partition(0, sector_size=SIZE, comm_c=comm_c, comm_r_new=out["comm_r_new"],
                               tree_r_old=tree_r_old, tree_d_new=out["tree_d_new"], tree_r_new=out["tree_r_new"])
    su.verify_partition(proof, 0, **pub)
    return key, comm_c, tree_r_old, out, pub, proof


def _build(values):
    cs = ConstraintSystem(shape=True, witness=True)
    refs = cu.synthesize(cs, cu.shape_by_name("update-2KiB"), values)
    return cs.finalize(), cs, refs


@pytest.fixture(scope="module")
def built(update):
    *_, pub, proof = update
    return _build(cu.values(proof, 0, **pub))


def test_real_update_satisfies_the_circuit(update, built):
    *_, out, pub, proof = update
    r1cs, cs, refs = built
    r1cs.check(cs.full_assignment())
    ins = [int(x) for x in cs.assignment()[0]]
    # k = 0, h = 1 = hs[0]: h_select = 1
    assert ins == [1, 1, _le(out["comm_r_old"]), _le(out["comm_d_new"]), _le(out["comm_r_new"])]
    assert ins[1:] == cu.public_inputs(0, **pub)
    bits = cs.value(refs["c_bits"], dtype=object)
    got = [sum(int(b) << i for i, b in enumerate(row)) for row in bits]
    assert got == su.challenges(out["comm_r_new"], SIZE, 0).tolist()
    st = r1cs.stats()
    want = cu.shape_by_name("update-2KiB").stats()
    assert {k: st[k] for k in ("inputs", "aux", "constraints", "nnz_a", "nnz_b", "nnz_c")} == \
        {k: want[k] for k in ("inputs", "aux", "constraints", "nnz_a", "nnz_b", "nnz_c")}


def _wrong_node_update(update):
    """The update re-encoded with one replica node off (trees and comm_r_new built over it), the
    node chosen so that it is challenged; its vanilla proof (upstream's prover checks openings only)."""
    key, comm_c, tree_r_old, out, pub, _ = update
    vals = [int(x) for x in out["tree_r_new"][0]]
    for v in range(SIZE // 32):
        bad = vals.copy()
        bad[v] = (bad[v] + 1) % R
        tree = build_tree(np.array(bad, dtype=object), su.tree_r_shape(SIZE))
        new = comm_r(comm_c, int(tree[-1][0]).to_bytes(32, "little"))
        if v in su.challenges(new, SIZE, 0).tolist():
            break
    pub = {**pub, "comm_r_new": new}
    proof = su.prove_partition(0, sector_size=SIZE, comm_c=comm_c, comm_r_new=new, tree_r_old=tree_r_old,
                               tree_d_new=out["tree_d_new"], tree_r_new=tree)
    with pytest.raises(su.UpdateProofError, match="replica node"):
        su.verify_partition(proof, 0, **pub)
    return cu.values(proof, 0, **pub)


@pytest.mark.parametrize("what,gadget", [("comm_r_new", "update/comm_r_new"), ("comm_d_new", "update/comm_d_new"),
                                         ("replica node", "update/tree_r_new/root")])
def test_tampering_is_refused_by_its_gadget(update, built, what, gadget):
    *_, pub, proof = update
    if what == "replica node":
        v = _wrong_node_update(update)
    else:
        v = cu.values(proof, 0, **pub)
        i = {"comm_d_new": 2, "comm_r_new": 3}[what]
        v["inputs"][i] = (v["inputs"][i] + 1) % R
    cs = ConstraintSystem(shape=False, witness=True)  # the honest build's R1CS checks it
    cu.synthesize(cs, cu.shape_by_name("update-2KiB"), v)
    with pytest.raises(Unsatisfied) as e:
        built[0].check(cs.full_assignment())
    assert e.value.gadget == gadget


def _gadget_witness(build):
    cs = ConstraintSystem(shape=True, witness=True)
    out = build(cs)
    cs.finalize().check(cs.full_assignment())
    return cs, out


@pytest.mark.parametrize("size,k", [(16 << 10, 1), (32 << 30, 13)])
def test_challenge_bits_and_high_bits_of_later_partitions(size, k):
    """gen_challenge_bits with partition bits (k > 0) gives the vanilla challenges; the selected
    high bits are c >> (log2 N − h) for each allowed h."""
    shape = cu.shape_for(size)
    comm_r_new = (123456789 << 100) + 77
    want = su.challenges(comm_r_new.to_bytes(32, "little"), size, k)
    p = shape.partition_bits
    for j, h in enumerate(shape.hs):
        khs = cu.k_and_h_select(k, h, size)

        def build(cs):
            x = cs.alloc_aux(2, [comm_r_new, k])
            pbits = cs.alloc_aux(p, [(k >> i) & 1 for i in range(p)])
            cs.enforce(lc(pbits[None, :], [1 << i for i in range(p)]), lc(cs.one(1)), lc(x[1:]), gadget="t")
            rand = cu._challenge_bits(cs, shape, x[:1], x[1:], {"inputs": [khs]})
            c_bits = np.concatenate([rand, np.broadcast_to(pbits, (shape.challenges, p))], axis=1)
            hsel = cs.alloc_aux(6, [int(i == j) for i in range(6)])
            return c_bits, cu._high_bits(cs, shape, c_bits, hsel, True)

        cs, (c_bits, high) = _gadget_witness(build)
        bits = cs.value(c_bits, dtype=object)
        assert [sum(int(b) << i for i, b in enumerate(r)) for r in bits] == want.tolist()
        assert [int(x) for x in cs.value(high, dtype=object)] == (want >> (shape.depth - h)).tolist()


def test_apex_por_of_a_second_partition():
    """apex_por with a partition bit, as upstream's test_apex_por_gadget_16kib_4_8_partitions does it
    (a smaller apex row): partition 1 of 2 of a 16 KiB tree_d, 8 apex leaves on the 16-node row;
    the real sibling gives comm_d, the other node is refused by update/comm_d_new."""
    from cuzk.sector import commd
    tree = commd.build_tree(pad_sector(np.random.default_rng(3).bytes(unpadded_size(16 << 10)), 16 << 10))
    assert len(tree[5]) == 16 and len(tree[8]) == 2
    apex_v = [_le(n) for n in tree[5][8:16]]
    for sib, ok in ((_le(tree[8][0]), True), (_le(tree[8][1]), False)):
        def build(cs):
            apex = cs.alloc_aux(8, apex_v)
            cu._apex_por(cs, apex, cs.alloc_aux(1, [1]), cs.alloc_aux(1, [sib]), cs.alloc_aux(1, [_le(tree[9][0])]))
        if ok:
            _gadget_witness(build)
        else:
            with pytest.raises(Unsatisfied) as e:
                _gadget_witness(build)
            assert e.value.gadget == "update/comm_d_new"


def test_values_of_another_shape_refused(update):
    *_, pub, proof = update
    with pytest.raises(su.UpdateError, match="challenges"):
        cu.values(su.PartitionProof(proof.comm_c, proof.apex_leafs, proof.challenge_proofs[:3]), 0, **pub)
    with pytest.raises(su.UpdateError, match="h=2"):
        cu.public_inputs(0, **{**pub, "h": 2})
    with pytest.raises(ValueError, match="witness mode"):
        cu.synthesize(ConstraintSystem(shape=True, witness=True), cu.shape_by_name("update-2KiB"))


def test_update_file_round_trip_through_the_registry(update, tmp_path):
    """An update file (cuzk.sector.update_doc) read back through the registry's family gives the
    values and public inputs of the in-memory proof; a changed comm_r_new or data leaf is refused
    naming the field."""
    from cuzk.circuits.registry import ShapeMismatchError, family_of, shape_by_name
    from cuzk.sector import update_doc as ud
    from cuzk.sector.jsondoc import write_doc

    key, comm_c, _, out, pub, proof = update
    doc = ud.to_doc(7, SIZE, 1, comm_c, out["comm_r_old"], out["comm_d_new"], out["comm_r_new"], [proof])
    path = tmp_path / "7.update.json"
    write_doc(path, doc)
    shape = shape_by_name("update-2KiB")
    fam = family_of(shape)
    got = fam.read(path)
    fam.check(got, path, shape)
    assert fam.partitions(got) == 1 and fam.label(got) == "7"
    assert fam.public_inputs(got, 0) == cu.public_inputs(0, **pub)
    want = cu.values(proof, 0, **pub)
    v = fam.values(got, 0)
    assert v["inputs"] == want["inputs"] and (v["path_d_new"] == want["path_d_new"]).all()
    assert all((a == b).all() for a, b in zip(v["path_r_new"], want["path_r_new"]))
    with pytest.raises(ShapeMismatchError):
        fam.check(got, path, shape_by_name("test-only-update-1KiB"))
    for field, edit in (("partitions/0/comm_r_new", lambda d: d["comm_r_new"].__setitem__(0, d["comm_r_new"][0] ^ 1)),
                        ("partitions/0/comm_d_new",
                         lambda d: d["partitions"][0]["challenge_proofs"][4]["leaf_d_new"].__setitem__(0, 9)),
                        ("h", lambda d: d.__setitem__("h", 2))):
        bad = json.loads(path.read_text())
        edit(bad)
        write_doc(tmp_path / "bad.json", bad)
        with pytest.raises(ud.UpdateFileError) as e:
            fam.read(tmp_path / "bad.json")
        assert e.value.field == field and "bad.json" in str(e.value)


@pytest.mark.gpu
@pytest.mark.skipif(not cuda_available(), reason="needs CuPy and a CUDA device")
def test_groth16_proof_of_the_real_update_on_cuda(update, built):
    """Setup, proof and verification of the 2 KiB partition on the cuda backend (1.7 M constraints:
    about 15 minutes on the 2-core CPU machine, hence the GPU); a proof does not verify against a
    changed comm_r_new or comm_d_new."""
    from cuzk.backend import get_backend
    from cuzk.groth16 import DevelopmentSetupWarning, Prover, setup, verify

    *_, pub, _ = update
    r1cs, cs, _ = built
    ins, aux = (list(map(int, a)) for a in cs.assignment())
    with get_backend("cuda") as gpu, warnings.catch_warnings():
        warnings.simplefilter("ignore", DevelopmentSetupWarning)
        pk = setup(r1cs, gpu)
        with Prover(pk, r1cs, gpu) as p:
            proof = p.prove(ins, aux)
    inputs = cu.public_inputs(0, **pub)
    assert verify(pk.vk, proof, inputs)
    for i in (2, 3):
        bad = list(inputs)
        bad[i] = (bad[i] + 1) % R
        assert not verify(pk.vk, proof, bad)


@pytest.mark.parametrize("size", [2048, 32 << 10])
def test_synthetic_update_equals_the_update_of_its_full_sector(size):
    """The structured synthetic file (no tree built) is byte for byte the file generate_update
    makes from the whole repeating sector with full trees; it verifies and is marked synthetic."""
    from cuzk.sector import update_doc as ud
    from cuzk.sector.update_synthetic import structured_sector, synthetic_update

    K, D, comm_c = structured_sector(9)
    n = size // 32
    key = b"".join(K[v % 8].to_bytes(32, "little") for v in range(n))
    data = b"".join(D[v % 8].to_bytes(32, "little") for v in range(n))
    root = build_tree(key, su.tree_r_shape(size))[-1][0]
    full, _ = ud.generate_update(4, key, data, comm_c, int(root).to_bytes(32, "little"), size)
    doc = synthetic_update(4, size, 9)
    assert doc == full | {"synthetic": True}
    ud.verify_update(doc)
