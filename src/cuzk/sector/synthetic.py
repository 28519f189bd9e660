"""Sparse synthetic PoRep C1 files: 32 GiB / 64 GiB vanilla proofs without sealing a sector.

Sealing a 32 GiB sector (11 layers of 2^30 labels, two Poseidon trees over 2^30 leaves) is out of
reach here, yet the circuit of a partition only ever sees the *opened* parts of a sector: the
challenged nodes' comm_d paths, the columns of the challenged nodes and of their 14 parents with
their tree_c paths, the challenged nodes' tree_r_last paths, and the labeling/encoding proofs.
:func:`synthetic_c1` builds exactly those parts, in the format and with the field semantics of
:func:`cuzk.sector.porep_c1.seal_and_prove` (plus ``"synthetic": true``), such that
:func:`cuzk.sector.porep_c1.verify_porep_c1` accepts the result: it is a valid witness for the
StackedDRG circuit, of a sector that does not exist as a whole.

**Committed-capacity data.** The sector's data are all zero (a CC sector), so comm_d is the root of
the all-zero binary sha254 tree (:func:`cuzk.sector.commd.zero_comm_d`) and every comm_d path is
the zero path (leaf 0, the sibling at height ``h`` is the zero-subtree root of height ``h``). This
breaks a circularity: replica_id = SHA-256(prover_id ‖ sector_id ‖ ticket ‖ comm_d ‖ porep_id)
decides the challenges, and the challenges decide which parts must be computed; with arbitrary
sparse data comm_d would itself depend on the opened leaves. With zero data, replica = key.

**What is real** (computed exactly as a sealed CC sector with these labels would have it):

* comm_d, the comm_d proofs, replica_id (:func:`cuzk.sector.c1.replica_id`), the challenges
  (:func:`cuzk.sector.challenges.derive_challenges`, every partition) and the 14 graph parents of
  every challenged node (:mod:`cuzk.sector.graph`, for ``api_version``);
* the labels of every challenged node in every layer: sha254(label_header(replica_id, l, c) ‖ the
  37 repeated parent labels) exactly as :func:`verify_porep_c1` checks; a parent that is itself a
  challenged node (of any partition) contributes its computed labels (layers are computed in order,
  challenged nodes in increasing order within a layer, which is what the dependencies need: DRG
  parents are smaller nodes of the same layer, expander parents are of the previous layer);
* key = last-layer label; replica = data (0) + key mod r for every challenged node;
* every column hash (Poseidon of arity ``layers``), every tree node that is an ancestor of an opened
  leaf (Poseidon with the real tree arities, :func:`cuzk.sector.replica.tree_arities`), hence
  comm_c, comm_r_last and comm_r = Poseidon₂(comm_c, comm_r_last).

**What is random** (pseudo-random, a fixed function of ``(rng_seed, replica_id, position)``):

* the whole column (all ``layers`` labels) of an opened parent that is not a challenged node:
  uniform 254-bit values (SHA-256 with the top two bits cleared, i.e. valid sha254 outputs, < r);
* every tree node needed as a sibling that is not computed from opened children: uniform Fr values
  (SHA-512 reduced mod r; bias below 2^-256). In tree_r_last a level-0 sibling that is an opened
  node (a parent) takes that node's replica value (= its last-layer label) instead, so every
  replica leaf shown agrees with the column shown for the same node.

Each tree is thus *one* consistent sparse tree: a random value is tied to its position, not to the
path that needs it, so paths that share ancestors carry identical siblings there, across
challenges and partitions (comm_c and comm_r_last are the same roots for all challenges). tree_c
opens the challenged nodes and all their parents; tree_r_last only the challenged nodes; they are
separate trees. No sector data or replica exists behind these roots (finding one would mean
inverting the hashes), so a synthetic C1 is for benchmarks and tests of the prover, never for a
chain. Same ``rng_seed`` and inputs → the same dict.

**Cost** at 32 GiB (180 challenges; 2,613 opened columns × 11 labels for the default inputs of the
tests): 2,613 arity-11 column hashes and 14,463 arity-8 tree hashes, tree_c and tree_r_last
together (one vectorized Poseidon call per tree level, 86 % of the time), and 180 × 11 label hashes; the parents of all
challenged nodes come from one vectorized call. Measured on the 2-core dev machine: 9.7 s and
260 MB peak RSS at 32 GiB and at 64 GiB; the JSON file (:func:`cuzk.sector.porep_c1.write_porep_c1`)
is 38 MB (32 GiB) / 39 MB (64 GiB). Verifying such a file takes 12.5 s and 250 MB peak RSS there
(``/usr/bin/time -v python -c "from cuzk.sector.porep_c1 import read_porep_c1;
read_porep_c1('c1_32g.json')"`` on the file written as above: 1 s JSON parsing, 1.1 s schema, 0.3 s
parents, 9.5 s the verifier's batched Poseidon hashes of the same tree nodes as here, under 1 s
the rest), against 61 s before the verifier batched its hashes and parents.
"""

from __future__ import annotations

import hashlib
import struct

from ..hash.poseidon import R, poseidon_many
from .c1 import porep_id as default_porep_id, replica_id as make_replica_id
from .challenges import challenge_counts, derive_challenges
from .commd import sha254, zero_subtree_roots
from .graph import API_VERSIONS, BASE_DEGREE, parents_many
from .labels import label_header
from .porep_c1 import TOTAL_PARENTS, c1_document, challenge_proof
from .replica import comm_r as make_comm_r, tree_arities, tree_shape

__all__ = ["synthetic_c1", "DEFAULT_LAYERS"]

NODE_SIZE = 32
#: SDR layers of Filecoin's PoRep per sector size (2 up to 512 MiB, 11 at 32 and 64 GiB).
DEFAULT_LAYERS = {2 << 10: 2, 8 << 20: 2, 512 << 20: 2, 32 << 30: 11, 64 << 30: 11}

_DOMAIN = b"cuzk/synthetic-sector/v1"
_CHUNK = 1 << 15  # hashes per poseidon_many call


def _b32(x: bytes) -> list[int]:
    return list(x)


def _fr(v: int) -> list[int]:
    return list(int(v).to_bytes(32, "little"))


class _Random:
    """Position-keyed pseudo-random values: a function of (rng_seed, replica_id, what, level, index)."""

    def __init__(self, rng_seed: int, rid: bytes):
        self.ctx = _DOMAIN + rng_seed.to_bytes(8, "little") + rid

    def label(self, layer: int, node: int) -> bytes:
        """A uniform 254-bit label (a valid sha254 output), 32 bytes LE."""
        return sha254(self.ctx + b"label" + struct.pack(">IQ", layer, node))

    def fr(self, tree: bytes, level: int, index: int) -> int:
        """A uniform Fr element for tree node (level, index)."""
        h = hashlib.sha512(self.ctx + tree + struct.pack(">IQ", level, index)).digest()
        return int.from_bytes(h, "little") % R


def _sparse_tree(leaves: dict[int, int], arities: list[int], fill) -> list[dict[int, int]]:
    """Levels (leaves first) of a sparse Poseidon tree: dicts index → value.

    Level ``l + 1`` holds the parent of every group of level ``l`` that contains a known node; the
    group's unknown members are ``fill(l, index)`` (stored, so every path reads the same value).
    """
    levels = [dict(leaves)]
    for lvl, a in enumerate(arities):
        cur = levels[-1]
        groups = sorted({i // a for i in cur})
        cols = [[0] * len(groups) for _ in range(a)]
        for gi, g in enumerate(groups):
            base = g * a
            for j in range(a):
                v = cur.get(base + j)
                if v is None:
                    v = cur[base + j] = fill(lvl, base + j)
                cols[j][gi] = v
        nxt: dict[int, int] = {}
        for s in range(0, len(groups), _CHUNK):
            out = poseidon_many([c[s : s + _CHUNK] for c in cols], arity=a)
            nxt.update(zip(groups[s : s + _CHUNK], (int(h) for h in out)))
        levels.append(nxt)
    if list(levels[-1]) != [0]:  # pragma: no cover - tree_arities guarantees one root
        raise AssertionError("sparse tree does not end in one root")
    return levels


def _merkle_proof(levels: list[dict[int, int]], index: int, arities: list[int]) -> dict:
    """porep_c1's MerkleProof JSON of leaf ``index`` (fresh lists, nothing shared between proofs)."""
    path = []
    i = index
    for lvl, a in enumerate(arities):
        g, pos = divmod(i, a)
        lv = levels[lvl]
        path.append({"hashes": [_fr(lv[g * a + j]) for j in range(a) if j != pos], "index": pos})
        i = g
    return {"leaf": _fr(levels[0][index]), "root": _fr(levels[-1][0]), "path": path}


def _check32(v, name: str) -> bytes:
    b = bytes(v)
    if len(b) != 32:
        raise ValueError(f"{name} must be 32 bytes, got {len(b)}")
    return b


def synthetic_c1(
    sector_size: int,
    sector_id: int,
    prover_id: bytes,
    ticket: bytes,
    seed: bytes,
    *,
    layers: int | None = None,
    porep_id: bytes | None = None,
    api_version: str = "1.1",
    partitions: int | None = None,
    challenges: int | None = None,
    rng_seed: int = 0,
) -> dict:
    """A sparse synthetic PoRep C1 dict of an all-zero (CC) sector; see the module docstring.

    The dict has the fields of :func:`cuzk.sector.porep_c1.seal_and_prove` (same ``format``,
    ``porep: true``, ``comm_d``, ``comm_r``, ``replica_id``, ``vanilla_proofs`` …) with
    ``"synthetic": true``; :func:`cuzk.sector.porep_c1.verify_porep_c1` accepts it and
    :func:`cuzk.sector.porep_c1.write_porep_c1` writes it.

    Args:
        sector_size: bytes, a power of two with a tree shape (:func:`cuzk.sector.replica.tree_shape`):
            Filecoin's 2 KiB … 64 GiB, or test-only sizes such as 16 KiB (nodes = sector_size / 32).
        sector_id: u64. prover_id, ticket, seed: 32 bytes each (seed: the interactive randomness).
        layers: SDR layers; default 2 (2 KiB, 8 MiB, 512 MiB) or 11 (32, 64 GiB), required for
            other sizes.
        porep_id: 32 bytes; default :func:`cuzk.sector.c1.porep_id` of the size.
        api_version: graph version, "1.0" (legacy) or "1.1"/"1.2".
        partitions, challenges: partitions and challenges per partition; default
            :func:`cuzk.sector.challenges.challenge_counts` (10 × 18 at 32/64 GiB), required for
            test-only sizes. (verify_porep_c1 rejects other counts at Filecoin's sizes.)
        rng_seed: 0 ≤ rng_seed < 2^64; selects the random parts (same seed, same dict).

    Returns:
        The C1 dict; 32-byte values as lists of byte values, Fr elements little-endian.

    Raises:
        ValueError: a 32-byte argument of another length, a sector size that is not a power of
            two of at least 256 bytes or has no tree shape, layers < 1 or missing for a test-only
            size, missing/invalid partitions or challenges, an unknown api_version, or an
            out-of-range sector_id / rng_seed.
    """
    if not isinstance(rng_seed, int) or not 0 <= rng_seed < 1 << 64:
        raise ValueError(f"rng_seed must be an integer in [0, 2**64), got {rng_seed!r}")
    return _synthetic_c1(sector_size, sector_id, prover_id, ticket, seed, layers, porep_id, api_version,
                         partitions, challenges, lambda rid: _Random(rng_seed, rid))


def _synthetic_c1(sector_size, sector_id, prover_id, ticket, seed, layers, porep_id, api_version,
                  partitions, challenges, values_for) -> dict:
    """:func:`synthetic_c1` with the off-path values drawn from ``values_for(replica_id)``: an object
    with ``label(layer, node) -> bytes`` and ``fr(tree, level, index) -> int`` (``tree`` is
    ``b"tree_c"`` or ``b"tree_r_last"``). Tests pass a really sealed sector's values here, which
    must then reproduce :func:`cuzk.sector.porep_c1.seal_and_prove`'s C1 exactly."""
    if not isinstance(sector_size, int) or sector_size < 8 * NODE_SIZE or sector_size & (sector_size - 1):
        raise ValueError(f"sector size {sector_size!r} is not a power of two of at least {8 * NODE_SIZE} bytes")
    n = sector_size // NODE_SIZE
    arities = tree_arities(n, tree_shape(sector_size))  # ValueError: no shape
    if not isinstance(sector_id, int) or not 0 <= sector_id < 1 << 64:
        raise ValueError(f"sector_id must be a u64, got {sector_id}")
    prover_id, ticket, seed = (_check32(v, k) for v, k in ((prover_id, "prover_id"), (ticket, "ticket"), (seed, "seed")))
    pid = default_porep_id(sector_size) if porep_id is None else _check32(porep_id, "porep_id")
    if api_version not in API_VERSIONS:
        raise ValueError(f"api_version must be one of {API_VERSIONS}, got {api_version!r}")
    if layers is None:
        if sector_size not in DEFAULT_LAYERS:
            raise ValueError(f"no default layer count for a {sector_size}-byte sector: pass layers=")
        layers = DEFAULT_LAYERS[sector_size]
    if layers < 1:
        raise ValueError(f"layers must be >= 1, got {layers}")
    if partitions is None or challenges is None:
        try:
            dp, dc = challenge_counts(sector_size)
        except ValueError:
            raise ValueError(f"{sector_size}-byte sectors have no Filecoin challenge counts: "
                             "pass partitions= and challenges=") from None
        partitions = dp if partitions is None else partitions
        challenges = dc if challenges is None else challenges
    if partitions < 1 or challenges < 1:
        raise ValueError(f"partitions and challenges must be >= 1, got {partitions} × {challenges}")

    # comm_d of the all-zero sector, and the zero path every challenge opens.
    depth = n.bit_length() - 1
    zeros = zero_subtree_roots(depth)
    comm_d = zeros[-1]
    zero_path = zeros[:-1]
    rid = make_replica_id(prover_id, sector_id, ticket, comm_d, sector_size, pid)
    rnd = values_for(rid)

    chal = [derive_challenges(rid, seed, sector_size, k, challenges) for k in range(partitions)]
    cnodes = sorted({c for part in chal for c in part})
    # The parents of every challenged node in one call (graph.parents would build the Feistel round
    # tables, 0.2 s at 32 GiB, anew for each node).
    gp = parents_many(sector_size, pid, cnodes, api_version=api_version)
    par = {c: (d, e) for c, d, e in zip(cnodes, gp[:, :BASE_DEGREE].tolist(), gp[:, BASE_DEGREE:].tolist())}
    opened = sorted(set(cnodes).union(*(d + e for d, e in par.values())))

    # Columns: lab[l][v] = layer-l label (32 bytes) of opened node v; random unless challenged.
    cset = set(cnodes)
    lab: list[dict[int, bytes]] = [{}] + [{v: rnd.label(l, v) for v in opened if v not in cset}
                                          for l in range(1, layers + 1)]
    for layer in range(1, layers + 1):
        cur, prev = lab[layer], lab[layer - 1]
        for c in cnodes:  # increasing: a challenged DRG parent (< c) is already labelled
            d, e = par[c]
            used = [cur[q] for q in d] if layer == 1 else [cur[q] for q in d] + [prev[q] for q in e]
            cur[c] = sha254(label_header(rid, layer, c) + b"".join(used[k % len(used)] for k in range(TOTAL_PARENTS)))

    # tree_c over the column hashes of every opened node.
    rows = [[int.from_bytes(lab[l][v], "little") for v in opened] for l in range(1, layers + 1)]
    col_hash = {}
    for s in range(0, len(opened), _CHUNK):
        out = poseidon_many([r[s : s + _CHUNK] for r in rows], arity=layers)
        col_hash.update(zip(opened[s : s + _CHUNK], (int(h) for h in out)))
    tree_c = _sparse_tree(col_hash, arities, lambda lvl, i: rnd.fr(b"tree_c", lvl, i))

    # tree_r_last over replica = 0 + key (mod r) of the challenged nodes.
    key = lab[layers]
    replica = {c: int.from_bytes(key[c], "little") % R for c in cnodes}

    def fill_r(lvl: int, i: int) -> int:
        if lvl == 0 and i in key:  # an opened parent: its replica value, consistent with its column
            return int.from_bytes(key[i], "little") % R
        return rnd.fr(b"tree_r_last", lvl, i)

    tree_r = _sparse_tree(replica, arities, fill_r)
    comm_c, comm_r_last = int(tree_c[-1][0]).to_bytes(32, "little"), int(tree_r[-1][0]).to_bytes(32, "little")

    def column_proof(v: int) -> dict:
        return {"column": {"index": v, "rows": [_b32(lab[l][v]) for l in range(1, layers + 1)]},
                "inclusion_proof": _merkle_proof(tree_c, v, arities)}

    parts = []
    for part in chal:
        proofs = []
        for c in part:
            d, e = par[c]
            cd = {"leaf": _b32(zeros[0]), "path": [_b32(z) for z in zero_path], "index": c, "root": _b32(comm_d)}
            proofs.append(challenge_proof(c, cd, _merkle_proof(tree_r, c, arities), column_proof, d, e,
                                          lambda layer, q: lab[layer][q]))
        parts.append(proofs)
    return c1_document(sector_size, sector_id, prover_id, ticket, seed, comm_d, make_comm_r(comm_c, comm_r_last),
                       rid, pid, layers, api_version, True, parts)
