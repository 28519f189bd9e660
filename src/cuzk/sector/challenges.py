"""Interactive PoRep challenges, derived as rust-fil-proofs derives them.

Formula (``InteractiveChallenges::derive`` in rust-fil-proofs
``storage-proofs-porep/src/stacked/vanilla/challenges.rs``, with ``bigint_to_challenge`` in
the same file; unchanged since the v1.0 proofs, where it was ``LayerChallenges::derive``)::

    N = sector_size // 32                                # nodes in the sector
    for i in 0 .. count-1:                               # count = challenges per partition
        j    = count * partition + i                     # global challenge index, a u32
        h    = SHA-256(replica_id ‖ seed ‖ u32_le(j))    # 32 + 32 + 4 = 68 bytes hashed
        c_i  = (int.from_bytes(h, "little") mod (N - 1)) + 1

So node 0 is never challenged, and partition k's challenges continue the global sequence
where partition k-1's stopped (one partition of 10*18 challenges equals ten partitions of 18,
a property rust-fil-proofs tests). Note the index is 4 bytes (``u32::to_le_bytes``), not 8.
``replica_id`` is hashed as its 32-byte little-endian field representation
(``Domain::into_bytes``); ``seed`` is the 32-byte interactive randomness from the chain.

Challenge counts: ``filecoin-proofs/src/constants.rs`` (``POREP_PARTITIONS``,
``get_porep_interactive_minimum_challenges``) and ``filecoin-proofs/src/parameters.rs``
(``select_challenges``: per partition = ceil(minimum / partitions)):
2 KiB, 8 MiB, 512 MiB: 1 partition, minimum 2 → 2 per partition;
32 GiB, 64 GiB: 10 partitions, minimum 176 → 18 per partition (180 in all).
"""

from __future__ import annotations

import hashlib

__all__ = [
    "SECTOR_SIZES",
    "POREP_PARTITIONS",
    "POREP_MINIMUM_CHALLENGES",
    "challenge_counts",
    "derive_challenges",
    "derive_all_challenges",
]

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30

#: Filecoin's registered sector sizes (bytes). rust-fil-proofs also knows test-only sizes
#: (4, 16, 32 KiB, 16 MiB, 1 GiB); they are deliberately not listed here.
SECTOR_SIZES = (2 * KIB, 8 * MIB, 512 * MIB, 32 * GIB, 64 * GIB)

#: Partitions per PoRep proof (``POREP_PARTITIONS`` in filecoin-proofs/src/constants.rs).
POREP_PARTITIONS = {2 * KIB: 1, 8 * MIB: 1, 512 * MIB: 1, 32 * GIB: 10, 64 * GIB: 10}

#: Minimum interactive PoRep challenges per sector
#: (``get_porep_interactive_minimum_challenges`` in filecoin-proofs/src/constants.rs).
POREP_MINIMUM_CHALLENGES = {2 * KIB: 2, 8 * MIB: 2, 512 * MIB: 2, 32 * GIB: 176, 64 * GIB: 176}


def size_name(n: int) -> str:
    """A byte size as Filecoin names sector sizes: 2048 → "2KiB", 32 GiB → "32GiB", 256 → "256B"."""
    for unit, sz in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= sz and n % sz == 0:
            return f"{n // sz}{unit}"
    return f"{n}B"


def challenge_counts(sector_size: int) -> tuple[int, int]:
    """Return ``(partitions, challenges_per_partition)`` for a Filecoin sector size in bytes.

    ``challenges_per_partition = ceil(minimum / partitions)`` as in filecoin-proofs
    ``select_challenges``: (1, 2) for 2 KiB, 8 MiB and 512 MiB; (10, 18) for 32 and 64 GiB.
    Raises ValueError for a size that is not one of :data:`SECTOR_SIZES`.
    """
    if sector_size not in POREP_PARTITIONS:
        raise ValueError(
            f"unknown sector size {sector_size} bytes; Filecoin's are {', '.join(map(str, SECTOR_SIZES))}"
        )
    partitions = POREP_PARTITIONS[sector_size]
    minimum = POREP_MINIMUM_CHALLENGES[sector_size]
    return partitions, -(-minimum // partitions)


def _check32(value, name: str) -> bytes:
    try:
        b = bytes(value)
    except TypeError as e:
        raise TypeError(f"{name} must be 32 bytes, got {type(value).__name__}") from e
    if len(b) != 32:
        raise ValueError(f"{name} must be 32 bytes, got {len(b)} bytes")
    return b


def derive_challenges(replica_id: bytes, seed: bytes, sector_size: int, partition: int, count: int) -> list[int]:
    """Challenged node indices of one partition of an interactive PoRep proof.

    ``replica_id``, ``seed``: 32 bytes each (replica_id in its little-endian field encoding).
    ``sector_size``: sector size in bytes; any power of two with more than 2 nodes of 32
    bytes is accepted (so test-only shapes work); Filecoin's sizes are :data:`SECTOR_SIZES`.
    ``partition``: k, 0 <= k <= 255 (a u8 upstream). ``count``: challenges per partition
    (see :func:`challenge_counts`).
    Returns ``count`` node indices (Python ints) in ``[1, sector_size // 32)``, in order
    i = 0..count-1; duplicates are possible and kept, as upstream.

    Formula: ``c_i = (LE-int(SHA-256(replica_id ‖ seed ‖ u32_le(count*k + i))) mod (N-1)) + 1``
    with ``N = sector_size // 32``; from rust-fil-proofs
    ``storage-proofs-porep/src/stacked/vanilla/challenges.rs`` (``InteractiveChallenges::derive``,
    ``bigint_to_challenge``). See the module docstring.
    Raises ValueError for a wrong-length replica_id/seed, a bad sector size, partition or
    count, or a global index that does not fit in a u32.
    """
    rid = _check32(replica_id, "replica_id")
    sd = _check32(seed, "seed")
    if sector_size <= 0 or sector_size & (sector_size - 1) or sector_size // 32 <= 2:
        raise ValueError(f"sector size {sector_size} is not a power of two of more than 2 nodes (64 bytes)")
    nodes = sector_size // 32
    if nodes > 1 << 32:  # upstream: debug_assert!(sector_nodes < 1 << 32) on the usize path
        raise ValueError(f"sector size {sector_size} has more than 2**32 nodes")
    if not 0 <= partition <= 255:
        raise ValueError(f"partition must be in 0..255 (u8), got {partition}")
    if count < 1:
        raise ValueError(f"count must be >= 1, got {count}")
    first = count * partition
    if first + count - 1 >= 1 << 32:
        raise ValueError(f"challenge index {first + count - 1} does not fit in a u32")
    prefix = hashlib.sha256(rid + sd)
    out = []
    for j in range(first, first + count):
        h = prefix.copy()
        h.update(j.to_bytes(4, "little"))
        out.append(int.from_bytes(h.digest(), "little") % (nodes - 1) + 1)
    return out


def derive_all_challenges(replica_id: bytes, seed: bytes, sector_size: int) -> list[list[int]]:
    """All partitions' challenges for a Filecoin sector size: ``[partition][i] -> node index``.

    Uses :func:`challenge_counts` for the shape and :func:`derive_challenges` per partition.
    Raises ValueError for a sector size that is not one of :data:`SECTOR_SIZES`.
    """
    partitions, per = challenge_counts(sector_size)
    return [derive_challenges(replica_id, seed, sector_size, k, per) for k in range(partitions)]
