"""Filecoin's Merkle node hash over SHA-256 in R1CS ("sha254": SHA-256 of left ‖ right with the
digest's top two bits cleared, ``Sha256Hasher``/``hash2_circuit`` of rust-fil-proofs), k nodes at
once, on the SHA-256 gadget of :mod:`cuzk.r1cs.sha256`; bit orders as described there."""

from __future__ import annotations

import numpy as np

from .gadgets import num_to_bits, pack_bits
from .sha256 import BIT0, CAPACITY, sha256
from .system import ConstraintSystem


def node_to_sha_order(bits, k, order: str, what: str) -> np.ndarray:
    """(k, 256) int64 bit literals of 32-byte nodes in SHA-256 order from ``bits`` in ``order``
    ("le": field-element bits, at most 256, missing high bits constant 0; "sha": as is).

    Raises:
        ValueError: wrong shape or order. TypeError: non-integer bits.
    """
    arr = np.asarray(bits)
    if arr.ndim != 2 or (k is not None and arr.shape[0] != k):
        raise ValueError(f"{what}: expected shape (k, 256), got {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{what}: bit literals must be an integer array, got dtype {arr.dtype}")
    arr = arr.astype(np.int64)
    kk, n = arr.shape
    if order == "le":
        if not 1 <= n <= 256:
            raise ValueError(f"{what}: expected at most 256 bits, got {n}")
        if n < 256:
            arr = np.concatenate([arr, np.full((kk, 256 - n), BIT0, dtype=np.int64)], axis=1)
        return arr.reshape(kk, 32, 8)[:, :, ::-1].reshape(kk, 256)
    if order == "sha":
        if n != 256:
            raise ValueError(f"{what}: expected 256 bits, got {n}")
        return arr
    raise ValueError(f"sha254_node: order must be 'le' or 'sha', not {order!r}")


def sha254_node(cs: ConstraintSystem, left_bits, right_bits, order: str = "le",
                gadget: str = "sha254_node") -> np.ndarray:
    """Filecoin's Merkle node hash (SHA-256 of the 64-byte left ‖ right, the last byte's top two
    bits cleared: ``Sha256Hasher``/"sha254", as in ``hash2_circuit``), k nodes at once.

    Two compressions: the data block (from the IV) and the padding block (constant: no schedule
    constraints).

    Args:
        left_bits, right_bits: ``(k, n)`` bit literals of the 32-byte nodes, byte i of the node
            at bits 8·i .. 8·i + 7. Within a byte: ``order="le"`` (default) bit 8·i + t has
            weight 2^t — the little-endian bits of the field element whose canonical 32-byte
            encoding the node is (the order of ``num_to_bits``); n ≤ 256 then, missing high bits
            are constant 0 (e.g. 255 bits of an Fr element). ``order="sha"``: bit 8·i + t is bit
            7 − t (MSB first, SHA-256 order), n = 256.
        gadget: constraint name prefix.

    Returns:
        ``(k, 256)`` int64 literals of the 32-byte digest in the same order. The two cleared bits
        (bits 7 and 6 of byte 31) are the constant BIT0: columns 255 and 254 in "le" order (so
        ``out[:, :254]`` are plain refs and ``pack_bits(cs, out[:, :254])`` is the node as an Fr
        element), columns 248 and 249 in "sha" order.
    """
    left = node_to_sha_order(left_bits, None, order, "sha254_node: left_bits")
    right = node_to_sha_order(right_bits, left.shape[0], order, "sha254_node: right_bits")
    k = left.shape[0]
    digest = sha256(cs, np.concatenate([left, right], axis=1), gadget=gadget).copy()
    digest[:, 248:250] = BIT0
    if order == "le":
        digest = digest.reshape(k, 32, 8)[:, :, ::-1].reshape(k, 256)
    return np.ascontiguousarray(digest)


def sha254_hash2(cs: ConstraintSystem, a_refs, b_refs, gadget: str = "sha254_hash2") -> np.ndarray:
    """Filecoin's ``Sha256Function::hash2_circuit`` on two Fr numbers, k pairs at once.

    Each number to its 255 little-endian bits (``to_bits_le``: booleanity and one packing
    constraint, ``{gadget}/to_bits``), :func:`sha254_node` of the two (``{gadget}/sha256``) and the
    digest's 254 low bits packed into a new number (``{gadget}/pack``) -- 45,379 constraints a
    pair, the per-hash figure behind rust-fil-proofs' ``test_apex_por_gadget`` counts
    (``storage-proofs-update/src/gadgets.rs``).

    Args:
        a_refs, b_refs: ``(k,)`` int64 refs of the left and right numbers.

    Returns:
        ``(k,)`` int64 refs of the digests (aux).
    """
    lb = num_to_bits(cs, a_refs, 255, gadget=f"{gadget}/to_bits")
    rb = num_to_bits(cs, b_refs, 255, gadget=f"{gadget}/to_bits")
    digest = sha254_node(cs, lb, rb, order="le", gadget=f"{gadget}/sha256")
    return pack_bits(cs, digest[:, :CAPACITY], gadget=f"{gadget}/pack")


__all__ = ["node_to_sha_order", "sha254_hash2", "sha254_node"]
