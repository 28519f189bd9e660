"""Fr32 padding of sector data, exactly as Filecoin does it.

The unpadded byte stream is read as a little-endian bit stream (bit ``k`` of the stream is
bit ``k % 8`` of byte ``k // 8``). Every 254 consecutive bits become one 32-byte node,
stored little-endian, whose two most significant bits (bits 6 and 7 of byte 31) are zero,
so every node is a canonical BLS12-381 scalar. 127 input bytes (1016 bits) give exactly
4 nodes (128 bytes); padding works on whole 127-byte "quads".

Source: rust-fil-proofs ``fr32`` crate (padding: ``Fr32Reader`` in ``fr32/src/reader.rs``;
unpadding: ``write_unpadded`` in ``fr32/src/padding.rs``) and the Filecoin spec (“Fr32
padding”); the same layout is used by ``@web3-storage/data-segment`` (``src/fr32.js``).

Implementation: vectorized byte shifts with numpy, no per-bit work. Within a quad the
nodes start at bit 254*j = 8*(32*j - 1) + (8 - 2*j) for j = 1, 2, 3, so node j's byte i is
``(q[32j-1+i] >> (8-2j)) | (q[32j+i] << 2j)`` (low 8 bits), and its byte 31 is masked
with 0x3f. Large inputs are processed in blocks to bound temporary memory.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "UNPADDED_QUAD",
    "PADDED_QUAD",
    "fr32_pad",
    "fr32_unpad",
    "pad_sector",
    "unpadded_size",
]

UNPADDED_QUAD = 127  #: bytes of payload per quad of 4 nodes
PADDED_QUAD = 128  #: bytes of padded data per quad (4 nodes of 32 bytes)
NODE_SIZE = 32

# Quads per block: 8 Ki quads = 1 MiB of input, so the shift temporaries stay in cache
# (measured: 512 MiB pads in about 0.7 s on the 2-core dev machine; 8 MiB blocks took 1-2 s).
_BLOCK_QUADS = 1 << 13


def _as_u8(data, what: str) -> np.ndarray:
    """View bytes-like ``data`` (bytes, bytearray, memoryview, numpy uint8) as a 1-D uint8 array."""
    if isinstance(data, np.ndarray):
        if data.dtype != np.uint8:
            raise TypeError(f"{what} must be uint8, got dtype {data.dtype}")
        return data.reshape(-1)
    try:
        return np.frombuffer(memoryview(data).cast("B"), dtype=np.uint8)
    except TypeError as e:
        raise TypeError(f"{what} must be bytes-like, got {type(data).__name__}") from e


def unpadded_size(padded_size: int) -> int:
    """Payload capacity in bytes of ``padded_size`` bytes of Fr32-padded data (×127/128).

    Raises ValueError if ``padded_size`` is not a positive multiple of 128.
    """
    if padded_size <= 0 or padded_size % PADDED_QUAD:
        raise ValueError(f"padded size {padded_size} is not a positive multiple of {PADDED_QUAD} bytes")
    return padded_size // PADDED_QUAD * UNPADDED_QUAD


def _pad_quads(q: np.ndarray, out: np.ndarray) -> None:
    """Fr32-pad quads ``q`` (k, 127) uint8 into ``out`` (k, 128) uint8 (written in full)."""
    out[:, 0:32] = q[:, 0:32]
    for j in (1, 2, 3):
        b = 32 * j - 1  # first input byte touched by node j
        r = 8 - 2 * j  # bit offset of node j within that byte
        node = out[:, 32 * j : 32 * j + 32]
        np.right_shift(q[:, b : b + 32], r, out=node)
        if j < 3:
            node |= np.left_shift(q[:, b + 1 : b + 33], 8 - r)  # uint8: high bits drop
        else:  # node 3 ends at the quad's last byte: its byte 31 has no next input byte
            node[:, :31] |= np.left_shift(q[:, b + 1 : b + 32], 8 - r)
    out[:, 31::32] &= 0x3F


def _unpad_quads(p: np.ndarray, out: np.ndarray) -> None:
    """Inverse of :func:`_pad_quads`: ``p`` (k, 128) uint8 into ``out`` (k, 127) uint8.

    The two top bits of every node are ignored (treated as zero), as Filecoin's unpadding does.
    """
    k = p.shape[0]
    acc = np.zeros((k, PADDED_QUAD), dtype=np.uint8)  # one spare byte past the quad
    for j in range(4):
        node = p[:, 32 * j : 32 * j + 32].copy()
        node[:, 31] &= 0x3F
        if j == 0:
            acc[:, 0:32] |= node
            continue
        b = 32 * j - 1
        r = 8 - 2 * j
        # node bit t lands on stream bit 8*b + r + t
        acc[:, b : b + 32] |= np.left_shift(node, r)
        acc[:, b + 1 : b + 33] |= np.right_shift(node, 8 - r)
    out[:] = acc[:, :UNPADDED_QUAD]


def fr32_pad(data) -> bytes:
    """Fr32-pad ``data``: every 127 input bytes become 128 bytes (4 nodes of 254 bits each).

    ``data``: bytes-like or 1-D numpy uint8 array, length a multiple of 127 bytes (0 allowed).
    Returns ``bytes`` of length ``len(data) * 128 // 127``; every 32-byte node (little-endian)
    has its top two bits (``node[31] & 0xC0``) zero.

    Raises ValueError naming the length if it is not a multiple of 127.
    Source: rust-fil-proofs ``fr32/src/reader.rs`` (``Fr32Reader``); see the module docstring.
    """
    src = _as_u8(data, "data")
    return _fr32_pad_array(src).tobytes()


def _fr32_pad_array(src: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    n = src.size
    if n % UNPADDED_QUAD:
        raise ValueError(f"Fr32 padding needs a multiple of {UNPADDED_QUAD} bytes, got {n} bytes")
    k = n // UNPADDED_QUAD
    q = src.reshape(k, UNPADDED_QUAD)
    if out is None:
        out = np.empty(k * PADDED_QUAD, dtype=np.uint8)
    o = out.reshape(k, PADDED_QUAD)
    for s in range(0, k, _BLOCK_QUADS):
        _pad_quads(q[s : s + _BLOCK_QUADS], o[s : s + _BLOCK_QUADS])
    return out


def fr32_unpad(padded) -> bytes:
    """Inverse of :func:`fr32_pad`: every 128 bytes (4 nodes) become 127 bytes.

    ``padded``: bytes-like or 1-D numpy uint8 array, length a multiple of 128 bytes.
    The top two bits of each node are ignored (as in rust-fil-proofs ``fr32/src/padding.rs``
    ``write_unpadded``).
    Returns ``bytes`` of length ``len(padded) * 127 // 128``.
    Raises ValueError naming the length if it is not a multiple of 128.
    """
    src = _as_u8(padded, "padded")
    n = src.size
    if n % PADDED_QUAD:
        raise ValueError(f"Fr32 unpadding needs a multiple of {PADDED_QUAD} bytes, got {n} bytes")
    k = n // PADDED_QUAD
    p = src.reshape(k, PADDED_QUAD)
    out = np.empty((k, UNPADDED_QUAD), dtype=np.uint8)
    for s in range(0, k, _BLOCK_QUADS):
        _unpad_quads(p[s : s + _BLOCK_QUADS], out[s : s + _BLOCK_QUADS])
    return out.tobytes()


def pad_sector(payload, sector_size: int) -> bytes:
    """Lay ``payload`` out as a sector: zero-fill to ``sector_size * 127 // 128`` bytes, Fr32-pad.

    ``payload``: bytes-like or 1-D numpy uint8 array of unsealed data, at most
    ``sector_size * 127 // 128`` bytes (2032 bytes for a 2 KiB sector).
    ``sector_size``: padded sector size in bytes, a positive multiple of 128 (Filecoin's
    sizes are powers of two; this function does not require that).
    Returns ``bytes`` of exactly ``sector_size`` bytes, ``sector_size // 32`` nodes.

    Raises ValueError if ``sector_size`` is not a positive multiple of 128 or the payload
    does not fit. Zero bytes pad to zero nodes, so only the payload's quads are computed.
    """
    capacity = unpadded_size(sector_size)
    src = _as_u8(payload, "payload")
    n = src.size
    if n > capacity:
        raise ValueError(
            f"payload of {n} bytes does not fit a {sector_size}-byte sector "
            f"(capacity {capacity} bytes after Fr32 padding)"
        )
    out = np.zeros(sector_size, dtype=np.uint8)
    full = n - n % UNPADDED_QUAD
    if full:
        _fr32_pad_array(src[:full], out[: full // UNPADDED_QUAD * PADDED_QUAD])
    if full < n:  # the last partial quad, zero-filled
        tail = np.zeros(UNPADDED_QUAD, dtype=np.uint8)
        tail[: n - full] = src[full:]
        start = full // UNPADDED_QUAD * PADDED_QUAD
        _fr32_pad_array(tail, out[start : start + PADDED_QUAD])
    return out.tobytes()
