"""The StackedDRG PoRep circuit (Filecoin's PoRep C2 statement), one partition at a time.

Built as rust-fil-proofs builds it (``storage-proofs-porep/src/stacked/circuit/proof.rs`` and
``params.rs``), gadget for gadget, with all challenges of a partition as one vectorized block:

* **Globals.** replica_id, comm_d and comm_r are allocated and made public inputs (one
  ``input · 1 = num`` constraint each, bellperson's ``inputize``); replica_id is decomposed into
  255 little-endian bits (``to_bits_le``: 255 booleans and one packing constraint); comm_c and
  comm_r_last are private; ``comm_r = Poseidon₂(comm_c, comm_r_last)`` (1 equality).
* **Per challenge** (upstream ``Proof::synthesize``):

  - the data leaf and its inclusion in tree D (binary SHA-256 tree): per level an index bit, the
    sibling, ``insert`` (2 constraints), both nodes to 255 bits, sha254 of the 512-bit message,
    the 254 digest bits packed (``hash_multi_leaf_circuit`` / ``hash_circuit``); then the index
    bits packed into a public input and the root enforced equal to comm_d;
  - the 6 DRG and 8 expander parents' columns (``layers`` labels each): column hash
    (Poseidon of arity ``layers``, ``hash_single_column``) and inclusion in tree_c under comm_c
    (per level: log2(arity) index bits, ``insert``, Poseidon; index bits packed into one public
    input; root equality);
  - the challenge as an allocated ``UInt64`` (64 booleans) packed into a public input;
  - per layer l: the parents' layer-l (DRG) and layer-(l−1) (expander) labels to 255 bits each,
    repeated to 37 parents (layer 1: the 6 DRG parents), and the label
    (:func:`cuzk.r1cs.labeling.create_label_num`) with the challenge bits as the node;
  - encoding: ``replica = key + data`` (key = last layer's label, 1 constraint) and its
    inclusion in tree_r_last under comm_r_last;
  - the challenged node's column hash (of the computed labels) and its inclusion in tree_c.

Public inputs (after ONE), in upstream's order (``generate_public_inputs``): replica_id, comm_d,
comm_r, then per challenge 18: the comm_d path index, the 6 DRG and 8 expander parents' tree_c
path indices, the challenge, the tree_r_last path index, the c_x tree_c path index. Every path
input packs the path's index bits little-endian, which for power-of-two arities is the node
index itself.

Poseidon hashes are costed as neptune's ``circuit.rs`` (``legacy=True`` in
:func:`cuzk.r1cs.poseidon.poseidon_hash`), which rust-fil-proofs uses. Constraint counts are
therefore upstream's: ``tests/test_porep_circuit.py`` rebuilds upstream's
``test_stacked_input_circuit_poseidon_base_8`` circuit (8 nodes, 2 layers, 1 challenge) and
checks its 22 inputs and 1,199,620 constraints. Every gadget writes upstream's linear
combinations (bellperson's boolean, ``to_bits_le`` and ``Boolean::and``/``xor`` forms, neptune's
compressed-constant, sparse-matrix Poseidon rounds), so the non-zeros of A, B and C also equal
upstream's: ``tests/test_porep_circuit.py`` checks the 32 GiB figures curio's cuzk extracted
(:data:`cuzk.circuits.registry.UPSTREAM`).
"""

from __future__ import annotations

import functools
from dataclasses import asdict, dataclass

import numpy as np

from ..sector.challenges import size_name as _size_name
from ..hash.poseidon import R
from ..r1cs import ConstraintSystem, alloc_bits, lc
from ..r1cs.gadgets import num_to_bits
from ..r1cs.labeling import TOTAL_PARENTS, create_label_num
from ..r1cs.poseidon import insert, poseidon_hash
from ..r1cs.sha254 import sha254_hash2
from ..sector import SECTOR_SIZES, challenge_counts
from .commd import SectorGeometry
from .costs import tabled
from ..sector.graph import BASE_DEGREE, EXP_DEGREE
from ..sector.replica import tree_arities, tree_shape

__all__ = ["PoRepShape", "SHAPES", "shape_by_name", "shape_for", "witness_from_c1", "public_inputs",
           "synthesize", "INPUTS_PER_CHALLENGE"]

NUM_BITS = 255  #: bits of AllocatedNum::to_bits_le (Fr::NUM_BITS)
PARENTS = BASE_DEGREE + EXP_DEGREE
INPUTS_PER_CHALLENGE = 1 + PARENTS + 1 + 1 + 1  #: comm_d path, 14 parents, challenge, tree_r_last, c_x

# column of a challenge's public inputs
_IN_COMMD, _IN_PARENTS, _IN_CHALLENGE, _IN_RLAST, _IN_CX = 0, 1, 1 + PARENTS, 2 + PARENTS, 3 + PARENTS

@dataclass(frozen=True)
class PoRepShape(SectorGeometry):
    """A PoRep circuit shape: sector size (bytes), partitions, challenges per partition, layers."""

    name: str
    sector_size: int
    partitions: int
    challenges: int
    layers: int
    test_only: bool = False
    kind: str = "porep"

    @property
    def arities(self) -> list[int]:
        """Arity of each tree_c / tree_r_last level from the leaves up."""
        return tree_arities(self.nodes, tree_shape(self.sector_size))

    def stats(self) -> dict:
        """Exact sizes of one partition's R1CS (rows include one per public input), computed
        from per-gadget counts (:func:`_parts`) without building the circuit; checked against
        built circuits in the tests."""
        tot = dict.fromkeys(("aux", "constraints", "nnz_a", "nnz_b", "nnz_c"), 0)
        for n, part in _parts(self):
            for key in tot:
                tot[key] += n * part[key]
        inputs = 1 + 3 + INPUTS_PER_CHALLENGE * self.challenges
        rows = tot["constraints"] + inputs
        return {
            "inputs": inputs,
            "aux": tot["aux"],
            "constraints": rows,
            "circuit_constraints": tot["constraints"],
            "nnz_a": tot["nnz_a"] + inputs,  # each input row has one A entry (R1CS.finalize)
            "nnz_b": tot["nnz_b"],
            "nnz_c": tot["nnz_c"],
            "domain": 1 << (rows - 1).bit_length(),
            "sector_size": self.sector_size,
            "partitions": self.partitions,
            # for the memory model: the 32-byte values of the sector's C1 file (all partitions;
            # cuzk.sector.porep_c1's layout): per challenge comm_d's leaf, root and path, tree_r_last's
            # leaf, root and siblings, a column proof (a label per layer, leaf, root, siblings) for
            # the node and each of its parents, TOTAL_PARENTS labels per layer and for the encoding;
            # plus the file's 7 header values (prover_id, ticket, seed, comm_d, replica_id, comm_r, porep_id)
            "input_values": self.partitions * self.challenges * self._c1_values_per_challenge() + 7,
        }

    def _c1_values_per_challenge(self) -> int:
        sib = sum(a - 1 for a in self.arities)
        return ((self.depth + 2) + (2 + sib) + (1 + PARENTS) * (self.layers + 2 + sib)
                + (self.layers + 1) * TOTAL_PARENTS)

    def describe(self) -> dict:
        """JSON-ready description (stored in the PCE header)."""
        return asdict(self) | {"circuit": "porep", "depth": self.depth, "arities": self.arities}




def _layers(sector_size: int) -> int:
    return 11 if sector_size >= 32 << 30 else 2


SHAPES: dict[str, PoRepShape] = {
    f"porep-{_size_name(s)}": PoRepShape(f"porep-{_size_name(s)}", s, *challenge_counts(s), _layers(s))
    for s in SECTOR_SIZES
} | {
    # upstream's test_stacked_input_circuit_poseidon_base_8 circuit: 8 nodes, 1 challenge, 2 layers
    "test-only-porep-256B": PoRepShape("test-only-porep-256B", 256, 1, 1, 2, test_only=True),
    "test-only-porep-2KiB-1c": PoRepShape("test-only-porep-2KiB-1c", 2048, 1, 1, 2, test_only=True),
    # several partitions at test size: the workflow's per-partition jobs, as at 32 GiB
    "test-only-porep-256B-2p": PoRepShape("test-only-porep-256B-2p", 256, 2, 1, 2, test_only=True),
    # one layer (base parents only): the family's steps end to end at about half the 256 B
    # circuit (673,324 constraints, domain 2^20), what the CPU test of the steps proves
    "test-only-porep-256B-1L": PoRepShape("test-only-porep-256B-1L", 256, 1, 1, 1, test_only=True),
}


def shape_by_name(name: str) -> PoRepShape:
    """Look a shape up by name. Raises ValueError naming the known shapes."""
    if name not in SHAPES:
        raise ValueError(f"unknown PoRep shape {name!r}; known: {', '.join(SHAPES)}")
    return SHAPES[name]


def shape_for(sector_size: int) -> PoRepShape:
    """The Filecoin PoRep shape of a sector size. Raises ValueError for other sizes."""
    for s in SHAPES.values():
        if s.sector_size == sector_size and not s.test_only:
            return s
    raise ValueError(f"sector size {sector_size} is not one of Filecoin's")


# --- values from a C1 file -----------------------------------------------------------------------


def _fr(b) -> int:
    return int.from_bytes(bytes(b), "little")


def _frs(rows) -> np.ndarray:
    return np.array([_fr(b) for b in rows], dtype=object)


def _path(proof: dict) -> tuple[list[list[int]], list[int]]:
    return [[_fr(h) for h in el["hashes"]] for el in proof["path"]], [el["index"] for el in proof["path"]]


def witness_from_c1(c1: dict, partition: int) -> dict:
    """One partition's private and public values from a PoRep C1 dict (checked by
    :func:`cuzk.sector.porep_c1.verify_porep_c1`).

    Returns a dict of ints and object arrays (Fr values as Python ints):
    ``replica_id, comm_d, comm_r, comm_c, comm_r_last`` ints; ``challenges`` (k,);
    ``data`` (k,); ``commd_path`` (k, depth) siblings; ``columns`` (k, 14, layers) parents'
    labels (6 DRG then 8 expander); ``parent_nodes`` (k, 14); ``tree_c_paths`` (k, 14, levels,
    a − 1) and ``rlast_path``, ``cx_path`` (k, levels, a − 1) siblings (levels may have different
    arities: then lists per level).
    """
    key = next(iter(c1["vanilla_proofs"]))
    proofs = c1["vanilla_proofs"][key][partition]
    k = len(proofs)
    cols, pnodes, cpaths = [], [], []
    rl, cx = [], []
    for pr in proofs:
        rcp = pr["replica_column_proofs"]
        ps = rcp["drg_parents"] + rcp["exp_parents"]
        cols.append([[_fr(r) for r in p["column"]["rows"]] for p in ps])
        pnodes.append([p["column"]["index"] for p in ps])
        cpaths.append([_path(p["inclusion_proof"])[0] for p in ps])
        rl.append(_path(pr["comm_r_last_proof"])[0])
        cx.append(_path(rcp["c_x"]["inclusion_proof"])[0])
    first = proofs[0]
    return {
        "replica_id": _fr(c1["replica_id"]),
        "comm_d": _fr(c1["comm_d"]),
        "comm_r": _fr(c1["comm_r"]),
        "comm_c": _fr(first["replica_column_proofs"]["c_x"]["inclusion_proof"]["root"]),
        "comm_r_last": _fr(first["comm_r_last_proof"]["root"]),
        "challenges": np.array([pr["comm_d_proofs"]["index"] for pr in proofs], dtype=object),
        "data": _frs([pr["comm_d_proofs"]["leaf"] for pr in proofs]),
        "commd_path": np.array([[_fr(s) for s in pr["comm_d_proofs"]["path"]] for pr in proofs], dtype=object).reshape(k, -1),
        "columns": np.array(cols, dtype=object).reshape(k, PARENTS, -1),
        "parent_nodes": np.array(pnodes, dtype=object).reshape(k, PARENTS),
        "tree_c_paths": cpaths,
        "rlast_path": rl,
        "cx_path": cx,
    }


def public_inputs(c1: dict, partition: int) -> list[int]:
    """Public inputs of one partition without ONE (module docstring order)."""
    w = witness_from_c1(c1, partition)
    out = [w["replica_id"], w["comm_d"], w["comm_r"]]
    for c, ps in zip(w["challenges"], w["parent_nodes"]):
        out += [int(c)] + [int(p) for p in ps] + [int(c)] * 3
    return out


# --- gadgets as upstream composes them ----------------------------------------------------------


def _inputize(cs: ConstraintSystem, value, gadget: str) -> np.ndarray:
    """An aux number made public (bellperson ``inputize``): 1 constraint."""
    v = [value] if cs.has_values else None
    num = cs.alloc_aux(1, v)
    inp = cs.alloc_input(1, v)
    cs.enforce(lc(inp), lc(cs.one(1)), lc(num), gadget=gadget)
    return num


def _pack_into_input(cs: ConstraintSystem, bits, input_refs, gadget: str) -> None:
    """Σ 2^i·bits_i · 1 = input (multipack ``pack_into_inputs``, one input: ≤ 254 bits)."""
    k, n = bits.shape
    cs.enforce(lc(bits, [1 << i for i in range(n)]), lc(cs.one(k)), lc(input_refs), gadget=gadget)


def _equal(cs: ConstraintSystem, a, b, gadget: str) -> None:
    """a · 1 = b (``constraint::equal``)."""
    a = np.asarray(a)
    cs.enforce(lc(a), lc(cs.one(a.shape[0])), lc(np.asarray(b)), gadget=gadget)


def _index_bits(index, levels_bits: list[int]) -> np.ndarray:
    """(k,) node indices → (k, Σ bits) little-endian bits (as uint64)."""
    total = sum(levels_bits)
    idx = np.array([int(i) for i in index], dtype=np.uint64)
    return ((idx[:, None] >> np.arange(total, dtype=np.uint64)) & np.uint64(1)).astype(np.uint64)


def _commd_inclusion(cs, leaf, depth: int, index, siblings, root, input_refs, gadget: str) -> None:
    """Binary SHA-256 PoR (``PoRCircuit`` over ``BinaryMerkleTree<Sha256Hasher>``), k paths."""
    k = leaf.shape[0]
    v = cs.has_values
    bits_v = _index_bits(index, [1] * depth) if v else None
    cur = leaf
    path_bits = []
    for level in range(depth):
        bit = alloc_bits(cs, (k, 1), bits_v[:, level:level + 1] if v else None, gadget=f"{gadget}/index_bit")
        sib = cs.alloc_aux(k, siblings[:, level] if v else None)
        nodes = insert(cs, cur, bit, sib[:, None], gadget=f"{gadget}/insert")
        cur = sha254_hash2(cs, nodes[:, 0], nodes[:, 1], gadget=gadget)
        path_bits.append(bit)
    _pack_into_input(cs, np.concatenate(path_bits, axis=1), input_refs, f"{gadget}/path_input")
    _equal(cs, cur, np.repeat(root, k), f"{gadget}/root")


def _poseidon_inclusion(cs, leaf, arities: list[int], index, siblings, root, input_refs, gadget: str,
                        levels=None) -> None:
    """Poseidon PoR (``PoRCircuit`` over tree_c / tree_r_last, private root), k paths.

    ``siblings``: per instance a list of levels, each a list of arity − 1 Frs (witness mode), or
    instead ``levels``: per level the siblings' ``(k, a − 1, 4)`` uint64 canonical limbs (PoSt);
    ``root``: (1,) ref shared by the k paths or (k,) one per path.
    """
    k = leaf.shape[0]
    v = cs.has_values
    nbits = [a.bit_length() - 1 for a in arities]
    bits_v = _index_bits(index, nbits) if v else None
    cur = leaf
    path_bits = []
    off = 0
    for level, a in enumerate(arities):
        nb = nbits[level]
        bits = alloc_bits(cs, (k, nb), bits_v[:, off:off + nb] if v else None, gadget=f"{gadget}/index_bits")
        off += nb
        if levels is not None:
            sib = cs.alloc_aux_limbs((k, a - 1), levels[level])
        else:
            sv = np.array([s[level] for s in siblings], dtype=object).reshape(k, a - 1) if v else None
            sib = cs.alloc_aux((k, a - 1), sv)
        nodes = insert(cs, cur, bits, sib, gadget=f"{gadget}/insert")
        cur = poseidon_hash(cs, nodes, a, gadget=f"{gadget}/hash", legacy=True)
        path_bits.append(bits)
    _pack_into_input(cs, np.concatenate(path_bits, axis=1), input_refs, f"{gadget}/path_input")
    _equal(cs, cur, np.broadcast_to(root, (k,)), f"{gadget}/root")


def _expand_parents(bits: np.ndarray) -> np.ndarray:
    """(k, p, n) parent label bits → (k, 37, n): upstream repeats the list (layer 1: 6 → 37 as
    6·6 + the first; later layers: 14 → 14 + 14 + the first 9)."""
    p = bits.shape[1]
    return bits[:, [i % p for i in range(TOTAL_PARENTS)]]


def synthesize(cs: ConstraintSystem, shape: PoRepShape, values: dict | None = None) -> dict:
    """Build one partition's circuit into ``cs``.

    Args:
        cs: shape and/or witness mode.
        shape: the circuit shape.
        values: :func:`witness_from_c1` output; required when ``cs.has_values``.

    Returns:
        refs of the named intermediate variables (for tests): ``labels`` (k, layers),
        ``replica`` (k,), ``columns`` (k, 14, layers), ``data`` (k,).

    Raises:
        ValueError: values missing in witness mode, or of the wrong size for ``shape``.
    """
    k, L, depth, arities = shape.challenges, shape.layers, shape.depth, shape.arities
    v = cs.has_values
    if v:
        if values is None:
            raise ValueError("witness mode needs the partition's values")
        if values["columns"].shape != (k, PARENTS, L) or values["commd_path"].shape != (k, depth):
            raise ValueError(f"values do not fit shape {shape.name}: columns {values['columns'].shape}, "
                             f"comm_d paths {values['commd_path'].shape}")
    g = "porep"
    rid_bits, comm_d, comm_c, comm_r_last = _globals(cs, values, g)
    ins = cs.alloc_input((k, INPUTS_PER_CHALLENGE),
                         _challenge_inputs(values) if v else None)

    # per challenge, all k at once (params.rs Proof::synthesize); cs.instances marks upstream's
    # loops (challenges, parents) for its variable and row order (cuzk.r1cs.order)
    chal = values["challenges"] if v else None
    with cs.instances(k, f"{g}/challenges"):
        data = cs.alloc_aux(k, values["data"] if v else None)
        _commd_inclusion(cs, data, depth, chal, values["commd_path"] if v else None, comm_d, ins[:, _IN_COMMD],
                         f"{g}/comm_d_inclusion")

        with cs.instances(k * PARENTS, f"{g}/parents"):
            cols = cs.alloc_aux((k, PARENTS, L), values["columns"] if v else None)
            col_hash = poseidon_hash(cs, cols.reshape(k * PARENTS, L), L, gadget=f"{g}/column_hash", legacy=True)
            pidx = values["parent_nodes"].reshape(-1) if v else None
            ppaths = [p for per in values["tree_c_paths"] for p in per] if v else None
            _poseidon_inclusion(cs, col_hash, arities, pidx, ppaths, comm_c,
                                ins[:, _IN_PARENTS:_IN_PARENTS + PARENTS].reshape(-1), f"{g}/tree_c_parents")

        chal_bits = _challenge_bits(cs, chal, ins[:, _IN_CHALLENGE], g)

        labels = []
        for layer in range(1, L + 1):
            lg = f"{g}/labeling_{layer}"
            pv = cols[:, :BASE_DEGREE, layer - 1]
            if layer > 1:
                pv = np.concatenate([pv, cols[:, BASE_DEGREE:, layer - 2]], axis=1)
            p = pv.shape[1]
            with cs.instances(k * p, f"{lg}/parents"):
                pbits = num_to_bits(cs, pv.reshape(-1), NUM_BITS, gadget=f"{lg}/parent_bits").reshape(k, p, NUM_BITS)
            rb = np.broadcast_to(rid_bits, (k, NUM_BITS))
            labels.append(create_label_num(cs, rb, layer, chal_bits, _expand_parents(pbits),
                                           gadget=f"{lg}/create_label"))
        labels = np.stack(labels, axis=1)  # (k, L)

        replica = _encode(cs, labels[:, -1], data, g)
        _poseidon_inclusion(cs, replica, arities, chal, values["rlast_path"] if v else None, comm_r_last,
                            ins[:, _IN_RLAST], f"{g}/tree_r_last")

        cx = poseidon_hash(cs, labels, L, gadget=f"{g}/c_x_column_hash", legacy=True)
        _poseidon_inclusion(cs, cx, arities, chal, values["cx_path"] if v else None, comm_c, ins[:, _IN_CX],
                            f"{g}/tree_c_c_x")
    return {"labels": labels, "replica": replica, "columns": cols, "data": data}


def _globals(cs: ConstraintSystem, values, g: str):
    """replica_id (public, and its bits), comm_d, comm_r (public), comm_c, comm_r_last and
    comm_r = Poseidon₂(comm_c, comm_r_last) (``StackedCircuit::synthesize``)."""
    v = cs.has_values
    rid = _inputize(cs, values["replica_id"] if v else None, f"{g}/replica_id")
    rid_bits = num_to_bits(cs, rid, NUM_BITS, gadget=f"{g}/replica_id_bits")
    comm_d = _inputize(cs, values["comm_d"] if v else None, f"{g}/comm_d")
    comm_r = _inputize(cs, values["comm_r"] if v else None, f"{g}/comm_r")
    comm_r_last = cs.alloc_aux(1, [values["comm_r_last"]] if v else None)
    comm_c = cs.alloc_aux(1, [values["comm_c"]] if v else None)
    h = poseidon_hash(cs, np.stack([comm_c, comm_r_last], axis=1), 2, gadget=f"{g}/comm_r_hash", legacy=True)
    _equal(cs, comm_r, h, f"{g}/comm_r")
    return rid_bits, comm_d, comm_c, comm_r_last


def _challenge_bits(cs: ConstraintSystem, chal, input_refs, g: str) -> np.ndarray:
    """The challenge as an allocated UInt64 (64 booleans) packed into its public input."""
    k = np.asarray(input_refs).shape[0]
    bits = alloc_bits(cs, (k, 64), _index_bits(chal, [64]) if cs.has_values else None, gadget=f"{g}/challenge_bits")
    _pack_into_input(cs, bits, input_refs, f"{g}/challenge_input")
    return bits


def _encode(cs: ConstraintSystem, key, data, g: str) -> np.ndarray:
    """replica = key + data (``encode``: ``constraint::add``, 1 constraint)."""
    rv = None
    if cs.has_values:
        rv = np.mod(cs.value(key, dtype=object) + cs.value(data, dtype=object), R)
    replica = cs.alloc_aux(key.shape[0], rv)
    cs.enforce(lc(key) + lc(data), lc(cs.one(key.shape[0])), lc(replica), gadget=f"{g}/encode")
    return replica


def _challenge_inputs(values: dict) -> np.ndarray:
    k = len(values["challenges"])
    out = np.empty((k, INPUTS_PER_CHALLENGE), dtype=object)
    out[:, _IN_COMMD] = values["challenges"]
    out[:, _IN_PARENTS:_IN_PARENTS + PARENTS] = values["parent_nodes"]
    out[:, _IN_CHALLENGE] = values["challenges"]
    out[:, _IN_RLAST] = values["challenges"]
    out[:, _IN_CX] = values["challenges"]
    return out


# --- exact sizes from per-gadget counts ---------------------------------------------------------


def _count(build) -> dict:
    """Counts of what ``build(cs)`` adds to a fresh shape-mode system (inputs excluded)."""
    cs = ConstraintSystem(shape=True, witness=False)
    build(cs)
    r = cs.finalize()
    ni = r.num_inputs  # each input row has one A entry
    return {"aux": r.num_aux, "constraints": r.num_constraints - ni,
            "nnz_a": r.A.nnz - ni, "nnz_b": r.B.nnz, "nnz_c": r.C.nnz}


def _diff(a: dict, b: dict) -> dict:
    return {key: a[key] - b[key] for key in a}


@functools.lru_cache(maxsize=2)
def _commd_levels(d: int) -> dict:
    """Counts of a built comm_d inclusion of ``d`` levels (1 and 2: shared by every depth)."""
    def f(cs):
        ins = cs.alloc_input(1)
        leaf = cs.alloc_aux(1)
        root = cs.alloc_aux(1)
        _commd_inclusion(cs, leaf, d, None, None, root, ins, "p")
    return _count(f)


@tabled
def _commd_part(depth: int) -> dict:
    """comm_d inclusion of one path of ``depth`` levels (linear in depth: two small builds)."""
    one, two = _commd_levels(1), _commd_levels(2)
    per = _diff(two, one)
    return {key: one[key] + (depth - 1) * per[key] - (2 if key == "aux" else 0) for key in one}


@tabled
def _poseidon_part(arities: tuple) -> dict:
    """One Poseidon PoR over ``arities`` (leaf and root given)."""
    def f(cs):
        ins = cs.alloc_input(1)
        leaf = cs.alloc_aux(1)
        root = cs.alloc_aux(1)
        _poseidon_inclusion(cs, leaf, list(arities), None, None, root, ins, "p")
    c = _count(f)
    c["aux"] -= 2
    return c


@tabled
def _hash_part(arity: int) -> dict:
    def f(cs):
        x = cs.alloc_aux((1, arity))
        poseidon_hash(cs, x, arity, legacy=True)
    c = _count(f)
    c["aux"] -= arity
    return c


@tabled
def _label_part(parents: int) -> dict:
    """Parent bits and one label (replica id bits and challenge bits given). The count does not
    depend on the layer (a constant: free bits), which the tests check."""
    def f(cs):
        rid = cs.alloc_aux((1, NUM_BITS))
        node = cs.alloc_aux((1, 64))
        pv = cs.alloc_aux(parents)
        pb = num_to_bits(cs, pv, NUM_BITS).reshape(1, parents, NUM_BITS)
        create_label_num(cs, rid, 1 if parents == BASE_DEGREE else 2, node, _expand_parents(pb))
    c = _count(f)
    c["aux"] -= NUM_BITS + 64 + parents
    return c


@tabled
def _fixed_parts() -> dict:
    """Globals, the challenge bits and the encoding."""
    def glob(cs):
        _globals(cs, None, "p")

    def chal(cs):
        _challenge_bits(cs, None, cs.alloc_input(1), "p")

    def enc(cs):
        x = cs.alloc_aux(2)
        _encode(cs, x[:1], x[1:], "p")
    out = {"globals": _count(glob), "challenge": _count(chal), "encode": _count(enc)}
    out["encode"]["aux"] -= 2
    return out


def _parts(shape: PoRepShape) -> list[tuple[int, dict]]:
    """(multiplicity, counts) of every gadget of one partition (as :func:`synthesize`)."""
    k, L = shape.challenges, shape.layers
    ar = tuple(shape.arities)
    fixed = _fixed_parts()
    unit = {"aux": 1, "constraints": 0, "nnz_a": 0, "nnz_b": 0, "nnz_c": 0}  # an allocated value
    return [
        (1, fixed["globals"]),
        (k, unit), (k, _commd_part(shape.depth)),
        (k * PARENTS * L, unit), (k * PARENTS, _hash_part(L)), (k * PARENTS, _poseidon_part(ar)),
        (k, fixed["challenge"]),
        (k, _label_part(BASE_DEGREE)), ((L - 1) * k, _label_part(PARENTS)),
        (k, fixed["encode"]), (k, _poseidon_part(ar)),
        (k, _hash_part(L)), (k, _poseidon_part(ar)),
    ]
