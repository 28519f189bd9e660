"""The SDR parent graph: 6 DRG parents (bucket sampling) + 8 expander parents (Feistel), as rust-fil-proofs.

Every node ``v`` of a sector of ``N = sector_size // 32`` nodes has 14 parents, stored in this
order (``StackedGraph::parents``, ``storage-proofs-porep/src/stacked/vanilla/graph.rs``)::

    parents[0:6]   DRG parents       (BucketGraph, same layer)
    parents[6:14]  expander parents  (Feistel permutation, previous layer)

**DRG parents** (``BucketGraph::parents`` in ``storage-proofs-core/src/drgraph.rs``), with
``m = BASE_DEGREE = 6`` and ``m' = 5``:

* node 0 and node 1: all six parents are 0.
* node ``v >= 2``: seed the ChaCha8 RNG (``rand_chacha::ChaCha8Rng::from_seed``) with the 32
  bytes ``drg_seed ‖ u32_le(v)``, where ``drg_seed = SHA-256("Filecoin_DRSample" ‖ porep_id)[:28]``
  (``derive_drg_seed`` in drgraph.rs, ``derive_porep_domain_seed`` and ``DRSAMPLE_DST`` in
  ``storage-proofs-core/src/crypto/mod.rs``). Let ``M = 5 v`` (the metagraph node) and
  ``B = ceil(log2 M)``. Five times::

      bucket   = (rng.next_u64() % B) + 1
      largest  = min(M, 1 << bucket)
      smallest = max(2, largest >> 1)
      distance = smallest + rng.next_u64() % (largest - smallest + 1)
      p        = (M - distance) // 5;   if p == v: p = v - 1

  API version 1.1/1.2 (all current proofs, ``StackedDrg*V1_1``): ``parents = [v-1, p1..p5]``;
  API version 1.0 (legacy ``StackedDrg*V1``): ``parents = [p1..p5, v-1]``.

**ChaCha8Rng** (rand_chacha 0.3; rand_core ``BlockRng::next_u64``): the ChaCha block function with
8 rounds, key = the 32-byte seed as 8 little-endian words, 64-bit block counter in words 12-13
starting at 0, stream id (words 14-15) 0. The output is the blocks' 16 words each, in order;
``next_u64 = word[i] | word[i+1] << 32`` (low word first). Ten u64 draws use words 0..19, i.e.
blocks 0 and 1; a u64 never straddles rand_chacha's 64-word buffer because draws start at word 0.
The block function is D. J. Bernstein's ChaCha (“ChaCha, a variant of Salsa20”, 2008; RFC 7539
§2.3 for the 20-round version with a 32-bit counter and 96-bit nonce, the same state layout).

**Expander parents** (``StackedGraph::correspondent`` in graph.rs; ``feistel.rs`` in
``storage-proofs-core/src/crypto/``), for ``i = 0..7``::

    parent_i = permute(8 N, 8 v + i) // 8

``permute`` is a 3-round Feistel network on ``2 h`` bits, where ``h`` is the least ``h >= 1``
with ``4**h >= 8 N`` (``feistel::precompute``), iterated until the result is ``< 8 N`` (cycle
walking). One encoding splits ``x`` into ``L = x >> h`` and ``R = x & (2**h - 1)``, and for each of
the first three keys ``k``: ``(L, R) = (R, L ^ F(R, k))``; the result is ``L << h | R``. The round
function is ``F(R, k) = BE-u64(BLAKE2b-512(u64_be(R) ‖ u64_be(k))[:8]) & (2**h - 1)`` (the
16-byte branch of ``feistel::feistel``, taken because ``Index`` is u64). The keys are
``SHA-256("Filecoin_Feistel" ‖ porep_id)`` read as four little-endian u64 (``derive_feistel_keys``
in graph.rs; ``FEISTEL_DST``); only the first three are used (``FEISTEL_ROUNDS = 3``).
Legacy API 1.0 truncates the permuted index to u32 before dividing by 8 (matters only at 64 GiB).

Since ``F`` only ever sees ``R < 2**h`` (``h <= 17`` for 64 GiB), this module tabulates ``F`` for
each round key once (``3 * 2**h`` BLAKE2b calls) and runs the network with numpy table lookups.
The ChaCha block function is likewise vectorized over nodes.

**Parent cache**: rust-fil-proofs' parent cache (``ParentCache::generate`` in
``storage-proofs-porep/src/stacked/vanilla/cache.rs``) is the ``(N, 14)`` u32 table above written
little-endian, node after node; ``storage-proofs-porep/parent_cache.json`` publishes its SHA-256
per sector size and porep id. Our cache is the same table as a ``.npy`` file (dtype ``<u4``, C
order), so its data payload is byte-identical to upstream's cache file.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np

from ..fileio import atomic_open

__all__ = [
    "BASE_DEGREE",
    "EXP_DEGREE",
    "DEGREE",
    "API_VERSIONS",
    "drg_seed",
    "feistel_keys",
    "chacha_block",
    "chacha8_u64s",
    "feistel_precompute",
    "feistel_permute",
    "feistel_invert_permute",
    "drg_parents",
    "expander_parents",
    "parents",
    "parents_many",
    "all_parents",
    "parents_cache_path",
]

BASE_DEGREE = 6  #: DRG parents per node (``drgraph::BASE_DEGREE``)
EXP_DEGREE = 8  #: expander parents per node (``graph::EXP_DEGREE``)
DEGREE = BASE_DEGREE + EXP_DEGREE  #: 14
FEISTEL_ROUNDS = 3
NODE_SIZE = 32
#: ``api_version`` values accepted: "1.0" (legacy V1 proofs), "1.1" and "1.2" (identical graphs).
API_VERSIONS = ("1.0", "1.1", "1.2")
_CACHE_FORMAT = 1  # bump if the on-disk layout changes
_CHUNK = 1 << 18  # nodes per vectorized chunk (bounds temporaries to tens of MiB)

_M32 = np.uint32(0xFFFFFFFF)
_SIGMA = np.frombuffer(b"expand 32-byte k", dtype="<u4").astype(np.uint32)


def _check_porep_id(porep_id) -> bytes:
    b = bytes(porep_id)
    if len(b) != 32:
        raise ValueError(f"porep_id must be 32 bytes, got {len(b)} bytes")
    return b


def _check_api(api_version: str) -> bool:
    """Return True for the legacy 1.0 graph."""
    if api_version not in API_VERSIONS:
        raise ValueError(f"api_version must be one of {API_VERSIONS}, got {api_version!r}")
    return api_version == "1.0"


def _nodes_of(sector_size: int) -> int:
    if sector_size < 4 * NODE_SIZE or sector_size & (sector_size - 1):
        raise ValueError(f"sector size {sector_size} is not a power of two of at least 4 nodes (128 bytes)")
    nodes = sector_size // NODE_SIZE
    if nodes > 1 << 32:
        raise ValueError(f"sector size {sector_size} has more than 2**32 nodes")
    return nodes


def drg_seed(porep_id) -> bytes:
    """28-byte DRG seed: ``SHA-256(b"Filecoin_DRSample" ‖ porep_id)[:28]`` (drgraph.rs ``derive_drg_seed``)."""
    return hashlib.sha256(b"Filecoin_DRSample" + _check_porep_id(porep_id)).digest()[:28]


def feistel_keys(porep_id) -> tuple[int, int, int, int]:
    """Four Feistel keys: ``SHA-256(b"Filecoin_Feistel" ‖ porep_id)`` as 4 LE u64 (graph.rs ``derive_feistel_keys``)."""
    h = hashlib.sha256(b"Filecoin_Feistel" + _check_porep_id(porep_id)).digest()
    return tuple(int.from_bytes(h[8 * i : 8 * i + 8], "little") for i in range(4))


# --------------------------------------------------------------------------- ChaCha


def _rotl(x: np.ndarray, n: int) -> np.ndarray:
    return (x << np.uint32(n)) | (x >> np.uint32(32 - n))


def chacha_block(state: np.ndarray, rounds: int = 8) -> np.ndarray:
    """ChaCha block function on input states ``state`` ((k, 16) uint32) -> (k, 16) uint32 output words.

    ``rounds`` is even (8, 12, 20); each double round is a column round on (0,4,8,12), (1,5,9,13),
    (2,6,10,14), (3,7,11,15) then a diagonal round on (0,5,10,15), (1,6,11,12), (2,7,8,13),
    (3,4,9,14); the quarter round is ``a+=b; d^=a; d<<<=16; c+=d; b^=c; b<<<=12; a+=b; d^=a;
    d<<<=8; c+=d; b^=c; b<<<=7``; the output is the final state plus the input state, word-wise
    mod 2**32 (Bernstein 2008; RFC 7539 §2.1-2.3). Serialize with ``.astype('<u4').tobytes()``.
    """
    s = np.ascontiguousarray(state, dtype=np.uint32)
    if s.ndim != 2 or s.shape[1] != 16:
        raise ValueError(f"state must have shape (k, 16), got {s.shape}")
    if rounds <= 0 or rounds % 2:
        raise ValueError(f"rounds must be a positive even number, got {rounds}")
    x = [s[:, i].copy() for i in range(16)]

    def qr(a, b, c, d):
        x[a] += x[b]; x[d] ^= x[a]; x[d] = _rotl(x[d], 16)  # noqa: E702
        x[c] += x[d]; x[b] ^= x[c]; x[b] = _rotl(x[b], 12)  # noqa: E702
        x[a] += x[b]; x[d] ^= x[a]; x[d] = _rotl(x[d], 8)  # noqa: E702
        x[c] += x[d]; x[b] ^= x[c]; x[b] = _rotl(x[b], 7)  # noqa: E702

    with np.errstate(over="ignore"):
        for _ in range(rounds // 2):
            qr(0, 4, 8, 12); qr(1, 5, 9, 13); qr(2, 6, 10, 14); qr(3, 7, 11, 15)  # noqa: E702
            qr(0, 5, 10, 15); qr(1, 6, 11, 12); qr(2, 7, 8, 13); qr(3, 4, 9, 14)  # noqa: E702
        out = np.stack(x, axis=1)
        out += s
    return out


def _chacha_states(keys: np.ndarray, counter: int) -> np.ndarray:
    """Input states for keys ((k, 8) uint32) at a 64-bit block counter, stream id 0 (rand_chacha layout)."""
    k = keys.shape[0]
    st = np.zeros((k, 16), dtype=np.uint32)
    st[:, 0:4] = _SIGMA
    st[:, 4:12] = keys
    st[:, 12] = np.uint32(counter & 0xFFFFFFFF)
    st[:, 13] = np.uint32(counter >> 32)
    return st


def chacha8_u64s(seeds: np.ndarray, count: int) -> np.ndarray:
    """The first ``count`` ``next_u64()`` outputs of ``rand_chacha::ChaCha8Rng::from_seed(seed)``.

    ``seeds``: (k, 32) uint8, one seed per row. Returns (k, count) uint64. ``count`` <= 32 (one
    64-word rand_chacha buffer; draws from word 0 never straddle it).
    """
    seeds = np.ascontiguousarray(seeds, dtype=np.uint8)
    if seeds.ndim != 2 or seeds.shape[1] != 32:
        raise ValueError(f"seeds must have shape (k, 32), got {seeds.shape}")
    if not 0 <= count <= 32:
        raise ValueError(f"count must be in 0..32, got {count}")
    keys = seeds.view("<u4").astype(np.uint32)
    nblocks = -(-2 * count // 16)
    words = np.concatenate([chacha_block(_chacha_states(keys, b), 8) for b in range(nblocks)], axis=1)
    w = words[:, : 2 * count].astype(np.uint64)
    return w[:, 0::2] | (w[:, 1::2] << np.uint64(32))


# --------------------------------------------------------------------------- Feistel


def feistel_precompute(num_elements: int) -> tuple[int, int, int]:
    """``(left_mask, right_mask, half_bits)`` for a domain of ``num_elements`` (feistel.rs ``precompute``)."""
    next_pow4, log4 = 4, 1
    while next_pow4 < num_elements:
        next_pow4 *= 4
        log4 += 1
    return ((1 << log4) - 1) << log4, (1 << log4) - 1, log4


def _round_table(key: int, half_bits: int) -> np.ndarray:
    """F(R, key) for every R in [0, 2**half_bits): BLAKE2b-512(u64_be(R) ‖ u64_be(key)), first 8 bytes BE, masked."""
    kb = key.to_bytes(8, "big")
    b2 = hashlib.blake2b
    raw = b"".join(b2(r.to_bytes(8, "big") + kb).digest()[:8] for r in range(1 << half_bits))
    return np.frombuffer(raw, dtype=">u8").astype(np.uint64) & np.uint64((1 << half_bits) - 1)


class _Feistel:
    def __init__(self, num_elements: int, keys):
        self.n = num_elements
        self.left_mask, self.right_mask, self.half = feistel_precompute(num_elements)
        self.tables = [_round_table(int(k), self.half) for k in list(keys)[:FEISTEL_ROUNDS]]
        if len(self.tables) != FEISTEL_ROUNDS:
            raise ValueError(f"need {FEISTEL_ROUNDS} Feistel keys")

    def _split(self, x):
        return (x & np.uint64(self.left_mask)) >> np.uint64(self.half), x & np.uint64(self.right_mask)

    def encode(self, x: np.ndarray) -> np.ndarray:
        left, right = self._split(x)
        for t in self.tables:
            left, right = right, left ^ t[right]
        return (left << np.uint64(self.half)) | right

    def decode(self, x: np.ndarray) -> np.ndarray:
        left, right = self._split(x)
        for t in reversed(self.tables):
            left, right = right ^ t[left], left
        return (left << np.uint64(self.half)) | right

    def _walk(self, x: np.ndarray, step) -> np.ndarray:
        u = step(np.asarray(x, dtype=np.uint64))
        bad = np.nonzero(u >= np.uint64(self.n))[0]
        while bad.size:
            u[bad] = step(u[bad])
            bad = bad[u[bad] >= np.uint64(self.n)]
        return u

    def permute(self, x):
        return self._walk(x, self.encode)

    def invert(self, x):
        return self._walk(x, self.decode)


def feistel_permute(num_elements: int, index, keys) -> np.ndarray:
    """feistel.rs ``permute``: 3-round Feistel with cycle walking into ``[0, num_elements)``.

    ``index``: int or array of ints in ``[0, num_elements)``; ``keys``: at least 3 u64 keys.
    Returns a uint64 array of the same shape.
    """
    f = _Feistel(num_elements, keys)
    return f.permute(np.atleast_1d(np.asarray(index, dtype=np.uint64))).reshape(np.shape(index))


def feistel_invert_permute(num_elements: int, index, keys) -> np.ndarray:
    """feistel.rs ``invert_permute``: the inverse of :func:`feistel_permute` for the same keys."""
    f = _Feistel(num_elements, keys)
    return f.invert(np.atleast_1d(np.asarray(index, dtype=np.uint64))).reshape(np.shape(index))


# --------------------------------------------------------------------------- parents


def drg_parents(nodes, seed: bytes, legacy: bool = False) -> np.ndarray:
    """The 6 DRG parents of each node in ``nodes`` (1-D ints), given the 28-byte ``seed``; (k, 6) uint32."""
    v = np.asarray(nodes, dtype=np.uint64).reshape(-1)
    out = np.zeros((v.size, BASE_DEGREE), dtype=np.uint32)
    sel = np.nonzero(v >= 2)[0]
    if sel.size == 0:
        return out
    vv = v[sel]
    seeds = np.empty((vv.size, 32), dtype=np.uint8)
    seeds[:, :28] = np.frombuffer(bytes(seed), dtype=np.uint8)
    seeds[:, 28:] = vv.astype("<u4").view(np.uint8).reshape(-1, 4)
    r = chacha8_u64s(seeds, 2 * (BASE_DEGREE - 1))
    mp = np.uint64(BASE_DEGREE - 1)
    m = vv * mp
    # ceil(log2 M) for integer M >= 2 is (M - 1).bit_length(); frexp's exponent is exact (M < 2**54).
    n_buckets = np.frexp((m - np.uint64(1)).astype(np.float64))[1].astype(np.uint64)
    one, two = np.uint64(1), np.uint64(2)
    rand = np.empty((vv.size, BASE_DEGREE - 1), dtype=np.uint64)
    for j in range(BASE_DEGREE - 1):
        bucket = r[:, 2 * j] % n_buckets + one
        largest = np.minimum(m, one << bucket)
        smallest = np.maximum(two, largest >> one)
        distance = smallest + r[:, 2 * j + 1] % (largest - smallest + one)
        p = (m - distance) // mp
        rand[:, j] = np.where(p == vv, vv - one, p)
    if legacy:
        out[sel, : BASE_DEGREE - 1] = rand
        out[sel, BASE_DEGREE - 1] = vv - one
    else:
        out[sel, 0] = vv - one
        out[sel, 1:] = rand
    return out


def expander_parents(nodes, num_nodes: int, feistel, legacy: bool = False) -> np.ndarray:
    """The 8 expander parents of each node in ``nodes``; ``feistel`` is keys or a prepared network. (k, 8) uint32."""
    f = feistel if isinstance(feistel, _Feistel) else _Feistel(num_nodes * EXP_DEGREE, feistel)
    v = np.asarray(nodes, dtype=np.uint64).reshape(-1, 1)
    a = (v * np.uint64(EXP_DEGREE) + np.arange(EXP_DEGREE, dtype=np.uint64)).reshape(-1)
    t = f.permute(a)
    if legacy:
        t = t & np.uint64(0xFFFFFFFF)
    return (t // np.uint64(EXP_DEGREE)).astype(np.uint32).reshape(-1, EXP_DEGREE)


def parents_many(sector_size: int, porep_id, nodes, *, api_version: str = "1.1") -> np.ndarray:
    """The 14 parents (6 DRG, then 8 expander) of every node in ``nodes``: (k, 14) uint32, row j
    = :func:`parents` of ``nodes[j]``. One call builds the Feistel round tables once (3 · 2^17
    BLAKE2b at 32 GiB, about 0.2 s), so ask for all the nodes you need together.

    Raises ValueError / IndexError for bad arguments, as :func:`parents`.
    """
    n = _nodes_of(sector_size)
    legacy = _check_api(api_version)
    try:
        v = np.asarray(nodes, dtype=np.int64).reshape(-1)
    except OverflowError:
        raise IndexError(f"a node is out of range for {n} nodes") from None
    bad = np.nonzero((v < 0) | (v >= n))[0]
    if bad.size:
        raise IndexError(f"node {int(v[bad[0]])} out of range for {n} nodes")
    out = np.empty((v.size, DEGREE), dtype=np.uint32)
    out[:, :BASE_DEGREE] = drg_parents(v, drg_seed(porep_id), legacy)
    out[:, BASE_DEGREE:] = expander_parents(v, n, feistel_keys(porep_id), legacy)
    return out


def parents(sector_size: int, porep_id, node: int, *, api_version: str = "1.1") -> list[int]:
    """The 14 parents of ``node`` (6 DRG, then 8 expander) as Python ints; see the module docstring.

    ``sector_size``: bytes, a power of two >= 128; ``porep_id``: 32 bytes (e.g.
    :func:`cuzk.sector.c1.porep_id`); ``node`` in ``[0, sector_size // 32)``.
    Raises ValueError / IndexError for bad arguments. For many nodes use :func:`parents_many`.
    """
    return parents_many(sector_size, porep_id, [node], api_version=api_version)[0].tolist()


def _cache_root() -> Path:
    return Path(os.environ.get("CUZK_CACHE_DIR") or Path.home() / ".cache" / "cuzk") / "sdr-parents"


def parents_cache_path(sector_size: int, porep_id, *, api_version: str = "1.1", cache_dir=None) -> Path:
    """Where :func:`all_parents` caches the table: ``<cache_dir>/parents-<size>-<porep_id hex>-api<v>-f<k>.npy``.

    ``cache_dir`` defaults to ``$CUZK_CACHE_DIR/sdr-parents`` or ``~/.cache/cuzk/sdr-parents``.
    """
    pid = _check_porep_id(porep_id)
    _check_api(api_version)
    api = "1.0" if api_version == "1.0" else "1.1"  # 1.1 and 1.2 graphs are identical
    root = Path(cache_dir) if cache_dir is not None else _cache_root()
    return root / f"parents-{sector_size}-{pid.hex()}-api{api}-f{_CACHE_FORMAT}.npy"


def _generate(n: int, pid: bytes, legacy: bool, write) -> None:
    seed = drg_seed(pid)
    f = _Feistel(n * EXP_DEGREE, feistel_keys(pid))
    for s in range(0, n, _CHUNK):
        nodes = np.arange(s, min(n, s + _CHUNK), dtype=np.uint64)
        block = np.empty((nodes.size, DEGREE), dtype="<u4")
        block[:, :BASE_DEGREE] = drg_parents(nodes, seed, legacy)
        block[:, BASE_DEGREE:] = expander_parents(nodes, n, f, legacy)
        write(block)


def all_parents(
    sector_size: int, porep_id, *, api_version: str = "1.1", cache: bool = True, cache_dir=None
) -> np.ndarray:
    """All nodes' parents: ``(N, 14)`` uint32 (little-endian), row ``v`` = :func:`parents` of ``v``.

    With ``cache`` (default) the table is read from / written to :func:`parents_cache_path`
    (written atomically through :func:`cuzk.fileio.atomic_open`, streamed in chunks, so memory
    stays bounded while generating) and returned as a read-only memory map; a cache file of the
    wrong shape or dtype is regenerated. Without ``cache`` it is computed in memory.
    The array's bytes are exactly rust-fil-proofs' parent cache file (see the module docstring).
    """
    n = _nodes_of(sector_size)
    legacy = _check_api(api_version)
    pid = _check_porep_id(porep_id)
    if not cache:
        out = np.empty((n, DEGREE), dtype="<u4")
        pos = [0]

        def put(block):
            out[pos[0] : pos[0] + block.shape[0]] = block
            pos[0] += block.shape[0]

        _generate(n, pid, legacy, put)
        return out
    path = parents_cache_path(sector_size, pid, api_version=api_version, cache_dir=cache_dir)
    if path.exists():
        try:
            arr = np.load(path, mmap_mode="r")
            if arr.shape == (n, DEGREE) and arr.dtype == np.dtype("<u4") and arr.flags.c_contiguous:
                return arr
        except (ValueError, OSError):
            pass
    with atomic_open(path) as fh:
        np.lib.format.write_array_header_1_0(
            fh, {"descr": np.lib.format.dtype_to_descr(np.dtype("<u4")), "fortran_order": False, "shape": (n, DEGREE)}
        )
        _generate(n, pid, legacy, lambda block: fh.write(block.tobytes()))
    return np.load(path, mmap_mode="r")
