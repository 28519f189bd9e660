"""C1 in Filecoin's form (cuzk.sector.filecoin_c1): the fixtures made from real 2 KiB sectors
(tests/fixtures/filecoin/README.md) read, verify, round-trip byte for byte, and every tampered
field is refused naming it."""

import base64
import json
from pathlib import Path

import pytest

from cuzk.cli import main
from cuzk.sector import filecoin_c1 as fc
from cuzk.sector.c1 import C1Error
from cuzk.sector.porep_c1 import read_porep_c1, seal_and_prove, write_porep_c1
from cuzk.sector.synthetic import synthetic_c1

HERE = Path(__file__).parent / "fixtures" / "filecoin"
LOTUS = json.loads((HERE / "lotus-bench-simple-2kib.json").read_text())
VENUS = json.loads((HERE / "venus-presealed-2kib.json").read_text())
# (file, sector id, prover id, published comm_d, comm_r)
FIXTURES = {
    "lotus-bench": ("lotus-bench-2kib-s1.c2in.json", None, bytes.fromhex(LOTUS["inputs_from_code_at_that_commit"]["prover_id"]),
                    LOTUS["outputs"]["comm_d"], LOTUS["outputs"]["comm_r"]),
    **{f"venus-s{n}": (f"venus-t0106-2kib-s{n}.c1.json", n, bytes.fromhex(VENUS["prover_id"]),
                       VENUS["sectors"][n]["comm_d"], VENUS["sectors"][n]["comm_r"]) for n in (0, 1)},
}


def _read(which, path=None):
    name, sid, pid, *_ = FIXTURES[which]
    return fc.read_any(path or HERE / name, sid, pid)


def _filecoin_bytes(which) -> bytes:
    """The fixture's SealCommitPhase1Output JSON (lotus-bench's unwrapped)."""
    raw = (HERE / FIXTURES[which][0]).read_bytes()
    return base64.b64decode(json.loads(raw)["Phase1Out"]) if which == "lotus-bench" else raw


def test_prover_id_of_actor_is_lotus_and_venus_one():
    assert fc.prover_id_of_actor(1000).hex() == LOTUS["inputs_from_code_at_that_commit"]["prover_id"]
    assert fc.prover_id_of_actor(106).hex() == VENUS["prover_id"]
    assert fc.prover_id_of_actor(127)[:2] == bytes([127, 0]) and fc.prover_id_of_actor(128)[:3] == bytes([0x80, 1, 0])


@pytest.mark.parametrize("which", FIXTURES)
def test_fixture_reads_verifies_and_has_the_published_commitments(which):
    form, c1 = _read(which)
    assert form == (fc.LOTUS_BENCH if which == "lotus-bench" else fc.FILECOIN) == fc.sniff(HERE / FIXTURES[which][0])
    assert (bytes(c1["comm_d"]).hex(), bytes(c1["comm_r"]).hex()) == FIXTURES[which][3:]
    assert c1["registered_proof"] == ("StackedDrg2KiBV1_1" if which == "lotus-bench" else "StackedDrg2KiBV1")
    assert c1["api_version"] == ("1.1" if which == "lotus-bench" else "1.0")
    assert (c1["partitions"], c1["challenges_per_partition"]) == (1, 2)


@pytest.mark.parametrize("which", FIXTURES)
def test_round_trip_through_a_cuzk_file_is_byte_identical(which, tmp_path):
    _, c1 = _read(which)
    write_porep_c1(tmp_path / "c.json", c1)
    back = read_porep_c1(tmp_path / "c.json")
    assert fc.sniff(tmp_path / "c.json") == fc.CUZK
    assert fc.dumps(fc.to_filecoin(back)) == _filecoin_bytes(which)
    if which == "lotus-bench":
        assert fc.commit2_input(_filecoin_bytes(which), back["sector_id"], 2048) == (HERE / FIXTURES[which][0]).read_bytes()


def test_lotus_bench_sector_resealed_here_gives_the_fixture():
    """Sealing lotus-bench's sector anew (zero data, ticket 0, seed 0, t01000, sector 1) writes the
    fixture's bytes, and its commitments are lotus-bench's published ones (the C2 proof's comm_r/comm_d)."""
    c1 = seal_and_prove(bytes(2048), 2048, 1, fc.prover_id_of_actor(1000), bytes(32), bytes(32), layers=2)
    assert bytes(c1["comm_r"]).hex() == LOTUS["outputs"]["comm_r"] and bytes(c1["comm_d"]).hex() == LOTUS["outputs"]["comm_d"]
    assert fc.dumps(fc.to_filecoin(c1)) == _filecoin_bytes("lotus-bench")


def _set(doc, path: str, fn):
    keys = [int(k) if k.isdigit() else k for k in path.split("/")]
    node = doc
    for k in keys[:-1]:
        node = node[k]
    node[keys[-1]] = fn(node[keys[-1]])


def _flip(b):
    return [b[0] ^ 1] + b[1:]


P = "vanilla_proofs/StackedDrg2KiBV1/0/1"
# (what to tamper, how, the field the error must name)
TAMPER = [
    ("comm_r", _flip, "comm_r"),
    ("comm_d", _flip, "replica_id"),   # comm_d enters replica_id, checked first
    ("replica_id", _flip, "replica_id"),
    ("ticket", _flip, "replica_id"),
    ("seed", _flip, "vanilla_proofs/StackedDrg2KiBV1/0/0/comm_d_proofs/data/Single/path/path"),
    ("registered_proof", lambda _: "StackedDrg2KiBV9", "registered_proof"),
    (f"{P}/comm_d_proofs/data/Single/leaf", _flip, f"{P}/comm_d_proofs/data/Single/path/path"),
    (f"{P}/comm_d_proofs/data/Single/path/path/2/index", lambda i: 1 - i, f"{P}/comm_d_proofs/data/Single/path/path"),
    (f"{P}/comm_d_proofs/data/Single/path/path/2/index", lambda i: 2, f"{P}/comm_d_proofs/data/Single/path/path/2"),
    (f"{P}/comm_r_last_proof/data/Single/path/path/1/hashes/3", _flip, f"{P}/comm_r_last_proof/data/Single"),
    (f"{P}/comm_r_last_proof/data/Single/path/path/1/hashes", lambda h: h[:-1], f"{P}/comm_r_last_proof/data/Single/path/path/1/hashes"),
    (f"{P}/comm_r_last_proof/data", lambda d: {"Sub": d["Single"]}, f"{P}/comm_r_last_proof/data/Sub"),
    (f"{P}/replica_column_proofs/c_x/column/rows/1", _flip, f"{P}/replica_column_proofs/c_x/column/rows"),
    (f"{P}/replica_column_proofs/c_x/column/_h", lambda _: 0, f"{P}/replica_column_proofs/c_x/column/_h"),
    (f"{P}/replica_column_proofs/exp_parents/7/column/index", lambda i: i + 1, f"{P}/replica_column_proofs/exp_parents/7/column/index"),
    (f"{P}/labeling_proofs/1/parents/20", _flip, f"{P}/labeling_proofs/1/parents/20"),
    (f"{P}/labeling_proofs/0/layer_index", lambda i: 2, f"{P}/labeling_proofs/0/layer_index"),
    (f"{P}/encoding_proof/node", lambda i: i + 1, f"{P}/encoding_proof/node"),
]


@pytest.mark.parametrize("which", ["lotus-bench", "venus-s0"])
@pytest.mark.parametrize("where, how, field", TAMPER, ids=[f"{t[0].split('/', 4)[-1]}" for t in TAMPER])
def test_tampered_field_is_refused_naming_it(which, where, how, field, tmp_path):
    doc = json.loads(_filecoin_bytes(which))
    _set(doc, where, how)
    p = tmp_path / "t.json"
    raw = fc.dumps(doc)
    p.write_bytes(fc.commit2_input(raw, 1, 2048) if which == "lotus-bench" else raw)
    with pytest.raises(C1Error) as e:
        _read(which, p)
    assert e.value.field == field, str(e.value)
    assert str(p) in str(e.value)


def test_lotus_bench_wrapper_faults_are_named(tmp_path):
    raw = _filecoin_bytes("lotus-bench")
    pid = fc.prover_id_of_actor(1000)
    p = tmp_path / "w.json"
    for data, field in ((fc.commit2_input(raw, 1, 8 << 20), "SectorSize"),
                        (fc.commit2_input(raw, 2, 2048), "replica_id"),   # the sector number enters replica_id
                        (fc.commit2_input(raw, 1, 2048).replace(b'"Phase1Out":"e', b'"Phase1Out":"*'), "Phase1Out"),
                        (fc.commit2_input(raw[:-1], 1, 2048), "<json>"),
                        (fc.commit2_input(raw, 1, 2048)[:-1] + b',"Extra":1}', "<root>")):
        p.write_bytes(data)
        with pytest.raises(C1Error) as e:
            fc.read_any(p, None, pid)
        assert e.value.field == field, str(e.value)
    p.write_bytes(fc.commit2_input(raw, 1, 2048))
    with pytest.raises(C1Error, match="SectorNum"):
        fc.read_any(p, 7, pid)


def test_filecoin_form_needs_sector_id_and_prover_id():
    with pytest.raises(C1Error) as e:
        fc.read_any(HERE / FIXTURES["venus-s0"][0], None, bytes(32))
    assert e.value.field == "sector_id"
    with pytest.raises(C1Error) as e:
        fc.read_any(HERE / FIXTURES["venus-s0"][0], 0, None)
    assert e.value.field == "prover_id"
    with pytest.raises(C1Error) as e:   # another miner's prover id: its replica_id differs
        fc.read_any(HERE / FIXTURES["venus-s0"][0], 0, fc.prover_id_of_actor(1000))
    assert e.value.field == "replica_id"


def test_forms_without_a_filecoin_equivalent_are_refused():
    syn = synthetic_c1(2048, 3, bytes(32), bytes(32), bytes(32), layers=2)
    with pytest.raises(C1Error, match="synthetic"):
        fc.to_filecoin(syn)
    with pytest.raises(C1Error, match="comm_d-only"):
        fc.to_filecoin({"porep": False})


def test_test_only_size_round_trips(tmp_path):
    data = bytes(range(256))
    c1 = seal_and_prove(bytes(b & 0x3F if i % 32 == 31 else b for i, b in enumerate(data)), 256, 4, bytes(32),
                        bytes([3] * 32), bytes([4] * 32), layers=2, partitions=1, challenges=2)
    raw = fc.dumps(fc.to_filecoin(c1))
    assert json.loads(raw)["registered_proof"] == "TestOnly256BNotFilecoin"
    (tmp_path / "t.json").write_bytes(raw)
    assert fc.read_any(tmp_path / "t.json", 4, bytes(32)) == (fc.FILECOIN, c1)


def test_sub_tree_proofs_round_trip(tmp_path):
    """A 512 B sector's trees have a sub-tree level (shape (8, 2, 0)), so its Merkle proofs are
    upstream's ``Sub`` variant: base_proof then a one-element sub_proof."""
    data = bytes((3 * i) & 0x3F for i in range(512))
    c1 = seal_and_prove(data, 512, 5, bytes(32), bytes([3] * 32), bytes([4] * 32), layers=2, partitions=1, challenges=2)
    doc = fc.to_filecoin(c1)
    cr = doc["vanilla_proofs"]["TestOnly512BNotFilecoin"][0][0]["comm_r_last_proof"]["data"]
    assert list(cr) == ["Sub"] and list(cr["Sub"]) == ["base_proof", "sub_proof", "root", "leaf"]
    assert [len(el["hashes"]) for el in cr["Sub"]["base_proof"]["path"]] == [7]
    assert [len(el["hashes"]) for el in cr["Sub"]["sub_proof"]["path"]] == [1]
    (tmp_path / "s.json").write_bytes(fc.dumps(doc))
    assert fc.read_any(tmp_path / "s.json", 5, bytes(32))[1] == c1
    cr["Single"] = cr.pop("Sub")
    (tmp_path / "s.json").write_bytes(fc.dumps(doc))
    with pytest.raises(C1Error) as e:
        fc.read_any(tmp_path / "s.json", 5, bytes(32))
    assert e.value.field.endswith("comm_r_last_proof/data/Single")


def test_cli_convert_both_ways(tmp_path, capsys):
    src = HERE / FIXTURES["lotus-bench"][0]
    assert main(["c1", "convert", str(src), str(tmp_path / "c.json"), "--miner", "t01000"]) == 0
    assert fc.sniff(tmp_path / "c.json") == fc.CUZK
    assert main(["c1", "convert", str(tmp_path / "c.json"), str(tmp_path / "l.json"), "--lotus-bench"]) == 0
    assert (tmp_path / "l.json").read_bytes() == src.read_bytes()
    assert main(["c1", "convert", str(tmp_path / "c.json"), str(tmp_path / "f.json"), "--to", "filecoin"]) == 0
    assert (tmp_path / "f.json").read_bytes() == _filecoin_bytes("lotus-bench")
    assert main(["c1", "convert", str(HERE / FIXTURES["venus-s1"][0]), str(tmp_path / "v.json")]) == 2
    assert "sector_id" in capsys.readouterr().err
    assert main(["c1", "convert", str(HERE / FIXTURES["venus-s1"][0]), str(tmp_path / "v.json"), "--sector-id", "1",
                 "--prover-id", VENUS["prover_id"]]) == 0
    assert read_porep_c1(tmp_path / "v.json")["registered_proof"] == "StackedDrg2KiBV1"


@pytest.mark.slow
def test_venus_legacy_fixture_satisfies_the_porep_circuit():
    """The V1 (legacy graph) venus fixture, converted, gives a porep-2KiB witness that satisfies
    the circuit's R1CS, and the public inputs it yields are its own comm_d / comm_r / replica_id."""
    import numpy as np

    from cuzk.circuits import porep
    from cuzk.r1cs import ConstraintSystem

    _, c1 = _read("venus-s0")
    shape = porep.shape_by_name("porep-2KiB")
    cs = ConstraintSystem(shape=True, witness=True)
    porep.synthesize(cs, shape, porep.witness_from_c1(c1, 0))
    ins, aux = cs.assignment()
    cs.finalize().check(np.concatenate([np.asarray(ins, dtype=object), np.asarray(aux, dtype=object)]))
    pub = porep.public_inputs(c1, 0)
    le = lambda b: int.from_bytes(bytes(b), "little")  # noqa: E731
    assert pub[:3] == [le(c1["replica_id"]), le(c1["comm_d"]), le(c1["comm_r"])]
    assert list(ins[1:]) == pub


def _cuda():
    from cuzk.backend.cuda import cuda_available
    return cuda_available()


@pytest.mark.gpu
@pytest.mark.skipif(not _cuda(), reason="needs CuPy and a CUDA device")
def test_fixtures_prove_and_verify_through_the_workflow_steps(tmp_path):
    """All three converted fixtures through the real 2 KiB PoRep circuit (porep-2KiB): PCE,
    development setup, witness, one batch proved on the GPU, each proof verified; a proof does
    not verify against another sector's public inputs."""
    from cuzk import pipeline
    from cuzk.circuits import porep
    from cuzk.groth16 import read_proofs, read_vk, verify

    shape = "porep-2KiB"
    pce, params, vk = tmp_path / "s.pce", tmp_path / "s.params", tmp_path / "s.vk"
    pipeline.pce_extract(shape, pce)
    pipeline.setup_params(pce, params, vk, backend="cuda")
    c1s, wits = [], []
    for which in FIXTURES:
        _, c1 = _read(which)
        p = tmp_path / f"{which}.c1.json"
        write_porep_c1(p, c1)
        pipeline.synthesize_sector(p, pce, tmp_path / f"{which}.wit")
        c1s.append(p)
        wits.append(tmp_path / f"{which}.wit")
    # proof files are named by sector id: lotus-bench's sector 1 and venus' sector 1 go in two batches
    out = {w: tmp_path / ("proofs-b" if w == "venus-s1" else "proofs-a") for w in FIXTURES}
    pipeline.prove_batch(pce, params, c1s[:2], wits[:2], out["lotus-bench"], backend="cuda")
    pipeline.prove_batch(pce, params, c1s[2:], wits[2:], out["venus-s1"], backend="cuda")
    key = read_vk(vk)
    proofs = {}
    for which, p in zip(FIXTURES, c1s):
        c1 = read_porep_c1(p)
        proof = out[which] / f"{c1['sector_id']}.proof"
        res = pipeline.verify_sector(vk, p, proof, tmp_path / f"{which}.v.json", shape_name=shape)
        assert res["verified"] and res["sector_id"] == c1["sector_id"]
        proofs[which] = (read_proofs(proof)[0], porep.public_inputs(c1, 0))
    assert not verify(key, proofs["venus-s0"][0], proofs["lotus-bench"][1])
