"""SDR label gadget (rust-fil-proofs' ``create_label_circuit``), vectorized over k labels.

The label of node ``v`` of layer ``l`` (see :mod:`cuzk.sector.labels`) is::

    sha254(replica_id ‖ u32_be(l) ‖ u64_be(v) ‖ 0^20 ‖ parent_0 ‖ … ‖ parent_36)

— one SHA-256 over 64 + 37·32 = 1248 bytes (19.5 blocks, 20 with the padding), the top two bits
of digest byte 31 cleared. Upstream (``storage-proofs-porep/src/stacked/circuit/create_label.rs``)
builds the message from ``Boolean``s: the replica id's bits (padded with constant false to 256),
``layer_index.into_bits_be()`` (a ``UInt32``; the StackedDRG circuit and upstream's test pass
``UInt32::constant(layer)``), ``node.to_bits_be()`` (a ``UInt64``: ``UInt64::constant`` in the
test, an allocated ``UInt64`` — 64 boolean bits — for a challenge in the proof circuit), constant
false up to 512 bits, then each parent's bits padded with constant false to 256. It hashes with
bellman's ``sha256`` gadget and packs the first ``Fr::CAPACITY = 254`` bits of the
byte-reversed-bit digest (``reverse_bit_numbering``) into one ``AllocatedNum`` (1 constraint).

Here the same message is made of bit literals (:mod:`cuzk.r1cs.sha256`): constants (layer, a
constant node, zero padding) are free, exactly as bellman's ``Boolean::Constant``; the hash is
:func:`cuzk.r1cs.sha256.sha256`, constraint for constraint bellman's. :func:`create_label` returns
the 254 label bits; :func:`create_label_num` also packs them (upstream's return value).

Bit orders (as :func:`cuzk.r1cs.sha254.sha254_node`): a 32-byte node (replica id, parent label,
output label) is given as ``(k, n)`` bits with byte ``i`` at bits ``8·i .. 8·i + 7``; with
``order="le"`` (default) bit ``8·i + t`` has weight ``2^t`` — the little-endian bits of the Fr
element whose canonical encoding the node is (``num_to_bits`` order; n ≤ 256, missing high bits
are constant 0, e.g. 254/255 bits of a label); with ``order="sha"`` bit ``8·i + t`` is bit
``7 − t`` of byte i (n = 256). An allocated node index is ``(k, 64)`` little-endian bits (bit i
weight 2^i, ``UInt64``'s order, e.g. from ``num_to_bits(cs, v, 64)``).

Constraint count: upstream's ``test_create_label`` asserts 532,025 for its whole test circuit —
38·256 = 9,728 allocated input bits (replica id and 37 parents via ``bytes_into_boolean_vec_be``,
one booleanity constraint each) + the hash + 1 packing constraint, with layer and node constant.
``tests/test_labeling_gadget.py`` rebuilds that circuit and finds the same count.
"""

from __future__ import annotations

import numpy as np

from .gadgets import pack_bits
from .sha254 import node_to_sha_order
from .sha256 import BIT0, const_bits, sha256

__all__ = ["TOTAL_PARENTS", "LABEL_BITS", "create_label", "create_label_num"]

TOTAL_PARENTS = 37
"""Parent labels hashed per label (6 DRG + 8 expander parents, repeated to 37)."""
LABEL_BITS = 254
"""Bits of a label (Fr::CAPACITY; bits 254, 255 of the digest are cleared)."""


def _node_bits_be(node, k: int, what: str) -> np.ndarray:
    """The node index as (k, 64) big-endian literals: constant for an int (or k equal ints),
    else the reversed (k, 64) little-endian literal array."""
    if isinstance(node, (int, np.integer)):
        vals = np.full(k, int(node), dtype=object)
    else:
        arr = np.asarray(node)
        if arr.ndim == 2:
            if arr.shape != (k, 64):
                raise ValueError(f"{what}: node bits must have shape ({k}, 64), got {arr.shape}")
            if arr.dtype.kind not in "iu":
                raise TypeError(f"{what}: bit literals must be an integer array, got dtype {arr.dtype}")
            return np.ascontiguousarray(arr.astype(np.int64)[:, ::-1])
        if arr.ndim != 1 or arr.shape[0] != k:
            raise ValueError(f"{what}: node must be an int, ({k},) ints or ({k}, 64) bit literals")
        vals = arr.astype(object)
        if k and any(int(x) != int(vals[0]) for x in vals):
            # a constant's bits are part of the circuit shape: different constants per instance
            # would give instances of different shapes
            raise ValueError(f"{what}: constant node indices must be equal in all k instances; "
                             "pass allocated (k, 64) bits for per-instance nodes")
    v = int(vals[0]) if k else 0
    if not 0 <= v < 1 << 64:
        raise ValueError(f"{what}: node {v} is not a u64")
    be = [(v >> (63 - i)) & 1 for i in range(64)]
    return np.ascontiguousarray(np.broadcast_to(const_bits(be), (k, 64)))


def create_label(cs, replica_id_bits, layer: int, node, parent_label_bits, order: str = "le",
                 gadget: str = "create_label") -> np.ndarray:
    """k SDR labels at once: sha254(replica_id ‖ u32_be(layer) ‖ u64_be(node) ‖ 0^160 ‖ parents).

    Args:
        cs: the constraint system.
        replica_id_bits: ``(k, n)`` bit literals of the 32-byte replica id in ``order``
            (n ≤ 256 for "le", 256 for "sha"). Variables must already be boolean.
        layer: the layer index, a constant u32 (as upstream's ``UInt32::constant``): free.
        node: the node index: an int (or ``(k,)`` equal ints) — a constant u64, free — or
            ``(k, 64)`` little-endian bit literals (an allocated ``UInt64``; must be boolean).
        parent_label_bits: ``(k, 37, n)`` bit literals of the parent labels in ``order``
            (n ≤ 256 for "le", e.g. 254; 256 for "sha").
        order: "le" or "sha", the bit order of the 32-byte inputs (module docstring).
        gadget: constraint name prefix (the hash's constraints are ``<gadget>/xor`` etc.).

    Returns:
        ``(k, 254)`` int64 refs (new aux variables) of the label's little-endian Fr bits: bit
        ``8·i + t`` is bit t of label byte i (always "le", whatever ``order``);
        ``pack_bits(cs, out)`` is the label as an Fr element.

    Constraints per label: those of a 1248-byte SHA-256 (bellman's count); inputs' booleanity
    is the caller's.

    Raises:
        ValueError: bad shapes, k mismatch, layer not a u32, bad order, non-boolean variables.
        TypeError: non-integer literals.
    """
    rid = node_to_sha_order(replica_id_bits, None, order, f"{gadget}: replica_id_bits")
    k = rid.shape[0]
    par = np.asarray(parent_label_bits)
    if par.ndim != 3 or par.shape[0] != k or par.shape[1] != TOTAL_PARENTS:
        raise ValueError(f"{gadget}: parent_label_bits must have shape ({k}, {TOTAL_PARENTS}, n), "
                         f"got {par.shape}")
    par = node_to_sha_order(par.reshape(k * TOTAL_PARENTS, par.shape[2]), None, order,
                             f"{gadget}: parent_label_bits").reshape(k, TOTAL_PARENTS * 256)
    layer = int(layer)
    if not 0 <= layer < 1 << 32:
        raise ValueError(f"{gadget}: layer {layer} is not a u32")
    layer_be = np.broadcast_to(const_bits([(layer >> (31 - i)) & 1 for i in range(32)]), (k, 32))
    node_be = _node_bits_be(node, k, gadget)
    zeros = np.full((k, 512 - 256 - 32 - 64), BIT0, dtype=np.int64)
    msg = np.concatenate([rid, layer_be, node_be, zeros, par], axis=1)
    digest = sha256(cs, msg, gadget=gadget)  # (k, 256), SHA-256 byte/bit order
    le = digest.reshape(k, 32, 8)[:, :, ::-1].reshape(k, 256)
    return np.ascontiguousarray(le[:, :LABEL_BITS])


def create_label_num(cs, replica_id_bits, layer: int, node, parent_label_bits, order: str = "le",
                     gadget: str = "create_label") -> np.ndarray:
    """As :func:`create_label`, packed into one Fr variable per label (upstream's return value,
    one more constraint per label). Returns ``(k,)`` int64 refs."""
    bits = create_label(cs, replica_id_bits, layer, node, parent_label_bits, order=order, gadget=gadget)
    return pack_bits(cs, bits, gadget=f"{gadget}/result_num")
