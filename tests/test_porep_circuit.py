"""The StackedDRG PoRep circuit: upstream's constraint counts, real sealed witnesses, tampering."""

from __future__ import annotations

import types

import numpy as np
import pytest

from cuzk.circuits import porep
from cuzk.circuits.registry import ShapeMismatchError
from cuzk.hash.poseidon import R, poseidon_many
from cuzk.r1cs import ConstraintSystem, Unsatisfied
from cuzk.r1cs.poseidon import hash_constraints, poseidon_hash
from cuzk.sector.porep_c1 import seal_and_prove, verify_porep_c1


def _sealed_c1(shape, seed=1, tmp=None):
    rng = np.random.default_rng(seed)
    data = bytearray(rng.integers(0, 256, shape.sector_size, dtype=np.uint8).tobytes())
    for i in range(31, len(data), 32):
        data[i] &= 0x3F  # Fr32: the top two bits of every node are zero
    pid = bytes([44] * 32) if shape.test_only else None  # upstream's test uses porep id [44; 32]
    c1 = seal_and_prove(bytes(data), shape.sector_size, 7, bytes(32), bytes(range(32)), bytes(range(1, 33)),
                        shape.layers, porep_id=pid, partitions=shape.partitions, challenges=shape.challenges,
                        cache_dir=tmp)
    verify_porep_c1(c1)
    return c1


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """The 256-byte shape (upstream's test circuit) built with a real sealed witness, in
    upstream's variable and row order (``cuzk.r1cs.order``)."""
    shape = porep.shape_by_name("test-only-porep-256B")
    c1 = _sealed_c1(shape, tmp=tmp_path_factory.mktemp("parents"))
    cs = ConstraintSystem(shape=True, witness=True, upstream_order=True)
    refs = porep.synthesize(cs, shape, porep.witness_from_c1(c1, 0))
    r1cs = cs.finalize()
    return shape, c1, cs, refs, r1cs, cs.full_assignment()


def test_legacy_poseidon_counts_are_upstreams():
    # rust-fil-proofs' hash2_circuit (PoseidonHasher) and hash_single_column(11) tests: 311, 598
    assert hash_constraints(2, legacy=True) == 311
    assert hash_constraints(11, legacy=True) == 598
    rng = np.random.default_rng(5)
    for arity in (2, 8, 11):
        vals = [[int(x) % R for x in rng.integers(0, 2**63, arity)] for _ in range(3)]
        cs = ConstraintSystem()
        out = poseidon_hash(cs, cs.alloc_aux((3, arity), vals), arity, legacy=True)
        cs.finalize().check(cs.full_assignment())
        assert cs.num_constraints == 3 * hash_constraints(arity, legacy=True)
        want = poseidon_many([[v[j] for v in vals] for j in range(arity)], arity=arity)
        assert [int(x) for x in cs.value(out, dtype=object)] == [int(x) for x in want]


def test_upstream_test_circuit_counts(small):
    # storage-proofs-porep/tests/stacked_circuit.rs, test_stacked_input_circuit_poseidon_base_8:
    # 8 nodes, base-8 trees, 2 layers, 1 challenge → 22 inputs, 1,199,620 constraints
    shape, _, cs, _, r1cs, _ = small
    assert r1cs.num_inputs == 22
    assert cs.num_constraints == 1_199_620
    st = shape.stats()
    _stats_equal(st, r1cs.stats())
    assert st["circuit_constraints"] == 1_199_620 and st["domain"] == 1 << 21


def _stats_equal(got: dict, built: dict) -> bool:
    for key in ("inputs", "aux", "constraints", "nnz_a", "nnz_b", "nnz_c"):
        assert got[key] == built[key], key
    return True


def test_32gib_partition_matches_upstream_counts():
    st = porep.shape_by_name("porep-32GiB").stats()
    # curio's cuzk PCE extraction of rust-fil-proofs' circuit (extern/cuzk/cuzk-project.md): the
    # published figures themselves, per matrix
    assert st["inputs"] == 328 and st["constraints"] == 130_278_869 and st["aux"] == 130_169_893
    assert (st["nnz_a"], st["nnz_b"], st["nnz_c"]) == (309_405_051, 130_327_340, 282_656_500)
    assert st["nnz_a"] + st["nnz_b"] + st["nnz_c"] == 722_388_891
    assert st["domain"] == 1 << 27


def test_label_cost_does_not_depend_on_layer():
    # the table's entry is a layer-2 build (_label_part, rebuilt by test_gadget_cost_table_equals_builds)
    base = porep._label_part(porep.PARENTS)
    for layer in (11,):
        def f(cs, layer=layer):
            rid = cs.alloc_aux((1, porep.NUM_BITS))
            node = cs.alloc_aux((1, 64))
            pb = porep.num_to_bits(cs, cs.alloc_aux(porep.PARENTS), porep.NUM_BITS).reshape(1, porep.PARENTS, -1)
            porep.create_label_num(cs, rid, layer, node, porep._expand_parents(pb))
        c = porep._count(f)
        c["aux"] -= porep.NUM_BITS + 64 + porep.PARENTS
        assert c == base


def test_real_witness_satisfies_and_inputs_match(small):
    shape, c1, cs, refs, r1cs, w = small
    r1cs.check(w)
    ins, _ = cs.assignment()
    pub = porep.public_inputs(c1, 0)
    assert [int(x) for x in ins[1:]] == pub
    # replica_id, comm_d, comm_r, then 18 per challenge: index, 6 + 8 parents, index ×3
    c = c1["vanilla_proofs"][next(iter(c1["vanilla_proofs"]))][0][0]["comm_d_proofs"]["index"]
    assert pub[:3] == [int.from_bytes(bytes(c1[f]), "little") for f in ("replica_id", "comm_d", "comm_r")]
    assert pub[3] == c and pub[-3:] == [c, c, c]
    # the circuit's labels are the sealed labels (c_x column rows)
    cx = c1["vanilla_proofs"][next(iter(c1["vanilla_proofs"]))][0][0]["replica_column_proofs"]["c_x"]["column"]["rows"]
    assert [int(x) for x in cs.value(refs["labels"][0], dtype=object)] == [int.from_bytes(bytes(b), "little") for b in cx]


@pytest.mark.parametrize("what, gadget", [
    ("labels", "labeling_1/create_label"), ("replica", "encode"), ("columns", "column_hash"), ("data", "comm_d_inclusion"),
])
def test_tampered_witness_variable_rejected(small, what, gadget):
    _, _, cs, refs, r1cs, w = small
    w2 = w.copy()
    idx = int(cs.columns(refs[what].reshape(-1)[:1])[0])
    w2[idx] = (int(w2[idx]) + 1) % R
    with pytest.raises(Unsatisfied, match=gadget):
        r1cs.check(w2)


@pytest.mark.parametrize("field, gadget", [
    ("commd_path", "comm_d_inclusion/root"),
    ("columns", "tree_c_parents/root"),
    ("tree_c_paths", "tree_c_parents/root"),
    ("rlast_path", "tree_r_last/root"),
    ("cx_path", "tree_c_c_x/root"),
    ("comm_r", "porep/comm_r"),
])
def test_wrong_vanilla_value_rejected(small, field, gadget):
    """A consistent witness built from one wrong C1 value fails at the check of that part."""
    shape, c1, _, _, r1cs, _ = small
    vals = porep.witness_from_c1(c1, 0)
    if field == "comm_r":
        vals["comm_r"] = (vals["comm_r"] + 1) % R
    elif field in ("tree_c_paths",):
        vals[field][0][3][0][2] = (vals[field][0][3][0][2] + 1) % R
    elif field in ("rlast_path", "cx_path"):
        vals[field][0][0][1] = (vals[field][0][0][1] + 1) % R
    elif field == "commd_path":
        vals[field][0, 1] = (vals[field][0, 1] + 1) % R
    else:
        vals[field][0, 5, 1] = (vals[field][0, 5, 1] + 1) % R
    ws = ConstraintSystem(shape=False, witness=True, upstream_order=True)  # the shape is the fixture's
    porep.synthesize(ws, shape, vals)
    with pytest.raises(Unsatisfied, match=gadget):
        r1cs.check(ws.full_assignment())


def test_witness_only_mode_gives_the_same_assignment(small, tmp_path):
    from cuzk.r1cs.witness import write_witness, write_witness_compact

    shape, c1, cs, *_ = small
    ws = ConstraintSystem(shape=False, witness=True, upstream_order=True)
    porep.synthesize(ws, shape, porep.witness_from_c1(c1, 0))
    a_ins, a_aux = cs.assignment()
    b_ins, b_aux = ws.assignment()
    # the synthesize step's file (the store compacted along the order's pieces, no int per
    # value) is the file of the ints in upstream order (the joined order)
    write_witness(tmp_path / "ints.wit", b_ins, b_aux, pce_digest="d")
    write_witness_compact(tmp_path / "compact.wit", ws.assignment_compact(), pce_digest="d")
    assert (tmp_path / "ints.wit").read_bytes() == (tmp_path / "compact.wit").read_bytes()
    assert [int(x) for x in a_ins] == [int(x) for x in b_ins]
    assert np.array_equal(np.asarray(a_aux, dtype=object), np.asarray(b_aux, dtype=object))
    # a witness-only system counts the constraints it does not record
    assert (ws.num_constraints, ws.num_aux) == (cs.num_constraints, cs.num_aux)
    # upstream's order is a permutation of ours: each variable's value sits at its new column
    plain = ConstraintSystem(shape=False, witness=True)
    porep.synthesize(plain, shape, porep.witness_from_c1(c1, 0))
    w_plain, w_up, aux = plain.full_assignment(), ws.full_assignment(), np.arange(ws.num_aux)
    assert np.array_equal(w_up[ws.columns(aux)], w_plain[plain.columns(aux)])
    assert not np.array_equal(w_up, w_plain)


# SHA-256 of the 2 KiB witness below (each value as 32 bytes little-endian, inputs then aux): a
# regression pin, first taken before the witness-mode speedups (commit 8473587), retaken when the
# Poseidon variables became neptune's circuit.rs ones (S-box outputs carry the next compressed
# round key); the values themselves are checked by r1cs.check in the tests above.
_WITNESS_2KIB_SHA256 = "adc0c942fd47fc199b5d935264553e8009c670a4ebcdf418a755a78f6bb3bdff"


@pytest.mark.parametrize("sha", ["numpy", "native"])
def test_2kib_witness_is_bit_identical_to_the_pinned_one(tmp_path, sha):
    """A real sealed 2 KiB sector's partition witness (2,685,673 aux values), witness-only mode
    as ``synthesize_sector`` runs it, against the pinned digest (recorded before the native
    SHA-256 path existed), with either SHA-256 witness path (``synthesis_sha``)."""
    import hashlib
    import shutil

    from cuzk.r1cs.sha_path import choose_sha

    if sha == "native" and shutil.which("g++") is None and shutil.which("c++") is None:
        pytest.skip("no C++ compiler")
    shape = porep.shape_by_name("porep-2KiB")
    c1 = _sealed_c1(shape, seed=1, tmp=tmp_path)
    cs = ConstraintSystem(shape=False, witness=True)
    path = choose_sha(sha)
    assert path.name == sha
    with path.active():
        porep.synthesize(cs, shape, porep.witness_from_c1(c1, 0))
    ins, aux = cs.assignment()
    assert (cs.num_constraints, cs.num_aux) == (2_687_921, 2_685_673)
    h = hashlib.sha256()
    for arr in (ins, aux):
        h.update(b"".join(int(v).to_bytes(32, "little") for v in arr))
    assert h.hexdigest() == _WITNESS_2KIB_SHA256


def test_stats_match_built_circuit_two_challenges():
    shape = porep.PoRepShape("t", 2048, 1, 2, 2, test_only=True)
    cs = ConstraintSystem(shape=True, witness=False)
    porep.synthesize(cs, shape)
    _stats_equal(shape.stats(), cs.finalize().stats())


def test_values_of_wrong_shape_rejected(small):
    shape, c1, *_ = small
    other = porep.PoRepShape("t", 256, 1, 1, 3, test_only=True)
    with pytest.raises(ValueError, match="do not fit"):
        porep.synthesize(ConstraintSystem(), other, porep.witness_from_c1(c1, 0))


def test_porep_256B_end_to_end_through_the_steps(tmp_path):
    """Sealing → C1 → PCE → setup → witness → prove → verify with the workflow's step functions
    (the CPU backend), and the PCE file evaluates the witness exactly as the built R1CS does.
    The one-layer 256 B shape: the same steps at half the key and proof work of the two-layer
    one, whose real witness the tests above check against the R1CS (the second layer's
    expander parents included)."""
    from cuzk import pipeline
    from cuzk.groth16 import read_proofs, read_vk, verify
    from cuzk.r1cs.pce import read_pce
    from cuzk.r1cs.witness import read_witness
    from cuzk.sector.porep_c1 import read_porep_c1

    shape = "test-only-porep-256B-1L"
    c1, pce, params, vk = tmp_path / "1.c1.json", tmp_path / "s.pce", tmp_path / "s.params", tmp_path / "s.vk"
    pipeline.prepare({"id": 1, "generate": 1}, c1, shape, "e2e", "00" * 32)
    pipeline.pce_extract(shape, pce)
    pipeline.setup_params(pce, params, vk, backend="cpu", threads=2)
    pipeline.synthesize_sector(c1, pce, tmp_path / "wit")
    pipeline.prove_batch(pce, params, [c1], [tmp_path / "wit"], tmp_path / "proofs", backend="cpu", threads=2)
    res = pipeline.verify_sector(vk, c1, tmp_path / "proofs" / "1.proof", tmp_path / "v.json", shape_name=shape)
    assert res["verified"] and res["partitions"] == 1
    # synthesis_sha: prover (a version 3 file: the compressions' inputs, not their bits; this
    # process knows every call's kind by now, so each is deferred): the CPU prover computes the
    # bits (CompactAssignment.resolved) and its proof verifies
    from cuzk.r1cs.witness import read_witness_compact

    pipeline.synthesize_sector(c1, pce, tmp_path / "wit-prover", sha="prover")
    cw = read_witness_compact(tmp_path / "wit-prover" / "partition-0.wit")
    assert cw.sha is not None and cw.sha.end > 0.9 * cw.num_aux
    assert np.array_equal(cw.resolved().bits, read_witness_compact(tmp_path / "wit" / "partition-0.wit").bits)
    pipeline.prove_batch(pce, params, [c1], [tmp_path / "wit-prover"], tmp_path / "proofs-prover", backend="cpu")
    res = pipeline.verify_sector(vk, c1, tmp_path / "proofs-prover" / "1.proof", tmp_path / "vp.json", shape_name=shape)
    assert res["verified"] and res["partitions"] == 1
    # without a shape (``cuzk verify`` with no --shape): the one of the C1's size whose public
    # inputs the key takes (the two-layer 256 B shape does not fit the C1; the comm_d one's count differs)
    res = pipeline.verify_sector(vk, c1, tmp_path / "proofs" / "1.proof", tmp_path / "v2.json")
    assert res["verified"] and res["shape"] == shape
    with pytest.raises(ShapeMismatchError, match="give --shape"):
        pipeline._shape_of_vk(types.SimpleNamespace(ic=[None] * 1000), vk, c1, None)

    # the PCE evaluates the witness as the in-memory R1CS does, and the witness satisfies it
    r1cs, _ = read_pce(pce)
    ins, aux = read_witness(tmp_path / "wit" / "partition-0.wit")
    w = np.concatenate([np.asarray(ins, dtype=object), np.asarray(aux, dtype=object)])
    r1cs.check(w)
    cs = ConstraintSystem(shape=True, witness=False)
    porep.synthesize(cs, porep.shape_by_name(shape))
    direct = cs.finalize()
    _stats_equal(porep.shape_by_name(shape).stats(), direct.stats())
    for got, want in zip(r1cs.evaluate(w), direct.evaluate(w)):
        assert np.array_equal(np.asarray(got, dtype=object), np.asarray(want, dtype=object))

    # a wrong public input (another challenge) is rejected
    doc = read_porep_c1(c1)
    pub = porep.public_inputs(doc, 0)
    proof = read_proofs(tmp_path / "proofs" / "1.proof")[0]
    key = read_vk(vk)
    assert verify(key, proof, pub)
    bad = list(pub)
    bad[3] = (bad[3] + 1) % 8
    assert not verify(key, proof, bad)


def test_gadget_cost_table_equals_builds():
    """Every entry of the committed table (cuzk.circuits.costs) equals a fresh build of its gadget."""
    from cuzk.circuits import costs, registry  # noqa: F401 (registry imports every family's builders)

    entries = costs.table_entries()
    assert {fn for fn, _, _ in entries} == set(costs.BUILDERS)
    for fn, args, counts in entries:
        assert costs.BUILDERS[fn](*args) == counts, (fn, args)


def test_stats_of_every_shape_build_no_circuit(monkeypatch):
    """`cuzk shapes` and the DAG build read the table: no gadget is built for a known shape."""
    def refuse(build):
        raise AssertionError("a gadget was built")

    monkeypatch.setattr(porep, "_count", refuse)
    for fn in (porep._commd_part, porep._poseidon_part, porep._hash_part, porep._label_part, porep._fixed_parts,
               porep._commd_levels):
        fn.cache_clear()
    assert porep.shape_by_name("porep-32GiB").stats()["constraints"] == 130_278_869
    for shape in porep.SHAPES.values():
        assert shape.stats()["aux"] > 0
