"""Synthetic PoSt sectors: tree_r_last openings of sectors that were never sealed, at any size.

PoSt (:mod:`cuzk.sector.post`) opens, per sector, only a few leaves of tree_r_last (WindowPoSt:
10 per sector, 2,349 sectors per 32 GiB partition; WinningPoSt: 66 of one sector) and shows
comm_c. :func:`synthetic_openings` builds exactly that for a :class:`SyntheticSector`: one
*sparse* tree_r_last per sector holding only the challenged leaves, their ancestors and the
siblings on their paths, so that ``FallbackPoSt::verify``'s checks hold
(:func:`cuzk.sector.post.verify_post`) and the PoSt circuit is satisfied:

* every leaf and every sibling that is not computed from opened children is a pseudo-random Fr
  element tied to its position: SHA-512(domain ‖ rng_seed ‖ sector_size ‖ sector_id ‖ "tree_r_last"
  ‖ level ‖ index) mod r (bias below 2^-256), so paths that share an ancestor carry the same
  siblings there and each sector has *one* consistent tree;
* every ancestor of an opened leaf is Poseidon (Merkle tag) of its children with the tree's real
  arities (:func:`cuzk.sector.replica.tree_arities`), hence comm_r_last is the root;
* comm_c is pseudo-random the same way (SHA-512(... ‖ "comm_c")), and comm_r = Poseidon₂(comm_c,
  comm_r_last) (:func:`cuzk.sector.replica.comm_r_many`, ``PoseidonFunction::hash2``).

No replica lies behind these roots (finding one would mean inverting Poseidon), so a synthetic
PoSt is for benchmarks and tests of the prover, never for a chain; every file made from one says
``"synthetic": true``. A synthetic PoSt sector is *not* the synthetic PoRep sector of the same id
(:mod:`cuzk.sector.synthetic`): that one's tree_r_last opens the PoRep challenges and its
comm_r differs.

**Batched.** All sectors' trees are built together, level by level: the known nodes of a level are
one sorted int64 key array (``sector << 32 | index``), their groups come from one ``np.unique``,
the group members' positions from one ``searchsorted``, and each level is one chunked
:func:`cuzk.hash.poseidon.poseidon_many` call over every sector. Only the random fill values (one
SHA-512 each) and the final conversion to JSON lists are per-node Python. Cost at 32 GiB: 2,349
sectors × 10 challenges × 10 levels of arity 8 is at most 234,900 Poseidon hashes (shared
ancestors are hashed once), which dominate (see the measured figures in
``benchmarks/results/postscale/``).
"""

from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from ..hash.poseidon import R, poseidon_many
from .replica import comm_r_many, fr_to_nodes, tree_arities, tree_shape

__all__ = ["SyntheticSector", "synthetic_openings", "random_fill"]

NODE_SIZE = 32
_DOMAIN = b"cuzk/synthetic-post-sector/v1"
_CHUNK = 1 << 15          # hashes per poseidon_many call
_SHIFT = 32               # node key = sector position << 32 | node index (index < 2^31 at 64 GiB)


@dataclass(frozen=True)
class SyntheticSector:
    """A synthetic committed-capacity sector as PoSt sees it: its id, size and random seed.

    Attributes:
        sector_id: u64. sector_size: bytes, a power of two with a tree shape
        (:func:`cuzk.sector.replica.tree_shape`). rng_seed: 0 ≤ seed < 2^64, selects the random
        values (same seed, same sector).
    """

    sector_id: int
    sector_size: int
    rng_seed: int = 0
    synthetic = True      # class attribute: every file made from it says so

    def __post_init__(self):
        if not isinstance(self.sector_id, int) or not 0 <= self.sector_id < 1 << 64:
            raise ValueError(f"sector_id must be a u64, got {self.sector_id!r}")
        if not isinstance(self.rng_seed, int) or not 0 <= self.rng_seed < 1 << 64:
            raise ValueError(f"rng_seed must be an integer in [0, 2**64), got {self.rng_seed!r}")
        tree_arities(self.sector_size // NODE_SIZE, tree_shape(self.sector_size))  # ValueError: no shape

    @property
    def arities(self) -> list[int]:
        """tree_r_last arity per level, leaves up."""
        return tree_arities(self.sector_size // NODE_SIZE, tree_shape(self.sector_size))

    def _context(self) -> bytes:
        return _DOMAIN + struct.pack("<QQQ", self.rng_seed, self.sector_size, self.sector_id)

    def random_fr(self, what: bytes, level: int, index: int) -> int:
        """The sector's pseudo-random Fr element at (what, level, index): SHA-512 mod r."""
        h = hashlib.sha512(self._context() + what + struct.pack(">IQ", level, index)).digest()
        return int.from_bytes(h, "little") % R


def random_fill(sectors: Sequence[SyntheticSector]) -> Callable[[int, int, int], int]:
    """The default node source of :func:`synthetic_openings`: tree_r_last node (level, index) of
    ``sectors[s]`` is ``sectors[s].random_fr(b"tree_r_last", level, index)``."""
    return lambda s, level, index: sectors[s].random_fr(b"tree_r_last", level, index)


def _obj(values) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _sparse_levels(leaf_keys: np.ndarray, arities: list[int], fill) -> list[tuple[np.ndarray, np.ndarray]]:
    """Every stored node of all sparse trees, level by level: (sorted int64 keys, object values).

    Level ``l`` holds the members of every group that contains a node computed from below (or a
    leaf); members not computed are ``fill(sector, l, index)``. The last level holds each root.
    """
    mask = (1 << _SHIFT) - 1
    known_k = np.unique(leaf_keys)
    known_v = None            # level 0: every member comes from fill
    out = []
    for lvl, a in enumerate(arities):
        sec, idx = known_k >> _SHIFT, known_k & mask
        gkeys = np.unique((sec << _SHIFT) | (idx // a))
        gsec, gidx = gkeys >> _SHIFT, gkeys & mask
        mkeys = ((gsec << _SHIFT)[:, None] | (gidx[:, None] * a + np.arange(a))).reshape(-1)
        vals = np.empty(len(mkeys), dtype=object)
        if known_v is None:
            have = np.zeros(len(mkeys), dtype=bool)
        else:
            pos = np.minimum(np.searchsorted(known_k, mkeys), len(known_k) - 1)
            have = known_k[pos] == mkeys
            vals[have] = known_v[pos[have]]
        for j in np.flatnonzero(~have).tolist():
            key = int(mkeys[j])
            vals[j] = fill(key >> _SHIFT, lvl, key & mask)
        out.append((mkeys, vals))
        cols = vals.reshape(-1, a)
        hashed = [poseidon_many([cols[s:s + _CHUNK, j] for j in range(a)], arity=a)
                  for s in range(0, len(cols), _CHUNK)]
        known_k, known_v = gkeys, _obj(np.concatenate(hashed))
    out.append((known_k, known_v))
    return out


def synthetic_openings(sectors: Sequence[SyntheticSector], challenges: Sequence[Sequence[int]],
                       fill: Callable[[int, int, int], int] | None = None) -> list[dict]:
    """Sparse tree_r_last openings of synthetic sectors of one size (module docstring).

    Args:
        sectors: the sectors, one size.
        challenges: per sector, its challenged leaf indices (each in [0, nodes); repeats allowed).
        fill: ``fill(s, level, index) -> int`` (canonical Fr), the value of a node of sector
            ``s``'s tree that is not computed from opened children; default :func:`random_fill`.
            Tests pass a fully built tree's nodes here, which must then give its root and paths.

    Returns:
        One dict per sector: ``comm_c``, ``comm_r_last``, ``comm_r`` (32 bytes LE each) and
        ``proofs``: {leaf index: MerkleProof dict} (:mod:`cuzk.sector.porep_c1`'s JSON form,
        32-byte values as lists of byte values; fresh lists, nothing shared).

    Raises:
        ValueError: no sectors, sizes differ, a sector without challenges, a challenge out of range.
    """
    if not sectors:
        raise ValueError("no synthetic sectors")
    if len(challenges) != len(sectors):
        raise ValueError(f"{len(sectors)} sectors but {len(challenges)} challenge lists")
    size = sectors[0].sector_size
    if any(s.sector_size != size for s in sectors):
        raise ValueError("synthetic sectors of one PoSt must have one size")
    nodes, arities = size // NODE_SIZE, sectors[0].arities
    fill = random_fill(sectors) if fill is None else fill
    ch = [np.asarray(c, dtype=np.int64).reshape(-1) for c in challenges]
    for i, c in enumerate(ch):
        if c.size == 0:
            raise ValueError(f"sector {sectors[i].sector_id} has no challenges")
        if c.min() < 0 or c.max() >= nodes:
            raise ValueError(f"sector {sectors[i].sector_id}: a challenge is outside [0, {nodes})")
    sec = np.concatenate([np.full(c.size, i, dtype=np.int64) for i, c in enumerate(ch)])
    leaf = np.concatenate(ch)
    levels = _sparse_levels((sec << _SHIFT) | leaf, arities, fill)
    roots = levels[-1][1]
    comm_c = _obj([s.random_fr(b"comm_c", 0, 0) for s in sectors])
    comm_r = fr_to_nodes(comm_r_many(comm_c, roots))
    # every path at once: per level the node values at the path's group members
    uniq = np.unique((sec << _SHIFT) | leaf)
    usec, idx = uniq >> _SHIFT, uniq & ((1 << _SHIFT) - 1)
    leaf_nodes = fr_to_nodes(levels[0][1][np.searchsorted(levels[0][0], uniq)]).tolist()
    root_nodes = fr_to_nodes(roots).tolist()
    paths = [[] for _ in range(len(uniq))]
    for lvl, a in enumerate(arities):
        keys, vals = levels[lvl]
        g, p = idx // a, idx % a
        members = ((usec << _SHIFT) | (g * a))[:, None] + np.arange(a)
        got = fr_to_nodes(vals[np.searchsorted(keys, members.reshape(-1))]).reshape(len(uniq), a, NODE_SIZE)
        keep = np.arange(a)[None, :] != p[:, None]
        sibs = got[keep].reshape(len(uniq), a - 1, NODE_SIZE).tolist()
        for path, h, pos in zip(paths, sibs, p.tolist()):
            path.append({"hashes": h, "index": pos})
        idx = g
    out = [{"comm_c": bytes(fr_to_nodes(comm_c[i:i + 1])), "comm_r_last": bytes(fr_to_nodes(roots[i:i + 1])),
            "comm_r": bytes(comm_r[i]), "proofs": {}} for i in range(len(sectors))]
    for j, (s, c) in enumerate(zip(usec.tolist(), (uniq & ((1 << _SHIFT) - 1)).tolist())):
        out[s]["proofs"][c] = {"leaf": leaf_nodes[j], "root": list(root_nodes[s]), "path": paths[j]}
    return out
