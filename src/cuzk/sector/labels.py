"""SDR labeling: the stacked layers of labels over the parent graph, as rust-fil-proofs.

Layer ``l`` (1-based, ``l = 1..layers``), node ``v`` (source: ``create_label`` and
``create_label_exp`` in ``storage-proofs-porep/src/stacked/vanilla/create_label/single.rs``;
the parent data order in ``StackedGraph::copy_parents_data_inner`` /
``copy_parents_data_inner_exp`` in ``storage-proofs-porep/src/stacked/vanilla/graph.rs``; the
multicore labeler ``create_label/multi.rs`` computes the same)::

    header = replica_id (32 bytes) ‖ u32_be(l) ‖ u64_be(v) ‖ 20 zero bytes        # 64 bytes
    v == 0:     label = sha254(header)
    layer 1:    P = [L_1[p] for p in drg(v)]                                       # 6 labels
                label = sha254(header ‖ P*6 ‖ P[0])                               # 37 parents
    layer l>1:  P = [L_l[p] for p in drg(v)] + [L_{l-1}[p] for p in exp(v)]      # 14 labels
                label = sha254(header ‖ P ‖ P ‖ P[0:9])                           # 37 parents

``sha254`` is SHA-256 with the two top bits of byte 31 cleared (``layer_labels[end-1] &=
0b0011_1111``), so each label is a canonical little-endian Fr element. ``drg(v)``/``exp(v)`` are
the 6 DRG and 8 expander parents of :mod:`cuzk.sector.graph` (the DRG parents are labels of the
*current* layer, already computed because every DRG parent is < v; the expander parents are labels
of the *previous* layer). sha2raw's ``finish``/``finish_with`` append standard SHA-256 padding, so
the message is exactly the bytes above (64 + 37*32 = 1248 bytes; 64 for node 0). Node 0 hashes no
parents in any layer; node 1's DRG parents are all node 0.

The key (last layer) then encodes the data: ``replica = data + key`` in Fr (issue 4).

Each label depends on its predecessor, so a layer is a sequential loop of one hashlib call per
node; the parent table comes from :func:`cuzk.sector.graph.all_parents` (cached on disk).
"""

from __future__ import annotations

import hashlib
import struct

import numpy as np

from .graph import BASE_DEGREE, DEGREE, all_parents

__all__ = ["label_layers", "label_header"]

NODE_SIZE = 32


def label_header(replica_id: bytes, layer: int, node: int) -> bytes:
    """The 64-byte first SHA-256 block of a label: ``replica_id ‖ u32_be(layer) ‖ u64_be(node) ‖ 0^20``."""
    return bytes(replica_id) + struct.pack(">IQ", layer, node) + bytes(20)


_CHUNK = 1 << 16  # nodes whose parent rows are converted to Python lists at a time


def _label_layer(rid: bytes, layer: int, parents: np.ndarray, prev: bytes | None, n: int) -> bytearray:
    lab = bytearray(n * NODE_SIZE)
    sha = hashlib.sha256
    pack = struct.pack
    zeros = bytes(20)
    lab[0:32] = sha(rid + pack(">IQ", layer, 0) + zeros).digest()  # node 0: no parents
    lab[31] &= 0x3F
    for s in range(0, n, _CHUNK):
        par = np.asarray(parents[s : s + _CHUNK]).tolist()
        v = s
        if prev is None:  # layer 1: the 6 DRG parents, repeated to 37
            for p in par:
                if v:
                    o = v * 32
                    pb = b"".join([lab[q * 32 : q * 32 + 32] for q in p[:BASE_DEGREE]])
                    lab[o : o + 32] = sha(rid + pack(">IQ", layer, v) + zeros + pb * 6 + pb[:32]).digest()
                    lab[o + 31] &= 0x3F
                v += 1
        else:  # DRG parents from this layer, expander parents from the previous one
            for p in par:
                if v:
                    o = v * 32
                    pb = b"".join(
                        [lab[q * 32 : q * 32 + 32] for q in p[:BASE_DEGREE]]
                        + [prev[q * 32 : q * 32 + 32] for q in p[BASE_DEGREE:]]
                    )
                    lab[o : o + 32] = sha(rid + pack(">IQ", layer, v) + zeros + pb + pb + pb[: 9 * 32]).digest()
                    lab[o + 31] &= 0x3F
                v += 1
    return lab


def label_layers(
    replica_id: bytes,
    sector_size: int,
    layers: int,
    porep_id: bytes,
    *,
    api_version: str = "1.1",
    parents: np.ndarray | None = None,
    cache_dir=None,
) -> list[np.ndarray]:
    """Label all ``layers`` SDR layers of a sector; returns ``layers`` arrays of shape (N, 32), uint8.

    ``replica_id``: 32 bytes (its Fr little-endian encoding, e.g. :func:`cuzk.sector.c1.replica_id`).
    ``sector_size``: bytes, a power of two >= 128 (N = sector_size // 32 nodes).
    ``layers``: >= 1 (2 for the 2 KiB/8 MiB/512 MiB proofs, 11 for 32/64 GiB).
    ``porep_id``: 32 bytes (:func:`cuzk.sector.c1.porep_id`).
    ``parents``: the (N, 14) table of :func:`cuzk.sector.graph.all_parents` if already at hand;
    otherwise it is loaded or built through the on-disk cache (``cache_dir`` as there).
    Element ``i`` is layer ``i + 1``; the last one is the key. Every label's byte 31 is < 0x40.
    Memory: the layers returned (``layers * sector_size`` bytes) plus one more layer while
    running; the parent table stays a memory map and is read in chunks. Raises ValueError for a bad replica_id, layer count or sector size.
    """
    rid = bytes(replica_id)
    if len(rid) != 32:
        raise ValueError(f"replica_id must be 32 bytes, got {len(rid)} bytes")
    if layers < 1:
        raise ValueError(f"layers must be >= 1, got {layers}")
    if parents is None:
        parents = all_parents(sector_size, porep_id, api_version=api_version, cache_dir=cache_dir)
    n = sector_size // NODE_SIZE
    if parents.shape != (n, DEGREE):
        raise ValueError(f"parents table has shape {parents.shape}, expected {(n, DEGREE)}")
    out = []
    prev = None
    for layer in range(1, layers + 1):
        lab = _label_layer(rid, layer, parents, prev, n)
        prev = bytes(lab)
        out.append(np.frombuffer(prev, dtype=np.uint8).reshape(n, NODE_SIZE))
    return out
