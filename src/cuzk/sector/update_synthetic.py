"""Synthetic SnapDeals input files of any size (32 GiB and 64 GiB included) without building a tree.

The update's challenges follow comm_r_new, the root of the tree over the *whole* new replica, so
(unlike a synthetic PoRep C1) the opened nodes cannot be chosen before the trees exist. Here the
sector is made structured instead, so that every tree has few distinct nodes and its root and any
path cost a few thousand hashes: the CC replica and the deal data repeat with period 8
(``key[v] = K[v mod 8]``, ``data[v] = D[v mod 8]``, K and D from a seed), hence the new replica
``key + rho(v >> (log2 N − h)) · data`` depends only on (v's rho region, v mod 8). A subtree's root
then depends only on where its leaves lie: inside one region (or one period) all subtrees of a
level are equal. :class:`_StructuredTree` hashes each distinct subtree once (memoized by a
representative index) and answers paths as a full tree would. The file is marked
``"synthetic": true``; its partition proofs are real openings of this sector's trees and pass
:func:`cuzk.sector.update.verify_partition`.
"""

from __future__ import annotations

import numpy as np

from ..hash.poseidon import R, poseidon_many
from . import commd
from . import update as su
from .replica import comm_r, tree_arities
from .update_doc import to_doc

__all__ = ["structured_sector", "synthetic_update"]

_PERIOD = 8  # the leaves' period (the base arity of tree_r)


class _StructuredTree:
    """A Merkle tree over N leaves with period-8 content inside regions of ``region`` leaves.

    ``leaf(i)`` gives leaf i (an int); ``hash_group(children)`` hashes one group (ints in, int
    out); ``arities`` leaves up. ``node(l, i)`` is level l's node i, computed once per distinct
    subtree.
    """

    def __init__(self, n: int, arities: list[int], region: int, leaf, hash_group):
        self.n, self.arities, self.region = n, arities, region
        self.leaf, self.hash_group = leaf, hash_group
        self.block = [1]
        for a in arities:
            self.block.append(self.block[-1] * a)
        self.memo: dict = {}

    def _rep(self, lvl: int, i: int) -> int:
        """The first node of level ``lvl`` whose subtree has the same leaves as node i's."""
        s = self.block[lvl]
        if s >= self.region:
            return i
        first = (i * s) // self.region * (self.region // s)  # the region's first node
        return first + (i % (_PERIOD // s) if s < _PERIOD else 0)

    def node(self, lvl: int, i: int) -> int:
        """Level ``lvl``'s node ``i`` (level 0: the leaves)."""
        rep = self._rep(lvl, i)
        hit = self.memo.get((lvl, rep))
        if hit is None:
            if lvl == 0:
                hit = self.leaf(rep)
            else:
                a = self.arities[lvl - 1]
                hit = self.hash_group([self.node(lvl - 1, rep * a + j) for j in range(a)])
            self.memo[(lvl, rep)] = hit
        return hit

    def root(self) -> int:
        """The root."""
        return self.node(len(self.arities), 0)

    def path(self, c: int) -> list[tuple[list[int], int]]:
        """Leaf c's path (:func:`cuzk.sector.replica.tree_path` form)."""
        out = []
        for lvl, a in enumerate(self.arities):
            i = c // self.block[lvl]
            start = (i // a) * a
            out.append(([self.node(lvl, start + j) for j in range(a) if start + j != i], i % a))
        return out


def _b(v: int) -> bytes:
    return int(v).to_bytes(32, "little")


def _sha_pair(children: list[int]) -> int:
    return int.from_bytes(commd.sha254(_b(children[0]) + _b(children[1])), "little")


def _poseidon_group(children: list[int]) -> int:
    return int(poseidon_many(np.array([children], dtype=object), arity=len(children))[0])


def structured_sector(seed: int) -> tuple[list[int], list[int], bytes]:
    """The repeating part of a synthetic sector: the CC replica's 8 nodes K, the deal data's 8
    nodes D (Fr32: below 2^254) as ints, and comm_c (32 bytes), from ``seed``."""
    rng = np.random.default_rng(seed)
    rand = [int.from_bytes(rng.bytes(32), "little") % R for _ in range(2 * _PERIOD + 1)]
    return rand[:_PERIOD], [x & ((1 << 254) - 1) for x in rand[_PERIOD:2 * _PERIOD]], _b(rand[-1])


def synthetic_update(sector_id: int, sector_size: int, seed: int, h: int | None = None) -> dict:
    """A synthetic SnapDeals input file (:mod:`cuzk.sector.update_doc` layout, ``"synthetic": true``)
    of a structured sector (module docstring) of ``sector_size`` bytes, from ``seed``.

    About 2^h · levels Poseidon hashes (seconds at 32 GiB with h = 10) plus the openings.
    Raises UpdateError for a size or h SnapDeals does not allow, or a size below 8 nodes' period.
    """
    h = su.h_default(sector_size) if h is None else h
    shr = su._shr(sector_size, h)
    n = sector_size // commd.NODE_SIZE
    if (1 << shr) < _PERIOD:
        raise su.UpdateError(f"{sector_size}-byte sectors with h={h} have rho regions below {_PERIOD} nodes")
    key, data, comm_c = structured_sector(seed)
    shape = su.tree_r_shape(sector_size)
    ar = tree_arities(n, shape)
    old = _StructuredTree(n, ar, n, lambda v: key[v % _PERIOD], _poseidon_group)
    tree_d = _StructuredTree(n, [2] * (n.bit_length() - 1), n, lambda v: data[v % _PERIOD], _sha_pair)
    comm_r_old, comm_d_new = comm_r(comm_c, _b(old.root())), _b(tree_d.root())
    rhos = su.rho(su.phi(comm_d_new, comm_r_old), np.arange(1 << h))
    new = _StructuredTree(n, ar, 1 << shr,
                          lambda v: (key[v % _PERIOD] + int(rhos[v >> shr]) * data[v % _PERIOD]) % R, _poseidon_group)
    root_old, root_new = old.root(), new.root()
    comm_r_new = comm_r(comm_c, _b(root_new))
    lvl, alc = su._apex_level(sector_size), su.apex_leaf_count(sector_size)
    depth = n.bit_length() - 1
    proofs = []
    for k in range(su.partition_count(sector_size)):
        cps = []
        for c in (int(c) for c in su.challenges(comm_r_new, sector_size, k)):
            path_d = [_b(tree_d.node(lv, (c >> lv) ^ 1)) for lv in range(depth)]
            cps.append(su.ChallengeProof(old.node(0, c), old.path(c), root_old, _b(tree_d.node(0, c)), path_d,
                                         new.node(0, c), new.path(c), root_new))
        proofs.append(su.PartitionProof(comm_c, [_b(tree_d.node(lvl, k * alc + j)) for j in range(alc)], cps))
    doc = to_doc(sector_id, sector_size, h, comm_c, comm_r_old, comm_d_new, comm_r_new, proofs)
    return doc | {"synthetic": True}

