"""PoSt vanilla proofs in Filecoin's own form: the per-sector ``FallbackPoStSectorProof`` bytes that
lotus and curio hand to ``generate_window_post_with_vanilla``, converted to and from cuzk's vanilla
PoSt file (:mod:`cuzk.sector.post`).

Facts from the upstream source (rust-fil-proofs, filecoin-proofs-api, go-state-types, ref-fvm, curio,
go-fil-commcid):

* filecoin-proofs-api ``src/post.rs`` ``generate_single_vanilla_proof`` returns
  ``bincode::serialize`` of the proof (bincode and MerkleProof layout:
  :mod:`cuzk.sector.filecoin_bincode`).
* filecoin-proofs ``src/types/mod.rs`` ``FallbackPoStSectorProof`` = {sector_id (u64), comm_r
  (PoseidonDomain: 32 bytes, little-endian Fr), vanilla_proof}; storage-proofs-post
  ``fallback/vanilla.rs`` ``Proof`` = {sectors: Vec<SectorProof>}, ``SectorProof`` =
  {inclusion_proofs: Vec<MerkleProof>, comm_c, comm_r_last}; a single-sector vanilla proof has one
  entry in ``sectors`` (``vanilla_proof``).
* The public facts are not in the vproof: a ``WindowPoStVerifyInfo`` as JSON (curio's
  ``postpub.json``): ``Randomness`` (base64), ``Proofs[].PoStProof`` (go-state-types ``abi``
  ``RegisteredPoStProof``: winning V1 0-4, window V1 5-9, window V1_1 10-14, sizes 2KiB, 8MiB,
  512MiB, 32GiB, 64GiB in that order; Go's window V1_1 is filecoin-proofs-api's V1_2, API 1.2),
  ``ChallengedSectors[]`` {SealProof, SectorNumber, SealedCID}, ``Prover`` (actor id; its
  prover_id as :func:`cuzk.sector.filecoin_c1.prover_id_of_actor`). The randomness has its top
  two bits cleared before proving and verifying (ref-fvm ``verify_post``, curio ``WdPostTask``:
  ``randomness[31] &= 0x3f``). A SealedCID is CIDv1, multibase ``b`` (base32, lower case), codec
  0xf102 (fil-commitment-sealed), multihash 0xb401 (poseidon-bls12_381-a2-fc1), 32-byte digest =
  comm_r (go-fil-commcid ``CIDToReplicaCommitmentV1``).

Only WindowPoSt is converted: a WinningPoSt vproof does not say how large the sector set was, which
cuzk's winning file records.
"""

from __future__ import annotations

import base64
import binascii
import os
import struct
from pathlib import Path

from ..fileio import atomic_write_bytes
from ..hash.poseidon import R
from .challenges import SECTOR_SIZES
from .filecoin_bincode import Reader, put_merkle
from .filecoin_c1 import cuzk_merkle, filecoin_field, filecoin_merkle, prover_id_of_actor
from .jsondoc import load_json
from .post import (FORMAT, PoStError, partition_count, partition_slots, post_params, read_post, registered_post_proof,
                   verify_post, write_post)
from .replica import comm_r as hash_comm_r, tree_shape

__all__ = ["POST_PROOFS", "decode_vproof", "decode_merkle_proof", "encode_vproof", "sealed_cid_comm_r", "read_public", "to_cuzk", "from_cuzk",
           "convert_to_cuzk", "convert_to_filecoin", "is_cuzk_post"]

#: go-state-types ``abi.RegisteredPoStProof`` number → (kind, sector size, api version).
POST_PROOFS = {**{i: ("winning", s, "1.0") for i, s in enumerate(SECTOR_SIZES)},
               **{5 + i: ("window", s, "1.0") for i, s in enumerate(SECTOR_SIZES)},
               **{10 + i: ("window", s, "1.2") for i, s in enumerate(SECTOR_SIZES)}}
_SEALED_CODEC, _POSEIDON_MH = 0xF102, 0xB401


# --- bincode ------------------------------------------------------------------------------------

def decode_vproof(data: bytes, path="<vproof>") -> dict:
    """Filecoin's ``FallbackPoStSectorProof`` bincode (module docstring) as its serde dict:
    {"sector_id", "comm_r": [32], "vanilla_proof": {"sectors": [{"inclusion_proofs": [MerkleProof
    dict], "comm_c", "comm_r_last"}]}}; 32-byte values as lists of ints.

    Raises:
        PoStError: truncated bytes, an impossible length, an unknown ProofData variant or bytes
        left over; names ``path``, the field in upstream's layout and the byte offset.
    """
    r = Reader(bytes(data), path, PoStError)
    doc = {"sector_id": r.u64("sector_id"), "comm_r": r.domain("comm_r")}
    sectors = []
    for s in range(r.count("vanilla_proof/sectors", 72)):
        f = f"vanilla_proof/sectors/{s}"
        proofs = [r.merkle(f"{f}/inclusion_proofs/{n}") for n in range(r.count(f + "/inclusion_proofs", 4))]
        sectors.append({"inclusion_proofs": proofs, "comm_c": r.domain(f + "/comm_c"),
                        "comm_r_last": r.domain(f + "/comm_r_last")})
    doc["vanilla_proof"] = {"sectors": sectors}
    r.finish()
    return doc


def decode_merkle_proof(data: bytes, path="<proof>") -> dict:
    """One storage-proofs-core ``MerkleProof``'s bincode (:mod:`cuzk.sector.filecoin_bincode`) as
    its serde dict.

    Raises:
        PoStError as :func:`decode_vproof` (field names start at ``data``).
    """
    r = Reader(bytes(data), path, PoStError)
    m = r.merkle("")
    r.finish()
    return m


def encode_vproof(doc: dict) -> bytes:
    """The bincode bytes of a :func:`decode_vproof` dict (fields in upstream's order)."""
    out = [struct.pack("<Q", doc["sector_id"]), bytes(doc["comm_r"]), struct.pack("<Q", len(doc["vanilla_proof"]["sectors"]))]
    for sp in doc["vanilla_proof"]["sectors"]:
        out.append(struct.pack("<Q", len(sp["inclusion_proofs"])))
        for m in sp["inclusion_proofs"]:
            put_merkle(out, m)
        out += [bytes(sp["comm_c"]), bytes(sp["comm_r_last"])]
    return b"".join(out)


# --- public facts --------------------------------------------------------------------------------

def _varint(b: bytes, o: int, what: str, where) -> tuple[int, int]:
    v = shift = 0
    while o < len(b):
        v |= (b[o] & 0x7F) << shift
        shift += 7
        o += 1
        if not b[o - 1] & 0x80:
            return v, o
    raise PoStError(where, what, "truncated varint")


def sealed_cid_comm_r(cid: str, where="<cid>", field: str = "SealedCID") -> bytes:
    """comm_r (32 bytes LE) of a sealed-sector CID (module docstring: go-fil-commcid's checks).

    Raises:
        PoStError naming ``where`` and ``field``: not base32 multibase, not CIDv1, another codec
        or multihash, a digest not 32 bytes or not a canonical Fr element.
    """
    if not isinstance(cid, str) or not cid.startswith("b"):
        raise PoStError(where, field, f"{cid!r} is not a base32 ('b') CID")
    body = cid[1:].upper()
    try:
        raw = base64.b32decode(body + "=" * (-len(body) % 8))
    except (binascii.Error, ValueError) as e:
        raise PoStError(where, field, f"not base32: {e}") from None
    o, facts = 0, []
    for what in ("version", "codec", "multihash", "digest length"):
        v, o = _varint(raw, o, f"{field} {what}", where)
        facts.append(v)
    version, codec, mh, n = facts
    if (version, codec, mh) != (1, _SEALED_CODEC, _POSEIDON_MH):
        raise PoStError(where, field, f"CIDv{version}, codec {codec:#x}, multihash {mh:#x}: a sealed commitment is "
                                      f"CIDv1, {_SEALED_CODEC:#x}, {_POSEIDON_MH:#x}")
    if n != 32 or len(raw) - o != 32:
        raise PoStError(where, field, f"digest of {len(raw) - o} bytes (length says {n}), expected 32")
    if int.from_bytes(raw[o:], "little") >= R:
        raise PoStError(where, field, "digest is not a canonical Fr element")
    return raw[o:]


def read_public(path) -> dict:
    """Public WindowPoSt facts from a ``WindowPoStVerifyInfo`` JSON (curio's ``postpub.json``).

    Returns:
        {"post_proof": abi number, "randomness": 32 bytes (top two bits cleared), "prover_id":
        32 bytes, "comm_r": {sector number: 32 bytes}}.

    Raises:
        PoStError naming ``path`` and the field (missing or malformed, mixed proof types, an
        unknown PoStProof, a repeated sector). OSError: unreadable file.
    """
    doc = load_json(path, PoStError)
    if not isinstance(doc, dict):
        raise PoStError(path, "<json>", "not a JSON object")
    for key, typ in (("Randomness", str), ("Proofs", list), ("ChallengedSectors", list), ("Prover", int)):
        if not isinstance(doc.get(key), typ) or (typ is list and not doc[key]):
            raise PoStError(path, key, f"missing or not a{' non-empty' if typ is list else ''} {typ.__name__}")
    try:
        rnd = bytearray(base64.b64decode(doc["Randomness"], validate=True))
    except (binascii.Error, ValueError) as e:
        raise PoStError(path, "Randomness", f"not base64: {e}") from None
    if len(rnd) != 32:
        raise PoStError(path, "Randomness", f"{len(rnd)} bytes, expected 32")
    rnd[31] &= 0x3F
    kinds = {p.get("PoStProof") if isinstance(p, dict) else None for p in doc["Proofs"]}
    if len(kinds) != 1 or (num := kinds.pop()) not in POST_PROOFS:
        raise PoStError(path, "Proofs/PoStProof", f"{sorted(map(str, kinds))}: one known RegisteredPoStProof expected")
    comm_r = {}
    for i, s in enumerate(doc["ChallengedSectors"]):
        n = s.get("SectorNumber") if isinstance(s, dict) else None
        if not isinstance(n, int) or not 0 <= n < 1 << 64 or n in comm_r:
            raise PoStError(path, f"ChallengedSectors/{i}/SectorNumber", f"{n!r}: not a new u64")
        cid = s.get("SealedCID")
        comm_r[n] = sealed_cid_comm_r(cid.get("/") if isinstance(cid, dict) else cid, path,
                                      f"ChallengedSectors/{i}/SealedCID")
    try:
        pid = prover_id_of_actor(doc["Prover"])
    except ValueError as e:
        raise PoStError(path, "Prover", str(e)) from None
    return {"post_proof": num, "randomness": bytes(rnd), "prover_id": pid, "comm_r": comm_r}


# --- conversion ----------------------------------------------------------------------------------

def _b(x) -> bytes:
    return bytes(x)


def to_cuzk(vproofs, post_proof: int, randomness: bytes, prover_id: bytes, comm_r: dict) -> dict:
    """cuzk's WindowPoSt vanilla dict from Filecoin vproofs, checked fully (:func:`verify_post`).

    Args:
        vproofs: (path, bytes) per sector, one vproof each (any order; sectors are proved in
            sector-number order, as upstream's ``BTreeMap``).
        post_proof: go-state-types ``RegisteredPoStProof`` number (:data:`POST_PROOFS`), window.
        randomness, prover_id: 32 bytes each (canonical Fr elements).
        comm_r: {sector number: 32-byte comm_r} the public (on-chain) commitments, e.g. from
            SealedCIDs (:func:`read_public`); exactly the vproofs' sectors.

    Returns:
        The vanilla dict (:mod:`cuzk.sector.post`'s layout). A partition with fewer sectors than
        ``sector_count`` (2349 at 32 GiB) is padded with its last sector's proof, as upstream's
        ``prove_all_partitions`` does; the padding entries are the same object (write_post
        writes each in full).

    Raises:
        PoStError naming the vproof file and the field in Filecoin's layout: bytes
        (:func:`decode_vproof`), a sector not in ``comm_r`` or repeated, comm_r differing from the
        public one, comm_c/comm_r_last not matching it, other than one SectorProof, a Merkle
        variant not the tree's, and every fault :func:`verify_post` finds (its field translated).
        Structure is checked for every file before any path is hashed.
    """
    if post_proof not in POST_PROOFS or POST_PROOFS[post_proof][0] != "window":
        raise PoStError("<public>", "PoStProof", f"{post_proof}: not a WindowPoSt RegisteredPoStProof {sorted(POST_PROOFS)}")
    kind, size, api = POST_PROOFS[post_proof]
    p = post_params(kind, size, api_version=api)
    shape = tree_shape(size)
    by_id = {}
    for path, data in vproofs:
        vp = decode_vproof(data, path)
        sid = vp["sector_id"]
        if sid not in comm_r:
            raise PoStError(path, "sector_id", f"sector {sid} is not among the challenged sectors {sorted(comm_r)}")
        if sid in by_id:
            raise PoStError(path, "sector_id", f"sector {sid} also in {by_id[sid][0]}")
        if _b(vp["comm_r"]) != _b(comm_r[sid]):
            raise PoStError(path, "comm_r", f"sector {sid}: differs from the public comm_r")
        secs = vp["vanilla_proof"]["sectors"]
        if len(secs) != 1:
            raise PoStError(path, "vanilla_proof/sectors", f"{len(secs)} sector proofs, a single-sector vproof has 1")
        f, sp = "vanilla_proof/sectors/0", secs[0]
        for key in ("comm_c", "comm_r_last"):
            if int.from_bytes(_b(sp[key]), "little") >= R:
                raise PoStError(path, f"{f}/{key}", "not a canonical Fr element")
        if hash_comm_r(_b(sp["comm_c"]), _b(sp["comm_r_last"])) != _b(comm_r[sid]):
            raise PoStError(path, f"{f}/comm_c", "Poseidon₂(comm_c, comm_r_last) differs from the sector's comm_r")
        entry = {"comm_c": sp["comm_c"], "comm_r_last": sp["comm_r_last"],
                 "inclusion_proofs": [cuzk_merkle(f"{f}/inclusion_proofs/{n}", m, shape, path, PoStError)
                                      for n, m in enumerate(sp["inclusion_proofs"])]}
        by_id[sid] = (path, entry)
    if missing := sorted(set(comm_r) - set(by_id)):
        raise PoStError("<vproofs>", "sector_id", f"no vproof for challenged sectors {missing}")
    ids = sorted(by_id)
    parts = [[by_id[ids[g]][1] for g in partition_slots(p, len(ids), j)] for j in range(partition_count(p, len(ids)))]
    doc = {"format": FORMAT, "kind": kind, "registered_proof": registered_post_proof(p), "api_version": api,
           "sector_size": size, "sector_count": p.sector_count, "challenge_count": p.challenge_count,
           "randomness": list(randomness), "prover_id": list(prover_id),
           "sectors": [{"id": i, "comm_r": list(comm_r[i])} for i in ids], "partitions": parts}
    try:
        verify_post(doc, "<converted>")
    except PoStError as e:
        raise _in_vproof(e, p, ids, by_id, size) from None
    return doc


def _in_vproof(e: PoStError, p, ids: list, by_id: dict, size: int) -> PoStError:
    """A :func:`verify_post` error on a converted doc, named in the vproof file that caused it."""
    msg = str(e)[len(f"{e.path}: {e.field}: "):]
    parts = e.field.split("/")
    if parts[0] == "partitions" and len(parts) > 2:
        g = int(parts[1]) * p.sector_count + int(parts[2])
        sid = ids[min(g, len(ids) - 1)]
        rest = "/".join(parts[3:])
        return PoStError(by_id[sid][0], filecoin_field(f"vanilla_proof/sectors/0/{rest}", size), msg)
    return PoStError("<public>", e.field, msg)


def from_cuzk(doc: dict, path="<post>") -> dict[int, bytes]:
    """Filecoin vproof bytes per sector number from a checked cuzk WindowPoSt vanilla dict.

    Raises:
        PoStError: a winning or synthetic file, or parameters other than a registered proof's.
    """
    if doc["kind"] != "window":
        raise PoStError(path, "kind", "only WindowPoSt files convert (module docstring)")
    if doc.get("synthetic"):
        raise PoStError(path, "synthetic", "a synthetic sector was never sealed; it has no Filecoin form")
    p = post_params(doc["kind"], doc["sector_size"], api_version=doc["api_version"],
                    sector_count=doc["sector_count"], challenge_count=doc["challenge_count"])
    if not p.is_filecoin:
        raise PoStError(path, "registered_proof", f"{doc['registered_proof']} has no Filecoin form")
    shape = tree_shape(p.sector_size)
    out = {}
    for g, s in enumerate(doc["sectors"]):
        e = doc["partitions"][g // p.sector_count][g % p.sector_count]
        sp = {"inclusion_proofs": [filecoin_merkle(m, shape) for m in e["inclusion_proofs"]],
              "comm_c": e["comm_c"], "comm_r_last": e["comm_r_last"]}
        out[s["id"]] = encode_vproof({"sector_id": s["id"], "comm_r": s["comm_r"], "vanilla_proof": {"sectors": [sp]}})
    return out


def is_cuzk_post(path) -> bool:
    """True when the file starts as cuzk's vanilla file does (``write_post``: ``{"format"``)."""
    with open(path, "rb") as f:
        return f.read(9) == b'{"format"'


def convert_to_cuzk(vproof_paths, out, public=None, *, post_proof: int | None = None, randomness: bytes | None = None,
                    prover_id: bytes | None = None, comm_r: dict | None = None) -> dict:
    """``cuzk post convert --to cuzk``: vproof files + public facts → cuzk's vanilla file at ``out``.

    ``public`` (a :func:`read_public` file) gives every fact; an argument given overrides it.
    Returns the doc. Raises PoStError (a missing fact is named as its field) as :func:`to_cuzk`.
    """
    facts = read_public(public) if public else {}
    given = {"post_proof": post_proof, "randomness": randomness, "prover_id": prover_id, "comm_r": comm_r}
    facts |= {k: v for k, v in given.items() if v is not None}
    for k in given:
        if k not in facts:
            raise PoStError(public or "<arguments>", k, "not given (pass a WindowPoStVerifyInfo JSON or the value)")
    vps = [(os.fspath(pth), Path(pth).read_bytes()) for pth in vproof_paths]
    doc = to_cuzk(vps, facts["post_proof"], facts["randomness"], facts["prover_id"], facts["comm_r"])
    write_post(out, doc)
    return doc


def convert_to_filecoin(post_path, out_dir) -> list[Path]:
    """``cuzk post convert --to filecoin``: a cuzk vanilla file (checked fully, :func:`read_post`)
    → ``<out_dir>/<sector number>.vproof`` per sector. Returns the paths written."""
    doc = read_post(post_path)
    d = Path(out_dir)
    d.mkdir(parents=True, exist_ok=True)
    written = []
    for sid, data in from_cuzk(doc, post_path).items():
        atomic_write_bytes(d / f"{sid}.vproof", data)
        written.append(d / f"{sid}.vproof")
    return written
