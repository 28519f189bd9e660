"""C1 in Filecoin's own format: ``SealCommitPhase1Output`` as filecoin-ffi writes it, and the
commit2 input file of lotus-bench that wraps it; conversion to and from cuzk's PoRep C1.

Facts from the upstream source (rust-fil-proofs 87348a74, filecoin-proofs-api 0e64ce8,
filecoin-ffi de13e64, lotus b835fab7):

* filecoin-ffi ``rust/src/proofs/api.rs`` ``seal_commit_phase1`` returns
  ``serde_json::to_vec(&output)``: compact JSON, fields in struct order, no trailing newline.
* filecoin-proofs-api ``src/seal.rs`` ``SealCommitPhase1Output`` = {registered_proof,
  vanilla_proofs, comm_r, comm_d, replica_id, seed, ticket}. ``registered_proof`` is the
  ``RegisteredSealProof`` variant name (a JSON string, ``src/registry.rs``); ``vanilla_proofs`` the
  externally tagged ``VanillaSealProof`` enum ``{"StackedDrg2KiBV1": [partition][challenge]}``
  (one variant per size for every proof version); comm_r, comm_d, seed, ticket ``[u8; 32]``;
  replica_id a ``PoseidonDomain`` (newtype of blstrs' ``Fr::Repr`` = ``[u8; 32]``, little-endian).
  All are JSON arrays of 32 integers.
* storage-proofs-porep ``stacked/vanilla/params.rs`` ``Proof`` = {comm_d_proofs,
  comm_r_last_proof, replica_column_proofs {c_x, drg_parents, exp_parents}, labeling_proofs,
  encoding_proof}; ``column_proof.rs`` ColumnProof = {column, inclusion_proof}; ``column.rs``
  Column = {index, rows, _h} (``_h: PhantomData`` is not skipped: it is written as ``null``);
  ``labeling_proof.rs`` / ``encoding_proof.rs`` = {parents, layer_index, node} (``_h`` skipped).
* storage-proofs-core ``merkle/proof.rs``: MerkleProof = {"data": ProofData}, ProofData an
  externally tagged enum: ``Single`` {root, leaf, path}, ``Sub`` {base_proof, sub_proof, root,
  leaf}, ``Top`` {base_proof, sub_proof, top_proof, root, leaf}; an InclusionPath is
  {"path": [PathElement]}, a PathElement {hashes, index} (``_arity`` skipped). comm_d proofs
  are ``MerkleProof<Sha256Hasher, U2>``: Single, one hash per level, index = the bit.
  The variant follows the tree shape (base, sub, top arities; :func:`cuzk.sector.replica.tree_shape`).
* lotus ``cmd/lotus-bench/main.go`` ``Commit2In`` {SectorNum int64, Phase1Out []byte, SectorSize
  uint64}, written with Go's ``json.Marshal`` (``Phase1Out``: standard base64 with padding).
* filecoin-ffi ``proofs.go`` ``toProverID``: a miner's prover_id is its ID address payload (the
  actor id as an unsigned LEB128 varint) zero-padded to 32 bytes.

The Filecoin form has no sector_id or prover_id (C2 needs neither): converting it to cuzk's form
takes them from the caller (lotus-bench's file carries SectorNum), and the replica_id is then
checked against them. Besides Filecoin's registered proofs (V1 and V1_1, :data:`SEAL_PROOFS`),
cuzk's test-only sizes are written and read under their ``TestOnly…NotFilecoin`` names.
"""

from __future__ import annotations

import base64
import binascii
import json
import re

from ..fileio import atomic_write_bytes
from .c1 import SEAL_PROOFS, C1Error, FORMAT, check_schema, porep_id as default_porep_id, registered_proof
from .jsondoc import BYTES32, NAT, load_json, loads, nat
from .porep_c1 import c1_document, verify_porep_c1, write_porep_c1
from .replica import tree_arities, tree_shape
from .synthetic import DEFAULT_LAYERS

__all__ = ["CUZK", "convert", "FILECOIN", "LOTUS_BENCH", "commit2_input", "detect", "dumps", "from_filecoin", "prover_id_of_actor",
           "read_any", "sniff", "to_filecoin", "unwrap", "write_filecoin", "filecoin_field", "filecoin_merkle", "cuzk_merkle",
           "filecoin_sha_merkle", "cuzk_sha_merkle", "merkle_variant",
           "SCHEMA", "WRAPPER_SCHEMA"]

CUZK, FILECOIN, LOTUS_BENCH = "cuzk", "filecoin", "lotus-bench"
_TOP_KEYS = ("registered_proof", "vanilla_proofs", "comm_r", "comm_d", "replica_id", "seed", "ticket")
_WRAPPER_KEYS = ("SectorNum", "Phase1Out", "SectorSize")
_TEST_NAME = re.compile(r"TestOnly(\d+)BNotFilecoin")
_VARIANTS = ("Single", "Sub", "Top")


def prover_id_of_actor(actor_id: int) -> bytes:
    """32-byte prover_id of miner ``actor_id`` (e.g. 1000 for t01000): the unsigned LEB128 varint
    of the id, zero-padded (filecoin-ffi ``proofs.go`` ``toProverID``). Raises ValueError for a
    negative id or one over u64."""
    if not 0 <= actor_id < 1 << 64:
        raise ValueError(f"actor id {actor_id} is not a u64")
    out = bytearray()
    while True:
        b, actor_id = actor_id & 0x7F, actor_id >> 7
        out.append(b | (0x80 if actor_id else 0))
        if not actor_id:
            return bytes(out) + bytes(32 - len(out))


def _proof_info(name: str) -> tuple[int, int | None, str | None]:
    """(sector size, numeric id, api version) of a registered proof name; (size, None, None) for a
    test-only name; raises KeyError for anything else."""
    if name in SEAL_PROOFS:
        return SEAL_PROOFS[name]
    m = _TEST_NAME.fullmatch(name)
    if m and registered_proof(int(m[1]))[0] == name:
        return int(m[1]), None, None
    raise KeyError(name)


# --- cuzk -> Filecoin ----------------------------------------------------------------------------

def _levels(arities: list[int], shape) -> list[tuple[str, int]]:
    """(section, position within it) of each tree level: base levels, then one sub and one top
    level when the shape has them."""
    _, sub, top = shape
    nb = len(arities) - bool(sub) - bool(top)
    out = [("base_proof", j) for j in range(nb)]
    if sub:
        out.append(("sub_proof", 0))
    if top:
        out.append(("top_proof", 0))
    return out


def merkle_variant(shape) -> str:
    """The ProofData variant of a tree of ``shape`` (base, sub, top arities): Single, Sub or Top."""
    return "Top" if shape[2] else "Sub" if shape[1] else "Single"


def _fc_merkle(root, leaf, elements: list[dict], shape) -> dict:
    """ProofData of storage-proofs-core in its serde layout, fields in struct order."""
    v = merkle_variant(shape)
    if v == "Single":
        return {"data": {"Single": {"root": root, "leaf": leaf, "path": {"path": elements}}}}
    nb = len(elements) - 1 - (v == "Top")
    body = {"base_proof": {"path": elements[:nb]}, "sub_proof": {"path": elements[nb:nb + 1]}}
    if v == "Top":
        body["top_proof"] = {"path": elements[nb + 1:]}
    return {"data": {v: body | {"root": root, "leaf": leaf}}}


def filecoin_merkle(p: dict, shape) -> dict:
    """cuzk's Poseidon MerkleProof {leaf, root, path} as storage-proofs-core's ``MerkleProof``
    serde dict (``{"data": {variant: …}}``, the variant of ``shape``; module docstring)."""
    return _fc_merkle(p["root"], p["leaf"], [{"hashes": el["hashes"], "index": el["index"]} for el in p["path"]], shape)


def _fc_column(cp: dict, shape) -> dict:
    col = cp["column"]
    return {"column": {"index": col["index"], "rows": col["rows"], "_h": None},
            "inclusion_proof": filecoin_merkle(cp["inclusion_proof"], shape)}


def _fc_labeling(lp: dict) -> dict:
    return {"parents": lp["parents"], "layer_index": lp["layer_index"], "node": lp["node"]}


def filecoin_sha_merkle(root, leaf, siblings: list, index: int) -> dict:
    """A binary sha256 tree's opening of node ``index`` (siblings leaf to root) as
    storage-proofs-core's ``MerkleProof<Sha256Hasher, U2>`` serde dict: Single, one hash per
    level, each level's index the bit of ``index`` (module docstring)."""
    bits = [{"hashes": [h], "index": (index >> lvl) & 1} for lvl, h in enumerate(siblings)]
    return _fc_merkle(root, leaf, bits, (2, 0, 0))


def _fc_challenge(pr: dict, shape) -> dict:
    cd = pr["comm_d_proofs"]
    rcp = pr["replica_column_proofs"]
    return {
        "comm_d_proofs": filecoin_sha_merkle(cd["root"], cd["leaf"], cd["path"], cd["index"]),
        "comm_r_last_proof": filecoin_merkle(pr["comm_r_last_proof"], shape),
        "replica_column_proofs": {"c_x": _fc_column(rcp["c_x"], shape),
                                  "drg_parents": [_fc_column(c, shape) for c in rcp["drg_parents"]],
                                  "exp_parents": [_fc_column(c, shape) for c in rcp["exp_parents"]]},
        "labeling_proofs": [_fc_labeling(lp) for lp in pr["labeling_proofs"]],
        "encoding_proof": _fc_labeling(pr["encoding_proof"]),
    }


def to_filecoin(c1: dict, path="<c1>") -> dict:
    """A checked cuzk PoRep C1 dict (:func:`cuzk.sector.porep_c1.verify_porep_c1`) as Filecoin's
    ``SealCommitPhase1Output`` dict, keys in upstream's struct order (module docstring).

    Raises:
        C1Error: a comm_d-only or synthetic C1 (neither has a Filecoin form), or an api_version
            other than the registered proof's; names ``path`` and the field.
    """
    if not c1.get("porep"):
        raise C1Error(path, "porep", "a comm_d-only C1 has no Filecoin form (it lacks the PoRep proofs)")
    if c1.get("synthetic"):
        raise C1Error(path, "synthetic", "a synthetic C1 is not a sealed sector's; it has no Filecoin form")
    name = c1["registered_proof"]
    try:
        _, _, api = _proof_info(name)
    except KeyError:
        raise C1Error(path, "registered_proof", f"{name!r} is not a registered seal proof") from None
    if api is not None and c1["api_version"] != api:
        raise C1Error(path, "api_version", f"{c1['api_version']}, but {name} is api {api}")
    shape = tree_shape(c1["sector_size"])
    (key, parts), = c1["vanilla_proofs"].items()
    return {
        "registered_proof": name,
        "vanilla_proofs": {key: [[_fc_challenge(pr, shape) for pr in part] for part in parts]},
        **{k: list(c1[k]) for k in _TOP_KEYS[2:]},
    }


def dumps(doc: dict) -> bytes:
    """JSON bytes as serde_json's ``to_vec`` writes them: compact, keys in the dict's order."""
    return json.dumps(doc, separators=(",", ":")).encode()


def commit2_input(phase1_out: bytes, sector_num: int, sector_size: int) -> bytes:
    """lotus-bench's commit2 input file: Go's ``json.Marshal`` of ``Commit2In`` (module docstring)."""
    b64 = base64.b64encode(phase1_out).decode()
    return f'{{"SectorNum":{int(sector_num)},"Phase1Out":"{b64}","SectorSize":{int(sector_size)}}}'.encode()


def write_filecoin(path, c1: dict, lotus_bench: bool = False) -> bytes:
    """Write a cuzk PoRep C1 dict in Filecoin's form (wrapped for lotus-bench's commit2 if asked),
    atomically; returns the bytes written. Raises C1Error as :func:`to_filecoin`."""
    data = dumps(to_filecoin(c1, path))
    if lotus_bench:
        data = commit2_input(data, c1["sector_id"], c1["sector_size"])
    atomic_write_bytes(path, data)
    return data


# --- Filecoin -> cuzk ----------------------------------------------------------------------------

def _inclusion(min_items: int = 0) -> dict:
    return {"type": "object", "required": ["path"], "additionalProperties": False, "properties": {"path": {
        "type": "array", "minItems": min_items, "items": {
            "type": "object", "required": ["hashes", "index"], "additionalProperties": False,
            "properties": {"hashes": {"type": "array", "items": BYTES32, "minItems": 1}, "index": NAT}}}}}


def _proof_data(names: tuple[str, ...]) -> dict:
    fields = {"root": BYTES32, "leaf": BYTES32, **{n: _inclusion() for n in names}}
    return {"type": "object", "required": list(fields), "additionalProperties": False, "properties": fields}


_MERKLE = {"type": "object", "required": ["data"], "additionalProperties": False, "properties": {"data": {
    "type": "object", "minProperties": 1, "maxProperties": 1, "additionalProperties": False, "properties": {
        "Single": _proof_data(("path",)),
        "Sub": _proof_data(("base_proof", "sub_proof")),
        "Top": _proof_data(("base_proof", "sub_proof", "top_proof"))}}}}
_COLUMN = {"type": "object", "required": ["column", "inclusion_proof"], "additionalProperties": False, "properties": {
    "column": {"type": "object", "required": ["index", "rows", "_h"], "additionalProperties": False,
               "properties": {"index": nat(0, (1 << 32) - 1), "rows": {"type": "array", "items": BYTES32}, "_h": {"type": "null"}}},
    "inclusion_proof": _MERKLE}}
_LABELING = {"type": "object", "required": ["parents", "layer_index", "node"], "additionalProperties": False,
             "properties": {"parents": {"type": "array", "items": BYTES32}, "layer_index": nat(0, (1 << 32) - 1),
                            "node": NAT}}
_CHALLENGE = {"type": "object", "additionalProperties": False,
              "required": ["comm_d_proofs", "comm_r_last_proof", "replica_column_proofs", "labeling_proofs", "encoding_proof"],
              "properties": {
                  "comm_d_proofs": _MERKLE, "comm_r_last_proof": _MERKLE,
                  "replica_column_proofs": {"type": "object", "required": ["c_x", "drg_parents", "exp_parents"],
                                            "additionalProperties": False, "properties": {
                                                "c_x": _COLUMN, "drg_parents": {"type": "array", "items": _COLUMN},
                                                "exp_parents": {"type": "array", "items": _COLUMN}}},
                  "labeling_proofs": {"type": "array", "items": _LABELING}, "encoding_proof": _LABELING}}
SCHEMA = {
    "type": "object", "required": list(_TOP_KEYS), "additionalProperties": False,
    "properties": {"registered_proof": {"type": "string"},
                   "vanilla_proofs": {"type": "object", "minProperties": 1, "maxProperties": 1, "additionalProperties": {
                       "type": "array", "minItems": 1, "items": {"type": "array", "minItems": 1, "items": _CHALLENGE}}},
                   **{k: BYTES32 for k in _TOP_KEYS[2:]}},
}
WRAPPER_SCHEMA = {"type": "object", "required": list(_WRAPPER_KEYS), "additionalProperties": False,
                  "properties": {"SectorNum": nat(0, (1 << 63) - 1), "Phase1Out": {"type": "string"}, "SectorSize": NAT}}


def cuzk_merkle(f: str, m: dict, shape, path, error=C1Error) -> dict:
    """A Filecoin MerkleProof serde dict (schema-valid) as cuzk's flat {leaf, root, path}.

    Raises:
        ``error(path, field, message)`` (default C1Error) naming ``f``'s variant or section when
        the variant is not ``shape``'s or a sub/top section has other than one element.
    """
    want = merkle_variant(shape)
    (v, body), = m["data"].items()
    if v != want:
        raise error(path, f"{f}/data/{v}", f"a {v} proof; this tree's shape {shape} takes {want}")
    sections = ("path",) if v == "Single" else ("base_proof", "sub_proof", "top_proof")[:2 + (v == "Top")]
    elements = [el for s in sections for el in body[s]["path"]]
    if v != "Single":
        for s in sections[1:]:
            if len(body[s]["path"]) != 1:
                raise error(path, f"{f}/data/{v}/{s}/path", f"{len(body[s]['path'])} elements, expected 1")
    return {"leaf": body["leaf"], "root": body["root"], "path": elements}


def cuzk_sha_merkle(f: str, m: dict, path, error=C1Error) -> dict:
    """The inverse of :func:`filecoin_sha_merkle` for a schema-valid dict: {"leaf", "path":
    [siblings], "index", "root"}.

    Raises:
        ``error(path, field, message)`` naming ``f``'s variant or level: not Single, or a level
        with other than one hash or an index other than 0 or 1.
    """
    cd = cuzk_merkle(f, m, (2, 0, 0), path, error)
    index = 0
    for lvl, el in enumerate(cd["path"]):
        if len(el["hashes"]) != 1 or el["index"] > 1:
            raise error(path, f"{f}/data/Single/path/path/{lvl}", "a binary tree level takes one hash and index 0 or 1")
        index |= el["index"] << lvl
    return {"leaf": cd["leaf"], "path": [el["hashes"][0] for el in cd["path"]], "index": index, "root": cd["root"]}


def _cuzk_challenge(f: str, pr: dict, shape, path) -> dict:
    rcp = pr["replica_column_proofs"]

    def column(g: str, cp: dict) -> dict:
        return {"column": {"index": cp["column"]["index"], "rows": cp["column"]["rows"]},
                "inclusion_proof": cuzk_merkle(g + "/inclusion_proof", cp["inclusion_proof"], shape, path)}

    g = f + "/replica_column_proofs"
    return {
        "comm_d_proofs": cuzk_sha_merkle(f + "/comm_d_proofs", pr["comm_d_proofs"], path),
        "comm_r_last_proof": cuzk_merkle(f + "/comm_r_last_proof", pr["comm_r_last_proof"], shape, path),
        "replica_column_proofs": {"c_x": column(g + "/c_x", rcp["c_x"]),
                                  "drg_parents": [column(f"{g}/drg_parents/{j}", c) for j, c in enumerate(rcp["drg_parents"])],
                                  "exp_parents": [column(f"{g}/exp_parents/{j}", c) for j, c in enumerate(rcp["exp_parents"])]},
        "labeling_proofs": pr["labeling_proofs"],
        "encoding_proof": pr["encoding_proof"],
    }


_MERKLE_FIELD = re.compile(r"(.*/(?:comm_r_last_proof|inclusion_proof|inclusion_proofs/\d+))/(leaf|root|path)(?:/(\d+))?(/.*)?")
_COMMD_FIELD = re.compile(r"(.*/comm_d_proofs)/(leaf|root|path|index)(?:/(\d+))?(/.*)?")
_HEADER_FIELDS = {"sector_size": "registered_proof", "porep_id": "registered_proof", "api_version": "registered_proof",
                  "layers": "registered_proof", "partitions": "vanilla_proofs",
                  "challenges_per_partition": "vanilla_proofs"}


def filecoin_field(field: str, sector_size: int) -> str:
    """The path in Filecoin's layout of a field named by :func:`verify_porep_c1` (cuzk's layout),
    e.g. ``…/comm_r_last_proof/path/1/hashes`` → ``…/comm_r_last_proof/data/Single/path/path/1/hashes``."""
    if field in _HEADER_FIELDS:
        return _HEADER_FIELDS[field]
    m = _COMMD_FIELD.fullmatch(field)
    if m:
        head, what, lvl, rest = m.groups()
        if what in ("leaf", "root"):
            return f"{head}/data/Single/{what}"
        return f"{head}/data/Single/path/path" + (f"/{lvl}" if lvl else "") + (rest or "")
    m = _MERKLE_FIELD.fullmatch(field)
    if not m:
        return field
    head, what, lvl, rest = m.groups()
    shape = tree_shape(sector_size)
    v = merkle_variant(shape)
    if what != "path":
        return f"{head}/data/{v}/{what}"
    if lvl is None:
        return f"{head}/data/{v}"
    levels = _levels(tree_arities(sector_size // 32, shape), shape)
    section, j = levels[int(lvl)] if int(lvl) < len(levels) else ("path", int(lvl))
    section = "path" if v == "Single" else section
    return f"{head}/data/{v}/{section}/path/{j}" + (rest or "")


def from_filecoin(doc, path, sector_id: int, prover_id: bytes, verify: bool = True) -> dict:
    """A parsed ``SealCommitPhase1Output`` as a cuzk PoRep C1 dict, checked fully.

    Args:
        doc: the parsed JSON (module docstring layout).
        sector_id, prover_id: the sector's number and its miner's 32-byte prover id (not in
            Filecoin's form; :func:`prover_id_of_actor` makes one from an actor id).
        verify: run :func:`cuzk.sector.porep_c1.verify_porep_c1` on the result (every proof);
            False only converts (layout checked).

    Raises:
        C1Error: names ``path`` and the field in Filecoin's layout (schema, an unknown or
            unsupported registered proof, a Merkle proof of the wrong variant, and every fault
            :func:`verify_porep_c1` finds).
    """
    check_schema(doc, SCHEMA, path)
    name = doc["registered_proof"]
    try:
        size, _, api = _proof_info(name)
    except KeyError:
        raise C1Error(path, "registered_proof", f"{name!r} is not a supported seal proof (supported: "
                                                f"{', '.join(SEAL_PROOFS)} and cuzk's test-only names)") from None
    try:
        shape = tree_shape(size)
    except ValueError as e:
        raise C1Error(path, "registered_proof", str(e)) from None
    if len(prover_id) != 32:
        raise ValueError(f"prover_id must be 32 bytes, got {len(prover_id)}")
    (key, parts), = doc["vanilla_proofs"].items()
    cparts = [[_cuzk_challenge(f"vanilla_proofs/{key}/{k}/{i}", pr, shape, path) for i, pr in enumerate(part)]
              for k, part in enumerate(parts)]
    layers = DEFAULT_LAYERS.get(size) or len(cparts[0][0]["labeling_proofs"])
    pid = default_porep_id(size) if api is None else SEAL_PROOFS[name][1].to_bytes(8, "little") + bytes(24)
    c1 = c1_document(size, sector_id, prover_id, bytes(doc["ticket"]), bytes(doc["seed"]), bytes(doc["comm_d"]),
                     bytes(doc["comm_r"]), bytes(doc["replica_id"]), pid, layers, api or "1.1", False, cparts)
    c1["registered_proof"] = name
    c1["vanilla_proofs"] = {key: cparts}
    if verify:
        try:
            verify_porep_c1(c1, path)
        except C1Error as e:
            raise C1Error(path, filecoin_field(e.field, size), str(e)[len(f"{e.path}: {e.field}: "):]) from None
    return c1


def detect(doc) -> str:
    """Which C1 form a parsed document is: :data:`CUZK` (``"format": "cuzk-c1/1"``),
    :data:`LOTUS_BENCH` (a ``Phase1Out`` key) or :data:`FILECOIN` (anything else; its reader
    names what is wrong)."""
    if isinstance(doc, dict) and doc.get("format") == FORMAT:
        return CUZK
    if isinstance(doc, dict) and "Phase1Out" in doc:
        return LOTUS_BENCH
    return FILECOIN


def sniff(path, limit: int = 4096) -> str:
    """The form of a C1 file from its first ``limit`` bytes only (for the workflow, which must
    know it before any job runs): the first key of the top-level object decides —
    ``"format"`` → cuzk, ``"SectorNum"``/``"Phase1Out"``/``"SectorSize"`` → lotus-bench, one of
    SealCommitPhase1Output's → filecoin; anything else is reported as cuzk, whose reader then
    names the fault. Raises OSError when the file cannot be read."""
    with open(path, "rb") as f:
        head = f.read(limit).decode("utf-8", "replace")
    m = re.match(r'\s*\{\s*"([A-Za-z_]+)"', head)
    key = m[1] if m else ""
    return LOTUS_BENCH if key in _WRAPPER_KEYS else FILECOIN if key in _TOP_KEYS else CUZK


def unwrap(doc, path) -> tuple[dict, int, int]:
    """The parsed SealCommitPhase1Output, SectorNum and SectorSize of a parsed lotus-bench commit2
    input. Raises C1Error naming ``path`` and the field (Phase1Out's own faults as
    ``Phase1Out/<field>``)."""
    check_schema(doc, WRAPPER_SCHEMA, path)
    try:
        raw = base64.b64decode(doc["Phase1Out"], validate=True)
    except (binascii.Error, ValueError) as e:
        raise C1Error(path, "Phase1Out", f"not standard base64: {e}") from None
    inner = loads(raw, f"{path}:Phase1Out", C1Error)
    return inner, doc["SectorNum"], doc["SectorSize"]


def read_any(path, sector_id: int | None = None, prover_id: bytes | None = None, verify: bool = True) -> tuple[str, dict]:
    """Read a C1 file in any of the three forms (detected, :func:`detect`) and check it fully.

    Args:
        sector_id: the sector's number, needed for Filecoin's form; lotus-bench's file carries
            it (SectorNum), and a given one must equal it. Ignored for cuzk's form.
        prover_id: 32 bytes, needed for Filecoin's and lotus-bench's forms.
        verify: False skips the proof checks (layout only) of Filecoin's forms.

    Returns:
        (form, the cuzk PoRep C1 dict; for cuzk's form, the dict as read).

    Raises:
        C1Error: names the file and the field; a missing sector_id or prover_id is named as the
            field it stands for. OSError when the file cannot be read.
    """
    doc = load_json(path, C1Error)
    form = detect(doc)
    if form == CUZK:
        if verify:
            verify_porep_c1(doc, path)
        return form, doc
    if form == LOTUS_BENCH:
        doc, num, size = unwrap(doc, path)
        if sector_id is not None and sector_id != num:
            raise C1Error(path, "SectorNum", f"{num}, but sector {sector_id} was asked for")
        sector_id = num
    if sector_id is None:
        raise C1Error(path, "sector_id", "Filecoin's C1 does not carry the sector number: give it")
    if prover_id is None:
        raise C1Error(path, "prover_id", "Filecoin's C1 does not carry the prover id: give it (or the miner's actor id)")
    c1 = from_filecoin(doc, path, sector_id, prover_id, verify)
    if form == LOTUS_BENCH and c1["sector_size"] != size:
        raise C1Error(path, "SectorSize", f"{size}, but {c1['registered_proof']} seals {c1['sector_size']}-byte sectors")
    return form, c1


def convert(src, dst, to: str | None = None, *, lotus_bench: bool = False, sector_id: int | None = None,
            prover_id: bytes | None = None) -> tuple[str, str]:
    """Convert a C1 file between cuzk's and Filecoin's forms (``cuzk c1 convert``), checking it
    fully on the way (:func:`read_any`).

    Args:
        to: :data:`CUZK` or :data:`FILECOIN`; None: the other form than the input's.
        lotus_bench: write Filecoin's form wrapped as lotus-bench's commit2 input.
        sector_id, prover_id: as :func:`read_any` (needed to read Filecoin's form).

    Returns:
        (the input's form, the form written).

    Raises:
        C1Error: the input is faulty, or cannot take the asked form (:func:`to_filecoin`);
        ValueError: an unknown ``to``.
    """
    form, c1 = read_any(src, sector_id, prover_id)
    to = to or (FILECOIN if form == CUZK else CUZK)
    if to == CUZK:
        write_porep_c1(dst, c1)
    elif to == FILECOIN:
        write_filecoin(dst, c1, lotus_bench)
    else:
        raise ValueError(f"unknown C1 form {to!r}; known: {CUZK}, {FILECOIN}")
    return form, to
