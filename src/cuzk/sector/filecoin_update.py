"""SnapDeals vanilla proofs in Filecoin's own form: the bincode ``PartitionProof`` bytes (one per
partition) that lotus and curio hand to ``GenerateUpdateProofWithVanilla``, converted to and from
cuzk's update document (:mod:`cuzk.sector.update_doc`).

Facts from the upstream source (rust-fil-proofs 87348a74, filecoin-proofs-api 0e64ce8,
filecoin-ffi de13e64, lotus b835fab7, curio e0294b0f, go-state-types):

* filecoin-proofs-api ``src/update.rs`` ``generate_partition_proofs`` returns one
  ``PartitionProofBytes(bincode::serialize(&proof))`` per partition, in partition order;
  ``verify_partition_proofs`` and ``generate_empty_sector_update_proof_with_vanilla`` take them
  back with ``bincode::deserialize`` (bincode and MerkleProof layout:
  :mod:`cuzk.sector.filecoin_bincode`). filecoin-ffi ``rust/src/proofs/api.rs``
  ``generate_empty_sector_update_partition_proofs`` / ``verify_empty_sector_update_partition_proofs``
  pass those bytes through unchanged (``sector_update.go``: ``[][]byte``).
* storage-proofs-update ``src/vanilla.rs``: ``PartitionProof`` = {comm_c (``TreeRDomain`` =
  PoseidonDomain: 32 bytes, little-endian Fr), apex_leafs (``Vec<TreeDDomain>``, Sha256Domain: 32
  bytes), challenge_proofs (``Vec<ChallengeProof>``)}; ``ChallengeProof`` = {proof_r_old
  (MerkleProof over TreeR: the variant of its shape, Single at 2 KiB, Sub at 32 GiB, Top at
  64 GiB), proof_d_new (``MerkleProof<Sha256Hasher, U2>``: Single, one hash per level, index = the
  challenge's bit), proof_r_new (as proof_r_old)}. ``verify`` requires every proof's path index to
  be the challenge, proof_d_new's root comm_d_new, and comm_r_old / comm_r_new = H(comm_c, first
  challenge's root); it takes ``PublicInputs`` {k, comm_r_old, comm_d_new, comm_r_new, h}.
* filecoin-proofs ``src/api/update.rs`` (``generate_partition_proofs``, ``verify_partition_proofs``,
  ``generate_empty_sector_update_proof_with_vanilla``) builds PublicInputs from the three
  commitments and ``SectorUpdateConfig::from_porep_config``: h is always ``h_default`` of the
  sector size, the partition count ``partition_count`` (:mod:`cuzk.sector.update`).
* go-state-types ``abi.RegisteredUpdateProof`` (= filecoin-ffi's ``#[repr(i32)]`` enum, same
  order): StackedDrg2KiBV1 0, 8MiBV1 1, 512MiBV1 2, 32GiBV1 3, 64GiBV1 4 (API version 1.1).
* Files: curio (``lib/ffi/snap_funcs.go``) writes the partition proofs to
  ``<update-cache>/snap-vproof.json`` and lotus-bench (``cmd/lotus-bench/simple.go``
  ``provereplicaupdate1``) to its ``vproofs.json``, both Go's ``json.Marshal`` of ``[][]byte``: a
  compact JSON array of standard base64 strings (padded). The public facts travel apart (as
  CIDs on lotus-bench's command line); curio's proof service sends both together as
  ``proof.Snap`` (``lib/proof/update_vproof_types.go``): ``{"ProofType": n, "old_r": [32 ints],
  "new_r": [...], "new_d": [...], "Proofs": [base64, ...]}`` (Go writes a ``[32]byte`` as an
  array of numbers), wrapped in ``ProofData`` {"SectorID": {"Miner", "Number"}, "PoRep", "Snap"}.

Filecoin's form written here is that ``proof.Snap`` JSON: upstream's own container, and the only
one that holds every public fact ``generate_empty_sector_update_proof_with_vanilla`` takes next to
the proofs; ``vproofs_only`` writes curio's bare ``snap-vproof.json`` instead. Read are all three
(bare list, Snap, ProofData); facts missing from the file come from the caller. Neither form has
a sector number (ProofData's SectorID aside): converting to cuzk's form takes it from the caller.
Only registered sizes convert (cuzk's test-only SnapDeals sizes have no RegisteredUpdateProof).

No SnapDeals vanilla proof made by upstream's code was found to test against (none in
shared/real-artifacts, none in the test data of rust-fil-proofs, filecoin-ffi, lotus or curio):
the byte layout is checked against the struct definitions above (tests/test_filecoin_update.py).
"""

from __future__ import annotations

import base64
import binascii
import re

from ..fileio import atomic_write_bytes
from ..hash.poseidon import R
from . import update as su
from .c1 import check_schema
from .challenges import SECTOR_SIZES
from .filecoin_bincode import Reader, put_merkle
from .filecoin_c1 import cuzk_merkle, cuzk_sha_merkle, dumps, filecoin_merkle, filecoin_sha_merkle, merkle_variant
from .jsondoc import BYTES32, NAT, load_json, write_doc
from .update_doc import FORMAT, UpdateFileError, verify_update

__all__ = ["UPDATE_PROOFS", "decode_partition", "encode_partition", "to_cuzk", "from_cuzk", "read_filecoin",
           "write_filecoin", "convert", "SNAP_SCHEMA"]

#: go-state-types ``abi.RegisteredUpdateProof`` number → sector size (bytes).
UPDATE_PROOFS = dict(enumerate(SECTOR_SIZES))
_PROOFS = ("proof_r_old", "proof_d_new", "proof_r_new")
_FACTS = {"proof_type": "ProofType", "comm_r_old": "old_r", "comm_r_new": "new_r", "comm_d_new": "new_d"}
SNAP_SCHEMA = {"type": "object", "required": ["ProofType", "old_r", "new_r", "new_d", "Proofs"],
               "properties": {"ProofType": NAT, "old_r": BYTES32, "new_r": BYTES32, "new_d": BYTES32,
                              "Proofs": {"type": "array", "items": {"type": "string"}}}}


# --- bincode -------------------------------------------------------------------------------------

def decode_partition(data: bytes, path="<proof>", field: str = "") -> dict:
    """One partition's ``PartitionProof`` bincode (module docstring) as its serde dict: {"comm_c",
    "apex_leafs": [..], "challenge_proofs": [{"proof_r_old", "proof_d_new", "proof_r_new":
    MerkleProof dict}]}; 32-byte values as lists of ints. ``field`` prefixes the names in errors.

    Raises:
        UpdateFileError: truncated bytes, an impossible length, an unknown ProofData variant or
        bytes left over; names ``path``, the field in upstream's layout and the byte offset.
    """
    f = f"{field}/" if field else ""
    r = Reader(bytes(data), path, UpdateFileError)
    doc = {"comm_c": r.domain(f + "comm_c"), "apex_leafs": r.domains(f + "apex_leafs")}
    doc["challenge_proofs"] = [{k: r.merkle(f"{f}challenge_proofs/{i}/{k}") for k in _PROOFS}
                               for i in range(r.count(f + "challenge_proofs", 12))]
    r.finish()
    return doc


def encode_partition(p: dict) -> bytes:
    """The bincode bytes of a :func:`decode_partition` dict (fields in upstream's order)."""
    out = [bytes(p["comm_c"]), len(p["apex_leafs"]).to_bytes(8, "little"), *map(bytes, p["apex_leafs"]),
           len(p["challenge_proofs"]).to_bytes(8, "little")]
    for c in p["challenge_proofs"]:
        for k in _PROOFS:
            put_merkle(out, c[k])
    return b"".join(out)


# --- conversion ----------------------------------------------------------------------------------

def from_cuzk(doc: dict, path="<update>") -> dict:
    """Filecoin's ``proof.Snap`` dict (module docstring; ``Proofs`` as bytes) from a checked cuzk
    update document (:func:`cuzk.sector.update_doc.verify_update`).

    Raises:
        UpdateFileError naming ``path`` and the field: a synthetic document, a size without a
        RegisteredUpdateProof, or an ``h`` other than upstream's ``h_default``.
    """
    if doc.get("synthetic"):
        raise UpdateFileError(path, "synthetic", "a synthetic sector was never sealed; it has no Filecoin form")
    size = doc["sector_size"]
    ids = [i for i, s in UPDATE_PROOFS.items() if s == size]
    if not ids:
        raise UpdateFileError(path, "sector_size", f"{size}: no RegisteredUpdateProof has this size {UPDATE_PROOFS}")
    if doc["h"] != su.h_default(size):
        raise UpdateFileError(path, "h", f"{doc['h']}: Filecoin's API always proves with h_default = {su.h_default(size)}")
    shape = su.tree_r_shape(size)
    proofs = []
    for k, part in enumerate(doc["partitions"]):
        cps = []
        for node, c in zip(su.challenges(bytes(doc["comm_r_new"]), size, k), part["challenge_proofs"]):
            cps.append({"proof_r_old": filecoin_merkle({"root": c["root_r_old"], "leaf": c["leaf_r_old"],
                                                        "path": c["path_r_old"]}, shape),
                        "proof_d_new": filecoin_sha_merkle(doc["comm_d_new"], c["leaf_d_new"], c["path_d_new"], int(node)),
                        "proof_r_new": filecoin_merkle({"root": c["root_r_new"], "leaf": c["leaf_r_new"],
                                                        "path": c["path_r_new"]}, shape)})
        proofs.append(encode_partition({"comm_c": doc["comm_c"], "apex_leafs": part["apex_leafs"], "challenge_proofs": cps}))
    return {"ProofType": ids[0], "old_r": list(doc["comm_r_old"]), "new_r": list(doc["comm_r_new"]),
            "new_d": list(doc["comm_d_new"]), "Proofs": proofs}


def _canonical(path, field: str, v) -> None:
    """Refuse any 32-byte value in a decoded proof (nested dicts/lists) that is not below r."""
    if isinstance(v, dict):
        for k, x in v.items():
            _canonical(path, f"{field}/{k}", x)
    elif v and isinstance(v, list) and isinstance(v[0], int):
        if int.from_bytes(bytes(v), "little") >= R:
            raise UpdateFileError(path, field, "not a canonical Fr element (≥ r)")
    elif isinstance(v, list):
        for i, x in enumerate(v):
            _canonical(path, f"{field}/{i}", x)


_CHECKS = {"tree_r_old": "proof_r_old", "tree_r_new": "proof_r_new", "comm_d_new": "proof_d_new",
           "replica node": "proof_r_new/data/{v}/leaf", "comm_r_old": "proof_r_old/data/{v}/root",
           "comm_r_new": "proof_r_new/data/{v}/root"}


def _in_filecoin(e: UpdateFileError, path, variant: str) -> UpdateFileError:
    """A :func:`verify_update` error on a converted document, named in Filecoin's layout."""
    msg = str(e)[len(f"{e.path}: {e.field}: "):]
    m = re.fullmatch(r"partitions/(\d+)/(.+)", e.field)
    if not m:
        return UpdateFileError(path, e.field, msg)
    k, what = m.groups()
    if what not in _CHECKS:
        return UpdateFileError(path, f"Proofs/{k}/{what}", msg)
    i = re.search(r"challenge (\d+) \(node", msg)
    return UpdateFileError(path, f"Proofs/{k}/challenge_proofs/{i[1] if i else 0}/" + _CHECKS[what].format(v=variant), msg)


def to_cuzk(proofs, proof_type: int, comm_r_old: bytes, comm_r_new: bytes, comm_d_new: bytes, sector_id: int,
            path="<vproofs>") -> dict:
    """cuzk's update document from Filecoin's partition proofs, checked fully (:func:`verify_update`).

    Args:
        proofs: one bincode ``PartitionProof`` (bytes) per partition, in order.
        proof_type: ``RegisteredUpdateProof`` number (:data:`UPDATE_PROOFS`).
        comm_r_old, comm_r_new, comm_d_new: the public commitments, 32 bytes LE each.
        sector_id: the sector number (not in Filecoin's form); path: the file, for errors.

    Returns:
        The document (:mod:`cuzk.sector.update_doc`'s layout, key order as ``to_doc``), h =
        ``h_default``.

    Raises:
        UpdateFileError naming ``path`` and the field in Filecoin's layout (``Proofs/<k>/…``): an
        unknown ProofType, a partition count not the size's, bytes (:func:`decode_partition`), a
        32-byte value ≥ r, a Merkle variant not the tree's, a comm_c differing between partitions,
        proof_d_new not Single, not of the challenged node or not rooted at comm_d_new, and every
        fault :func:`verify_update` finds (its check named as the proof it concerns).
        Structure is checked for every partition before any path is hashed.
    """
    if proof_type not in UPDATE_PROOFS:
        raise UpdateFileError(path, "ProofType", f"{proof_type}: not a RegisteredUpdateProof {sorted(UPDATE_PROOFS)}")
    size = UPDATE_PROOFS[proof_type]
    for name, v in (("old_r", comm_r_old), ("new_r", comm_r_new), ("new_d", comm_d_new)):
        if len(bytes(v)) != 32 or int.from_bytes(bytes(v), "little") >= R:
            raise UpdateFileError(path, name, "not 32 bytes of a canonical Fr element")
    n, shape = su.partition_count(size), su.tree_r_shape(size)
    if len(proofs) != n:
        raise UpdateFileError(path, "Proofs", f"{len(proofs)} partition proofs, {size}-byte sectors have {n}")
    parts, comm_c = [], None
    for k, data in enumerate(proofs):
        f = f"Proofs/{k}"
        pp = decode_partition(data, path, f)
        _canonical(path, f, pp)
        if comm_c is not None and pp["comm_c"] != comm_c:
            raise UpdateFileError(path, f + "/comm_c", "differs from partition 0's comm_c")
        comm_c = pp["comm_c"]
        if len(pp["challenge_proofs"]) != su.challenge_count(size):
            raise UpdateFileError(path, f + "/challenge_proofs", f"{len(pp['challenge_proofs'])} challenge proofs, "
                                  f"{size}-byte sectors have {su.challenge_count(size)}")
        cps = []
        for i, (node, c) in enumerate(zip(su.challenges(bytes(comm_r_new), size, k), pp["challenge_proofs"])):
            g = f"{f}/challenge_proofs/{i}"
            old, new = (cuzk_merkle(f"{g}/{p}", c[p], shape, path, UpdateFileError) for p in ("proof_r_old", "proof_r_new"))
            d = cuzk_sha_merkle(g + "/proof_d_new", c["proof_d_new"], path, UpdateFileError)
            if d["index"] != node or len(d["path"]) != (size // 32).bit_length() - 1:
                raise UpdateFileError(path, g + "/proof_d_new/data/Single/path", f"does not open challenged node {node}")
            if bytes(d["root"]) != bytes(comm_d_new):
                raise UpdateFileError(path, g + "/proof_d_new/data/Single/root", "differs from the public comm_d_new")
            cps.append({"leaf_r_old": old["leaf"], "path_r_old": old["path"], "root_r_old": old["root"],
                        "leaf_d_new": d["leaf"], "path_d_new": d["path"], "leaf_r_new": new["leaf"],
                        "path_r_new": new["path"], "root_r_new": new["root"]})
        parts.append({"apex_leafs": pp["apex_leafs"], "challenge_proofs": cps})
    doc = {"format": FORMAT, "sector_id": int(sector_id), "sector_size": size, "h": su.h_default(size), "comm_c": comm_c,
           "comm_r_old": list(comm_r_old), "comm_d_new": list(comm_d_new), "comm_r_new": list(comm_r_new),
           "partitions": parts}
    try:
        verify_update(doc, path)
    except UpdateFileError as e:
        raise _in_filecoin(e, path, merkle_variant(shape)) from None
    return doc


# --- files ---------------------------------------------------------------------------------------

def _b64(path, field: str, s) -> bytes:
    try:
        return base64.b64decode(s, validate=True)
    except (binascii.Error, ValueError, TypeError) as e:
        raise UpdateFileError(path, field, f"not standard base64: {e}") from None


def read_filecoin(path) -> tuple[dict, list[bytes]]:
    """Filecoin's SnapDeals file (module docstring): a bare ``snap-vproof.json`` list, a
    ``proof.Snap`` object or a ``ProofData`` holding one.

    Returns:
        (facts, proofs): facts as :func:`to_cuzk`'s keyword names (``proof_type``, ``comm_r_old``,
        ``comm_r_new``, ``comm_d_new`` as bytes, ``sector_id`` from ProofData), only those the
        file holds; proofs the partition proofs' bytes.

    Raises:
        UpdateFileError naming ``path`` and the field (not JSON, not one of the three forms, a
        proof not base64). OSError: unreadable file.
    """
    doc = load_json(path, UpdateFileError)
    facts = {}
    if isinstance(doc, dict) and "Snap" in doc:
        sid = doc.get("SectorID")
        if isinstance(sid, dict) and isinstance(sid.get("Number"), int):
            facts["sector_id"] = sid["Number"]
        doc = doc["Snap"]
    if isinstance(doc, dict):
        check_schema(doc, SNAP_SCHEMA, path, error=UpdateFileError)
        facts |= {k: doc[j] if k == "proof_type" else bytes(doc[j]) for k, j in _FACTS.items()}
        doc = doc["Proofs"]
    if not isinstance(doc, list):
        raise UpdateFileError(path, "<json>", "neither a list of partition proofs nor a proof.Snap object")
    return facts, [_b64(path, f"Proofs/{k}", s) for k, s in enumerate(doc)]


def write_filecoin(path, snap: dict, vproofs_only: bool = False) -> bytes:
    """Write a :func:`from_cuzk` dict as Go's ``json.Marshal`` would (``proof.Snap``, or the bare
    ``[][]byte`` of ``snap-vproof.json`` when ``vproofs_only``), atomically; returns the bytes."""
    b64 = [base64.b64encode(p).decode() for p in snap["Proofs"]]
    data = dumps(b64 if vproofs_only else snap | {"Proofs": b64})
    atomic_write_bytes(path, data)
    return data


def convert(src, dst, to: str | None = None, *, vproofs_only: bool = False, **given) -> tuple[str, str]:
    """``cuzk update convert``: between cuzk's update document and Filecoin's form (detected: a
    JSON object with cuzk's ``format`` is cuzk's). Every proof is checked on the way.

    ``given``: :func:`to_cuzk`'s facts (``proof_type``, ``comm_r_old``, ``comm_r_new``,
    ``comm_d_new``, ``sector_id``); a value not None overrides the file's.
    Returns (form read, form written), each "cuzk" or "filecoin".

    Raises:
        UpdateFileError naming the file and field (a fact neither in the file nor given is named
        as its Filecoin field, ``sector_id`` as itself), as :func:`to_cuzk` / :func:`from_cuzk`.
    """
    doc = load_json(src, UpdateFileError)
    form = "cuzk" if isinstance(doc, dict) and doc.get("format") == FORMAT else "filecoin"
    to = to or ("filecoin" if form == "cuzk" else "cuzk")
    if form == to:
        raise UpdateFileError(src, "<form>", f"already in {form}'s form")
    if form == "cuzk":
        verify_update(doc, src)
        write_filecoin(dst, from_cuzk(doc, src), vproofs_only)
        return form, to
    facts, proofs = read_filecoin(src)
    facts |= {k: v for k, v in given.items() if v is not None}
    for k in (*_FACTS, "sector_id"):
        if k not in facts:
            raise UpdateFileError(src, _FACTS.get(k, k), "not given (in neither the file nor the arguments)")
    write_doc(dst, to_cuzk(proofs, path=src, **facts))
    return form, to
