"""C1 files: one sector's vanilla proofs, modelled on Filecoin's SealCommitPhase1Output.

A C1 file is JSON::

    {"format": "cuzk-c1/1", "registered_proof": "StackedDrg2KiBV1_1", "sector_size": 2048,
     "sector_id": 7, "prover_id": [32 bytes], "ticket": [32], "seed": [32], "comm_d": [32],
     "replica_id": [32], "synthetic": false,
     "vanilla_proofs": {"StackedDrg2KiBV1": [            # one list per partition
         [{"comm_d_proofs": {"leaf": [32], "path": [[32], ...], "index": 6, "root": [32]}}, ...]
     ]}}

32-byte values are arrays of byte values, as Filecoin's serde JSON writes ``[u8; 32]``; paths
list the siblings from the leaf level up. This is the comm_d half of the PoRep vanilla proof
(``comm_d_proofs``); the PoRep issue adds the comm_r_last, column, labeling and encoding proofs.

Sources: rust-fil-proofs ``filecoin-proofs/src/types`` (SealCommitPhase1Output),
``filecoin-proofs/src/api/util.rs`` ``generate_replica_id`` (replica_id = SHA-256(prover_id ‖
sector_id u64 BE ‖ ticket ‖ comm_d ‖ porep_id) with the top two bits of byte 31 cleared,
``bytes_into_fr_repr_safe``: not a reduction mod r), and filecoin-proofs-api
``RegisteredSealProof::porep_id`` (the proof's numeric id as u64 LE in bytes 0..8, zeros after).
"""

from __future__ import annotations

import itertools
import json
import math

import fastjsonschema
import jsonschema

from ..errors import CuzkError
from ..fileio import atomic_write_text
from .challenges import SECTOR_SIZES, challenge_counts, derive_challenges, size_name
from .commd import build_tree, merkle_path, sha254, verify_path
from .jsondoc import BYTES32, NAT, load_json, nat

FORMAT = "cuzk-c1/1"

#: RegisteredSealProof name → (sector size, numeric id, api version), the variants without
#: features (filecoin-proofs-api ``src/registry.rs``: ``RegisteredSealProof``, ``REGISTERED_PROOF_IDS``;
#: V1 ids 0-4 use the legacy graph, api 1.0; V1_1 ids 5-9, api 1.1).
SEAL_PROOFS = {f"StackedDrg{size_name(s)}V1{suffix}": (s, i + base, api)
               for suffix, base, api in (("", 0, "1.0"), ("_1", 5, "1.1")) for i, s in enumerate(SECTOR_SIZES)}
#: The V1_1 proof of each sector size: size → (name, numeric id), what this project seals with.
REGISTERED_PROOFS = {s: (n, i) for n, (s, i, api) in SEAL_PROOFS.items() if api == "1.1"}


class C1Error(CuzkError, ValueError):
    """A C1 file is malformed or inconsistent: names the file and the field."""

    def __init__(self, path, field: str, message: str):
        self.path, self.field = str(path), field
        super().__init__(f"{self.path}: {field}: {message}")


def registered_proof(sector_size: int) -> tuple[str, int]:
    """(name, numeric id) of the PoRep proof for a sector size; test-only sizes get a TEST name."""
    if sector_size in REGISTERED_PROOFS:
        return REGISTERED_PROOFS[sector_size]
    return (f"TestOnly{sector_size}BNotFilecoin", 1000 + int(math.log2(sector_size)))


def proof_of(sector_size: int, pid: bytes | None = None) -> str:
    """The registered proof name of a sector size and porep id (None: the size's default,
    :func:`registered_proof`); a porep id naming no proof of that size gives the default too, so
    the comparison in :func:`check_header` fails naming it."""
    if pid is not None:
        num = int.from_bytes(bytes(pid)[:8], "little")
        for name, (s, i, _) in SEAL_PROOFS.items():
            if (s, i) == (sector_size, num):
                return name
    return registered_proof(sector_size)[0]


def porep_id(sector_size: int) -> bytes:
    """32-byte porep id: the registered proof's numeric id as u64 LE, then zeros."""
    return registered_proof(sector_size)[1].to_bytes(8, "little") + bytes(24)


def replica_id(prover_id: bytes, sector_id: int, ticket: bytes, comm_d: bytes, sector_size: int,
               pid: bytes | None = None) -> bytes:
    """replica_id as rust-fil-proofs' ``generate_replica_id``: 32 bytes, an Fr in LE encoding.

    SHA-256(prover_id ‖ sector_id u64 BE ‖ ticket ‖ comm_d ‖ porep_id) with the top two bits of
    byte 31 cleared (``bytes_into_fr_repr_safe``; so always < r, never reduced mod r).
    ``pid`` is the porep id; None means the sector size's default (``porep_id``).
    Checked by ``tests/test_official_proofs.py`` against a proof made by filecoin-proofs 18.1.
    """
    pid = porep_id(sector_size) if pid is None else pid
    return sha254(prover_id + sector_id.to_bytes(8, "big") + ticket + comm_d + pid)


def _vanilla_key(sector_size: int) -> str:
    name = registered_proof(sector_size)[0]
    return name.removesuffix("_1")


def _b32(x: bytes) -> list[int]:
    return list(x)


def partition_slices(c1: dict) -> list[dict]:
    """One C1 dict per partition k: the same fields, its ``vanilla_proofs`` list keeping partition
    k's challenge proofs in place and every other partition's as ``[]``, so the partition jobs'
    readers (``witness_from_c1(doc, k)``, ``c1["partitions"]``) see what they would in the whole
    document. For a checked C1 only (``jsondoc.admit``'s ``slices``): a slice is not a valid C1."""
    (key, parts), = c1["vanilla_proofs"].items()
    return [{**c1, "vanilla_proofs": {key: [p if j == k else [] for j, p in enumerate(parts)]}}
            for k in range(len(parts))]


def build_c1(
    padded: bytes,
    sector_size: int,
    sector_id: int,
    prover_id: bytes,
    ticket: bytes,
    seed: bytes,
    partitions: int,
    challenges: int,
) -> dict:
    """Vanilla proofs of one Fr32-padded sector (``padded`` is sector_size bytes).

    Args:
        padded: the sector's Fr32-padded bytes (see ``pad_sector``), length sector_size.
        partitions, challenges: proof settings (Filecoin's: ``challenge_counts``).

    Raises:
        ValueError: wrong length or a 32-byte argument of another length.
    """
    if len(padded) != sector_size:
        raise ValueError(f"padded sector has {len(padded)} bytes, expected {sector_size}")
    for name, v in (("prover_id", prover_id), ("ticket", ticket), ("seed", seed)):
        if len(v) != 32:
            raise ValueError(f"{name} must be 32 bytes, got {len(v)}")
    tree = build_tree(padded)
    root = bytes(tree[-1][0])
    rid = replica_id(prover_id, sector_id, ticket, root, sector_size)
    parts = []
    for k in range(partitions):
        proofs = []
        for idx in derive_challenges(rid, seed, sector_size, k, challenges):
            path = merkle_path(tree, idx)
            proofs.append({"comm_d_proofs": {"leaf": _b32(bytes(tree[0][idx])), "path": [_b32(bytes(p)) for p in path],
                                             "index": idx, "root": _b32(root)}})
        parts.append(proofs)
    return c1_fields(sector_size, sector_id, prover_id, ticket, seed, root, rid, parts)


def c1_fields(sector_size: int, sector_id: int, prover_id: bytes, ticket: bytes, seed: bytes, comm_d: bytes,
              rid: bytes, parts: list, synthetic: bool = False) -> dict:
    """The top-level fields every C1 dict has, around the per-partition proof lists ``parts``
    (the PoRep C1 adds its own: :func:`cuzk.sector.porep_c1.c1_document`)."""
    return {
        "format": FORMAT,
        "registered_proof": registered_proof(sector_size)[0],
        "sector_size": sector_size,
        "sector_id": sector_id,
        "prover_id": _b32(prover_id),
        "ticket": _b32(ticket),
        "seed": _b32(seed),
        "comm_d": _b32(comm_d),
        "replica_id": _b32(rid),
        "synthetic": synthetic,
        "partitions": len(parts),
        "challenges_per_partition": len(parts[0]) if parts else 0,
        "vanilla_proofs": {_vanilla_key(sector_size): parts},
    }


def write_c1(path, c1: dict) -> None:
    """Write a C1 dict as JSON atomically."""
    atomic_write_text(path, json.dumps(c1, separators=(",", ":")) + "\n")


SCHEMA = {
    "type": "object",
    "required": ["format", "registered_proof", "sector_size", "sector_id", "prover_id", "ticket", "seed",
                 "comm_d", "replica_id", "synthetic", "partitions", "challenges_per_partition", "vanilla_proofs"],
    "properties": {
        "format": {"const": FORMAT},
        "registered_proof": {"type": "string"},
        "sector_size": nat(64),
        "sector_id": NAT,
        "prover_id": BYTES32, "ticket": BYTES32, "seed": BYTES32, "comm_d": BYTES32, "replica_id": BYTES32,
        "synthetic": {"type": "boolean"},
        "partitions": nat(1, 255),
        "challenges_per_partition": nat(1, 1 << 20),
        "vanilla_proofs": {
            "type": "object", "minProperties": 1, "maxProperties": 1,
            "additionalProperties": {"type": "array", "items": {"type": "array", "items": {
                "type": "object", "required": ["comm_d_proofs"],
                "properties": {"comm_d_proofs": {
                    "type": "object", "required": ["leaf", "path", "index", "root"],
                    "properties": {"leaf": BYTES32, "root": BYTES32, "path": {"type": "array", "items": BYTES32},
                                   "index": NAT}}}}}},
        },
    },
}


def read_c1(path) -> dict:
    """Read and check a C1 file before any expensive work.

    Checks the schema (every violation is listed with its field path), then consistency:
    replica_id derivation, partition/challenge counts, each challenge index equal to the one
    derived from (replica_id, seed), index < nodes, path length = tree depth, root = comm_d,
    and each path hashing to comm_d.

    Raises:
        C1Error: names the file and the first bad field (schema errors: all of them).
        OSError: the file cannot be read.
    """
    c1 = load_json(path, C1Error)
    verify_c1(c1, path)
    return c1


def verify_c1(c1: dict, path="<c1>") -> None:
    """The checks of :func:`read_c1` on a parsed document. Raises C1Error naming ``path``."""
    check_schema(c1, SCHEMA, path)
    b, key, parts, depth = check_header(c1, path)
    for k, part in enumerate(parts):
        expect = derive_challenges(b["replica_id"], b["seed"], c1["sector_size"], k, c1["challenges_per_partition"])
        for i, pr in enumerate(part):
            check_comm_d_proof(path, f"vanilla_proofs/{key}/{k}/{i}/comm_d_proofs", pr["comm_d_proofs"], expect[i],
                               depth, b["comm_d"])


_FAST: dict[int, tuple[dict, object]] = {}


def _fast_validator(schema: dict):
    """The schema compiled by fastjsonschema (generated Python code), cached per schema object."""
    hit = _FAST.get(id(schema))
    if hit is None or hit[0] is not schema:
        hit = (schema, fastjsonschema.compile(schema))
        _FAST[id(schema)] = hit
    return hit[1]


def check_schema(c1: dict, schema: dict, path, error=None) -> None:
    """Raise ``error(path, field, message)`` (default C1Error) naming the first schema violation
    found and its field path.

    The compiled validator (fastjsonschema: about 1 s for a 32 GiB PoRep C1, against about 50 s
    for jsonschema's) decides and names the violation; jsonschema, which lists several, walks
    the whole document to do it (0.2 s for a 36 KB C1), so it only runs on documents of at most
    ``_LIST_ALL_NODES`` values.
    """
    try:
        _fast_validator(schema)(c1)
        return
    except fastjsonschema.JsonSchemaValueException as e:
        field = "/".join(map(str, e.path[1:])) if getattr(e, "path", None) else "<root>"
        first = f"{field or '<root>'}: {str(e.message)[:160]}"
    if _small(c1):
        errors = sorted(itertools.islice(_Lister(schema).iter_errors(c1), 21),
                        key=lambda e: list(map(str, e.path)))
        if errors:
            msg = "; ".join(f"{'/'.join(map(str, e.path)) or '<root>'}: {e.message[:120]}" for e in errors[:20])
            if len(errors) > 20:
                msg += "; … and more"
            raise (error or C1Error)(path, "/".join(map(str, errors[0].path)) or "<root>", msg)
    raise (error or C1Error)(path, field or "<root>", first)


_LIST_ALL_NODES = 2000


def _int_range(items) -> tuple[float, float] | None:
    """(minimum, maximum) of an item schema that is only an integer range (BYTES32's bytes), else None."""
    if not isinstance(items, dict) or items.get("type") != "integer" or not set(items) <= {"type", "minimum", "maximum"}:
        return None
    return items.get("minimum", -math.inf), items.get("maximum", math.inf)


_ITEMS = jsonschema.Draft202012Validator.VALIDATORS["items"]


def _items(validator, items, instance, schema):
    """jsonschema's ``items`` keyword, with integer-range items checked in one loop: only an element
    that is not a plain int in range is walked by jsonschema, so the errors are the same, without
    a sub-validator per byte (about 93 % of the walk of a C1, whose values are mostly bytes)."""
    bounds = _int_range(items)
    if bounds is None or not isinstance(instance, list) or "prefixItems" in schema:
        yield from _ITEMS(validator, items, instance, schema)
        return
    lo, hi = bounds
    for i, x in enumerate(instance):
        if type(x) is not int or not lo <= x <= hi:
            yield from validator.descend(x, items, path=i)


#: The validator that lists a small document's schema violations (Draft 2020-12).
_Lister = jsonschema.validators.extend(jsonschema.Draft202012Validator, {"items": _items})


def _small(doc) -> bool:
    """Whether ``doc`` has at most ``_LIST_ALL_NODES`` values (counted until the limit)."""
    n, stack = 0, [doc]
    while stack:
        x = stack.pop()
        n += 1
        if n > _LIST_ALL_NODES:
            return False
        if isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
    return True


def check_header(c1: dict, path, pid: bytes | None = None) -> tuple[dict, str, list, int]:
    """Consistency of a schema-valid C1's header: sector size, registered proof, replica_id
    (with porep id ``pid``, default the size's), Filecoin's partition/challenge counts, and the
    partition and challenge list lengths.

    Returns:
        (the 32-byte fields as bytes, the vanilla_proofs key, its partition lists, comm_d tree depth).

    Raises:
        C1Error: names the field.
    """
    size = c1["sector_size"]
    if size & (size - 1):
        raise C1Error(path, "sector_size", f"{size} is not a power of two")
    want = proof_of(size, pid)
    if c1["registered_proof"] != want:
        raise C1Error(path, "registered_proof", f"{c1['registered_proof']} does not match sector_size {size} "
                                                f"and porep_id (expected {want})")
    b = {k: bytes(v) for k, v in c1.items() if k in ("prover_id", "ticket", "seed", "comm_d", "comm_r", "replica_id", "porep_id")}
    if replica_id(b["prover_id"], c1["sector_id"], b["ticket"], b["comm_d"], size, pid) != b["replica_id"]:
        raise C1Error(path, "replica_id", "does not match SHA-256(prover_id, sector_id, ticket, comm_d, porep_id): "
                                          f"check the prover id ({b['prover_id'].hex()}: the workflow's prover_id, "
                                          "the miner's actor id as an unsigned LEB128 varint zero-padded to 32 bytes, "
                                          "e.g. t01000: e807 then zeros), the sector id and comm_d")
    key = _vanilla_key(size)
    if key not in c1["vanilla_proofs"]:
        raise C1Error(path, "vanilla_proofs", f"expected key {key}")
    parts = c1["vanilla_proofs"][key]
    nparts, nch = c1["partitions"], c1["challenges_per_partition"]
    if size in SECTOR_SIZES and (nparts, nch) != challenge_counts(size):
        want = challenge_counts(size)
        raise C1Error(path, "partitions", f"{nparts} × {nch} challenges; a {size}-byte sector takes {want[0]} × {want[1]}")
    if len(parts) != nparts:
        raise C1Error(path, "vanilla_proofs", f"{len(parts)} partitions, header says {nparts}")
    for k, part in enumerate(parts):
        if len(part) != nch:
            raise C1Error(path, f"vanilla_proofs/{key}/{k}", f"{len(part)} challenges, expected {nch}")
    return b, key, parts, (size // 32).bit_length() - 1


def check_comm_d_proof(path, field: str, p: dict, challenge: int, depth: int, comm_d: bytes) -> None:
    """One comm_d inclusion proof: index = the derived challenge, path length = depth, root =
    comm_d, an Fr32 leaf, and the path hashing to comm_d (sha254). Raises C1Error naming the field."""
    if p["index"] != challenge:
        raise C1Error(path, field + "/index", f"{p['index']} is not the challenge {challenge} derived from replica_id and seed")
    if len(p["path"]) != depth:
        raise C1Error(path, field + "/path", f"length {len(p['path'])}, tree depth is {depth}")
    if bytes(p["root"]) != comm_d:
        raise C1Error(path, field + "/root", "differs from comm_d")
    if p["leaf"][31] & 0xC0:
        raise C1Error(path, field + "/leaf", "top two bits set: not an Fr32 node")
    if not verify_path(bytes(p["leaf"]), p["index"], [bytes(x) for x in p["path"]], comm_d):
        raise C1Error(path, field + "/path", "does not hash to comm_d")
