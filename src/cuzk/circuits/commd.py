"""The comm_d inclusion circuit: the SHA-256 half of Filecoin's PoRep statement, per partition.

Public inputs (after ONE), in order: comm_d as an Fr element (its 32 bytes little-endian), then
each challenged node index. Private: per challenge the leaf (an Fr32 node, 254 bits), its path
of sibling nodes (254 bits each) and the index bits. Per challenge and level the circuit selects
(left, right) from (current, sibling) by the index bit (2 constraints per bit, as bellman's
conditional swap), hashes them with the sha254 node gadget (``cuzk.r1cs.sha254.sha254_node``),
and at the top packs the root's 254 bits and enforces them equal to comm_d; the index bits are
packed and enforced equal to the public index. All challenges of a partition run as one block
(k = challenges) through every gadget.

Shapes: Filecoin's sector sizes with their proof settings (``cuzk.sector.challenge_counts``),
plus test-only shapes whose names start with ``test-only-`` so nobody mistakes them for
Filecoin's.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from ..sector.challenges import size_name as _size_name
from ..r1cs import ConstraintSystem, alloc_bits, lc
from ..r1cs.sha254 import sha254_node
from ..sector import SECTOR_SIZES, challenge_counts

NODE_BITS = 254  # an Fr32 node: 32 bytes with the top two bits zero

#: What one :func:`cuzk.r1cs.sha254.sha254_node` of two 254-bit nodes adds (the message's top two
#: bits of each half are constant zeros), measured on a build at k = 1; the tests check
#: :meth:`CommDShape.stats`, which sums it, against built circuits.
_SHA254_NODE = {"aux": 44_812, "constraints": 44_858, "nnz_a": 102_881, "nnz_b": 44_890, "nnz_c": 96_332}


class SectorGeometry:
    """Node count and comm_d tree depth of a shape with a ``sector_size`` (bytes)."""

    sector_size: int

    @property
    def nodes(self) -> int:
        """32-byte nodes in the sector."""
        return self.sector_size // 32

    @property
    def depth(self) -> int:
        """Levels of the binary comm_d tree (its Merkle path length)."""
        return self.nodes.bit_length() - 1


@dataclass(frozen=True)
class CommDShape(SectorGeometry):
    """A circuit shape: sector size in bytes, partitions per proof, challenges per partition."""

    name: str
    sector_size: int
    partitions: int
    challenges: int
    test_only: bool = False

    def stats(self) -> dict:
        """Exact sizes of one partition's R1CS without building it, term by term from the gadgets
        (:func:`synthesize`); the tests compare it with built circuits.

        Per challenge and level (254 = NODE_BITS): the sha254 node (:data:`_SHA254_NODE`); the
        swap, 2·254 rows ``bit · (s − c) = l − c`` (nnz 1/2/2); 254 path bits and 1 index bit,
        booleanity ``(1 − v) · v = 0`` (nnz 2/1/0); the index bit's term in the index packing;
        aux: sibling, left and right bits (3·254) and the index bit. Per challenge: 254 leaf bits
        (aux and booleanity), the index and root packings ``Σ 2^i·b_i · 1 = x`` (A: the bits, B:
        ONE, C: x). Plus one input row (one A entry) per public input and ONE (k + 2).
        """
        k, d, nb, node = self.challenges, self.depth, NODE_BITS, _SHA254_NODE
        level = {"aux": node["aux"] + 3 * nb + 1,
                 "constraints": node["constraints"] + 2 * nb + nb + 1,
                 "nnz_a": node["nnz_a"] + 2 * nb + 2 * (nb + 1) + 1,
                 "nnz_b": node["nnz_b"] + 4 * nb + (nb + 1),
                 "nnz_c": node["nnz_c"] + 4 * nb}
        per = {"aux": nb, "constraints": nb + 2, "nnz_a": 2 * nb + nb, "nnz_b": nb + 2, "nnz_c": 2}
        inputs = k + 2
        constraints = k * (level["constraints"] * d + per["constraints"]) + inputs
        return {
            "inputs": inputs,
            "aux": k * (level["aux"] * d + per["aux"]),
            "constraints": constraints,
            "nnz_a": k * (level["nnz_a"] * d + per["nnz_a"]) + inputs,
            "nnz_b": k * (level["nnz_b"] * d + per["nnz_b"]),
            "nnz_c": k * (level["nnz_c"] * d + per["nnz_c"]),
            "domain": 1 << (constraints - 1).bit_length(),
            "sector_size": self.sector_size,
            "partitions": self.partitions,
        }

    def describe(self) -> dict:
        """JSON-ready description (stored in the PCE header)."""
        return asdict(self) | {"circuit": "porep-commd", "depth": self.depth}




def _filecoin_shapes() -> dict[str, CommDShape]:
    out = {}
    for size in SECTOR_SIZES:
        parts, ch = challenge_counts(size)
        name = f"porep-commd-{_size_name(size)}"
        out[name] = CommDShape(name, size, parts, ch)
    return out


SHAPES: dict[str, CommDShape] = _filecoin_shapes() | {
    "test-only-commd-128B": CommDShape("test-only-commd-128B", 128, 1, 1, test_only=True),
    "test-only-commd-256B": CommDShape("test-only-commd-256B", 256, 2, 1, test_only=True),
    # two partitions at the smallest size (depth 2, domain 2^17: half the 256 B shape's key and proofs)
    "test-only-commd-128B-2p": CommDShape("test-only-commd-128B-2p", 128, 2, 1, test_only=True),
}


def shape_for(sector_size: int, allow_test: bool = False) -> CommDShape:
    """The shape of a sector size.

    Raises:
        ValueError: not a Filecoin sector size (test-only sizes need ``allow_test``).
    """
    for s in SHAPES.values():
        if s.sector_size == sector_size and (allow_test or not s.test_only):
            return s
    sizes = ", ".join(_size_name(s) for s in SECTOR_SIZES)
    raise ValueError(f"sector size {sector_size} is not one of Filecoin's ({sizes})")


def shape_by_name(name: str) -> CommDShape:
    """Look a shape up by name. Raises ValueError naming the known shapes."""
    if name not in SHAPES:
        raise ValueError(f"unknown circuit shape {name!r}; known: {', '.join(SHAPES)}")
    return SHAPES[name]


def _le_bits(data: np.ndarray, nbits: int) -> np.ndarray:
    """(k, 32) uint8 nodes → (k, nbits) uint64 little-endian bits."""
    return np.unpackbits(data, axis=1, bitorder="little")[:, :nbits].astype(np.uint64)


def witness_from_c1(c1: dict, partition: int) -> dict:
    """The partition's private and public values from a C1 dict (checked by ``read_c1``).

    Returns:
        {"comm_d": int, "indices": (k,) int64, "leaves": (k, 32) uint8, "paths": (k, depth, 32) uint8}.
    """
    key = next(iter(c1["vanilla_proofs"]))
    proofs = [p["comm_d_proofs"] for p in c1["vanilla_proofs"][key][partition]]
    return {
        "comm_d": int.from_bytes(bytes(c1["comm_d"]), "little"),
        "indices": np.array([p["index"] for p in proofs], dtype=np.int64),
        "leaves": np.array([p["leaf"] for p in proofs], dtype=np.uint8),
        "paths": np.array([p["path"] for p in proofs], dtype=np.uint8).reshape(len(proofs), -1, 32),
    }


def public_inputs(c1: dict, partition: int) -> list[int]:
    """Public inputs of one partition without ONE: [comm_d, index_0, …, index_(k−1)]."""
    w = witness_from_c1(c1, partition)
    return [w["comm_d"]] + [int(i) for i in w["indices"]]


def synthesize(cs: ConstraintSystem, shape: CommDShape, values: dict | None = None) -> None:
    """Build one partition's circuit into ``cs``.

    Args:
        cs: shape and/or witness mode.
        shape: the circuit shape.
        values: ``witness_from_c1`` output; required when ``cs.has_values``.

    Raises:
        ValueError: values missing in witness mode, or of the wrong shape for ``shape``.
    """
    k, depth = shape.challenges, shape.depth
    v = cs.has_values
    if v:
        if values is None:
            raise ValueError("witness mode needs the partition's values")
        if values["paths"].shape != (k, depth, 32):
            raise ValueError(f"paths have shape {values['paths'].shape}, shape {shape.name} needs {(k, depth, 32)}")
    comm_d = cs.alloc_input(1, values=[values["comm_d"]] if v else None)
    idx_in = cs.alloc_input(k, values=values["indices"].astype(np.uint64) if v else None)

    idx_bits = alloc_bits(cs, (k, depth), (((values["indices"][:, None] >> np.arange(depth)) & 1).astype(np.uint64)) if v else None,
                          gadget="commd/index_bits")
    cs.enforce(lc(idx_bits, [1 << i for i in range(depth)]), lc(cs.one(k)), lc(idx_in), gadget="commd/index_pack")

    cur = alloc_bits(cs, (k, NODE_BITS), _le_bits(values["leaves"], NODE_BITS) if v else None, gadget="commd/leaf")
    for level in range(depth):
        sib = alloc_bits(cs, (k, NODE_BITS), _le_bits(values["paths"][:, level], NODE_BITS) if v else None,
                         gadget="commd/path")
        bit = np.repeat(idx_bits[:, level : level + 1], NODE_BITS, axis=1)
        if v:
            bv = cs.value(bit, dtype=np.uint64)
            cv, sv = cs.value(cur, dtype=np.uint64), cs.value(sib, dtype=np.uint64)
            lv, rv = np.where(bv == 1, sv, cv), np.where(bv == 1, cv, sv)
        left = cs.alloc_aux((k, NODE_BITS), values=lv if v else None)
        right = cs.alloc_aux((k, NODE_BITS), values=rv if v else None)
        # index bit 1: the current node is the right child (bellman's conditional swap)
        b_, c_, s_, l_, r_ = (x.reshape(-1) for x in (bit, cur, sib, left, right))  # one row per bit
        cs.enforce(lc(b_), lc(s_) - lc(c_), lc(l_) - lc(c_), gadget="commd/swap")
        cs.enforce(lc(b_), lc(c_) - lc(s_), lc(r_) - lc(s_), gadget="commd/swap")
        cur = sha254_node(cs, left, right, order="le", gadget=f"commd/sha254_level{level}")[:, :NODE_BITS]
    cs.enforce(lc(cur, [1 << i for i in range(NODE_BITS)]), lc(cs.one(k)), lc(np.repeat(comm_d, k)), gadget="commd/root")
