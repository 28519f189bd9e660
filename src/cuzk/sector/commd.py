"""comm_d: the binary sha254 Merkle tree over a sector's 32-byte nodes.

Filecoin's data commitment (comm_d, also the piece commitment CommP) is the root of a
binary Merkle tree whose leaves are the Fr32-padded sector's 32-byte nodes and whose
inner nodes are ``sha254(left ‖ right)``: SHA-256 of the 64-byte concatenation with the
two most significant bits of the last byte cleared (``out[31] &= 0x3f``), so every node is
a canonical little-endian BLS12-381 scalar.

Source: rust-fil-proofs ``filecoin-hashers/src/sha256.rs`` (``Sha256Function::hash2`` and
``trim_to_fr32``), ``filecoin-proofs/src/pieces.rs`` (``compute_comm_d``);
the Filecoin spec, “Piece commitment”; FRC-0058 / ``@web3-storage/data-segment``.

Hashing uses hashlib, one call per inner node; the calls for a layer run in one list
comprehension over 64-byte slices, in blocks, and the truncation is one numpy operation per
block. Measured on the 2-core dev machine: about 2.5 million hashes/s, i.e. roughly
70–80 MiB/s of sector data (a tree over n leaves costs n - 1 hashes). A ThreadPool does not
help: hashlib releases the GIL only for inputs of 2 KiB or more, and ours are 64 bytes;
a process pool loses to pickling on 2 cores (both measured).
"""

from __future__ import annotations

import hashlib
import hmac

import numpy as np

__all__ = [
    "NODE_SIZE",
    "sha254",
    "build_tree",
    "comm_d",
    "merkle_path",
    "verify_path",
    "zero_comm_d",
    "zero_subtree_roots",
]

NODE_SIZE = 32
_BLOCK_PAIRS = 1 << 16  # pairs hashed per block: bounds the temporary list of digests
_sha256 = hashlib.sha256


def sha254(data) -> bytes:
    """SHA-256 of ``data`` with the top two bits of the last byte cleared (32 bytes)."""
    h = bytearray(_sha256(data).digest())
    h[31] &= 0x3F
    return bytes(h)


def _hash_pairs(src: bytes, out: np.ndarray) -> None:
    """Hash consecutive 64-byte pairs of ``src`` into ``out`` ((len(src)//64, 32) uint8)."""
    sha = _sha256
    npairs = len(src) // 64
    for s in range(0, npairs, _BLOCK_PAIRS):
        e = min(npairs, s + _BLOCK_PAIRS)
        digests = b"".join([sha(src[i : i + 64]).digest() for i in range(64 * s, 64 * e, 64)])
        out[s:e] = np.frombuffer(digests, dtype=np.uint8).reshape(e - s, NODE_SIZE)
    out[:, 31] &= 0x3F


def _leaves(nodes) -> tuple[np.ndarray, bytes]:
    """Validate ``nodes`` and return ((n, 32) uint8 view, bytes of it)."""
    if isinstance(nodes, np.ndarray):
        if nodes.dtype != np.uint8:
            raise TypeError(f"nodes must be uint8, got dtype {nodes.dtype}")
        raw = nodes.tobytes()
    else:
        try:
            raw = bytes(memoryview(nodes).cast("B")) if not isinstance(nodes, bytes) else nodes
        except TypeError as e:
            raise TypeError(f"nodes must be bytes-like, got {type(nodes).__name__}") from e
    size = len(raw)
    if size == 0 or size % NODE_SIZE:
        raise ValueError(f"tree input of {size} bytes is not a positive multiple of {NODE_SIZE} bytes")
    n = size // NODE_SIZE
    if n & (n - 1):
        raise ValueError(f"tree input has {n} nodes ({size} bytes); the count must be a power of two")
    return np.frombuffer(raw, dtype=np.uint8).reshape(n, NODE_SIZE), raw


def build_tree(nodes) -> list[np.ndarray]:
    """Build the whole comm_d tree over ``nodes``.

    ``nodes``: bytes-like or numpy uint8, ``32 * 2**h`` bytes: the leaves (Fr32-padded sector
    data, e.g. :func:`cuzk.sector.fr32.pad_sector`'s output), h >= 0.
    Returns ``h + 1`` layers, leaves first and root last; layer ``l`` is a numpy array of
    shape ``(2**(h - l), 32)``, dtype uint8. The leaf layer is a read-only view of the input
    bytes (a copy when the input was not ``bytes``). Memory: about twice the input.
    Raises ValueError if the length is not 32 times a power of two.
    """
    leaves, raw = _leaves(nodes)
    layers = [leaves]
    while layers[-1].shape[0] > 1:
        nxt = np.empty((layers[-1].shape[0] // 2, NODE_SIZE), dtype=np.uint8)
        _hash_pairs(raw, nxt)
        layers.append(nxt)
        raw = nxt.tobytes()
    return layers


def comm_d(padded) -> bytes:
    """comm_d (32 bytes, the root node) of Fr32-padded data ``padded`` (``32 * 2**h`` bytes).

    Same tree as :func:`build_tree` but keeps only one layer at a time.
    Raises ValueError if the length is not 32 times a power of two.
    """
    leaves, raw = _leaves(padded)
    layer = leaves
    while layer.shape[0] > 1:
        nxt = np.empty((layer.shape[0] // 2, NODE_SIZE), dtype=np.uint8)
        _hash_pairs(raw, nxt)
        layer = nxt
        raw = nxt.tobytes()
    return layer[0].tobytes()


def merkle_path(tree: list[np.ndarray], index: int) -> list[bytes]:
    """Sibling nodes from leaf ``index`` up to (not including) the root.

    ``tree``: layers from :func:`build_tree`. Returns ``len(tree) - 1`` nodes of 32 bytes;
    element ``l`` is the sibling at layer ``l`` (``tree[l][(index >> l) ^ 1]``); bit ``l`` of
    ``index`` says whether the path node at height ``l`` is a right child (1) or left (0).
    Raises IndexError if ``index`` is not in ``[0, number of leaves)``.
    """
    n = tree[0].shape[0]
    if not 0 <= index < n:
        raise IndexError(f"leaf index {index} out of range for a tree of {n} leaves")
    return [tree[lvl][(index >> lvl) ^ 1].tobytes() for lvl in range(len(tree) - 1)]


def verify_path(leaf: bytes, index: int, path, root: bytes) -> bool:
    """Check that ``leaf`` at position ``index`` hashes up ``path`` to ``root``.

    ``leaf``, ``root``, each element of ``path``: 32 bytes. ``path`` as from
    :func:`merkle_path` (siblings leaf-to-root). Returns False (never raises) for a wrong
    root, a leaf or sibling of the wrong length, or an index outside ``[0, 2**len(path))``.
    """
    if len(leaf) != NODE_SIZE or len(root) != NODE_SIZE:
        return False
    if not isinstance(index, (int, np.integer)) or not 0 <= index < (1 << len(path)):
        return False
    node = bytes(leaf)
    for lvl, sib in enumerate(path):
        if len(sib) != NODE_SIZE:
            return False
        sib = bytes(sib)
        node = sha254(sib + node) if (index >> lvl) & 1 else sha254(node + sib)
    return hmac.compare_digest(node, bytes(root))


def zero_subtree_roots(height: int) -> list[bytes]:
    """Roots of all-zero subtrees of heights ``0..height`` (``2**l`` zero leaves each).

    Element 0 is the zero node (32 zero bytes); element ``l + 1`` is
    ``sha254(z_l ‖ z_l)``. Computed, not tabulated.
    """
    if height < 0:
        raise ValueError(f"height must be >= 0, got {height}")
    roots = [bytes(NODE_SIZE)]
    for _ in range(height):
        roots.append(sha254(roots[-1] * 2))
    return roots


def zero_comm_d(sector_size: int) -> bytes:
    """comm_d of an all-zero sector of ``sector_size`` bytes (a power of two, >= 32).

    Computed level by level (``h`` hashes for ``2**h`` leaves), so it costs nothing even for
    32 GiB. Raises ValueError for any other size.
    """
    if sector_size < NODE_SIZE or sector_size & (sector_size - 1):
        raise ValueError(f"sector size {sector_size} is not a power of two >= {NODE_SIZE} bytes")
    height = (sector_size // NODE_SIZE).bit_length() - 1
    return zero_subtree_roots(height)[-1]
