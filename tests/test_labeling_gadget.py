"""Tests of the SDR label gadget (cuzk.r1cs.labeling) against the native label
(cuzk.sector.labels.label_header + hashlib) and rust-fil-proofs' constraint count."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from cuzk.r1cs import ConstraintSystem, Unsatisfied, alloc_bits
from cuzk.r1cs.labeling import LABEL_BITS, TOTAL_PARENTS, create_label, create_label_num
from cuzk.r1cs.sha256 import literal_kinds, literal_values
from cuzk.sector.labels import label_header

UPSTREAM_TEST_CREATE_LABEL = 532_025
"""rust-fil-proofs storage-proofs-porep/src/stacked/circuit/create_label.rs, test_create_label:
cs.num_constraints() of 256 + 37·256 allocated input bits (one booleanity constraint each),
create_label_circuit with UInt32::constant(3) / UInt64::constant(22), packed to one Fr."""
SHA_1248_BYTES = UPSTREAM_TEST_CREATE_LABEL - 38 * 256 - 1  # 522,296: the hash alone


def native_label(rid: bytes, layer: int, node: int, parents: np.ndarray) -> bytes:
    h = bytearray(hashlib.sha256(label_header(rid, layer, node) + parents.tobytes()).digest())
    h[31] &= 0x3F
    return bytes(h)


def random_labels(rng, shape) -> np.ndarray:
    lab = rng.integers(0, 256, shape + (32,), dtype=np.uint8)
    lab[..., 31] &= 0x3F  # labels are sha254 outputs
    return lab


def le_bits(b: np.ndarray) -> np.ndarray:
    return np.unpackbits(b, axis=-1, bitorder="little")


def build(k: int, seed: int, node_alloc: bool, parent_nbits: int = 256, layer: int = 3):
    rng = np.random.default_rng(seed)
    rids = rng.integers(0, 256, (k, 32), dtype=np.uint8)
    parents = random_labels(rng, (k, TOTAL_PARENTS))
    nodes = [int(x) for x in rng.integers(1, 1 << 40, k)] if node_alloc else [22] * k
    cs = ConstraintSystem()
    rid = alloc_bits(cs, (k, 256), le_bits(rids))
    par = alloc_bits(cs, (k, TOTAL_PARENTS, parent_nbits), le_bits(parents)[..., :parent_nbits])
    if node_alloc:
        nvals = np.array([[(v >> i) & 1 for i in range(64)] for v in nodes], dtype=np.uint8)
        node = alloc_bits(cs, (k, 64), nvals)
    else:
        node = 22
    out = create_label(cs, rid, layer, node, par)
    expected = [native_label(rids[i].tobytes(), layer, nodes[i], parents[i]) for i in range(k)]
    return cs, out, par, expected


@pytest.mark.parametrize("k, node_alloc, parent_nbits", [(1, False, 256), (2, True, 254)])
def test_create_label_matches_native(k, node_alloc, parent_nbits):
    """k labels built as one block equal the native labels, the R1CS holds, and a flipped parent
    bit of the first label and of the last is refused. k = 2 is the batched case (an allocated
    node of its own per label); k = 3 checked nothing more, at 1.5x the time."""
    cs, out, par, expected = build(k, 10 + k, node_alloc, parent_nbits)
    assert out.shape == (k, LABEL_BITS)
    assert (literal_kinds(out) == 0).all()  # plain refs
    got = literal_values(cs, out)
    for i in range(k):
        exp_bits = le_bits(np.frombuffer(expected[i], dtype=np.uint8))
        assert (exp_bits[254:] == 0).all()
        assert (got[i] == exp_bits[:254]).all()
    r1cs = cs.finalize()
    w = cs.full_assignment()
    r1cs.check(w)
    # flipping one parent bit's witness breaks the hash's constraints
    ni = r1cs.num_inputs
    for ref in (par[0, 17, 100], par[k - 1, TOTAL_PARENTS - 1, parent_nbits - 1]):
        w2 = w.copy()
        w2[ni + int(ref)] = 1 - w2[ni + int(ref)]
        with pytest.raises(Unsatisfied) as ei:
            r1cs.check(w2)
        assert ei.value.gadget.startswith("create_label/")


def test_create_label_num_and_sha_order():
    """The packed label equals the native label as a little-endian Fr; order="sha" inputs give
    the same label."""
    rng = np.random.default_rng(5)
    k = 1
    rids = rng.integers(0, 256, (k, 32), dtype=np.uint8)
    parents = random_labels(rng, (k, TOTAL_PARENTS))
    cs = ConstraintSystem()
    rid = alloc_bits(cs, (k, 256), np.unpackbits(rids, axis=1))  # MSB first
    par = alloc_bits(cs, (k, TOTAL_PARENTS, 256), np.unpackbits(parents, axis=-1))
    num = create_label_num(cs, rid, 7, 1234, par, order="sha")
    exp = native_label(rids[0].tobytes(), 7, 1234, parents[0])
    assert int(cs.value(num, dtype=object)[0]) == int.from_bytes(exp, "little")
    cs.finalize().check(cs.full_assignment())


def test_constraint_count_matches_upstream():
    """upstream's test circuit rebuilt (inputs' booleanity + hash + packing): 532,025
    constraints, exactly; k labels cost k times as much."""
    cs = ConstraintSystem(shape=True, witness=False)
    rid = alloc_bits(cs, (1, 256))
    par = alloc_bits(cs, (1, TOTAL_PARENTS, 256))
    assert cs.num_constraints == 38 * 256
    create_label_num(cs, rid, 3, 22, par)
    assert cs.num_constraints == UPSTREAM_TEST_CREATE_LABEL
    k = 2
    cs = ConstraintSystem(shape=True, witness=False)
    rid = alloc_bits(cs, (k, 256))
    par = alloc_bits(cs, (k, TOTAL_PARENTS, 256))
    node = alloc_bits(cs, (k, 64))
    n0 = cs.num_constraints
    create_label(cs, rid, 3, node, par)  # an allocated node: its 64 bits enter the schedule
    assert cs.num_constraints - n0 == k * (SHA_1248_BYTES + 122)


def test_bad_inputs():
    cs = ConstraintSystem(shape=True, witness=False)
    rid = alloc_bits(cs, (2, 256))
    par = alloc_bits(cs, (2, TOTAL_PARENTS, 256))
    with pytest.raises(ValueError, match="equal"):
        create_label(cs, rid, 1, [5, 6], par)  # different constants: different shapes
    with pytest.raises(ValueError, match="parent_label_bits"):
        create_label(cs, rid, 1, 5, par[:, :36])
    with pytest.raises(ValueError, match="u32"):
        create_label(cs, rid, 1 << 32, 5, par)
