"""SnapDeals input files: one updated sector's public commitments and partition vanilla proofs (JSON).

The document a SnapDeals Groth16 proof is made from (what a C1 file is to PoRep)::

    {"format": "cuzk-update/1", "sector_id": u64, "sector_size": bytes, "h": int,
     "comm_c", "comm_r_old", "comm_d_new", "comm_r_new": 32 bytes (arrays of ints, LE Fr),
     "partitions": [{"apex_leafs": [32 bytes, ...],
                     "challenge_proofs": [{"leaf_r_old": 32 B, "path_r_old": [{"hashes": [32 B], "index": int}],
                                           "root_r_old": 32 B, "leaf_d_new": 32 B, "path_d_new": [32 B],
                                           "leaf_r_new": 32 B, "path_r_new": [...], "root_r_new": 32 B}]}]}

Fields follow upstream's ``PartitionProof`` / ``ChallengeProof`` (``storage-proofs-update/src/
vanilla.rs``); paths are leaves up, ``index`` the node's place among its siblings (as
:func:`cuzk.sector.replica.tree_path`), tree_d_new's a plain list of siblings
(:func:`cuzk.sector.commd.merkle_path`); ``"synthetic": true`` marks a structured synthetic
sector (:mod:`cuzk.sector.update_synthetic`). This is cuzk's own layout, not Filecoin's serde one.
Written with :func:`cuzk.sector.jsondoc.write_doc`; reading checks the schema, the partition count and every partition with
:func:`cuzk.sector.update.verify_partition`.
"""

from __future__ import annotations

from ..errors import CuzkError
from . import update as su
from .c1 import check_schema
from .jsondoc import BYTES32, NAT, nat, read_verified
from .replica import build_tree

__all__ = ["FORMAT", "UpdateFileError", "to_doc", "generate_update", "partition_proof", "publics", "verify_update",
           "read_update"]

FORMAT = "cuzk-update/1"


class UpdateFileError(CuzkError, ValueError):
    """A SnapDeals input file is malformed or its proofs do not verify: names the file and field."""

    def __init__(self, path, field: str, message: str):
        self.path, self.field = str(path), field
        super().__init__(f"{self.path}: {field}: {message}")


_PATH_R = {"type": "array", "items": {"type": "object", "required": ["hashes", "index"],
                                      "properties": {"hashes": {"type": "array", "items": BYTES32},
                                                     "index": nat(0, 255)}}}
_CHALLENGE = {"type": "object", "required": ["leaf_r_old", "path_r_old", "root_r_old", "leaf_d_new", "path_d_new",
                                             "leaf_r_new", "path_r_new", "root_r_new"],
              "properties": {"leaf_r_old": BYTES32, "path_r_old": _PATH_R, "root_r_old": BYTES32,
                             "leaf_d_new": BYTES32, "path_d_new": {"type": "array", "items": BYTES32},
                             "leaf_r_new": BYTES32, "path_r_new": _PATH_R, "root_r_new": BYTES32}}
SCHEMA = {
    "type": "object",
    "required": ["format", "sector_id", "sector_size", "h", "comm_c", "comm_r_old", "comm_d_new", "comm_r_new",
                 "partitions"],
    "properties": {
        "format": {"const": FORMAT}, "sector_id": NAT, "sector_size": nat(32), "h": nat(0, 64),
        "comm_c": BYTES32, "comm_r_old": BYTES32, "comm_d_new": BYTES32, "comm_r_new": BYTES32,
        "synthetic": {"const": True},
        "partitions": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["apex_leafs", "challenge_proofs"],
            "properties": {"apex_leafs": {"type": "array", "items": BYTES32},
                           "challenge_proofs": {"type": "array", "minItems": 1, "items": _CHALLENGE}}}},
    },
}


def _b(x) -> list[int]:
    return list(bytes(x))


def _fr(x) -> list[int]:
    return list(int(x).to_bytes(32, "little"))


def _int(b) -> int:
    return int.from_bytes(bytes(b), "little")


def _path_out(path) -> list[dict]:
    return [{"hashes": [_fr(s) for s in sibs], "index": int(pos)} for sibs, pos in path]


def _path_in(path) -> list:
    return [([_int(h) for h in el["hashes"]], el["index"]) for el in path]


def to_doc(sector_id: int, sector_size: int, h: int, comm_c: bytes, comm_r_old: bytes, comm_d_new: bytes,
           comm_r_new: bytes, proofs) -> dict:
    """The document of one updated sector: its commitments (32 bytes LE each) and the partition
    proofs (:class:`cuzk.sector.update.PartitionProof`, one per partition, in order)."""
    parts = [{"apex_leafs": [_b(a) for a in p.apex_leafs],
              "challenge_proofs": [{"leaf_r_old": _fr(c.leaf_r_old), "path_r_old": _path_out(c.path_r_old),
                                    "root_r_old": _fr(c.root_r_old), "leaf_d_new": _b(c.leaf_d_new),
                                    "path_d_new": [_b(s) for s in c.path_d_new], "leaf_r_new": _fr(c.leaf_r_new),
                                    "path_r_new": _path_out(c.path_r_new), "root_r_new": _fr(c.root_r_new)}
                                   for c in p.challenge_proofs]} for p in proofs]
    return {"format": FORMAT, "sector_id": int(sector_id), "sector_size": int(sector_size), "h": int(h),
            "comm_c": _b(comm_c), "comm_r_old": _b(comm_r_old), "comm_d_new": _b(comm_d_new),
            "comm_r_new": _b(comm_r_new), "partitions": parts}


def generate_update(sector_id: int, sector_key, data, comm_c: bytes, comm_r_last_old: bytes, sector_size: int,
                    h: int | None = None) -> tuple[dict, bytes]:
    """Encode deal ``data`` into a CC sector's replica (:func:`cuzk.sector.update.encode`) and prove
    every partition. ``h`` defaults to :func:`~cuzk.sector.update.h_default`.

    Returns:
        (the document, the new replica's bytes). Raises UpdateError as ``encode``.
    """
    h = su.h_default(sector_size) if h is None else h
    out = su.encode(sector_key, data, comm_c, comm_r_last_old, h, sector_size)
    tree_r_old = build_tree(sector_key, su.tree_r_shape(sector_size))
    proofs = [su.prove_partition(k, sector_size=sector_size, comm_c=comm_c, comm_r_new=out["comm_r_new"],
                                 tree_r_old=tree_r_old, tree_d_new=out["tree_d_new"], tree_r_new=out["tree_r_new"])
              for k in range(su.partition_count(sector_size))]
    return to_doc(sector_id, sector_size, h, comm_c, out["comm_r_old"], out["comm_d_new"], out["comm_r_new"],
                  proofs), out["replica"]


def partition_proof(doc: dict, k: int) -> su.PartitionProof:
    """Partition k of a (checked) document as a :class:`cuzk.sector.update.PartitionProof`."""
    p = doc["partitions"][k]
    return su.PartitionProof(bytes(doc["comm_c"]), [bytes(a) for a in p["apex_leafs"]], [
        su.ChallengeProof(_int(c["leaf_r_old"]), _path_in(c["path_r_old"]), _int(c["root_r_old"]),
                          bytes(c["leaf_d_new"]), [bytes(s) for s in c["path_d_new"]], _int(c["leaf_r_new"]),
                          _path_in(c["path_r_new"]), _int(c["root_r_new"]))
        for c in p["challenge_proofs"]])


def publics(doc: dict) -> dict:
    """The keyword arguments of :func:`cuzk.sector.update.verify_partition` (and of the circuit's
    ``values`` / ``public_inputs``) from a document: sector_size, h and the three commitments."""
    return {"sector_size": doc["sector_size"], "h": doc["h"], "comm_r_old": bytes(doc["comm_r_old"]),
            "comm_d_new": bytes(doc["comm_d_new"]), "comm_r_new": bytes(doc["comm_r_new"])}


def verify_update(doc: dict, path="<update>") -> None:
    """Check a document completely: schema, size and h allowed, the partition count, every
    partition's vanilla proof (:func:`cuzk.sector.update.verify_partition`).

    Raises:
        UpdateFileError: names ``path`` and the first bad field (``partitions/<k>/<check>`` for a
        refused proof, the check as :class:`~cuzk.sector.update.UpdateProofError` names it).
    """
    check_schema(doc, SCHEMA, path, error=UpdateFileError)
    size = doc["sector_size"]
    if size not in su.ALLOWED_SECTOR_SIZES:
        raise UpdateFileError(path, "sector_size", f"{size} is not a SnapDeals size")
    if doc["h"] not in su.hs(size):
        raise UpdateFileError(path, "h", f"{doc['h']} is not allowed for {size}-byte sectors (hs: {su.hs(size)})")
    n = su.partition_count(size)
    if len(doc["partitions"]) != n:
        raise UpdateFileError(path, "partitions", f"{len(doc['partitions'])} partitions, {size}-byte sectors have {n}")
    pub = publics(doc)
    for k in range(n):
        try:
            su.verify_partition(partition_proof(doc, k), k, **pub)
        except su.UpdateProofError as e:
            raise UpdateFileError(path, f"partitions/{k}/{e.what}", str(e)) from None
        except su.UpdateError as e:
            raise UpdateFileError(path, f"partitions/{k}", str(e)) from None


def read_update(path) -> dict:
    """Read a SnapDeals input file and check it fully (:func:`verify_update`).

    Raises:
        UpdateFileError: names the file and the first bad field. OSError: unreadable file.
    """
    return read_verified(path, UpdateFileError, verify_update)
