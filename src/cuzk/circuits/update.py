"""The SnapDeals circuit (``EmptySectorUpdateCircuit``), one partition, all challenges as one block.

Gadget for gadget as rust-fil-proofs builds it (``storage-proofs-update/src/circuit.rs`` and
``gadgets.rs`` at 87348a74; constants from :mod:`cuzk.sector.update`). With N nodes, P partitions
(``p = log2 P`` partition bits), k challenges, A apex leaves (``a = log2 A``), the six ``hs``:

* **Public inputs** (after ONE, upstream's ``PublicInputs::to_vec`` order): ``k_and_h_select`` =
  k | h_select << p (h_select = 2^index of h in hs), comm_r_old, comm_d_new, comm_r_new; each an
  aux made public (``inputize``: one constraint). ``k_and_h_select`` is split into p + 6 booleans
  (one packing constraint); the partition bits are packed again into ``partition`` (``pack_bits``).
* **Globals**: phi = P_gen(comm_d_new, comm_r_old); comm_c, root_r_old, root_r_new private;
  ``H₂(comm_c, root_r_old) = comm_r_old`` and the same for comm_r_new (Poseidon arity 2, Merkle tag).
* **Apex PoR** (``apex_por``): the partition's A apex leaves of tree_d_new (SHA-256, binary) are
  hashed up to the apex root, which with the p private partition-path siblings and the partition
  bits hashes up to comm_d_new.
* **Challenge bits** (``gen_challenge_bits``): per digest j < D, ``digest_index = k·D + j`` (one
  constraint), ``digest = P_gen(comm_r_new, digest_index)`` and its 255 bits (booleanity, then
  Σ 2^i·b_i · 1 = digest: ``allocated_num_to_allocated_bits``); challenge i takes
  ``log2 N − p`` bits of digest ``i // (254 // b)`` and the partition bits on top.
* **Per challenge**: the h high bits of c for each of the six h, times its h_select bit, summed
  (``get_challenge_high_bits``: 2 constraints per h and one sum); rho = P_gen(phi, high);
  ``leaf_r_new = leaf_r_old + leaf_d_new · rho`` (``label_r_new``: 2 constraints); PoRs of
  leaf_r_old in tree_r_old and leaf_r_new in tree_r_new (Poseidon, the c bits as insert positions,
  roots root_r_old / root_r_new); the apex leaf ``select``-ed by c's a bits above the path, and
  leaf_d_new's SHA-256 path of ``log2 N − p − a`` levels up to it.

**Order.** Allocations follow upstream's: the apex leaves and the partition path right after
comm_c and the two roots (before the comm_r checks), each tree_r path's siblings all before its
first hash. The apex tree rows, the digests and the challenges are marked as loops
(``cs.instances``), so ``upstream_order`` gives rust-fil-proofs' row and column order (checked
against a naive sequential build in ``tests/test_upstream_order.py``).

P_gen is arity-2 Poseidon with the SnapDeals tag (:data:`cuzk.sector.update.GEN_RANDOMNESS_TAG`).
Poseidon is costed as neptune's ``circuit.rs`` (``legacy=True``), SHA-256 nodes as
:func:`cuzk.r1cs.sha254.sha254_hash2`, so ``stats()["circuit_constraints"]`` (no input rows) equals
upstream's ``TestConstraintSystem`` counts: 1,248,389 (1 KiB) … 6,760,091 (32 KiB) in
``tests/circuit.rs`` and 81,049,499 at 32 GiB (``test_empty_sector_update_constraints_32gib``).

Gadget names (reported by :class:`~cuzk.r1cs.Unsatisfied`) start with ``update/``: ``comm_r_old``,
``comm_r_new``, ``comm_d_new`` (apex root path), ``tree_r_old/root``, ``tree_r_new/root``,
``tree_d_new/root`` (a challenge's data path to its apex leaf), and the gadgets' own
(``.../sbox``, ``.../insert``, ``.../sha256``).

Shapes: ``update-<size>`` for Filecoin's sector sizes, ``test-only-update-<size>`` for upstream's
other test sizes (1, 4, 8, 16, 32 KiB, 16 MiB).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from ..hash.poseidon import R
from ..r1cs import ConstraintSystem, enforce_equal, lc, num_to_bits, pack_bits
from ..r1cs.gadgets import select
from ..r1cs.poseidon import insert, merkle_path_poseidon, poseidon_hash
from ..r1cs.sha254 import sha254_hash2
from ..sector import SECTOR_SIZES
from ..sector import update as su
from ..sector.challenges import size_name as _size_name
from ..sector.replica import tree_arities
from .commd import SectorGeometry
from .costs import tabled
from .porep import _count, _inputize

__all__ = ["UpdateShape", "SHAPES", "shape_by_name", "shape_for", "values", "public_inputs", "synthesize"]

G = "update"
_NUM_BITS = 255  # AllocatedNum bits (Fr::NUM_BITS)
_TAG = su.GEN_RANDOMNESS_TAG
_KEYS = ("aux", "constraints", "nnz_a", "nnz_b", "nnz_c")


@dataclass(frozen=True)
class UpdateShape(SectorGeometry):
    """A SnapDeals circuit shape: sector size (bytes), partitions, challenges per partition."""

    name: str
    sector_size: int
    partitions: int
    challenges: int
    test_only: bool = False
    kind: str = "update"

    @property
    def partition_bits(self) -> int:
        """log2(partitions)."""
        return self.partitions.bit_length() - 1

    @property
    def hs(self) -> tuple[int, ...]:
        """The six allowed h (:func:`cuzk.sector.update.hs`)."""
        return su.hs(self.sector_size)

    @property
    def apex_leaves(self) -> int:
        """Apex leaves per partition (:func:`cuzk.sector.update.apex_leaf_count`)."""
        return su.apex_leaf_count(self.sector_size)

    @property
    def apex_depth(self) -> int:
        """SHA-256 levels of a challenge's tree_d_new path up to its apex leaf."""
        return self.depth - self.partition_bits - (self.apex_leaves.bit_length() - 1)

    @property
    def arities(self) -> list[int]:
        """tree_r_old / tree_r_new arity per level, leaves up."""
        return tree_arities(self.nodes, su.tree_r_shape(self.sector_size))

    @property
    def rand_bits(self) -> int:
        """Random bits per challenge, log2 N − log2 P."""
        return self.depth - self.partition_bits

    @property
    def digests(self) -> int:
        """Challenge digests per partition, ceil(k / (254 // rand_bits))."""
        return -(-self.challenges // (su._FR_CAPACITY // self.rand_bits))

    def stats(self) -> dict:
        """Exact sizes of one partition's R1CS without building it (per-gadget counts from
        :mod:`cuzk.circuits.costs`, checked against built circuits in the tests).
        ``circuit_constraints`` leaves out the input rows (upstream's count)."""
        tot = dict.fromkeys(_KEYS, 0)
        for n, part in _parts(self):
            for key in _KEYS:
                tot[key] += n * part[key]
        inputs = 1 + 4
        rows = tot["constraints"] + inputs
        return {"inputs": inputs, "aux": tot["aux"], "constraints": rows, "circuit_constraints": tot["constraints"],
                "nnz_a": tot["nnz_a"] + inputs, "nnz_b": tot["nnz_b"], "nnz_c": tot["nnz_c"],
                "domain": 1 << (rows - 1).bit_length(), "sector_size": self.sector_size,
                "partitions": self.partitions,
                # for the memory model: the 32-byte values of the sector's update file
                # (cuzk.sector.update_doc): per partition its apex leaves and, per challenge,
                # tree_r_old's and tree_r_new's leaf, root and siblings and tree_d_new's leaf and
                # path; plus comm_c, comm_r_old, comm_d_new and comm_r_new
                "input_values": self.partitions * (su.apex_leaf_count(self.sector_size) + self.challenges * (
                    2 * (2 + sum(a - 1 for a in self.arities)) + 1 + self.depth)) + 4}

    def describe(self) -> dict:
        """JSON-ready description (stored in the PCE header)."""
        return asdict(self) | {"circuit": "update", "depth": self.depth, "arities": self.arities,
                               "challenges_per_partition": self.challenges}


def _shape(size: int, test_only: bool) -> UpdateShape:
    name = f"{'test-only-' if test_only else ''}update-{_size_name(size)}"
    return UpdateShape(name, size, su.partition_count(size), su.challenge_count(size), test_only)


SHAPES: dict[str, UpdateShape] = {s.name: s for s in [_shape(z, False) for z in SECTOR_SIZES] + [
    _shape(z, True) for z in su.ALLOWED_SECTOR_SIZES if z not in SECTOR_SIZES]}


def shape_by_name(name: str) -> UpdateShape:
    """Look a shape up by name. Raises ValueError naming the known shapes."""
    if name not in SHAPES:
        raise ValueError(f"unknown SnapDeals shape {name!r}; known: {', '.join(SHAPES)}")
    return SHAPES[name]


def shape_for(sector_size: int) -> UpdateShape:
    """The shape of a sector size (test-only sizes included). Raises ValueError for others."""
    for s in SHAPES.values():
        if s.sector_size == sector_size:
            return s
    raise ValueError(f"sector size {sector_size} has no SnapDeals shape")


# --- values from a partition vanilla proof --------------------------------------------------------


def _int(b) -> int:
    return int.from_bytes(bytes(b), "little")


def _obj(xs) -> np.ndarray:
    return np.array([int(x) for x in xs], dtype=object)


def k_and_h_select(k: int, h: int, sector_size: int) -> int:
    """``k | h_select << log2 P`` with h_select = 2^(index of h in :func:`~cuzk.sector.update.hs`)
    (``PublicInputs::new``). Raises UpdateError for a bad k or h."""
    parts = su.partition_count(sector_size)
    if not 0 <= k < parts:
        raise su.UpdateError(f"partition k={k} out of range: {sector_size}-byte sectors have {parts} partitions")
    hs = su.hs(sector_size)
    if h not in hs:
        raise su.UpdateError(f"h={h} is not allowed for {sector_size}-byte sectors (hs: {hs})")
    return k | (1 << hs.index(h)) << (parts.bit_length() - 1)


def public_inputs(k: int, *, sector_size: int, h: int, comm_r_old: bytes, comm_d_new: bytes,
                  comm_r_new: bytes) -> list[int]:
    """Partition k's public inputs without ONE: [k_and_h_select, comm_r_old, comm_d_new,
    comm_r_new] (``PublicInputs::to_vec``); the commitments as 32-byte little-endian Fr."""
    return [k_and_h_select(k, h, sector_size), _int(comm_r_old), _int(comm_d_new), _int(comm_r_new)]


def values(proof: su.PartitionProof, k: int, *, sector_size: int, h: int, comm_r_old: bytes,
           comm_d_new: bytes, comm_r_new: bytes) -> dict:
    """Private and public values of partition k from its vanilla proof
    (:func:`cuzk.sector.update.prove_partition`; verify it first, this only reshapes).

    Returns ints and object arrays (k challenges, L tree_r levels):
        ``inputs`` (4,) the public inputs; ``comm_c``, ``root_r_old``, ``root_r_new`` ints;
        ``apex_leafs`` (A,); ``partition_path`` (p,) tree_d_new siblings above the apex root;
        ``leaf_r_old``, ``leaf_d_new`` (k,); ``path_r_old``, ``path_r_new``: L arrays (k, a_l − 1);
        ``path_d_new`` (k, apex_depth) siblings below the apex leaves.

    Raises:
        UpdateError: bad k or h, or a proof not of the shape's sizes. ValueError: a size without
            a SnapDeals shape.
    """
    shape = shape_for(sector_size)
    cps = proof.challenge_proofs
    if len(cps) != shape.challenges or len(proof.apex_leafs) != shape.apex_leaves:
        raise su.UpdateError(f"partition proof has {len(cps)} challenges and {len(proof.apex_leafs)} apex "
                             f"leaves; shape {shape.name} needs {shape.challenges} and {shape.apex_leaves}")
    nlev, d = len(shape.arities), shape.apex_depth

    def path(name):
        return [np.array([[int(s) for s in getattr(c, name)[lvl][0]] for c in cps], dtype=object)
                for lvl in range(nlev)]

    return {
        "inputs": public_inputs(k, sector_size=sector_size, h=h, comm_r_old=comm_r_old,
                                comm_d_new=comm_d_new, comm_r_new=comm_r_new),
        "comm_c": _int(proof.comm_c), "root_r_old": int(cps[0].root_r_old), "root_r_new": int(cps[0].root_r_new),
        "apex_leafs": _obj(_int(a) for a in proof.apex_leafs),
        "partition_path": _obj(_int(s) for s in cps[0].path_d_new[shape.depth - shape.partition_bits:]),
        "leaf_r_old": _obj(c.leaf_r_old for c in cps),
        "leaf_d_new": _obj(_int(c.leaf_d_new) for c in cps),
        "path_r_old": path("path_r_old"), "path_r_new": path("path_r_new"),
        "path_d_new": np.array([[_int(s) for s in c.path_d_new[:d]] for c in cps], dtype=object).reshape(len(cps), d),
    }


# --- the gadgets ----------------------------------------------------------------------------------


def _sha_path(cs: ConstraintSystem, leaf, bits, siblings, gadget: str) -> np.ndarray:
    """Root of k binary SHA-256 paths (``por_no_challenge_input`` over TreeD without the root
    check): per level ``insert`` by the bit, then :func:`sha254_hash2`. bits, siblings: (k, d) refs."""
    cur = leaf
    for lvl in range(bits.shape[1]):
        nodes = insert(cs, cur, bits[:, lvl:lvl + 1], siblings[:, lvl:lvl + 1], gadget=f"{gadget}/insert")
        cur = sha254_hash2(cs, nodes[:, 0], nodes[:, 1], gadget=gadget)
    return cur


def _globals(cs: ConstraintSystem, nbits: int, p: int, inputs, priv, alloc_more=None) -> dict:
    """Public inputs, their bits, phi, the private commitments and the two comm_r checks.

    ``nbits``: p + 6 bits of k_and_h_select; ``inputs``: the 4 public values or None; ``priv``:
    (comm_c, root_r_old, root_r_new) or None; ``alloc_more``: None or a callable allocating the
    other per-partition private values (upstream allocates them after the roots, before the
    checks), its result returned under ``"more"``."""
    khs = _inputize(cs, inputs[0] if inputs else None, f"{G}/k_and_h_select")
    bits = num_to_bits(cs, khs, nbits, gadget=f"{G}/k_and_h_select_bits", packing_row=True)
    if p:
        partition = pack_bits(cs, bits[:, :p], gadget=f"{G}/partition")
    else:  # pack_bits of no bits: a zero number, 0 · 1 = partition
        partition = cs.alloc_aux(1, [0] if inputs else None)
        cs.enforce(None, lc(cs.one(1)), lc(partition), gadget=f"{G}/partition")
    comm_r_old, comm_d_new, comm_r_new = (_inputize(cs, inputs[i] if inputs else None, f"{G}/{n}_input")
                                          for i, n in ((1, "comm_r_old"), (2, "comm_d_new"), (3, "comm_r_new")))
    phi = poseidon_hash(cs, np.stack([comm_d_new, comm_r_old], axis=1), 2, domain_tag=_TAG, gadget=f"{G}/phi",
                        legacy=True)
    comm_c, root_r_old, root_r_new = (cs.alloc_aux(1, [priv[i]] if priv else None) for i in range(3))
    more = alloc_more() if alloc_more else None
    for name, root, public in (("comm_r_old", root_r_old, comm_r_old), ("comm_r_new", root_r_new, comm_r_new)):
        calc = poseidon_hash(cs, np.stack([comm_c, root], axis=1), 2, gadget=f"{G}/{name}_calc", legacy=True)
        enforce_equal(cs, calc, public, gadget=f"{G}/{name}")
    return {"bits": bits[0], "partition": partition, "comm_r_old": comm_r_old, "comm_d_new": comm_d_new,
            "comm_r_new": comm_r_new, "phi": phi, "root_r_old": root_r_old, "root_r_new": root_r_new, "more": more}


def _apex_por(cs: ConstraintSystem, apex, pbits, ppath, comm_d_new) -> None:
    """``apex_por``: the apex tree over ``apex`` (A,) refs, then the partition path to comm_d_new."""
    row = apex
    while row.shape[0] > 1:
        with cs.instances(row.shape[0] // 2, f"{G}/apex_tree"):  # upstream hashes pair after pair
            row = sha254_hash2(cs, row[0::2], row[1::2], gadget=f"{G}/apex_tree")
    root = _sha_path(cs, row, pbits[None, :], ppath[None, :], f"{G}/partition_path")
    enforce_equal(cs, root, comm_d_new, gadget=f"{G}/comm_d_new")


def _challenge_bits(cs: ConstraintSystem, shape: UpdateShape, comm_r_new, partition, values) -> np.ndarray:
    """``gen_challenge_bits``: (k, rand_bits) refs of each challenge's random bits."""
    D, b = shape.digests, shape.rand_bits
    per = su._FR_CAPACITY // b
    dv = None
    if values is not None:
        k = values["inputs"][0] & (shape.partitions - 1)
        dv = [k * D + j for j in range(D)]
    with cs.instances(D, f"{G}/digests"):  # upstream's loop over the digests
        didx = cs.alloc_aux(D, dv)
        cs.enforce(lc(np.repeat(partition, D), D) + lc(cs.one(D), np.arange(D, dtype=np.int64)), lc(cs.one(D)),
                   lc(didx), gadget=f"{G}/digest_index")
        digest = poseidon_hash(cs, np.stack([np.repeat(comm_r_new, D), didx], axis=1), 2, domain_tag=_TAG,
                               gadget=f"{G}/digest", legacy=True)
        dbits = num_to_bits(cs, digest, _NUM_BITS, gadget=f"{G}/digest_bits", packing_row=True)
    i = np.arange(shape.challenges)
    return dbits[(i // per)[:, None], ((i % per) * b)[:, None] + np.arange(b)]


def _high_bits(cs: ConstraintSystem, shape: UpdateShape, c_bits, hsel, v: bool) -> np.ndarray:
    """``get_challenge_high_bits``: per challenge, the ``h`` high bits of c (c_bits (k, log2 N)
    refs) for the h whose ``hsel`` bit is set: Σ_j pack(top hs[j] bits) · hsel_j. (k,) refs."""
    k, cb = c_bits.shape
    highs = []
    for j, h in enumerate(shape.hs):
        c_high = pack_bits(cs, c_bits[:, cb - h:], gadget=f"{G}/c_high")
        val = None
        if v:
            val = np.mod(cs.value(c_high, dtype=object) * int(cs.value(hsel[j:j + 1], dtype=object)[0]), R)
        z = cs.alloc_aux(k, val)
        cs.enforce(lc(c_high), lc(np.repeat(hsel[j], k)), lc(z), gadget=f"{G}/c_high_or_zero")
        highs.append(z)
    highs = np.stack(highs, axis=1)
    high = cs.alloc_aux(k, np.mod(cs.value(highs, dtype=object).sum(axis=1), R) if v else None)
    cs.enforce(lc(highs), lc(cs.one(k)), lc(high), gadget=f"{G}/c_high_selected")
    return high


def _challenge_checks(cs: ConstraintSystem, shape: UpdateShape, c_bits, hsel, phi, roots, apex, values) -> tuple:
    """Per challenge (k at once): rho, the new replica node, the tree_r_old / tree_r_new PoRs and
    the apex leaf selection. Returns ``(leaf_d_new, apex_leaf)`` refs (k,) each."""
    k, cb = c_bits.shape
    v = values is not None
    high = _high_bits(cs, shape, c_bits, hsel, v)
    rho = poseidon_hash(cs, np.stack([np.repeat(phi, k), high], axis=1), 2, domain_tag=_TAG, gadget=f"{G}/rho",
                        legacy=True)
    leaf_r_old = cs.alloc_aux(k, values["leaf_r_old"] if v else None)
    leaf_d_new = cs.alloc_aux(k, values["leaf_d_new"] if v else None)
    # label_r_new: AllocatedNum::mul, then old + product
    prod = cs.alloc_aux(k, np.mod(values["leaf_d_new"] * cs.value(rho, dtype=object), R) if v else None)
    cs.enforce(lc(leaf_d_new), lc(rho), lc(prod), gadget=f"{G}/label_r_new")
    leaf_r_new = cs.alloc_aux(k, np.mod(values["leaf_r_old"] + cs.value(prod, dtype=object), R) if v else None)
    cs.enforce(lc(leaf_r_old) + lc(prod), lc(cs.one(k)), lc(leaf_r_new), gadget=f"{G}/label_r_new")
    for tree, leaf, root in (("tree_r_old", leaf_r_old, roots[0]), ("tree_r_new", leaf_r_new, roots[1])):
        # upstream allocates the whole path's siblings, then hashes level by level
        sibs = [cs.alloc_aux((k, 1, a - 1), values[f"path_{tree[5:]}"][lvl][:, None, :] if v else None)
                for lvl, a in enumerate(shape.arities)]
        cur, off = leaf, 0
        for sib, a in zip(sibs, shape.arities):
            nb = a.bit_length() - 1
            cur = merkle_path_poseidon(cs, cur, sib, c_bits[:, None, off:off + nb], a, gadget=f"{G}/{tree}",
                                       legacy=True)
            off += nb
        enforce_equal(cs, cur, np.repeat(root, k), gadget=f"{G}/{tree}/root")
    ab = apex.shape[0].bit_length() - 1
    lo = cb - shape.partition_bits - ab
    apex_leaf = select(cs, np.broadcast_to(apex, (k, apex.shape[0])), c_bits[:, lo:lo + ab],
                       gadget=f"{G}/select_apex_leaf")
    return leaf_d_new, apex_leaf


def synthesize(cs: ConstraintSystem, shape: UpdateShape, values: dict | None = None) -> dict:
    """Build one SnapDeals partition into ``cs`` (shape and/or witness mode): ``values``
    (:func:`values`) are required when ``cs.has_values``.

    Returns:
        refs for tests: ``c_bits`` (k, log2 N), each challenge's bits (little-endian) as the
        circuit derives them from comm_r_new and the partition.

    Raises:
        ValueError: values missing in witness mode or not of the shape's sizes.
    """
    v = cs.has_values
    if v:
        if values is None:
            raise ValueError("witness mode needs the partition's values")
        if values["path_d_new"].shape != (shape.challenges, shape.apex_depth) or \
                len(values["apex_leafs"]) != shape.apex_leaves:
            raise ValueError(f"values do not fit shape {shape.name}: tree_d_new paths {values['path_d_new'].shape}, "
                             f"{len(values['apex_leafs'])} apex leaves")
    else:
        values = None
    p, nh = shape.partition_bits, len(shape.hs)
    gl = _globals(cs, p + nh, p, values["inputs"] if v else None,
                  (values["comm_c"], values["root_r_old"], values["root_r_new"]) if v else None,
                  lambda: (cs.alloc_aux(shape.apex_leaves, values["apex_leafs"] if v else None),
                           cs.alloc_aux(p, values["partition_path"] if v else None)))
    pbits, hsel = gl["bits"][:p], gl["bits"][p:]
    apex, ppath = gl["more"]
    _apex_por(cs, apex, pbits, ppath, gl["comm_d_new"])
    rand = _challenge_bits(cs, shape, gl["comm_r_new"], gl["partition"], values)
    k = shape.challenges
    c_bits = np.concatenate([rand, np.broadcast_to(pbits, (k, p))], axis=1)
    with cs.instances(k, f"{G}/challenges"):  # upstream's loop over the challenges
        leaf_d_new, apex_leaf = _challenge_checks(cs, shape, c_bits, hsel, gl["phi"],
                                                  (gl["root_r_old"], gl["root_r_new"]), apex, values)
        d = shape.apex_depth
        sib = cs.alloc_aux((k, d), values["path_d_new"] if v else None)
        root = _sha_path(cs, leaf_d_new, c_bits[:, :d], sib, f"{G}/tree_d_new")
        enforce_equal(cs, root, apex_leaf, gadget=f"{G}/tree_d_new/root")
    return {"c_bits": c_bits}


# --- exact sizes from per-gadget counts -----------------------------------------------------------

_EQ = {"aux": 0, "constraints": 1, "nnz_a": 1, "nnz_b": 1, "nnz_c": 1}  # a · 1 = b
_UNIT = {"aux": 1, "constraints": 0, "nnz_a": 0, "nnz_b": 0, "nnz_c": 0}  # an allocated value


@tabled
def _update_globals(nbits: int, p: int) -> dict:
    """:func:`_globals` (input rows left out)."""
    return _count(lambda cs: _globals(cs, nbits, p, None, None))


@tabled
def _update_sha(levels: int) -> dict:
    """``levels`` == 0: one :func:`sha254_hash2`; 1: one path level (its sibling, insert, hash)."""
    def f(cs):
        x = cs.alloc_aux(2)
        if levels:
            _sha_path(cs, x[:1], x[None, 1:], cs.alloc_aux((1, 1)), "s")
        else:
            sha254_hash2(cs, x[:1], x[1:])
    c = _count(f)
    c["aux"] -= 2
    return c


@tabled
def _update_digests(size: int) -> dict:
    """:func:`_challenge_bits` of a ``size``-byte shape (comm_r_new and partition given)."""
    def f(cs):
        x = cs.alloc_aux(2)
        _challenge_bits(cs, shape_for(size), x[:1], x[1:], None)
    c = _count(f)
    c["aux"] -= 2
    return c


@tabled
def _update_challenge(size: int) -> dict:
    """:func:`_challenge_checks` of one challenge of a ``size``-byte shape (bits, phi, roots and
    apex leaves given)."""
    shape = shape_for(size)
    nh, cb = len(shape.hs), shape.depth
    given = cb + nh + 3 + shape.apex_leaves

    def f(cs):
        x = cs.alloc_aux(given)
        r = x[cb:]
        _challenge_checks(cs, shape, x[None, :cb], r[:nh], r[nh:nh + 1], (r[nh + 1:nh + 2], r[nh + 2:nh + 3]),
                          r[nh + 3:], None)
    c = _count(f)
    c["aux"] -= given
    return c


def _parts(shape: UpdateShape) -> list[tuple[int, dict]]:
    """(multiplicity, counts) of every gadget of one partition (as :func:`synthesize`)."""
    k, p, A = shape.challenges, shape.partition_bits, shape.apex_leaves
    return [
        (1, _update_globals(p + len(shape.hs), p)),
        (A, _UNIT), (A - 1, _update_sha(0)), (p, _update_sha(1)), (1, _EQ),
        (1, _update_digests(shape.sector_size)),
        (k, _update_challenge(shape.sector_size)),
        (k * shape.apex_depth, _update_sha(1)), (k, _EQ),
    ]
