"""PoRep C1 files: the full StackedDRG vanilla proof of a really sealed sector.

:func:`seal_and_prove` seals a sector (:func:`cuzk.sector.replica.replicate`), derives the
challenges as :mod:`cuzk.sector.c1` does, and writes, per challenge, the fields of rust-fil-proofs'
``stacked::vanilla::Proof`` (``storage-proofs-porep/src/stacked/vanilla/params.rs``, built by
``StackedDrg::prove_layers`` in ``proof.rs``)::

    {"comm_d_proofs": {"leaf", "path", "index", "root"},          # as cuzk.sector.c1 (binary sha254)
     "comm_r_last_proof": MerkleProof,                           # tree_r_last, leaf = replica[c]
     "replica_column_proofs": {"c_x": ColumnProof,               # the challenged node
                               "drg_parents": [ColumnProof × 6], # graph parents 0..5, in order
                               "exp_parents": [ColumnProof × 8]},# graph parents 6..13, in order
     "labeling_proofs": [LabelingProof × layers],                # layer 1 first
     "encoding_proof": EncodingProof}

    MerkleProof   = {"leaf": [32], "root": [32], "path": [{"hashes": [[32] × (a−1)], "index": pos}, ...]}
    ColumnProof   = {"column": {"index": node, "rows": [[32] × layers]}, "inclusion_proof": MerkleProof}
    LabelingProof = {"parents": [[32] × 37], "layer_index": l, "node": c}
    EncodingProof = {"parents": [[32] × 37], "layer_index": layers, "node": c}

Semantics (upstream ``verify`` methods, all checked by :func:`verify_porep_c1`):

* ``MerkleProof``: path elements leaf level first; ``hashes`` are the other ``a − 1`` members of
  the group, ``index`` the node's position (merkletree's ``PathElement``); the leaf index is
  ``Σ index_l · Π_{k<l} a_k`` (``proves_challenge``). tree_c / tree_r_last are Poseidon trees
  (:mod:`cuzk.sector.replica`).
* ``ColumnProof.verify``: Poseidon_layers(rows) (``hash_single_column``) = inclusion leaf; the
  inclusion proof proves ``column.index`` and its root is comm_c. ``ReplicaColumnProof.verify``:
  c_x proves the challenge, drg_parents/exp_parents prove the graph's parents in order, all
  under c_x's root (= comm_c).
* ``LabelingProof``: ``parents`` are the 37 parent labels actually hashed (``prove_layers``
  repeats the 6 or 14 to ``TOTAL_PARENTS`` = 37: ``full[k] = P[k mod len(P)]``); layer 1 uses
  the 6 DRG parents' layer-1 labels, layer l > 1 the 6 DRG parents' layer-l labels then the 8
  expander parents' layer-(l−1) labels. ``verify``: sha254(label_header(replica_id, l, c) ‖
  parents) = ``c_x.column.rows[l − 1]``.
* ``EncodingProof`` (same parents as the last layer's labeling proof): key = that label;
  ``verify``: comm_r_last_proof.leaf = comm_d_proofs.leaf + key (mod r).
* comm_r = Poseidon₂(comm_c, comm_r_last) with comm_c the c_x root and comm_r_last the
  comm_r_last_proof root (``verify_all_partitions``).

Beyond upstream's vanilla ``verify`` (which leaves these to the circuit), this module also checks
that every labeling parent equals the matching row of the parents' column proofs, and that the
encoding proof's parents equal the last labeling proof's, so a C1 that passes here is one the
circuit accepts.

Top-level fields are those of :func:`cuzk.sector.c1.build_c1` (same ``format``; ``read_c1`` still
accepts the file) plus ``"porep": true``, ``"layers"``, ``"api_version"``, ``"porep_id"`` and
``"comm_r"`` (SealCommitPhase1Output's name). comm_c and comm_r_last are not repeated at the top
level: as upstream, they are the roots inside the proofs.
"""

from __future__ import annotations


from ..hash.poseidon import PoseidonMemo, R
from .c1 import (
    C1Error,
    c1_fields,
    check_comm_d_proof,
    check_header,
    check_schema,
    porep_id as default_porep_id,
    proof_of,
    replica_id,
    write_c1,
)
from .c1 import SCHEMA as _C1_SCHEMA
from .challenges import challenge_counts, derive_challenges
from .commd import build_tree as build_commd_tree, merkle_path, sha254
from .jsondoc import BYTES32, NAT, load_json, nat
from .graph import BASE_DEGREE, EXP_DEGREE, all_parents, parents_many
from .labels import label_header
from .replica import hash_paths, replicate, tree_arities, tree_path, tree_shape

__all__ = ["c1_document", "challenge_proof", "merkle_proof", "seal_and_prove", "verify_porep_c1", "write_porep_c1", "read_porep_c1", "SCHEMA", "TOTAL_PARENTS"]

TOTAL_PARENTS = 37  #: parents hashed per label (``TOTAL_PARENTS`` upstream)


def _b32(x: bytes) -> list[int]:
    return list(bytes(x))


def _fr(v: int) -> list[int]:
    return list(int(v).to_bytes(32, "little"))


def _int(b) -> int:
    return int.from_bytes(bytes(b), "little")


def merkle_proof(levels, index: int, shape) -> dict:
    """The JSON MerkleProof of leaf ``index`` in a Poseidon tree (``levels`` leaves first, as
    :func:`cuzk.sector.replica.build_tree`): {"leaf", "root", "path": [{"hashes", "index"}]}."""
    path = tree_path(levels, index, shape)
    return {"leaf": _fr(levels[0][index]), "root": _fr(levels[-1][0]),
            "path": [{"hashes": [_fr(h) for h in sibs], "index": pos} for sibs, pos in path]}


def _repeat(p: list, n: int = TOTAL_PARENTS) -> list:
    return [p[k % len(p)] for k in range(n)]


def challenge_proof(node: int, comm_d_proof: dict, comm_r_last_proof: dict, column_proof, drg, exp,
                    label_of) -> dict:
    """One challenge's vanilla proof (module docstring): ``column_proof(q)`` gives a node's
    ColumnProof, ``label_of(layer, q)`` the 32-byte label of node q at ``layer`` (1-based); the
    labeling proofs hash the DRG parents' layer-l labels, then (l > 1) the expander parents'
    layer-(l − 1) labels, repeated to 37."""
    layers = len(column_proof(node)["column"]["rows"])
    labeling = []
    for layer in range(1, layers + 1):
        used = [label_of(layer, q) for q in drg] + ([label_of(layer - 1, q) for q in exp] if layer > 1 else [])
        labeling.append({"parents": [_b32(x) for x in _repeat(used)], "layer_index": layer, "node": node})
    return {
        "comm_d_proofs": comm_d_proof,
        "comm_r_last_proof": comm_r_last_proof,
        "replica_column_proofs": {"c_x": column_proof(node),
                                  "drg_parents": [column_proof(q) for q in drg],
                                  "exp_parents": [column_proof(q) for q in exp]},
        "labeling_proofs": labeling,
        "encoding_proof": {"parents": [list(x) for x in labeling[-1]["parents"]], "layer_index": layers, "node": node},
    }


def c1_document(sector_size: int, sector_id: int, prover_id: bytes, ticket: bytes, seed: bytes, comm_d: bytes,
                comm_r: bytes, rid: bytes, pid: bytes, layers: int, api_version: str, synthetic: bool,
                parts: list) -> dict:
    """The top-level PoRep C1 dict around the per-partition proof lists ``parts``."""
    return c1_fields(sector_size, sector_id, prover_id, ticket, seed, comm_d, rid, parts, synthetic) | {
        "registered_proof": proof_of(sector_size, pid), "porep": True, "comm_r": _b32(comm_r), "porep_id": _b32(pid), "layers": layers, "api_version": api_version}


def seal_and_prove(
    padded: bytes,
    sector_size: int,
    sector_id: int,
    prover_id: bytes,
    ticket: bytes,
    seed: bytes,
    layers: int,
    porep_id: bytes | None = None,
    partitions: int | None = None,
    challenges: int | None = None,
    *,
    api_version: str = "1.1",
    cache_dir=None,
    keep: dict | None = None,
) -> dict:
    """Seal one Fr32-padded sector and return its PoRep C1 dict (see the module docstring).

    Args:
        padded: the sector's Fr32-padded bytes, length sector_size.
        layers: SDR layers (2 for 2 KiB … 512 MiB, 11 for 32/64 GiB).
        porep_id: 32 bytes; default :func:`cuzk.sector.c1.porep_id` of the sector size.
        partitions, challenges: default :func:`challenge_counts` of the sector size.
        keep: if a dict, the :func:`cuzk.sector.replica.replicate` result is stored under
            ``"replica"`` (for the sealed-sector file PoSt reads).

    Raises:
        ValueError: wrong lengths, or a sector size without a tree shape.
    """
    if len(padded) != sector_size:
        raise ValueError(f"padded sector has {len(padded)} bytes, expected {sector_size}")
    for name, v in (("prover_id", prover_id), ("ticket", ticket), ("seed", seed)):
        if len(v) != 32:
            raise ValueError(f"{name} must be 32 bytes, got {len(v)}")
    pid = default_porep_id(sector_size) if porep_id is None else bytes(porep_id)
    if len(pid) != 32:
        raise ValueError(f"porep_id must be 32 bytes, got {len(pid)}")
    if partitions is None or challenges is None:
        dp, dc = challenge_counts(sector_size)
        partitions = dp if partitions is None else partitions
        challenges = dc if challenges is None else challenges
    dtree = build_commd_tree(padded)
    comm_d = bytes(dtree[-1][0])
    rid = replica_id(prover_id, sector_id, ticket, comm_d, sector_size, pid)
    par = all_parents(sector_size, pid, api_version=api_version, cache_dir=cache_dir)
    rep = replicate(padded, rid, sector_size, layers, pid, api_version=api_version, parents=par)
    if keep is not None:
        keep["replica"] = rep
    labels, shape = rep["labels"], rep["shape"]
    tree_c, tree_r = rep["tree_c"], rep["tree_r_last"]

    def column_proof(node: int) -> dict:
        return {"column": {"index": node, "rows": [_b32(labels[l][node].tobytes()) for l in range(layers)]},
                "inclusion_proof": merkle_proof(tree_c, node, shape)}

    parts = []
    for k in range(partitions):
        proofs = []
        for c in derive_challenges(rid, seed, sector_size, k, challenges):
            p = [int(x) for x in par[c]]
            cd = {"leaf": _b32(bytes(dtree[0][c])), "path": [_b32(bytes(s)) for s in merkle_path(dtree, c)],
                  "index": c, "root": _b32(comm_d)}
            proofs.append(challenge_proof(c, cd, merkle_proof(tree_r, c, shape), column_proof, p[:BASE_DEGREE],
                                          p[BASE_DEGREE:], lambda layer, q: labels[layer - 1][q].tobytes()))
        parts.append(proofs)
    return c1_document(sector_size, sector_id, prover_id, ticket, seed, comm_d, rep["comm_r"], rid, pid, layers,
                       api_version, False, parts)


# --- schema ---------------------------------------------------------------------------------------

_MERKLE = {
    "type": "object", "required": ["leaf", "root", "path"],
    "properties": {"leaf": BYTES32, "root": BYTES32, "path": {"type": "array", "items": {
        "type": "object", "required": ["hashes", "index"],
        "properties": {"hashes": {"type": "array", "items": BYTES32, "minItems": 1}, "index": NAT}}}},
}
_COLUMN = {
    "type": "object", "required": ["column", "inclusion_proof"],
    "properties": {"column": {"type": "object", "required": ["index", "rows"],
                              "properties": {"index": NAT, "rows": {"type": "array", "items": BYTES32, "minItems": 1}}},
                   "inclusion_proof": _MERKLE},
}
_PARENTS37 = {"type": "array", "items": BYTES32, "minItems": TOTAL_PARENTS, "maxItems": TOTAL_PARENTS}
_LABELING = {"type": "object", "required": ["parents", "layer_index", "node"],
             "properties": {"parents": _PARENTS37, "layer_index": nat(1), "node": NAT}}
_CHALLENGE = {
    "type": "object",
    "required": ["comm_d_proofs", "comm_r_last_proof", "replica_column_proofs", "labeling_proofs", "encoding_proof"],
    "properties": {
        "comm_d_proofs": _C1_SCHEMA["properties"]["vanilla_proofs"]["additionalProperties"]["items"]["items"]["properties"]["comm_d_proofs"],
        "comm_r_last_proof": _MERKLE,
        "replica_column_proofs": {
            "type": "object", "required": ["c_x", "drg_parents", "exp_parents"],
            "properties": {"c_x": _COLUMN,
                           "drg_parents": {"type": "array", "items": _COLUMN, "minItems": BASE_DEGREE, "maxItems": BASE_DEGREE},
                           "exp_parents": {"type": "array", "items": _COLUMN, "minItems": EXP_DEGREE, "maxItems": EXP_DEGREE}}},
        "labeling_proofs": {"type": "array", "items": _LABELING, "minItems": 1},
        "encoding_proof": _LABELING,
    },
}
SCHEMA = {
    "type": "object",
    "required": _C1_SCHEMA["required"] + ["porep", "comm_r", "porep_id", "layers", "api_version"],
    "properties": {
        **_C1_SCHEMA["properties"],
        "porep": {"const": True},
        "comm_r": BYTES32, "porep_id": BYTES32,
        "layers": nat(1, 64),
        "api_version": {"enum": ["1.0", "1.1", "1.2"]},
        "vanilla_proofs": {"type": "object", "minProperties": 1, "maxProperties": 1,
                           "additionalProperties": {"type": "array", "items": {"type": "array", "items": _CHALLENGE}}},
    },
}


# --- verification ---------------------------------------------------------------------------------

def _merkle_shape_ok(proof: dict, arities: list[int]) -> bool:
    """Whether :func:`_check_merkle` would hash ``proof`` all the way up (length, arities,
    positions, canonical leaf and siblings), i.e. raise nothing before its root comparison."""
    p = proof["path"]
    if len(p) != len(arities) or _int(proof["leaf"]) >= R:
        return False
    return all(len(el["hashes"]) == a - 1 and el["index"] < a and all(_int(h) < R for h in el["hashes"])
               for el, a in zip(p, arities))


def _prefetch_hashes(parts: list, layers: int, arities: list[int], memo: PoseidonMemo) -> None:
    """Hash, into ``memo``, every column and Merkle path node the checks of :func:`verify_porep_c1`
    will ask for, in one batched Poseidon call per tree level (shared ancestors once).

    Only a prediction: it checks nothing and raises nothing; whatever it leaves out (a column or path
    the checks reject before hashing it, or one of a malformed shape) the checks hash on their own.
    """
    columns, merkles = [], []
    for part in parts:
        for pr in part:
            rcp = pr["replica_column_proofs"]
            merkles.append(pr["comm_r_last_proof"])
            for cp in [rcp["c_x"], *rcp["drg_parents"], *rcp["exp_parents"]]:
                columns.append([_int(r) for r in cp["column"]["rows"]])
                merkles.append(cp["inclusion_proof"])
    memo.many([rows for rows in columns if len(rows) == layers and max(rows) < R])
    ok = [m for m in merkles if _merkle_shape_ok(m, arities)]
    levels = [([[_int(h) for h in m["path"][lvl]["hashes"]] for m in ok], [m["path"][lvl]["index"] for m in ok])
              for lvl in range(len(arities))]
    hash_paths([_int(m["leaf"]) for m in ok], levels, memo)


def _check_merkle(path, f: str, proof: dict, index: int, arities: list[int], root: bytes | None, what: str,
                  poseidon) -> bytes:
    """Check a Poseidon MerkleProof proves ``index`` under ``root`` (or its own root if None); returns its root.

    ``poseidon``: a :class:`PoseidonMemo` (preimage → hash)."""
    p = proof["path"]
    if len(p) != len(arities):
        raise C1Error(path, f + "/path", f"length {len(p)}, {what} has {len(arities)} levels")
    idx, mul = 0, 1
    node = _int(proof["leaf"])
    if node >= R:
        raise C1Error(path, f + "/leaf", "not a canonical Fr element")
    for lvl, (el, a) in enumerate(zip(p, arities)):
        if len(el["hashes"]) != a - 1:
            raise C1Error(path, f"{f}/path/{lvl}/hashes", f"{len(el['hashes'])} siblings, arity is {a}")
        pos = el["index"]
        if pos >= a:
            raise C1Error(path, f"{f}/path/{lvl}/index", f"{pos} ≥ arity {a}")
        sibs = [_int(h) for h in el["hashes"]]
        if any(s >= R for s in sibs):
            raise C1Error(path, f"{f}/path/{lvl}/hashes", "not a canonical Fr element")
        node = poseidon(sibs[:pos] + [node] + sibs[pos:])
        idx += pos * mul
        mul *= a
    if idx != index:
        raise C1Error(path, f + "/path", f"proves node {idx}, expected {index}")
    r = bytes(proof["root"])
    if node != _int(r):
        raise C1Error(path, f + "/path", "does not hash to its root")
    if root is not None and r != root:
        raise C1Error(path, f + "/root", f"differs from {what}'s root")
    return r


def _check_column(path, f: str, cp: dict, node: int, layers: int, arities, comm_c: bytes | None, poseidon) -> bytes:
    col = cp["column"]
    if col["index"] != node:
        raise C1Error(path, f + "/column/index", f"{col['index']}, expected node {node}")
    rows = [_int(r) for r in col["rows"]]
    if len(rows) != layers:
        raise C1Error(path, f + "/column/rows", f"{len(rows)} rows, layers = {layers}")
    if any(r >= R for r in rows):
        raise C1Error(path, f + "/column/rows", "not a canonical Fr element")
    if poseidon(rows) != _int(cp["inclusion_proof"]["leaf"]):
        raise C1Error(path, f + "/column/rows", "column hash differs from the inclusion proof's leaf")
    return _check_merkle(path, f + "/inclusion_proof", cp["inclusion_proof"], node, arities, comm_c, "tree_c", poseidon)


def verify_porep_c1(c1: dict, path="<c1>") -> None:
    """Check a PoRep C1 dict completely (schema, then every proof; see the module docstring).

    The checks run challenge by challenge in a fixed order and stop at the first failure. Their
    Poseidon hashes (columns, tree_c and tree_r_last paths) are computed beforehand in batches
    (:func:`_prefetch_hashes`, one call per tree level) and the graph parents of all challenges in
    one call; this changes the cost (32 GiB on the 2-core dev machine: 60 s before, 12 s now, most
    of it the 17,000 distinct Poseidon hashes), not the checks.

    Raises:
        C1Error: naming ``path`` and the first bad field (schema errors: all of them).
    """
    check_schema(c1, SCHEMA, path)
    size, layers = c1["sector_size"], c1["layers"]
    b, key, parts, depth = check_header(c1, path, bytes(c1["porep_id"]))
    rid = b["replica_id"]
    try:
        arities = tree_arities(size // 32, tree_shape(size))
    except ValueError as e:
        raise C1Error(path, "sector_size", str(e)) from None
    expects = [derive_challenges(rid, b["seed"], size, k, c1["challenges_per_partition"]) for k in range(len(parts))]
    gps = iter(parents_many(size, b["porep_id"], [c for e in expects for c in e],
                            api_version=c1["api_version"]).tolist())
    poseidon = PoseidonMemo()
    _prefetch_hashes(parts, layers, arities, poseidon)
    comm_c = comm_r_last = None
    for k, part in enumerate(parts):
        expect = expects[k]
        for i, pr in enumerate(part):
            base = f"vanilla_proofs/{key}/{k}/{i}"
            c = expect[i]
            gp = next(gps)
            check_comm_d_proof(path, base + "/comm_d_proofs", pr["comm_d_proofs"], c, depth, b["comm_d"])
            # tree_r_last
            comm_r_last = _check_merkle(path, base + "/comm_r_last_proof", pr["comm_r_last_proof"], c, arities,
                                        comm_r_last, "tree_r_last", poseidon)
            # columns
            f = base + "/replica_column_proofs"
            rcp = pr["replica_column_proofs"]
            comm_c = _check_column(path, f + "/c_x", rcp["c_x"], c, layers, arities, comm_c, poseidon)
            drg, exp = gp[:BASE_DEGREE], gp[BASE_DEGREE:]
            for j, q in enumerate(drg):
                _check_column(path, f"{f}/drg_parents/{j}", rcp["drg_parents"][j], q, layers, arities, comm_c, poseidon)
            for j, q in enumerate(exp):
                _check_column(path, f"{f}/exp_parents/{j}", rcp["exp_parents"][j], q, layers, arities, comm_c, poseidon)
            if k == 0 and i == 0:
                want = poseidon([_int(comm_c), _int(comm_r_last)]).to_bytes(32, "little")
                if want != b["comm_r"]:
                    raise C1Error(path, "comm_r", "differs from Poseidon₂(comm_c, comm_r_last)")
            # labeling
            rows = lambda cp: cp["column"]["rows"]  # noqa: E731
            lps = pr["labeling_proofs"]
            if len(lps) != layers:
                raise C1Error(path, base + "/labeling_proofs", f"{len(lps)} proofs, layers = {layers}")
            for layer, lp in enumerate(lps, start=1):
                f = f"{base}/labeling_proofs/{layer - 1}"
                if lp["layer_index"] != layer:
                    raise C1Error(path, f + "/layer_index", f"{lp['layer_index']}, expected {layer}")
                if lp["node"] != c:
                    raise C1Error(path, f + "/node", f"{lp['node']}, expected challenge {c}")
                if layer == 1:
                    used = [rows(cp)[0] for cp in rcp["drg_parents"]]
                else:
                    used = [rows(cp)[layer - 1] for cp in rcp["drg_parents"]] + [rows(cp)[layer - 2] for cp in rcp["exp_parents"]]
                for kk, (got, want) in enumerate(zip(lp["parents"], _repeat(used))):
                    if got != want:
                        raise C1Error(path, f"{f}/parents/{kk}", "differs from the parent's column proof")
                label = sha254(label_header(rid, layer, c) + b"".join(bytes(x) for x in lp["parents"]))
                if label != bytes(rows(rcp["c_x"])[layer - 1]):
                    raise C1Error(path, f + "/parents", f"labels hash to a label other than c_x's layer {layer} row")
            # encoding
            f, ep = base + "/encoding_proof", pr["encoding_proof"]
            if ep["layer_index"] != layers:
                raise C1Error(path, f + "/layer_index", f"{ep['layer_index']}, expected {layers}")
            if ep["node"] != c:
                raise C1Error(path, f + "/node", f"{ep['node']}, expected challenge {c}")
            if ep["parents"] != lps[-1]["parents"]:
                raise C1Error(path, f + "/parents", "differ from the last layer's labeling parents")
            key_label = _int(sha254(label_header(rid, layers, c) + b"".join(bytes(x) for x in ep["parents"])))
            data, replica = _int(pr["comm_d_proofs"]["leaf"]), _int(pr["comm_r_last_proof"]["leaf"])
            if (data + key_label) % R != replica:
                raise C1Error(path, f, "comm_r_last leaf ≠ comm_d leaf + key (mod r)")


def write_porep_c1(path, c1: dict) -> None:
    """Write a PoRep C1 dict as JSON atomically (:func:`cuzk.sector.c1.write_c1`)."""
    write_c1(path, c1)


def read_porep_c1(path) -> dict:
    """Read a PoRep C1 file and check it fully (:func:`verify_porep_c1`); C1Error names the file and field."""
    c1 = load_json(path, C1Error)
    verify_porep_c1(c1, path)
    return c1


write = write_porep_c1
read = read_porep_c1
