"""bincode of rust-fil-proofs' Merkle proofs: the part shared by Filecoin's PoSt vproofs
(:mod:`cuzk.sector.filecoin_post`) and SnapDeals partition proofs (:mod:`cuzk.sector.filecoin_update`).

Facts from the upstream source (rust-fil-proofs 87348a74, filecoin-proofs-api 0e64ce8):

* filecoin-proofs-api hands vanilla proofs over as ``bincode::serialize`` of the proof struct
  (``src/post.rs`` ``generate_single_vanilla_proof``, ``src/update.rs``
  ``generate_partition_proofs``): bincode 1 with its default options, i.e. little-endian
  fixed-width integers, a sequence's length as u64, an enum variant as its index (u32), ``usize``
  as u64, a ``[u8; 32]`` (and its newtypes ``PoseidonDomain``, ``Sha256Domain``) as its 32 bytes
  without a length; struct fields in declaration order, nothing between them.
* storage-proofs-core ``merkle/proof.rs``: MerkleProof = {data: ProofData}; ProofData variants
  Single (0) {root, leaf, path}, Sub (1) {base_proof, sub_proof, root, leaf}, Top (2)
  {base_proof, sub_proof, top_proof, root, leaf}; an InclusionPath {path: Vec<PathElement>}; a
  PathElement {hashes: Vec<Domain>, index: usize} (``_arity`` skipped). Decoded here into the same
  serde dict layout that :mod:`cuzk.sector.filecoin_c1` reads from JSON, so field names in errors
  are upstream's.
"""

from __future__ import annotations

import struct

__all__ = ["VARIANTS", "Reader", "put_merkle"]

#: ProofData variant index → (name, fields in order).
VARIANTS = {0: ("Single", ("root", "leaf", "path")), 1: ("Sub", ("base_proof", "sub_proof", "root", "leaf")),
            2: ("Top", ("base_proof", "sub_proof", "top_proof", "root", "leaf"))}
_TAGS = {name: (tag, fields) for tag, (name, fields) in VARIANTS.items()}


class Reader:
    """Bounds-checked bincode reads of ``data`` (the bytes of file ``path``); every fault is
    ``error(path, field, message)`` naming the field in upstream's layout and the byte offset."""

    def __init__(self, data: bytes, path, error):
        self.data, self.path, self.error, self.o = data, path, error, 0

    def _take(self, n: int, field: str) -> bytes:
        if self.o + n > len(self.data):
            raise self.error(self.path, field, f"truncated at byte {self.o}: needs {n} bytes, {len(self.data) - self.o} left")
        self.o += n
        return self.data[self.o - n:self.o]

    def u64(self, field: str) -> int:
        return struct.unpack("<Q", self._take(8, field))[0]

    def count(self, field: str, item_bytes: int) -> int:
        """A sequence length, refused when its items (``item_bytes`` at least each) cannot fit."""
        at, n = self.o, self.u64(field)
        if n * item_bytes > len(self.data) - self.o:
            raise self.error(self.path, field, f"length {n} at byte {at} exceeds the {len(self.data) - self.o} bytes left")
        return n

    def domain(self, field: str) -> list[int]:
        """A 32-byte Domain value as a list of ints."""
        return list(self._take(32, field))

    def domains(self, field: str) -> list[list[int]]:
        """A ``Vec<Domain>``."""
        return [self.domain(f"{field}/{k}") for k in range(self.count(field, 32))]

    def inclusion_path(self, f: str) -> dict:
        """An InclusionPath as {"path": [{"hashes", "index"}]}; ``f`` names it."""
        els = []
        for k in range(self.count(f + "/path", 16)):
            g = f"{f}/path/{k}"
            els.append({"hashes": self.domains(g + "/hashes"), "index": self.u64(g + "/index")})
        return {"path": els}

    def merkle(self, f: str) -> dict:
        """A MerkleProof as its serde dict {"data": {variant: {...}}}; ``f`` names it ("" at the top)."""
        at, d = self.o, f"{f}/data" if f else "data"
        tag = struct.unpack("<I", self._take(4, d))[0]
        if tag not in VARIANTS:
            raise self.error(self.path, d, f"variant index {tag} at byte {at}; ProofData has 0 (Single), 1 (Sub), 2 (Top)")
        name, fields = VARIANTS[tag]
        g = f"{d}/{name}"
        return {"data": {name: {k: self.domain(f"{g}/{k}") if k in ("root", "leaf") else self.inclusion_path(f"{g}/{k}")
                                for k in fields}}}

    def finish(self) -> None:
        """Refuse bytes left over after the value."""
        if self.o != len(self.data):
            raise self.error(self.path, "<end>", f"{len(self.data) - self.o} bytes left over after byte {self.o}")


def put_merkle(out: list, m: dict) -> None:
    """Append the bincode of a MerkleProof serde dict (as :meth:`Reader.merkle` returns) to ``out``."""
    (name, body), = m["data"].items()
    tag, fields = _TAGS[name]
    out.append(struct.pack("<I", tag))
    for k in fields:
        if k in ("root", "leaf"):
            out.append(bytes(body[k]))
            continue
        out.append(struct.pack("<Q", len(body[k]["path"])))
        for el in body[k]["path"]:
            out.append(struct.pack("<Q", len(el["hashes"])))
            out.extend(bytes(h) for h in el["hashes"])
            out.append(struct.pack("<Q", el["index"]))
