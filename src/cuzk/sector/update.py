"""SnapDeals (empty-sector update): challenges, encoding, partition vanilla proofs.

Facts from rust-fil-proofs ``storage-proofs-update`` (at 87348a74): ``src/constants.rs`` (sizes,
partition and challenge counts, ``hs``, apex leaves, tree shapes, the randomness tag),
``src/challenges.rs`` (``Challenges::new``) and ``src/vanilla.rs`` (``phi``, ``rho``, ``Rhos``,
``encode_into``, ``decode_from``, ``prove_inner``, ``verify``).

A CC sector's replica (the *sector key*, its tree ``tree_r_old``, root ``comm_r_last_old``,
``comm_r_old = H₂(comm_c, comm_r_last_old)``) takes Fr32-padded deal data (tree ``tree_d_new``,
sha254, root ``comm_d_new``)::

    phi        = P(comm_d_new, comm_r_old)
    rho(high)  = P(phi, high)               high = node >> (log2(N) − h)
    new[v]     = key[v] + rho(high(v)) · data[v]   mod r
    comm_r_new = H₂(comm_c, root of tree_r_new over new)

``P`` is arity-2 Poseidon with neptune's custom tag 1·2^40 (``HASH_TYPE_GEN_RANDOMNESS``); ``H₂`` the
Merkle-tagged one of :func:`cuzk.sector.replica.comm_r`. Nodes are 32-byte little-endian Fr.
"""

from __future__ import annotations

from dataclasses import dataclass

import gmpy2
import numpy as np

from ..errors import CuzkError
from ..hash.poseidon import R, custom_tag, poseidon_many
from . import commd
from .replica import (build_tree, comm_r, fr_to_nodes, nodes_to_fr, tree_arities, tree_path, tree_shape,
                      verify_tree_path)

__all__ = [
    "UpdateError",
    "UpdateProofError",
    "ALLOWED_SECTOR_SIZES",
    "GEN_RANDOMNESS_TAG",
    "partition_count",
    "challenge_count",
    "hs",
    "h_default",
    "apex_leaf_count",
    "tree_r_shape",
    "challenges",
    "phi",
    "rho",
    "node_rhos",
    "encode",
    "decode",
    "ChallengeProof",
    "PartitionProof",
    "prove_partition",
    "verify_partition",
]

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30
#: Sector sizes (bytes) of ``ALLOWED_SECTOR_SIZES`` (test sizes 1–32 KiB, 8, 16, 512 MiB; 32, 64 GiB).
ALLOWED_SECTOR_SIZES = (1 * KIB, 2 * KIB, 4 * KIB, 8 * KIB, 16 * KIB, 32 * KIB,
                        8 * MIB, 16 * MIB, 512 * MIB, 32 * GIB, 64 * GIB)
#: Domain tag of phi, rho and the challenge digests (``POSEIDON_CONSTANTS_GEN_RANDOMNESS``).
GEN_RANDOMNESS_TAG = custom_tag(1)
_FR_CAPACITY = 254  # Fr::CAPACITY: random bits usable per digest
# validate_tree_r_shape's sizes that replica.tree_shape has no rule for
_EXTRA_SHAPES = {1 * KIB: (8, 4, 0), 8 * KIB: (8, 4, 0)}


class UpdateError(CuzkError, ValueError):
    """A SnapDeals input is wrong (size, h, partition index, node count, non-canonical node)."""


class UpdateProofError(UpdateError):
    """A partition vanilla proof is refused; ``what`` names the failed check (e.g. ``comm_r_new``)."""

    def __init__(self, what: str, message: str):
        super().__init__(f"{what}: {message}")
        self.what = what


def _nodes(sector_size: int) -> int:
    if sector_size not in ALLOWED_SECTOR_SIZES:
        raise UpdateError(f"sector_size {sector_size} is not a SnapDeals size; allowed: {ALLOWED_SECTOR_SIZES}")
    return sector_size // commd.NODE_SIZE


def partition_count(sector_size: int) -> int:
    """Partitions per update proof (``partition_count``): 1 to 8 KiB, 2 to 32 KiB, 4 to 16 MiB, else 16."""
    n = _nodes(sector_size)
    return 1 if n <= 1 << 8 else 2 if n <= 1 << 10 else 4 if n <= 1 << 19 else 16


def challenge_count(sector_size: int) -> int:
    """Challenges per partition (``challenge_count``): 10 up to 16 MiB, 86 above."""
    return 10 if _nodes(sector_size) <= 1 << 19 else 86


def hs(sector_size: int) -> tuple[int, ...]:
    """The six allowed ``h`` (high bits of a node index used by rho, ``hs``): all 1 up to 32 KiB,
    else (7, 8, 9, 10, 11, 12); the circuit's public ``h_select`` is ``2^index``."""
    return (1,) * 6 if _nodes(sector_size) <= 1 << 10 else (7, 8, 9, 10, 11, 12)


def h_default(sector_size: int) -> int:
    """``h_default``: ``hs(sector_size)[3]`` (10 for production sizes)."""
    return hs(sector_size)[3]


def apex_leaf_count(sector_size: int) -> int:
    """Leaves of each partition's apex tree in tree_d_new (``apex_leaf_count``): 8 up to 8 KiB, else 128."""
    return 8 if _nodes(sector_size) <= 1 << 8 else 128


def tree_r_shape(sector_size: int) -> tuple[int, int, int]:
    """(base, sub, top) arities of tree_r_old / tree_r_new (``validate_tree_r_shape``)."""
    _nodes(sector_size)
    return _EXTRA_SHAPES.get(sector_size) or tree_shape(sector_size)


def _fr(x, what: str) -> int:
    """One 32-byte little-endian node → int; UpdateError naming ``what`` if not canonical."""
    if len(bytes(x)) != commd.NODE_SIZE:
        raise UpdateError(f"{what} must be {commd.NODE_SIZE} bytes, got {len(bytes(x))}")
    try:
        return int(nodes_to_fr(x, what)[0])
    except ValueError as e:
        raise UpdateError(str(e)) from e


def _gen_randomness(a, b) -> np.ndarray:
    """P(a_i, b_i) for columns a, b of canonical ints; (k,) int array."""
    return poseidon_many([a, b], arity=2, domain_tag=GEN_RANDOMNESS_TAG)


def challenges(comm_r_new: bytes, sector_size: int, k: int) -> np.ndarray:
    """Challenged node indices of partition ``k`` (``Challenges::new``, ``challenges.rs``).

    With ``N`` nodes, ``P`` partitions and ``b = log2 N − log2 P`` random bits per challenge, each
    digest ``P(comm_r_new, j)`` (j counts digests over all partitions, ``ceil(count / (254 // b))``
    per partition) gives ``254 // b`` challenges: its little-endian bits ``[i·b, (i+1)·b)``, with
    ``k`` put above them (``| k << b``), so partition k's challenges lie in its k-th slice of nodes.
    ``comm_r_new``: 32 bytes LE. Returns a (challenge_count,) int64 array, in order, duplicates kept.
    Raises UpdateError for a bad size, partition index or comm_r_new.
    """
    n, parts = _nodes(sector_size), partition_count(sector_size)
    if not 0 <= k < parts:
        raise UpdateError(f"partition k={k} out of range: {sector_size}-byte sectors have {parts} partitions")
    root = _fr(comm_r_new, "comm_r_new")
    bits = (n.bit_length() - 1) - (parts.bit_length() - 1)
    per_digest, count = _FR_CAPACITY // bits, challenge_count(sector_size)
    digests = -(-count // per_digest)
    idx = np.arange(k * digests, (k + 1) * digests)
    out = [(int(d) >> (i * bits)) & ((1 << bits) - 1) | (k << bits)
           for d in _gen_randomness([root] * digests, idx) for i in range(per_digest)]
    return np.array(out[:count], dtype=np.int64)


def phi(comm_d_new: bytes, comm_r_old: bytes) -> bytes:
    """phi = P(comm_d_new, comm_r_old) (``phi`` in vanilla.rs); 32 bytes LE in and out."""
    v = _gen_randomness([_fr(comm_d_new, "comm_d_new")], [_fr(comm_r_old, "comm_r_old")])
    return fr_to_nodes(v).tobytes()


def rho(phi_: bytes, highs) -> np.ndarray:
    """rho = P(phi, high) for each ``high`` (a node's h high bits; ``rho`` in vanilla.rs).

    ``phi_``: 32 bytes LE; ``highs``: k non-negative ints (array-like). Returns a (k,) object array of
    gmpy2.mpz. Raises UpdateError for a non-canonical phi.
    """
    highs = np.asarray(highs, dtype=np.int64).reshape(-1)
    return _gen_randomness([_fr(phi_, "phi")] * len(highs), highs)


def _shr(sector_size: int, h: int) -> int:
    if h not in hs(sector_size):
        raise UpdateError(f"h={h} is not allowed for {sector_size}-byte sectors (hs: {hs(sector_size)})")
    return (_nodes(sector_size).bit_length() - 1) - h


def node_rhos(phi_: bytes, h: int, sector_size: int) -> np.ndarray:
    """rho of every node (``Rhos::new``): 2^h Poseidon hashes, gathered by ``node >> (log2 N − h)``.

    Returns an (N,) object array of gmpy2.mpz. Raises UpdateError for an ``h`` not in :func:`hs`.
    """
    shr = _shr(sector_size, h)
    table = rho(phi_, np.arange(1 << h))
    return table[np.arange(_nodes(sector_size)) >> shr]


def _sector_nodes(x, sector_size: int, what: str) -> np.ndarray:
    try:
        v = nodes_to_fr(x, what)
    except ValueError as e:
        raise UpdateError(str(e)) from e
    if len(v) != _nodes(sector_size):
        raise UpdateError(f"{what} has {len(v)} nodes, a {sector_size}-byte sector has {_nodes(sector_size)}")
    return v


def encode(sector_key, data, comm_c: bytes, comm_r_last_old: bytes, h: int, sector_size: int) -> dict:
    """Encode Fr32-padded deal ``data`` into a CC sector's replica (``encode_into``).

    Args:
        sector_key: the CC replica, ``sector_size`` bytes (or (N, 32) uint8).
        data: the padded deal data, same size; every node canonical.
        comm_c, comm_r_last_old: 32 bytes LE each, of the CC sector.
        h: one of :func:`hs`; sector_size: bytes, one of :data:`ALLOWED_SECTOR_SIZES`.

    Returns a dict: ``replica`` (bytes, the new replica), ``tree_d_new`` (sha254 levels,
    :func:`cuzk.sector.commd.build_tree`), ``tree_r_new`` (Poseidon levels,
    :func:`cuzk.sector.replica.build_tree`), ``comm_d_new``, ``comm_r_old``, ``phi``,
    ``comm_r_last_new``, ``comm_r_new`` (32 bytes LE each), ``h``.
    Cost: N field products plus the trees (about 2N/7 Poseidon hashes); meant for test sizes.
    Raises UpdateError for a wrong size, ``h`` or non-canonical node.
    """
    key = _sector_nodes(sector_key, sector_size, "sector_key")
    d = _sector_nodes(data, sector_size, "data")
    _fr(comm_c, "comm_c"), _fr(comm_r_last_old, "comm_r_last_old")
    tree_d = commd.build_tree(fr_to_nodes(d))
    comm_d_new = tree_d[-1][0].tobytes()
    comm_r_old = comm_r(comm_c, comm_r_last_old)
    ph = phi(comm_d_new, comm_r_old)
    new = np.mod(key + d * node_rhos(ph, h, sector_size), R)
    tree_r = build_tree(new, tree_r_shape(sector_size))
    root = fr_to_nodes(tree_r[-1]).tobytes()
    return {"replica": fr_to_nodes(new).tobytes(), "tree_d_new": tree_d, "tree_r_new": tree_r,
            "comm_d_new": comm_d_new, "comm_r_old": comm_r_old, "phi": ph,
            "comm_r_last_new": root, "comm_r_new": comm_r(comm_c, root), "h": h}


def decode(replica, sector_key, comm_d_new: bytes, comm_r_old: bytes, h: int, sector_size: int) -> bytes:
    """The deal data back: ``(replica − key) · rho⁻¹`` per node (``decode_from``); bytes, sector_size long.

    Raises UpdateError as :func:`encode`.
    """
    new = _sector_nodes(replica, sector_size, "replica")
    key = _sector_nodes(sector_key, sector_size, "sector_key")
    shr = _shr(sector_size, h)
    inv = np.array([gmpy2.invert(r, R) for r in rho(phi(comm_d_new, comm_r_old), np.arange(1 << h))], dtype=object)
    inv_nodes = inv[np.arange(len(new)) >> shr]
    return fr_to_nodes(np.mod((new - key) * inv_nodes, R)).tobytes()


# --- partition vanilla proofs --------------------------------------------------------------------

@dataclass(frozen=True)
class ChallengeProof:
    """The three openings of one challenged node ``c`` (upstream ``ChallengeProof``).

    ``*_r_old`` / ``*_r_new``: leaf (int), path (:func:`cuzk.sector.replica.tree_path` form, its
    positions spell ``c``) and root (int) in tree_r_old / tree_r_new. ``leaf_d_new``: 32 bytes;
    ``path_d_new``: the log2(N) sha254 siblings leaf to root (:func:`cuzk.sector.commd.merkle_path`);
    its root is the public comm_d_new.
    """

    leaf_r_old: int
    path_r_old: list
    root_r_old: int
    leaf_d_new: bytes
    path_d_new: list
    leaf_r_new: int
    path_r_new: list
    root_r_new: int


@dataclass(frozen=True)
class PartitionProof:
    """One partition's vanilla proof (upstream ``PartitionProof``): ``comm_c`` (32 bytes), the
    partition's ``apex_leafs`` in tree_d_new (:func:`apex_leaf_count` nodes of 32 bytes) and one
    :class:`ChallengeProof` per challenge, in :func:`challenges` order."""

    comm_c: bytes
    apex_leafs: list
    challenge_proofs: list


def _apex_level(sector_size: int) -> int:
    """Height in tree_d of the apex-leaf row: log2 N − log2(partitions · apex_leaf_count)."""
    total = partition_count(sector_size) * apex_leaf_count(sector_size)
    return (_nodes(sector_size) // total).bit_length() - 1


def _path_index(path) -> int:
    index, scale = 0, 1
    for sibs, pos in path:
        index += int(pos) * scale
        scale *= len(sibs) + 1
    return index


def prove_partition(k: int, *, sector_size: int, comm_c: bytes, comm_r_new: bytes,
                    tree_r_old: list, tree_d_new: list, tree_r_new: list) -> PartitionProof:
    """Partition ``k``'s vanilla proof (``prove_inner`` in vanilla.rs).

    Args:
        k: partition index; sector_size: bytes; comm_c, comm_r_new: 32 bytes LE.
        tree_r_old: levels of the CC replica's tree (:func:`cuzk.sector.replica.build_tree` with
            :func:`tree_r_shape`); tree_d_new, tree_r_new: as :func:`encode` returns them.
    Each opening is checked against its own tree's root before it is kept, as upstream does.
    Raises UpdateError for a bad k or size, or an opening that does not reach its root (trees
    that disagree with their levels).
    """
    shape = tree_r_shape(sector_size)
    cs = challenges(comm_r_new, sector_size, k)
    lvl, alc = _apex_level(sector_size), apex_leaf_count(sector_size)
    apex = [tree_d_new[lvl][i].tobytes() for i in range(k * alc, (k + 1) * alc)]
    root_old, root_new, comm_d_new = int(tree_r_old[-1][0]), int(tree_r_new[-1][0]), tree_d_new[-1][0].tobytes()
    out = []
    for c in (int(c) for c in cs):
        p = ChallengeProof(int(tree_r_old[0][c]), tree_path(tree_r_old, c, shape), root_old,
                           tree_d_new[0][c].tobytes(), commd.merkle_path(tree_d_new, c),
                           int(tree_r_new[0][c]), tree_path(tree_r_new, c, shape), root_new)
        for tree, ok in (("tree_r_old", verify_tree_path(p.leaf_r_old, p.path_r_old, root_old)),
                         ("tree_d_new", commd.verify_path(p.leaf_d_new, c, p.path_d_new, comm_d_new)),
                         ("tree_r_new", verify_tree_path(p.leaf_r_new, p.path_r_new, root_new))):
            if not ok:
                raise UpdateError(f"{tree}: the opening of node {c} does not reach the tree's root")
        out.append(p)
    return PartitionProof(bytes(comm_c), apex, out)


def verify_partition(proof: PartitionProof, k: int, *, sector_size: int, comm_r_old: bytes,
                     comm_d_new: bytes, comm_r_new: bytes, h: int) -> None:
    """Check partition ``k``'s vanilla proof against the public inputs (``verify`` in vanilla.rs).

    Checks, in upstream's order: the counts of apex leaves and challenge proofs; comm_r_old and
    comm_r_new = H₂(comm_c, root of the first proof's tree_r_old / tree_r_new); per challenge c:
    each opening has the tree's shape, is of node c, has the common root and hashes up to it
    (tree_d_new's to comm_d_new); new = old + rho(c >> (log2 N − h)) · data; the tree_d_new
    siblings at the apex rows lie in the apex tree built from ``apex_leafs``.
    Returns None. Raises UpdateError for bad public inputs (size, k, h) and
    :class:`UpdateProofError` whose ``what`` names the failed check: ``apex_leafs``,
    ``challenge_proofs``, ``comm_c``, ``comm_r_old``, ``comm_r_new``, ``tree_r_old``, ``comm_d_new``,
    ``tree_r_new`` or ``replica node``.
    """
    shr = _shr(sector_size, h)
    cs = challenges(comm_r_new, sector_size, k)
    alc = apex_leaf_count(sector_size)
    if len(proof.apex_leafs) != alc or any(len(bytes(a)) != commd.NODE_SIZE for a in proof.apex_leafs):
        raise UpdateProofError("apex_leafs", f"expected {alc} nodes of 32 bytes, got {len(proof.apex_leafs)}")
    if len(proof.challenge_proofs) != len(cs):
        raise UpdateProofError("challenge_proofs", f"expected {len(cs)}, got {len(proof.challenge_proofs)}")
    try:
        _fr(proof.comm_c, "comm_c")
    except UpdateError as e:
        raise UpdateProofError("comm_c", str(e)) from e
    first = proof.challenge_proofs[0]
    for name, public, tree, root in (("comm_r_old", comm_r_old, "tree_r_old", first.root_r_old),
                                     ("comm_r_new", comm_r_new, "tree_r_new", first.root_r_new)):
        if not 0 <= int(root) < R:
            raise UpdateProofError(tree, "the root of challenge 0's opening is not a canonical Fr element")
        if comm_r(bytes(proof.comm_c), fr_to_nodes([int(root)]).tobytes()) != bytes(public):
            raise UpdateProofError(name, f"H(comm_c, {tree} root) differs from the public {name} (partition {k})")
    rhos = rho(phi(comm_d_new, comm_r_old), cs >> shr)
    apex_tree = commd.build_tree(b"".join(bytes(a) for a in proof.apex_leafs))
    apex_h = _apex_level(sector_size)
    arities = tree_arities(_nodes(sector_size), tree_r_shape(sector_size))
    for i, (c, p, rh) in enumerate(zip((int(c) for c in cs), proof.challenge_proofs, rhos)):
        where = f"challenge {i} (node {c}) of partition {k}"
        for tree, path, root, leaf, first_root in (
                ("tree_r_old", p.path_r_old, p.root_r_old, p.leaf_r_old, first.root_r_old),
                ("tree_r_new", p.path_r_new, p.root_r_new, p.leaf_r_new, first.root_r_new)):
            if [len(sibs) + 1 for sibs, _ in path] != arities or _path_index(path) != c or root != first_root:
                raise UpdateProofError(tree, f"{where}: opening of another shape, node or root")
            if not verify_tree_path(leaf, path, root):
                raise UpdateProofError(tree, f"{where}: the opening does not hash up to its root")
        if len(p.path_d_new) != _nodes(sector_size).bit_length() - 1 or \
                not commd.verify_path(bytes(p.leaf_d_new), c, p.path_d_new, bytes(comm_d_new)):
            raise UpdateProofError("comm_d_new", f"{where}: the tree_d_new opening does not reach comm_d_new")
        data = int.from_bytes(bytes(p.leaf_d_new), "little")
        if int(p.leaf_r_new) != (int(p.leaf_r_old) + data * int(rh)) % R:
            raise UpdateProofError("replica node", f"{where}: new replica node is not old + rho · data")
        if any(bytes(sib) not in {row.tobytes() for row in apex_tree[j]}
               for j, sib in enumerate(p.path_d_new[apex_h : apex_h + len(apex_tree) - 1])):
            raise UpdateProofError("apex_leafs", f"{where}: a tree_d_new sibling is not in the apex tree")
