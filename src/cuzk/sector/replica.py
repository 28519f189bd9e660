"""Replication: encode a sector with its SDR key, build tree_c and tree_r_last, derive comm_r.

As rust-fil-proofs' stacked DRG (``StackedDrg::transform_and_replicate_layers`` in
``storage-proofs-porep/src/stacked/vanilla/proof.rs``), for a sector of ``N`` 32-byte nodes and
``layers`` SDR layers (labels from :func:`cuzk.sector.labels.label_layers`):

**Nodes as field elements.** A node is the 32 bytes of a BLS12-381 scalar, little-endian
(``Fr::from_repr`` / ``PoseidonDomain``); nodes must be canonical (< r). Labels (sha254) and
Fr32-padded data nodes have their top two bits clear, so they always are.

**Encoding** (``encode`` in ``storage-proofs-porep/src/encode.rs``): ``replica[v] = data[v] +
key[v] mod r``, where ``key`` is the last layer's label of node ``v``; ``decode`` is the
subtraction.

**tree_c**: per node the column ``(L_1[v], …, L_layers[v])`` is hashed with Poseidon of arity
``layers`` (``hash_single_column`` in ``storage-proofs-porep/src/stacked/vanilla/hash.rs``: only
2 and 11 there, with ``POSEIDON_CONSTANTS_2``/``_11`` = ``PoseidonConstants::new()``, i.e. neptune's
Merkle-tree tag 2^arity − 1); a Poseidon Merkle tree of the sector's shape over those column
hashes has root ``comm_c``.

**tree_r_last**: the same shaped tree over the replica nodes; root ``comm_r_last``.

**comm_r** = ``PoseidonFunction::hash2(comm_c, comm_r_last)`` (``filecoin-hashers/src/poseidon.rs``):
arity-2 Poseidon with ``POSEIDON_CONSTANTS_2`` (tag 3).

**Tree shapes** (``SectorShape*`` in ``filecoin-proofs/src/constants.rs``: ``LCTree<Poseidon,
U8, Sub, Top>``): the nodes are split into ``sub · top`` contiguous base trees of arity 8
(``DiskTree``/``LCTree`` built per config); the sub-tree level hashes ``sub`` consecutive base
roots, the top level ``top`` consecutive sub-tree roots (merkletree's ``from_sub_trees``; every
inner node is ``Algorithm::multi_node``, i.e. Poseidon of that arity with the Merkle tag). Since the
base trees are contiguous, this is one level-by-level tree with arities ``[8] * h + [sub] + [top]``
(zeros dropped)::

    2 KiB, 8 MiB, 512 MiB   (8, 0, 0)      4 KiB, 16 MiB, 1 GiB   (8, 2, 0)
    16 KiB, 32 GiB          (8, 8, 0)      32 KiB, 64 GiB         (8, 8, 2)

``rows_to_discard`` (``default_rows_to_discard``) only chooses which tree_r_last rows
rust-fil-proofs keeps on disk; it does not change any root or path, so it plays no part here
(every level is kept in memory).

Hashing is vectorized: one :func:`cuzk.hash.poseidon.poseidon_many` call per tree level (in chunks
of ``_CHUNK`` hashes to bound the object-array temporaries), so the cost is about
``N`` column hashes plus ``2 · N / 7`` arity-8 hashes.
"""

from __future__ import annotations

import numpy as np

from ..field.arith import from_limbs, to_limbs
from ..hash.poseidon import PoseidonMemo, R, poseidon_many
from .labels import label_layers

__all__ = [
    "SECTOR_SHAPES",
    "tree_shape",
    "tree_arities",
    "nodes_to_fr",
    "fr_to_nodes",
    "encode",
    "decode",
    "column_hashes",
    "build_tree",
    "tree_path",
    "verify_tree_path",
    "hash_paths",
    "comm_r_many",
    "comm_r",
    "replicate",
]

NODE_SIZE = 32
_CHUNK = 1 << 15  # hashes per poseidon_many call

_BASE, _SUB2, _SUB8, _TOP2 = (8, 0, 0), (8, 2, 0), (8, 8, 0), (8, 8, 2)
#: (base, sub-tree, top-tree) arities per sector size, ``filecoin-proofs/src/constants.rs``.
SECTOR_SHAPES = {
    2 << 10: _BASE, 8 << 20: _BASE, 512 << 20: _BASE,
    4 << 10: _SUB2, 16 << 20: _SUB2, 1 << 30: _SUB2,
    16 << 10: _SUB8, 32 << 30: _SUB8,
    32 << 10: _TOP2, 64 << 30: _TOP2,
}


def tree_shape(sector_size: int) -> tuple[int, int, int]:
    """(base, sub, top) arities of tree_c / tree_r_last for a sector size.

    Published sizes use :data:`SECTOR_SHAPES`. Other (test-only) power-of-two sizes get
    ``(8, 0, 0)`` when the node count is a power of 8 and ``(8, 2, 0)`` when it is twice one;
    anything else raises ValueError (rust-fil-proofs has no shape for it).
    """
    if sector_size in SECTOR_SHAPES:
        return SECTOR_SHAPES[sector_size]
    n = sector_size // NODE_SIZE
    if sector_size < NODE_SIZE or sector_size & (sector_size - 1):
        raise ValueError(f"sector size {sector_size} is not a power of two of at least one node")
    h = n.bit_length() - 1
    if h % 3 == 0:
        return _BASE
    if h % 3 == 1:
        return _SUB2
    raise ValueError(f"no tree shape for {sector_size}-byte sectors ({n} nodes); pass shape= explicitly")


def tree_arities(num_leaves: int, shape: tuple[int, int, int]) -> list[int]:
    """Arity of each tree level from the leaves up, e.g. 2 KiB → [8, 8]; 64 GiB → [8]*9 + [8, 2]."""
    base, sub, top = shape
    if base != 8:
        raise ValueError(f"base arity must be 8, got {base}")
    n = num_leaves
    for a in (top, sub):
        if a:
            if n % a:
                raise ValueError(f"{num_leaves} leaves do not split into shape {shape}")
            n //= a
    arities = []
    while n > 1:
        if n % base:
            raise ValueError(f"{num_leaves} leaves: base tree of {n} leaves is not a power of {base}")
        arities.append(base)
        n //= base
    if n != 1:
        raise ValueError(f"{num_leaves} leaves do not fit shape {shape}")
    return arities + [a for a in (sub, top) if a]


def _as_nodes(x, what: str) -> np.ndarray:
    """bytes-like or (n, 32) uint8 → (n, 32) uint8 array."""
    if isinstance(x, np.ndarray):
        a = np.ascontiguousarray(x, dtype=np.uint8)
    else:
        a = np.frombuffer(bytes(x), dtype=np.uint8)
    if a.size == 0 or a.size % NODE_SIZE:
        raise ValueError(f"{what}: {a.size} bytes is not a positive multiple of {NODE_SIZE}")
    return a.reshape(-1, NODE_SIZE)


def nodes_to_fr(nodes, what: str = "nodes") -> np.ndarray:
    """32-byte little-endian nodes → int array (gmpy2.mpz), as ``Fr::from_repr``; ValueError if any ≥ r."""
    a = _as_nodes(nodes, what)
    vals = from_limbs(a.view("<u8"))
    if len(vals) and max(vals) >= R:
        bad = int(np.argmax(vals >= R))
        raise ValueError(f"{what}: node {bad} is not a canonical Fr element (≥ r)")
    return vals


def fr_to_nodes(vals) -> np.ndarray:
    """Int array of canonical Fr values → (n, 32) uint8 little-endian nodes."""
    return to_limbs(vals, 4).view(np.uint8).reshape(-1, NODE_SIZE)


def encode(data, key) -> np.ndarray:
    """replica = data + key mod r, node by node; inputs bytes-like or (n, 32) uint8 → (n, 32) uint8."""
    d, k = nodes_to_fr(data, "data"), nodes_to_fr(key, "key")
    if len(d) != len(k):
        raise ValueError(f"data has {len(d)} nodes, key {len(k)}")
    return fr_to_nodes(np.mod(d + k, R))


def decode(replica, key) -> np.ndarray:
    """data = replica − key mod r (``decode`` in encode.rs); (n, 32) uint8."""
    c, k = nodes_to_fr(replica, "replica"), nodes_to_fr(key, "key")
    if len(c) != len(k):
        raise ValueError(f"replica has {len(c)} nodes, key {len(k)}")
    return fr_to_nodes(np.mod(c - k, R))


def _hash_groups(vals: np.ndarray, arity: int) -> np.ndarray:
    """Poseidon (Merkle tag) of consecutive groups of ``arity`` values; int array of len(vals)//arity."""
    groups = vals.reshape(-1, arity)
    out = np.empty(groups.shape[0], dtype=object)
    for s in range(0, groups.shape[0], _CHUNK):
        g = groups[s : s + _CHUNK]
        out[s : s + g.shape[0]] = poseidon_many([g[:, j] for j in range(arity)], arity=arity)
    return out


def column_hashes(labels) -> np.ndarray:
    """``hash_single_column`` of every node: Poseidon of arity ``len(labels)`` over its labels.

    ``labels``: the layers, each (N, 32) uint8 (or bytes). Returns an int array of N values.
    rust-fil-proofs only defines arities 2 and 11; others are computed the same way (Merkle tag).
    """
    cols = [nodes_to_fr(l, f"layer {i + 1} labels") for i, l in enumerate(labels)]
    n = len(cols[0])
    if any(len(c) != n for c in cols):
        raise ValueError("label layers have different node counts")
    out = np.empty(n, dtype=object)
    for s in range(0, n, _CHUNK):
        out[s : s + _CHUNK] = poseidon_many([c[s : s + _CHUNK] for c in cols], arity=len(cols))
    return out


def build_tree(leaves, shape: tuple[int, int, int]) -> list[np.ndarray]:
    """A Poseidon tree of ``shape`` over ``leaves`` (int array, or 32-byte nodes).

    Returns the levels, leaves first and root last, each an int array (gmpy2.mpz); level ``l+1``
    element ``i`` is Poseidon_a(level_l[a·i : a·i + a]) with ``a = tree_arities(...)[l]``.
    """
    vals = leaves if isinstance(leaves, np.ndarray) and leaves.dtype == object else nodes_to_fr(leaves, "leaves")
    levels = [vals]
    for a in tree_arities(len(vals), shape):
        levels.append(_hash_groups(levels[-1], a))
    return levels


def tree_path(levels: list[np.ndarray], index: int, shape: tuple[int, int, int]) -> list[tuple[list[int], int]]:
    """Inclusion path of leaf ``index``: per level ``(siblings, position)``, leaves up.

    ``siblings`` are the other ``a − 1`` members of the node's group in order (rust-fil-proofs'
    ``PathElement { hashes, index }``), ``position`` its place in the group.
    """
    arities = tree_arities(len(levels[0]), shape)
    if not 0 <= index < len(levels[0]):
        raise IndexError(f"leaf index {index} out of range for {len(levels[0])} leaves")
    out = []
    i = index
    for lvl, a in enumerate(arities):
        start, pos = (i // a) * a, i % a
        group = [int(v) for v in levels[lvl][start : start + a]]
        out.append((group[:pos] + group[pos + 1 :], pos))
        i //= a
    return out


def verify_tree_path(leaf: int, path, root: int) -> bool:
    """Hash ``leaf`` up ``path`` (as :func:`tree_path`; arity = len(siblings) + 1) and compare to ``root``."""
    node = int(leaf)
    for sibs, pos in path:
        sibs = [int(s) for s in sibs]
        if not 0 <= pos <= len(sibs):
            return False
        pre = sibs[:pos] + [node] + sibs[pos:]
        if any(not 0 <= v < R for v in pre):
            return False
        node = int(poseidon_many([[v] for v in pre], arity=len(pre))[0])
    return node == int(root)


def hash_paths(leaves, levels, memo: PoseidonMemo | None = None) -> np.ndarray:
    """Roots of k Merkle paths of one shape, hashed level by level over all paths together.

    ``leaves``: k ints; ``levels``: per tree level, leaves up, ``(siblings, positions)`` with
    siblings (k, a − 1) ints and positions (k,) ints in ``[0, a)`` (as :func:`tree_path`). All values
    canonical Fr elements. A preimage shared by several paths (their common ancestors) is hashed
    once; ``memo`` (default a fresh one) keeps every intermediate hash for later single lookups.
    Returns a (k,) object array of ints.
    """
    memo = PoseidonMemo() if memo is None else memo
    cur = [int(v) for v in leaves]
    for sibs, pos in levels:
        sibs = sibs.tolist() if isinstance(sibs, np.ndarray) else sibs
        pre = [s[:p] + [node] + s[p:] for node, s, p in zip(cur, map(list, sibs), (int(p) for p in pos))]
        cur = memo.many(pre)
    out = np.empty(len(cur), dtype=object)
    out[:] = cur
    return out


def comm_r_many(comm_c, comm_r_last) -> np.ndarray:
    """comm_r = Poseidon₂(comm_c, comm_r_last) with tag 3 (``PoseidonFunction::hash2``, as
    ``StackedDrg`` seals and ``FallbackPoSt`` verifies it) for k sectors at once: two int arrays of
    k canonical Fr values → (k,) int array."""
    return poseidon_many([comm_c, comm_r_last], arity=2)


def comm_r(comm_c: bytes, comm_r_last: bytes) -> bytes:
    """:func:`comm_r_many` of one sector, 32 bytes LE in and out."""
    c, rl = nodes_to_fr(comm_c, "comm_c"), nodes_to_fr(comm_r_last, "comm_r_last")
    return fr_to_nodes(comm_r_many(c, rl)).tobytes()


def _root_bytes(levels) -> bytes:
    return fr_to_nodes(levels[-1]).tobytes()


def replicate(
    padded_data,
    replica_id: bytes,
    sector_size: int,
    layers: int,
    porep_id: bytes,
    *,
    api_version: str = "1.1",
    labels=None,
    parents=None,
    cache_dir=None,
    shape: tuple[int, int, int] | None = None,
) -> dict:
    """Seal a sector's data (PreCommit 1 and 2 of rust-fil-proofs, in memory).

    Args:
        padded_data: the Fr32-padded sector, ``sector_size`` bytes (e.g. :func:`cuzk.sector.fr32.pad_sector`).
        replica_id: 32 bytes (:func:`cuzk.sector.c1.replica_id`).
        sector_size: bytes; layers: SDR layers (2 for ≤ 512 MiB, 11 for 32/64 GiB).
        porep_id: 32 bytes (:func:`cuzk.sector.c1.porep_id`); api_version: graph version.
        labels: the layers if already computed (:func:`cuzk.sector.labels.label_layers`).
        parents, cache_dir: passed to ``label_layers``; shape: override :func:`tree_shape`.

    Returns a dict:
        ``labels`` (list of (N, 32) uint8, layer 1 first), ``key`` (the last layer),
        ``replica`` (bytes, N·32, the sealed sector), ``shape``, ``arities`` (per tree level),
        ``tree_c`` and ``tree_r_last`` (levels, leaves first, int arrays; ``tree_c[0]`` are the
        column hashes), ``comm_c``, ``comm_r_last``, ``comm_r`` (32 bytes LE each).
    """
    n = sector_size // NODE_SIZE
    data = _as_nodes(padded_data, "padded_data")
    if data.shape[0] != n or sector_size % NODE_SIZE:
        raise ValueError(f"padded data has {data.size} bytes, sector size is {sector_size}")
    shape = tuple(shape) if shape is not None else tree_shape(sector_size)
    arities = tree_arities(n, shape)
    if labels is None:
        labels = label_layers(replica_id, sector_size, layers, porep_id,
                              api_version=api_version, parents=parents, cache_dir=cache_dir)
    if len(labels) != layers:
        raise ValueError(f"{len(labels)} label layers given, layers = {layers}")
    key = _as_nodes(labels[-1], "key")
    replica = encode(data, key)
    tree_c = build_tree(column_hashes(labels), shape)
    tree_r_last = build_tree(nodes_to_fr(replica, "replica"), shape)
    c_root, r_root = _root_bytes(tree_c), _root_bytes(tree_r_last)
    return {
        "labels": list(labels),
        "key": key,
        "replica": replica.tobytes(),
        "shape": shape,
        "arities": arities,
        "tree_c": tree_c,
        "tree_r_last": tree_r_last,
        "comm_c": c_root,
        "comm_r_last": r_root,
        "comm_r": comm_r(c_root, r_root),
    }
