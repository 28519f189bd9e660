"""The comm_d inclusion circuit: exact size formulas, satisfaction on real C1 files, tampering."""

import numpy as np
import pytest

from cuzk.circuits import commd
from cuzk.r1cs import ConstraintSystem, Unsatisfied
from cuzk.sector import prepare_sector, read_c1


def build(shape, values):
    cs = ConstraintSystem(shape=True, witness=True)
    commd.synthesize(cs, shape, values)
    return cs.finalize(), cs


@pytest.mark.parametrize("k,d", [(1, 2), (2, 3)])
def test_stats_formula_is_exact(k, d):
    shape = commd.CommDShape("x", 32 << d, 1, k, test_only=True)
    cs = ConstraintSystem(shape=True, witness=False)
    commd.synthesize(cs, shape)
    got = cs.finalize().stats()
    want = shape.stats()
    for key in ("inputs", "aux", "constraints", "nnz_a", "nnz_b", "nnz_c"):
        assert got[key] == want[key], key


def test_filecoin_shapes():
    assert commd.shape_for(2048).name == "porep-commd-2KiB"
    assert commd.shape_by_name("porep-commd-32GiB").partitions == 10
    assert commd.shape_by_name("porep-commd-32GiB").challenges == 18
    with pytest.raises(ValueError, match="not one of Filecoin"):
        commd.shape_for(128)
    assert commd.shape_for(128, allow_test=True).test_only
    assert commd.SHAPES["porep-commd-2KiB"].stats()["constraints"] == 547_968


@pytest.fixture(scope="module")
def sector(tmp_path_factory):
    p = tmp_path_factory.mktemp("c1") / "s.json"
    shape = commd.shape_by_name("test-only-commd-256B")
    prepare_sector(p, 11, shape.sector_size, shape.partitions, shape.challenges, generate_seed=4)
    return shape, read_c1(p)


def test_satisfied_for_every_partition(sector):
    shape, c1 = sector
    for k in range(shape.partitions):
        r1cs, cs = build(shape, commd.witness_from_c1(c1, k))
        r1cs.check(cs.full_assignment())
        ins = [int(v) for v in cs.assignment()[0][1:]]
        assert ins == commd.public_inputs(c1, k)
        assert ins[0] == int.from_bytes(bytes(c1["comm_d"]), "little")


@pytest.mark.parametrize("what", ["leaf", "sibling", "comm_d", "index"])
def test_tampered_values_are_unsatisfiable(sector, what):
    shape, c1 = sector
    v = commd.witness_from_c1(c1, 0)
    v = {key: (val.copy() if isinstance(val, np.ndarray) else val) for key, val in v.items()}
    if what == "leaf":
        v["leaves"][0, 3] ^= 0x10
    elif what == "sibling":
        v["paths"][0, 1, 0] ^= 0x01
    elif what == "comm_d":
        v["comm_d"] ^= 1
    else:
        v["indices"][0] ^= 1
    r1cs, cs = build(shape, v)
    with pytest.raises(Unsatisfied) as e:
        r1cs.check(cs.full_assignment())
    assert e.value.gadget.startswith("commd/")


def test_verify_shape_of_a_commd_c1(tmp_path):
    """``cuzk verify`` without ``--shape`` (``pipeline._shape_of_vk``) on a comm_d C1: the PoRep
    family refuses it with its input error, the comm_d shape whose public inputs the key takes is
    found; a damaged C1 raises its input error naming the file (not a shape mismatch), and a key
    of another input count still asks for ``--shape``."""
    import json
    import types

    from cuzk import pipeline
    from cuzk.circuits.registry import ShapeMismatchError, family_of, shape_by_name
    from cuzk.sector.c1 import C1Error

    shape = shape_by_name("porep-commd-2KiB")
    c1, vk = tmp_path / "1.c1.json", tmp_path / "k.vk"
    pipeline.prepare({"id": 1, "generate": 1}, c1, shape.name, "e2e", "00" * 32)
    inp = family_of(shape).read(c1)
    n = len(family_of(shape).public_inputs(inp, 0))
    got, _ = pipeline._shape_of_vk(types.SimpleNamespace(ic=[None] * (n + 1)), vk, c1, None)
    assert got.name == shape.name
    with pytest.raises(ShapeMismatchError, match="give --shape"):
        pipeline._shape_of_vk(types.SimpleNamespace(ic=[None] * (n + 7)), vk, c1, None)
    doc = json.loads(c1.read_text())
    bad = tmp_path / "bad.c1.json"
    bad.write_text(json.dumps({"sector_size": doc["sector_size"]}))
    with pytest.raises(C1Error, match="bad.c1.json"):
        pipeline._shape_of_vk(types.SimpleNamespace(ic=[None] * (n + 1)), vk, bad, None)
