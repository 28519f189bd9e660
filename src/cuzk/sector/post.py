"""Filecoin fallback PoSt (WinningPoSt and WindowPoSt): sealed-sector files, challenges, vanilla proofs.

Everything follows rust-fil-proofs (commit 87348a74); file names below are in that repository.

**Parameters** (``filecoin-proofs/src/constants.rs``, ``parameters.rs``). A PoSt circuit proves
``sector_count`` *circuit sectors* per partition with ``challenge_count`` challenges each
(``storage-proofs-post/src/fallback/vanilla.rs`` ``PublicParams``):

* WindowPoSt: ``challenge_count = WINDOW_POST_CHALLENGE_COUNT = 10``; ``sector_count =
  WINDOW_POST_SECTOR_COUNT[size]`` (2 for 2 KiB … 1 GiB, 2349 for 32 GiB, 2300 for 64 GiB);
  ``ceil(sectors / sector_count)`` partitions (``get_partitions_for_window_post``), sectors in
  sector-id order (the API takes a ``BTreeMap``).
* WinningPoSt: ``WINNING_POST_CHALLENGE_COUNT = 66`` challenges on ``WINNING_POST_SECTOR_COUNT = 1``
  sector, which ``winning_post_setup_params`` turns into 66 circuit sectors of 1 challenge each
  (the chosen sector repeated 66 times, ``generate_winning_post``); one partition.

**Challenges** (``fallback/vanilla.rs``, ``fallback/utils.rs``):

* leaf challenge (``generate_leaf_challenge``/``_inner``): ``SHA-256(randomness ‖ sector_id as
  u64 LE ‖ challenge_index as u64 LE)``, its first 8 bytes read as u64 LE, mod ``sector_size/32``;
* ``challenge_index`` (``get_challenge_index``): API 1.0.0 and 1.1.0: ``sector_index ·
  challenge_count + n``; 1.2.0 (the WindowPoSt "grindability" fix): ``n``; ``sector_index =
  partition · sector_count + i`` is the sector's position in the public sector list;
* winning sector choice (``generate_sector_challenge``, used by ``filecoin-proofs/src/api/
  winning_post.rs`` ``generate_winning_post_sector_challenge``): ``SHA-256(prover_id ‖ randomness ‖
  n as u64 LE)``, first 8 bytes u64 LE, mod the sector-set size, for n < 1.

``randomness`` and ``prover_id`` are 32 bytes that must be canonical Fr elements (``as_safe_commitment``).
Registered proofs (filecoin-proofs-api ``RegisteredPoStProof``): ``StackedDrgWinning<size>V1``
(API 1.0.0), ``StackedDrgWindow<size>V1`` (1.0.0) and ``StackedDrgWindow<size>V1_2`` (1.2.0).
WinningPoSt with API 1.2.0 is refused: no registered proof uses it, and upstream's two code paths
disagree there (with one challenge per circuit sector every index becomes 0 in the circuit path).

**Padding.** A partition with fewer real sectors than ``sector_count`` repeats its last sector
proof (``prove_all_partitions``) and, in the circuit's public inputs, its last sector's inputs
(``compound.rs``), challenges included (they keep that sector's ``sector_index``).

**Vanilla proof file** (JSON, ``format`` ``cuzk-post/1``; 32-byte values as byte arrays)::

    {"format", "kind": "winning"|"window", "registered_proof", "api_version", "sector_size",
     "sector_count", "challenge_count", "randomness": [32], "prover_id": [32],
     "sectors": [{"id": u64, "comm_r": [32]}, ...],           # public sectors, proving order
     "winning_sector_set": {"size": n, "index": i},          # winning only
     "synthetic": true,                                      # only when a sector is synthetic
     "partitions": [[{"comm_c": [32], "comm_r_last": [32],   # sector_count entries each
                      "inclusion_proofs": [MerkleProof × challenge_count]}, ...], ...]}

``MerkleProof`` is :mod:`cuzk.sector.porep_c1`'s (tree_r_last, leaf = replica node). A synthetic
sector (:mod:`cuzk.sector.post_synthetic`: sparse tree_r_last, never sealed) has
``"synthetic": true`` in its ``sectors`` entry, and the file then has it at the top level. A proof file
is checked completely on read (:func:`verify_post`), as ``FallbackPoSt::verify`` plus the padding.

**Sealed sector file** (``.npz``): what PoSt needs from :func:`cuzk.sector.replica.replicate`:
``magic``, ``sector_id``, ``sector_size``, ``shape``, ``comm_c``, ``comm_r_last``, ``comm_r``
((32,) uint8) and ``level_<i>`` ((n_i, 32) uint8, tree_r_last leaves first).
"""

from __future__ import annotations

import hashlib
import io
import itertools
import marshal
import math
import zipfile
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..errors import CuzkError
from .c1 import check_schema
from .challenges import size_name as _size_name
from ..fileio import atomic_open
from ..hash.poseidon import R
from .jsondoc import BYTES32, NAT, nat, read_verified, write_doc
from .porep_c1 import merkle_proof
from .post_synthetic import SyntheticSector, synthetic_openings
from .replica import comm_r as hash_comm_r, fr_to_nodes, hash_paths, nodes_to_fr, tree_arities, tree_shape

__all__ = [
    "FORMAT",
    "KINDS",
    "API_VERSIONS",
    "WINNING_POST_CHALLENGE_COUNT",
    "WINNING_POST_SECTOR_COUNT",
    "WINDOW_POST_CHALLENGE_COUNT",
    "WINDOW_POST_SECTOR_COUNT",
    "PoStError",
    "PoStParams",
    "SealedSector",
    "post_params",
    "registered_post_proof",
    "challenge_index",
    "leaf_challenge",
    "sector_challenge",
    "winning_sector_challenges",
    "partition_count",
    "partition_slots",
    "params_of",
    "partition_public",
    "sealed_from_replica",
    "write_sealed",
    "read_sealed",
    "generate_post",
    "verify_post",
    "write_post",
    "read_post",
    "SCHEMA",
]

FORMAT = "cuzk-post/1"
SEALED_MAGIC = "cuzk-sealed/1"
KINDS = ("winning", "window")
API_VERSIONS = ("1.0", "1.1", "1.2")
NODE_SIZE = 32

WINNING_POST_CHALLENGE_COUNT = 66
WINNING_POST_SECTOR_COUNT = 1
WINDOW_POST_CHALLENGE_COUNT = 10
#: Circuit sectors per WindowPoSt partition by sector size (``WINDOW_POST_SECTOR_COUNT``).
WINDOW_POST_SECTOR_COUNT = {
    2 << 10: 2, 4 << 10: 2, 16 << 10: 2, 32 << 10: 2,
    8 << 20: 2, 16 << 20: 2, 512 << 20: 2, 1 << 30: 2,
    32 << 30: 2349, 64 << 30: 2300,
}
_PUBLISHED = (2 << 10, 8 << 20, 512 << 20, 32 << 30, 64 << 30)


class PoStError(CuzkError, ValueError):
    """A PoSt file (vanilla proof or sealed sector) is malformed or inconsistent: names the file and field."""

    def __init__(self, path, field: str, message: str):
        self.path, self.field = str(path), field
        super().__init__(f"{self.path}: {field}: {message}")


# --- parameters -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PoStParams:
    """``FallbackPoSt`` public parameters: the circuit's view (see the module docstring).

    Attributes:
        kind: "winning" or "window"; sector_size: bytes; sector_count: circuit sectors per
        partition; challenge_count: challenges per circuit sector; api_version: "1.0"/"1.1"/"1.2".
    """

    kind: str
    sector_size: int
    sector_count: int
    challenge_count: int
    api_version: str

    @property
    def nodes(self) -> int:
        """32-byte nodes per sector (the leaf-challenge modulus)."""
        return self.sector_size // NODE_SIZE

    @property
    def is_filecoin(self) -> bool:
        """True when the counts are Filecoin's for this kind and published sector size."""
        if self.sector_size not in _PUBLISHED:
            return False
        return (self.sector_count, self.challenge_count) == _default_counts(self.kind, self.sector_size)


def _default_counts(kind: str, sector_size: int) -> tuple[int, int]:
    if kind == "winning":
        # winning_post_setup_params: 66 challenges / 1 sector → 66 circuit sectors × 1 challenge
        s = WINNING_POST_CHALLENGE_COUNT // WINNING_POST_SECTOR_COUNT
        return s, WINNING_POST_CHALLENGE_COUNT // s
    if sector_size not in WINDOW_POST_SECTOR_COUNT:
        raise ValueError(f"no WindowPoSt sector count for {sector_size}-byte sectors; pass sector_count")
    return WINDOW_POST_SECTOR_COUNT[sector_size], WINDOW_POST_CHALLENGE_COUNT


def post_params(kind: str, sector_size: int, *, api_version: str | None = None,
                sector_count: int | None = None, challenge_count: int | None = None) -> PoStParams:
    """The :class:`PoStParams` of a proof kind and sector size (``filecoin-proofs/src/parameters.rs``).

    Args:
        kind: "winning" or "window".
        sector_size: bytes, a power of two with a tree shape (:func:`cuzk.sector.replica.tree_shape`).
        api_version: default "1.0" for winning (``StackedDrgWinning*V1``), "1.2" for window
            (``StackedDrgWindow*V1_2``).
        sector_count, challenge_count: override the circuit counts (test-only shapes).

    Raises:
        ValueError: unknown kind or api version, winning with 1.2, counts < 1, no tree shape.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    api = api_version if api_version is not None else ("1.0" if kind == "winning" else "1.2")
    if api not in API_VERSIONS:
        raise ValueError(f"api_version must be one of {API_VERSIONS}, got {api!r}")
    if kind == "winning" and api == "1.2":
        raise ValueError("WinningPoSt has no API 1.2 registered proof (see cuzk.sector.post)")
    tree_arities(sector_size // NODE_SIZE, tree_shape(sector_size))  # raises without a shape
    if sector_count is None or challenge_count is None:
        ds, dc = _default_counts(kind, sector_size)
        sector_count = ds if sector_count is None else sector_count
        challenge_count = dc if challenge_count is None else challenge_count
    if sector_count < 1 or challenge_count < 1:
        raise ValueError(f"sector_count and challenge_count must be ≥ 1, got {sector_count}, {challenge_count}")
    return PoStParams(kind, int(sector_size), int(sector_count), int(challenge_count), api)




def registered_post_proof(p: PoStParams) -> str:
    """filecoin-proofs-api ``RegisteredPoStProof`` name, e.g. ``StackedDrgWindow2KiBV1_2``.

    Parameters other than Filecoin's get ``TestOnly<Kind><size>B<S>x<C>NotFilecoin``.
    """
    kind = p.kind.capitalize()
    if not p.is_filecoin:
        return f"TestOnly{kind}{p.sector_size}B{p.sector_count}x{p.challenge_count}NotFilecoin"
    return f"StackedDrg{kind}{_size_name(p.sector_size)}V1" + ("_2" if p.api_version == "1.2" else "")


# --- challenges -----------------------------------------------------------------------------------


def _fr_bytes(x, what: str) -> bytes:
    b = bytes(x)
    if len(b) != 32:
        raise ValueError(f"{what} must be 32 bytes, got {len(b)}")
    if int.from_bytes(b, "little") >= R:
        raise ValueError(f"{what} is not a canonical Fr element (as_safe_commitment)")
    return b


def challenge_index(api_version: str, sector_index: int, challenge_count: int, n: int) -> int:
    """``get_challenge_index`` (``storage-proofs-post/src/fallback/utils.rs``).

    Returns ``sector_index · challenge_count + n`` for API 1.0/1.1, ``n`` for 1.2.
    """
    if api_version == "1.2":
        return n
    if api_version in ("1.0", "1.1"):
        return sector_index * challenge_count + n
    raise ValueError(f"unknown api_version {api_version!r}")


def leaf_challenge(randomness: bytes, sector_id: int, index: int, sector_size: int) -> int:
    """``generate_leaf_challenge`` (``storage-proofs-post/src/fallback/vanilla.rs``): a node index.

    SHA-256(randomness (32 bytes) ‖ sector_id u64 LE ‖ index u64 LE), bytes 0..8 as u64 LE, mod
    ``sector_size // 32``. Returns an int in [0, nodes).
    """
    h = hashlib.sha256(bytes(randomness) + int(sector_id).to_bytes(8, "little") + int(index).to_bytes(8, "little"))
    return int.from_bytes(h.digest()[:8], "little") % (sector_size // NODE_SIZE)


def sector_challenge(randomness: bytes, n: int, sector_set_size: int, prover_id: bytes) -> int:
    """``generate_sector_challenge`` (``fallback/vanilla.rs``): SHA-256(prover_id ‖ randomness ‖ n
    u64 LE), bytes 0..8 as u64 LE, mod ``sector_set_size``. Raises ValueError on an empty set."""
    if sector_set_size < 1:
        raise ValueError("empty sector set is invalid")
    h = hashlib.sha256(bytes(prover_id) + bytes(randomness) + int(n).to_bytes(8, "little"))
    return int.from_bytes(h.digest()[:8], "little") % sector_set_size


def winning_sector_challenges(randomness: bytes, prover_id: bytes, sector_set_size: int,
                              count: int = WINNING_POST_SECTOR_COUNT) -> list[int]:
    """Indices into the sector set that WinningPoSt proves (``generate_winning_post_sector_challenge``
    in ``filecoin-proofs/src/api/winning_post.rs``): ``sector_challenge(randomness, n, size, prover_id)``
    for n < count. Raises ValueError for non-canonical inputs or an empty set."""
    r = _fr_bytes(randomness, "randomness")
    pid = _fr_bytes(prover_id, "prover_id")
    return [sector_challenge(r, n, sector_set_size, pid) for n in range(count)]


def partition_count(p: PoStParams, num_sectors: int) -> int:
    """Partitions for ``num_sectors`` public sectors: ceil(num_sectors / sector_count), at least 1
    (``get_partitions_for_window_post``; winning: 1)."""
    if num_sectors < 1:
        raise ValueError("no sectors to prove")
    return max(1, math.ceil(num_sectors / p.sector_count))


def partition_slots(p: PoStParams, num_sectors: int, partition: int) -> list[int]:
    """Position in the public sector list of each of a partition's ``sector_count`` circuit
    sectors: the partition's chunk, then its last sector repeated (``prove_all_partitions``).

    Raises:
        ValueError: the partition has no sectors.
    """
    S = p.sector_count
    chunk = list(range(partition * S, min(num_sectors, (partition + 1) * S)))
    if not chunk:
        raise ValueError(f"partition {partition} has no sectors ({num_sectors} sectors, {S} per partition)")
    return [chunk[min(i, len(chunk) - 1)] for i in range(S)]  # padding repeats the last sector


def _slot_challenges(p: PoStParams, randomness: bytes, sector_ids: Sequence[int], partition: int
                     ) -> tuple[list[int], np.ndarray]:
    """Per circuit-sector slot of a partition: the public sector's position and (S, C) leaf challenges."""
    C = p.challenge_count
    slots = partition_slots(p, len(sector_ids), partition)
    ch = np.array([[leaf_challenge(randomness, sector_ids[g], challenge_index(p.api_version, g, C, n), p.sector_size)
                    for n in range(C)] for g in slots], dtype=np.int64)
    return slots, ch


def _b32(x) -> list[int]:
    return list(bytes(x))


def _int(b) -> int:
    return int.from_bytes(bytes(b), "little")


def params_of(doc: dict) -> PoStParams:
    """The :class:`PoStParams` recorded in a (schema-valid) vanilla proof dict."""
    return PoStParams(doc["kind"], doc["sector_size"], doc["sector_count"], doc["challenge_count"], doc["api_version"])


def partition_public(doc: dict, partition: int) -> tuple[list[int], np.ndarray]:
    """Public values of one partition of a vanilla proof dict, padding included.

    Returns:
        (comm_r per circuit sector: S ints, leaf challenges: (S, C) int64), as
        ``FallbackPoStCompound::generate_public_inputs`` (``storage-proofs-post/src/fallback/compound.rs``)
        derives them from randomness and the public sectors.
    """
    p = params_of(doc)
    ids = [s["id"] for s in doc["sectors"]]
    slots, ch = _slot_challenges(p, bytes(doc["randomness"]), ids, partition)
    return [_int(doc["sectors"][g]["comm_r"]) for g in slots], ch


# --- sealed sectors -------------------------------------------------------------------------------


@dataclass
class SealedSector:
    """What PoSt needs of a sealed sector.

    Attributes:
        sector_id: u64; sector_size: bytes; shape: (base, sub, top) tree arities.
        tree_r_last: levels, leaves first, int arrays (gmpy2.mpz, canonical), root last.
        comm_c, comm_r_last, comm_r: 32 bytes LE each.
        path: the file it was read from, or None.
    """

    sector_id: int
    sector_size: int
    shape: tuple
    tree_r_last: list
    comm_c: bytes
    comm_r_last: bytes
    comm_r: bytes
    path: str | None = None

    @property
    def arities(self) -> list[int]:
        """Arity per tree level, leaves up."""
        return tree_arities(self.sector_size // NODE_SIZE, self.shape)


def sealed_from_replica(sector_id: int, rep: dict) -> SealedSector:
    """A :class:`SealedSector` from a :func:`cuzk.sector.replica.replicate` result (no copies).

    Raises:
        ValueError: sector_id is not a u64.
    """
    if not 0 <= int(sector_id) < 1 << 64:
        raise ValueError(f"sector_id {sector_id} is not a u64")
    levels = list(rep["tree_r_last"])
    return SealedSector(int(sector_id), len(levels[0]) * NODE_SIZE, tuple(rep["shape"]), levels,
                        bytes(rep["comm_c"]), bytes(rep["comm_r_last"]), bytes(rep["comm_r"]))


def write_sealed(path, sector_id: int, rep) -> None:
    """Write a sealed-sector file (``.npz``, see the module docstring) atomically (``cuzk.fileio``).

    Args:
        sector_id: u64 (ignored when ``rep`` is a :class:`SealedSector`).
        rep: a :func:`cuzk.sector.replica.replicate` result dict or a :class:`SealedSector`.

    Raises:
        ValueError: sector_id is not a u64.
    """
    s = rep if isinstance(rep, SealedSector) else sealed_from_replica(sector_id, rep)
    arrays = {
        "magic": np.array(SEALED_MAGIC),
        "sector_id": np.array(s.sector_id, dtype=np.uint64),
        "sector_size": np.array(s.sector_size, dtype=np.uint64),
        "shape": np.array(s.shape, dtype=np.int64),
        "comm_c": np.frombuffer(s.comm_c, dtype=np.uint8),
        "comm_r_last": np.frombuffer(s.comm_r_last, dtype=np.uint8),
        "comm_r": np.frombuffer(s.comm_r, dtype=np.uint8),
    }
    for i, lvl in enumerate(s.tree_r_last):
        arrays[f"level_{i}"] = fr_to_nodes(lvl)
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    with atomic_open(path) as f:
        f.write(buf.getvalue())


def read_sealed(path) -> SealedSector:
    """Read a sealed-sector file and check it: magic, sizes, tree shape, canonical nodes, each
    level's length, root = comm_r_last and comm_r = Poseidon₂(comm_c, comm_r_last).

    (Inner tree nodes are not rehashed here; :func:`generate_post` checks every path it takes.)

    Raises:
        PoStError: names the file and the bad field. OSError: unreadable file.
    """
    try:
        with np.load(path, allow_pickle=False) as z:
            d = {k: z[k] for k in z.files}
    except (zipfile.BadZipFile, ValueError, EOFError) as e:
        raise PoStError(path, "<npz>", f"not a sealed-sector file: {e}") from None
    for key in ("magic", "sector_id", "sector_size", "shape", "comm_c", "comm_r_last", "comm_r"):
        if key not in d:
            raise PoStError(path, key, "missing")
    if str(d["magic"]) != SEALED_MAGIC:
        raise PoStError(path, "magic", f"{str(d['magic'])!r}, expected {SEALED_MAGIC!r}")
    size, sid = int(d["sector_size"]), int(d["sector_id"])
    shape = tuple(int(x) for x in d["shape"])
    try:
        arities = tree_arities(size // NODE_SIZE, shape)
    except ValueError as e:
        raise PoStError(path, "shape", str(e)) from None
    comms = {}
    for key in ("comm_c", "comm_r_last", "comm_r"):
        a = d[key]
        if a.dtype != np.uint8 or a.shape != (32,):
            raise PoStError(path, key, f"dtype {a.dtype} shape {a.shape}, expected (32,) uint8")
        comms[key] = a.tobytes()
    levels, n = [], size // NODE_SIZE
    for i in range(len(arities) + 1):
        a = d.get(f"level_{i}")
        if a is None:
            raise PoStError(path, f"level_{i}", "missing")
        if a.dtype != np.uint8 or a.shape != (n, 32):
            raise PoStError(path, f"level_{i}", f"dtype {a.dtype} shape {a.shape}, expected ({n}, 32) uint8")
        try:
            levels.append(nodes_to_fr(a, f"level_{i}"))
        except ValueError as e:
            raise PoStError(path, f"level_{i}", str(e)) from None
        if i < len(arities):
            n //= arities[i]
    if f"level_{len(arities) + 1}" in d:
        raise PoStError(path, f"level_{len(arities) + 1}", f"extra level: shape {shape} has {len(arities) + 1}")
    if fr_to_nodes(levels[-1]).tobytes() != comms["comm_r_last"]:
        raise PoStError(path, "comm_r_last", "differs from the tree's root")
    try:
        want = hash_comm_r(comms["comm_c"], comms["comm_r_last"])
    except ValueError as e:
        raise PoStError(path, "comm_c", str(e)) from None
    if want != comms["comm_r"]:
        raise PoStError(path, "comm_r", "differs from Poseidon₂(comm_c, comm_r_last)")
    return SealedSector(sid, size, shape, levels, comms["comm_c"], comms["comm_r_last"], comms["comm_r"], str(path))


def _as_sealed(x) -> SealedSector | SyntheticSector:
    return x if isinstance(x, (SealedSector, SyntheticSector)) else read_sealed(x)


# --- vanilla proofs -------------------------------------------------------------------------------


def generate_post(kind: str, sectors: Sequence, randomness: bytes, prover_id: bytes, *,
                  api_version: str | None = None, sector_count: int | None = None,
                  challenge_count: int | None = None) -> dict:
    """Vanilla PoSt proofs (``FallbackPoSt::prove_all_partitions``) as a dict (module docstring).

    Args:
        kind: "winning" or "window".
        sectors: sealed sectors (:class:`SealedSector` or sealed-sector file paths) and/or
            synthetic ones (:class:`cuzk.sector.post_synthetic.SyntheticSector`: sparse trees
            built for exactly the challenged leaves), one size. Window: every sector is proved,
            in sector-id order. Winning: the sector set; the sector at
            :func:`winning_sector_challenges` is proved (only that file is read).
        randomness, prover_id: 32 bytes each, canonical Fr elements.
        api_version, sector_count, challenge_count: see :func:`post_params`.

    Returns:
        The vanilla proof dict (write it with :func:`write_post`); when a proved sector is
        synthetic, ``"synthetic": true`` at the top and in that sector's ``sectors`` entry.

    Raises:
        ValueError: bad arguments (sizes differ, duplicate sector ids, non-canonical randomness).
        PoStError: a sealed sector whose tree does not prove a challenge (names its file).
    """
    r = _fr_bytes(randomness, "randomness")
    pid = _fr_bytes(prover_id, "prover_id")
    if not sectors:
        raise ValueError("no sectors to prove")
    extra = {}
    if kind == "winning":
        idx = winning_sector_challenges(r, pid, len(sectors))[0]
        chosen = _as_sealed(sectors[idx])
        p = post_params(kind, chosen.sector_size, api_version=api_version, sector_count=sector_count,
                        challenge_count=challenge_count)
        pub = [chosen] * p.sector_count
        extra = {"winning_sector_set": {"size": len(sectors), "index": idx}}
    else:
        pub = sorted((_as_sealed(s) for s in sectors), key=lambda s: s.sector_id)
        ids = [s.sector_id for s in pub]
        if len(set(ids)) != len(ids):
            raise ValueError("window PoSt: duplicate sector ids")
        p = post_params(kind, pub[0].sector_size, api_version=api_version, sector_count=sector_count,
                        challenge_count=challenge_count)
    for s in pub:
        if s.sector_size != p.sector_size:
            raise ValueError(f"sector {s.sector_id} has size {s.sector_size}, others {p.sector_size}")
    ids = [s.sector_id for s in pub]
    plan = [_slot_challenges(p, r, ids, j) for j in range(partition_count(p, len(pub)))]
    synth = _synthetic_sectors(pub, plan)
    parts = []
    for slots, ch in plan:
        entries, cache = [], {}
        for g, row in zip(slots, ch):
            if g in cache:  # padding: a copy of the last sector's proof
                entries.append(marshal.loads(cache[g]))
                continue
            s = pub[g]
            if g in synth:
                o, used, proofs = synth[g], set(), []
                for c in row.tolist():  # a leaf challenged twice gets a copy
                    proofs.append(_fresh(o["proofs"][c], c in used))
                    used.add(c)
                comms = o["comm_c"], o["comm_r_last"]
            else:
                proofs = [merkle_proof(s.tree_r_last, int(c), s.shape) for c in row]
                _check_sealed_proofs(s, proofs)
                comms = s.comm_c, s.comm_r_last
            entries.append({"comm_c": _b32(comms[0]), "comm_r_last": _b32(comms[1]), "inclusion_proofs": proofs})
            cache[g] = marshal.dumps(entries[-1])
        parts.append(entries)
    comm_r = [synth[g]["comm_r"] if g in synth else s.comm_r for g, s in enumerate(pub)]
    flags = [{"synthetic": True} if g in synth else {} for g in range(len(pub))]
    if synth:
        extra["synthetic"] = True
    return {
        "format": FORMAT,
        "kind": p.kind,
        "registered_proof": registered_post_proof(p),
        "api_version": p.api_version,
        "sector_size": p.sector_size,
        "sector_count": p.sector_count,
        "challenge_count": p.challenge_count,
        "randomness": _b32(r),
        "prover_id": _b32(pid),
        "sectors": [{"id": s.sector_id, "comm_r": _b32(c)} | f for s, c, f in zip(pub, comm_r, flags)],
        **extra,
        "partitions": parts,
    }


def _fresh(x, copy: bool):
    """``x`` itself, or (``copy``) a copy sharing nothing: a marshal round trip, which is 15 times
    faster than ``copy.deepcopy`` on these lists of byte values (a padded 32 GiB WindowPoSt copies
    2,348 sector proofs)."""
    return marshal.loads(marshal.dumps(x)) if copy else x


def _synthetic_sectors(pub: list, plan: list) -> dict[int, dict]:
    """Openings of the synthetic public sectors, by position in ``pub``, for every leaf any
    partition challenges: one sparse tree per sector (WinningPoSt repeats its sector in every
    position), all built together (:func:`cuzk.sector.post_synthetic.synthetic_openings`)."""
    want: dict[int, set] = {}
    for slots, ch in plan:
        for g, row in zip(slots, ch):
            if isinstance(pub[g], SyntheticSector):
                want.setdefault(pub[g].sector_id, set()).update(row.tolist())
    if not want:
        return {}
    first = {}
    for s in pub:
        first.setdefault(s.sector_id, s)
    ids = sorted(want)
    opened = dict(zip(ids, synthetic_openings([first[i] for i in ids], [sorted(want[i]) for i in ids])))
    return {g: opened[s.sector_id] for g, s in enumerate(pub) if s.sector_id in opened}


def _check_sealed_proofs(s: SealedSector, proofs: list[dict]) -> None:
    """Upstream's ``proof.validate(challenge) && root == comm_r_last`` for freshly made proofs."""
    leaves, levels = _stack_paths(proofs, s.arities)
    roots = hash_paths(leaves, levels)
    bad = np.flatnonzero(roots != _int(s.comm_r_last))
    if bad.size:
        raise PoStError(s.path or f"<sector {s.sector_id}>", "tree_r_last",
                        f"sector {s.sector_id}: the path of challenge {int(bad[0])} does not hash to comm_r_last "
                        "(faulty sector)")


def _stack_paths(proofs: list[dict], arities: list[int]) -> tuple[np.ndarray, list]:
    leaves = np.array([_int(pr["leaf"]) for pr in proofs], dtype=object)
    levels = []
    for lvl in range(len(arities)):
        sibs = np.array([[_int(h) for h in pr["path"][lvl]["hashes"]] for pr in proofs], dtype=object)
        pos = np.array([pr["path"][lvl]["index"] for pr in proofs], dtype=np.int64)
        levels.append((sibs.reshape(len(proofs), arities[lvl] - 1), pos))
    return leaves, levels


# --- schema and checks ----------------------------------------------------------------------------

def _schema(b32: dict) -> dict:
    """The vanilla file's schema, with ``b32`` for the byte arrays of the Merkle proofs (leaf, root
    and path hashes)."""
    merkle = {
        "type": "object", "required": ["leaf", "root", "path"],
        "properties": {"leaf": b32, "root": b32, "path": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["hashes", "index"],
            "properties": {"hashes": {"type": "array", "items": b32, "minItems": 1}, "index": NAT}}}},
    }
    sector_proof = {
        "type": "object", "required": ["comm_c", "comm_r_last", "inclusion_proofs"],
        "properties": {"comm_c": BYTES32, "comm_r_last": BYTES32,
                       "inclusion_proofs": {"type": "array", "items": merkle, "minItems": 1}},
    }
    return {
        "type": "object",
        "required": ["format", "kind", "registered_proof", "api_version", "sector_size", "sector_count",
                     "challenge_count", "randomness", "prover_id", "sectors", "partitions"],
        "properties": {
            "format": {"const": FORMAT},
            "kind": {"enum": list(KINDS)},
            "registered_proof": {"type": "string"},
            "api_version": {"enum": list(API_VERSIONS)},
            "sector_size": nat(32),
            "sector_count": nat(1, 1 << 16),
            "challenge_count": nat(1, 1 << 16),
            "randomness": BYTES32,
            "prover_id": BYTES32,
            "sectors": {"type": "array", "minItems": 1, "items": {
                "type": "object", "required": ["id", "comm_r"],
                "properties": {"id": NAT, "comm_r": BYTES32, "synthetic": {"const": True}}}},
            "synthetic": {"const": True},
            "winning_sector_set": {"type": "object", "required": ["size", "index"],
                                   "properties": {"size": nat(1), "index": NAT}},
            "partitions": {"type": "array", "minItems": 1, "items": {"type": "array", "items": sector_proof}},
        },
    }


SCHEMA = _schema(BYTES32)
_SCHEMA_PATHS_CHECKED = _schema({"type": "array", "minItems": 32, "maxItems": 32})
"""SCHEMA for a document whose Merkle proofs' byte arrays passed :func:`_all_bytes32`: their
lengths only."""


def _check_schema(doc, path) -> None:
    parts = doc.get("partitions") if isinstance(doc, dict) else None
    if isinstance(parts, list) and all(isinstance(p, list) for p in parts):
        # padding that is the very object of the entry before it needs no second check (a parsed
        # file's never is; a converted one-sector 32 GiB doc's 2,348 are: 6 s of schema checks)
        doc = doc | {"partitions": [_unpadded(p) for p in parts]}
        arrs: list = []
        for p in doc["partitions"]:
            for e in p:
                _merkle_arrays(e, arrs)
        if _all_bytes32(arrs):
            try:
                check_schema(doc, _SCHEMA_PATHS_CHECKED, path, error=PoStError)
                return
            except PoStError:
                pass   # the whole schema below names the first fault, as it always did
    check_schema(doc, SCHEMA, path, error=PoStError)


def _all_bytes32(arrs: list, chunk: int = 1 << 16) -> bool:
    """Every element is what BYTES32 accepts, and stricter (a list of exactly 32 ints, no bool,
    in [0, 255]), checked in C loops (``map``, ``set``, ``bytes``) over ``chunk`` arrays at a time
    (a 16 MB list of their values). A 32 GiB WindowPoSt file's Merkle paths hold 1.69 M such
    arrays, 54 M bytes, which the schema validator tests one by one in Python: a 22 s check of a
    200-sector file took 18 s without that (2-core box; benchmarks/results/2026-12-04-local/postcheck)."""
    if not all(type(a) is list and len(a) == 32 for a in arrs):
        return False
    for lo in range(0, len(arrs), chunk):
        flat = list(itertools.chain.from_iterable(arrs[lo:lo + chunk]))
        if not set(map(type, flat)) <= {int}:
            return False
        try:
            bytes(flat)   # ValueError for a value outside [0, 255]
        except ValueError:
            return False
    return True


def _merkle_arrays(entry, arrs: list) -> None:
    """Append to ``arrs`` what a partition's sector entry holds where the schema wants the Merkle
    proofs' byte arrays (leaf, root, path hashes), wherever the structure above them is the
    schema's (elsewhere the schema's own types fail the document)."""
    proofs = entry.get("inclusion_proofs") if isinstance(entry, dict) else None
    for pr in proofs if isinstance(proofs, list) else ():
        if not isinstance(pr, dict):
            continue
        arrs.extend(pr[k] for k in ("leaf", "root") if k in pr)
        for el in pr["path"] if isinstance(pr.get("path"), list) else ():
            if isinstance(el, dict) and isinstance(el.get("hashes"), list):
                arrs.extend(el["hashes"])


def _unpadded(part: list) -> list:
    n = len(part)
    while n > 1 and part[n - 1] is part[n - 2]:
        n -= 1
    return part[:n]


def _check_header(doc: dict, path) -> PoStParams:
    for key in ("randomness", "prover_id"):
        if _int(doc[key]) >= R:
            raise PoStError(path, key, "not a canonical Fr element")
    try:
        p = post_params(doc["kind"], doc["sector_size"], api_version=doc["api_version"],
                        sector_count=doc["sector_count"], challenge_count=doc["challenge_count"])
    except ValueError as e:
        raise PoStError(path, "sector_size", str(e)) from None
    if doc["registered_proof"] != registered_post_proof(p):
        raise PoStError(path, "registered_proof", f"{doc['registered_proof']!r}, expected {registered_post_proof(p)!r}")
    secs = doc["sectors"]
    for i, s in enumerate(secs):
        if _int(s["comm_r"]) >= R:
            raise PoStError(path, f"sectors/{i}/comm_r", "not a canonical Fr element")
    if doc.get("synthetic", False) != any(s.get("synthetic", False) for s in secs):
        raise PoStError(path, "synthetic", "must be true exactly when some sector is marked synthetic")
    if p.kind == "winning":
        ws = doc.get("winning_sector_set")
        if ws is None:
            raise PoStError(path, "winning_sector_set", "missing (required for winning)")
        want = sector_challenge(bytes(doc["randomness"]), 0, ws["size"], bytes(doc["prover_id"]))
        if ws["index"] != want:
            raise PoStError(path, "winning_sector_set/index", f"{ws['index']}, the derived index is {want}")
        if len(secs) != p.sector_count:
            raise PoStError(path, "sectors", f"{len(secs)} entries, winning repeats its sector {p.sector_count} times")
        for i, s in enumerate(secs[1:], 1):
            if s != secs[0]:
                raise PoStError(path, f"sectors/{i}", "differs from sectors/0 (winning proves one sector)")
    else:
        if "winning_sector_set" in doc:
            raise PoStError(path, "winning_sector_set", "only for winning proofs")
        ids = [s["id"] for s in secs]
        if ids != sorted(set(ids)):
            raise PoStError(path, "sectors", "sector ids must be distinct and increasing")
    nparts = partition_count(p, len(secs))
    if len(doc["partitions"]) != nparts:
        raise PoStError(path, "partitions", f"{len(doc['partitions'])} partitions, {len(secs)} sectors need {nparts}")
    return p


def verify_post(doc: dict, path="<post>") -> None:
    """Check a vanilla PoSt dict completely (``FallbackPoSt::verify`` for every partition, plus padding).

    Checks: schema; canonical randomness/prover_id/comm_r; parameters and registered proof name;
    winning sector choice; partition count; per partition ``sector_count`` entries, padding equal
    to the partition's last real entry; per entry comm_r = Poseidon₂(comm_c, comm_r_last)
    (against the public sector); per inclusion proof: ``challenge_count`` of them, path length
    and arities of the tree shape, positions < arity, leaf index = the derived challenge, root =
    comm_r_last, the path hashing to its root.

    Raises:
        PoStError: names ``path`` and the first bad field (schema errors: all of them).
    """
    _check_schema(doc, path)
    p = _check_header(doc, path)
    arities = tree_arities(p.nodes, tree_shape(p.sector_size))
    S, C = p.sector_count, p.challenge_count
    ids = [s["id"] for s in doc["sectors"]]
    for j, part in enumerate(doc["partitions"]):
        pf = f"partitions/{j}"
        if len(part) != S:
            raise PoStError(path, pf, f"{len(part)} sector proofs, sector_count is {S}")
        slots, ch = _slot_challenges(p, bytes(doc["randomness"]), ids, j)
        nreal = len(set(slots))
        for i in range(nreal, S):
            if part[i] != part[nreal - 1]:
                raise PoStError(path, f"{pf}/{i}", f"padding must repeat {pf}/{nreal - 1}")
        proofs, where = [], []
        for i in range(nreal):
            e, f = part[i], f"{pf}/{i}"
            g = slots[i]
            for key in ("comm_c", "comm_r_last"):
                if _int(e[key]) >= R:
                    raise PoStError(path, f"{f}/{key}", "not a canonical Fr element")
            if hash_comm_r(bytes(e["comm_c"]), bytes(e["comm_r_last"])) != bytes(doc["sectors"][g]["comm_r"]):
                raise PoStError(path, f"sectors/{g}/comm_r", f"differs from Poseidon₂(comm_c, comm_r_last) of {f}")
            ips = e["inclusion_proofs"]
            if len(ips) != C:
                raise PoStError(path, f"{f}/inclusion_proofs", f"{len(ips)} proofs, challenge_count is {C}")
            for n, pr in enumerate(ips):
                _check_proof_structure(path, f"{f}/inclusion_proofs/{n}", pr, arities, int(ch[i, n]), e["comm_r_last"])
                proofs.append(pr)
                where.append(f"{f}/inclusion_proofs/{n}")
        leaves, levels = _stack_paths(proofs, arities)
        roots = hash_paths(leaves, levels)
        want = np.array([_int(pr["root"]) for pr in proofs], dtype=object)
        bad = np.flatnonzero(roots != want)
        if bad.size:
            raise PoStError(path, where[int(bad[0])], "leaf and path do not hash to the root")


def _check_proof_structure(path, f: str, pr: dict, arities: list[int], challenge: int, comm_r_last) -> None:
    if pr["root"] != comm_r_last:
        raise PoStError(path, f + "/root", "differs from comm_r_last")
    if len(pr["path"]) != len(arities):
        raise PoStError(path, f + "/path", f"length {len(pr['path'])}, the tree has {len(arities)} levels")
    if _int(pr["leaf"]) >= R:
        raise PoStError(path, f + "/leaf", "not a canonical Fr element")
    idx, mul = 0, 1
    for lvl, (el, a) in enumerate(zip(pr["path"], arities)):
        if len(el["hashes"]) != a - 1:
            raise PoStError(path, f"{f}/path/{lvl}/hashes", f"{len(el['hashes'])} siblings, arity is {a}")
        if el["index"] >= a:
            raise PoStError(path, f"{f}/path/{lvl}/index", f"{el['index']} ≥ arity {a}")
        if any(_int(h) >= R for h in el["hashes"]):
            raise PoStError(path, f"{f}/path/{lvl}/hashes", "not a canonical Fr element")
        idx += el["index"] * mul
        mul *= a
    if idx != challenge:
        raise PoStError(path, f + "/path", f"proves node {idx}, the derived challenge is {challenge}")


def write_post(path, doc: dict) -> None:
    """Write a vanilla PoSt dict as JSON atomically (``cuzk.fileio``)."""
    write_doc(path, doc)


def read_post(path) -> dict:
    """Read a vanilla PoSt file and check it fully (:func:`verify_post`).

    Raises:
        PoStError: names the file and the first bad field. OSError: unreadable file.
    """
    return read_verified(path, PoStError, verify_post)
