"""C1 files: building, reading, and every kind of bad input named by field."""

import copy
import json

import pytest

from cuzk.sector import C1Error, SectorInputError, prepare_sector, read_c1, verify_path
from cuzk.sector.c1 import write_c1

DATA = "data/samples/gettysburg-address.txt"


@pytest.fixture
def c1_file(tmp_path):
    p = tmp_path / "s.c1.json"
    prepare_sector(p, sector_id=3, sector_size=2048, partitions=1, challenges=2, data=DATA)
    return p


def test_prepare_and_read(c1_file):
    c1 = read_c1(c1_file)
    assert c1["registered_proof"] == "StackedDrg2KiBV1_1"
    proofs = c1["vanilla_proofs"]["StackedDrg2KiBV1"][0]
    assert len(proofs) == 2
    for pr in proofs:
        p = pr["comm_d_proofs"]
        assert len(p["path"]) == 6  # 64 nodes
        assert verify_path(bytes(p["leaf"]), p["index"], [bytes(s) for s in p["path"]], bytes(c1["comm_d"]))


def _tamper(tmp_path, c1_file, fn, name="bad.json"):
    c1 = json.loads(c1_file.read_text())
    fn(c1)
    q = tmp_path / name
    write_c1(q, c1)
    return q


@pytest.mark.parametrize(
    "mutate,field",
    [
        (lambda c: c["comm_d"].__setitem__(0, c["comm_d"][0] ^ 1), "replica_id"),
        (lambda c: c["vanilla_proofs"]["StackedDrg2KiBV1"][0][0]["comm_d_proofs"]["path"].pop(), "path"),
        (lambda c: c["vanilla_proofs"]["StackedDrg2KiBV1"][0][1]["comm_d_proofs"].__setitem__("index", 64), "index"),
        (lambda c: c["vanilla_proofs"]["StackedDrg2KiBV1"][0][1]["comm_d_proofs"].__setitem__("index", 1), "index"),
        (lambda c: c["vanilla_proofs"]["StackedDrg2KiBV1"][0][0]["comm_d_proofs"]["leaf"].__setitem__(0, 7), "path"),
        (lambda c: c.__setitem__("ticket", [1] * 31), "ticket"),
        (lambda c: c.__setitem__("seed", "zz"), "seed"),
        (lambda c: c.pop("replica_id"), "<root>"),
        (lambda c: c.__setitem__("registered_proof", "StackedDrg8MiBV1_1"), "registered_proof"),
        (lambda c: c["vanilla_proofs"]["StackedDrg2KiBV1"][0].pop(), "vanilla_proofs"),
    ],
)
def test_tampered(tmp_path, c1_file, mutate, field):
    q = _tamper(tmp_path, c1_file, mutate)
    with pytest.raises(C1Error) as e:
        read_c1(q)
    assert str(q) in str(e.value)
    assert field in e.value.field


def test_schema_names_every_bad_field(tmp_path, c1_file):
    def two(c):
        c["ticket"] = [1] * 31
        c["sector_id"] = -1
    q = _tamper(tmp_path, c1_file, two)
    with pytest.raises(C1Error) as e:
        read_c1(q)
    assert "ticket" in str(e.value) and "sector_id" in str(e.value)


def test_not_json(tmp_path):
    q = tmp_path / "x.json"
    q.write_text("{nope")
    with pytest.raises(C1Error, match="not valid JSON"):
        read_c1(q)


def test_bad_sector_data(tmp_path):
    with pytest.raises(SectorInputError, match="missing.txt"):
        prepare_sector(tmp_path / "o.json", 1, 2048, 1, 2, data=tmp_path / "missing.txt")
    big = tmp_path / "big.bin"
    big.write_bytes(bytes(2033))
    with pytest.raises(SectorInputError, match="2033 bytes do not fit"):
        prepare_sector(tmp_path / "o.json", 1, 2048, 1, 2, data=big)
    assert not (tmp_path / "o.json").exists()


def test_generated_sector_deterministic(tmp_path):
    a = prepare_sector(tmp_path / "a.json", 9, 2048, 1, 2, generate_seed=5)
    b = prepare_sector(tmp_path / "b.json", 9, 2048, 1, 2, generate_seed=5)
    assert a == b
    c = copy.deepcopy(a)
    assert read_c1(tmp_path / "a.json") == c


def test_cut_c1_is_refused(tmp_path, c1_file):
    # a 2 KiB C1 that drops one of its two challenges is consistent in itself but not Filecoin's
    def cut(c):
        c["vanilla_proofs"]["StackedDrg2KiBV1"][0].pop()
        c["challenges_per_partition"] = 1
    q = _tamper(tmp_path, c1_file, cut)
    with pytest.raises(C1Error) as e:
        read_c1(q)
    assert e.value.field == "partitions"


def test_shape_check_catches_cut_test_shape(tmp_path):
    from cuzk.circuits import commd
    from cuzk.pipeline import ShapeMismatchError, check_c1_shape

    shape = commd.shape_by_name("test-only-commd-256B")  # 2 partitions
    p = tmp_path / "t.json"
    c1 = prepare_sector(p, 2, shape.sector_size, 1, 1, generate_seed=1)  # cut to 1 partition
    assert read_c1(p)  # consistent in itself
    with pytest.raises(ShapeMismatchError, match="does not fit shape test-only-commd-256B"):
        check_c1_shape(c1, p, shape)
