"""Groth16 keys and proofs, and their files in bellperson's layout.

Layouts (bellperson ``groth16::{VerifyingKey, Parameters, Proof}``; see FORMATS.md):
- ``.vk``: α_G1, β_G1, β_G2, γ_G2, δ_G1, δ_G2 uncompressed, u32 big-endian ``ic.len()``, IC points
  uncompressed. ``ic.len() == public inputs + 1``.
- ``.params``: the vk, then h, l, a, b_g1, b_g2, each a u32 big-endian length followed by
  uncompressed points. Points at infinity are left out of a, b_g1, b_g2; which variables they
  belong to follows from the R1CS density (``density_a``, ``density_b``). Bytes after b_g2
  (bellperson's phase-2 transcript) are ignored.
- proof: A (G1 compressed 48) ‖ B (G2 compressed 96) ‖ C (G1 compressed 48) = 192 bytes; a file
  of several proofs is their concatenation.

Reading parameters maps the file (``mmap``; the point arrays are views of the page cache, never
a second copy in host memory) and checks every point (curve equation and subgroup) the first
time a file's content is seen. Checked contents are recorded in a cache directory
(``$CUZK_CACHE_DIR``, default ``~/.cache/cuzk``) by SHA-256, and each checked file by its
identity (device, inode, size: a hard link is the same file), so a later read of the same file
costs neither the checks nor the hash: a 32 GiB key (47.3 GB) is hashed once, by the setup that writes it, as Filecoin
trusts its parameter files by the digest checked when they were fetched. Times are not part of
the identity (Snakemake touches each output after its job); every writer here replaces a file by
rename, a new inode. An edit in place that keeps the size is not noticed by a later read: read
with ``check=True`` to check every point again.
"""

from __future__ import annotations

import hashlib
import mmap
import os
import struct
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import CuzkError
from ..curve import G1, G2, CurveError, Group
from ..fileio import CheckRecords, atomic_open, atomic_write_bytes, map_readonly, sha256_released


class KeyFileError(CuzkError, ValueError):
    """A ``.params``/``.vk``/proof file is malformed: names the file, the offset and the problem."""

    def __init__(self, path, offset: int | None, message: str):
        self.path = str(path)
        self.offset = offset
        where = f" at byte {offset}" if offset is not None else ""
        super().__init__(f"{self.path}{where}: {message}")


PROOF_SIZE = 192


@dataclass
class VerifyingKey:
    """Groth16 verifying key: py-arkworks-bls12381 points; ``ic`` has public inputs + 1 entries."""

    alpha_g1: object
    beta_g1: object
    beta_g2: object
    gamma_g2: object
    delta_g1: object
    delta_g2: object
    ic: list

    def to_bytes(self) -> bytes:
        """bellperson's ``VerifyingKey::write`` layout."""
        parts = [
            G1.to_uncompressed(self.alpha_g1),
            G1.to_uncompressed(self.beta_g1),
            G2.to_uncompressed(self.beta_g2),
            G2.to_uncompressed(self.gamma_g2),
            G1.to_uncompressed(self.delta_g1),
            G2.to_uncompressed(self.delta_g2),
            struct.pack(">I", len(self.ic)),
        ]
        parts += [G1.to_uncompressed(p) for p in self.ic]
        return b"".join(parts)


@dataclass
class ProvingKey:
    """Groth16 proving key (bellperson ``Parameters``).

    Point vectors are uint8 arrays of uncompressed encodings: ``h`` (n−1, 96), ``l`` (aux, 96),
    ``a`` (#density_a, 96), ``b_g1`` (#density_b, 96), ``b_g2`` (#density_b, 192).
    """

    vk: VerifyingKey
    h: np.ndarray
    l: np.ndarray
    a: np.ndarray
    b_g1: np.ndarray
    b_g2: np.ndarray
    digest: str = field(default="")

    def to_bytes(self) -> bytes:
        """bellperson's ``Parameters::write`` layout (without a phase-2 transcript)."""
        return b"".join(_param_chunks(self))

    @property
    def nbytes(self) -> int:
        """Host bytes held by the point vectors."""
        return sum(x.nbytes for x in (self.h, self.l, self.a, self.b_g1, self.b_g2))


@dataclass
class ResidentKey:
    """A proving key whose queries live in MSM contexts (device memory on cuda) instead of host
    arrays: ``ctx`` maps "h", "l", "a", "b_g1", "b_g2" to ``MSMContext`` objects of sizes n − 1,
    num_aux, #density_a, #density_b, #density_b. Made by ``setup_resident``; never written out.
    """

    vk: VerifyingKey
    ctx: dict

    def close(self) -> None:
        """Release the contexts (idempotent)."""
        for c in self.ctx.values():
            c.close()


@dataclass
class Proof:
    """A Groth16 proof (A ∈ G1, B ∈ G2, C ∈ G1) as py-arkworks-bls12381 points."""

    a: object
    b: object
    c: object

    def to_bytes(self) -> bytes:
        """192 bytes: A ‖ B ‖ C compressed (bellperson ``Proof::write``)."""
        return G1.to_compressed(self.a) + G2.to_compressed(self.b) + G1.to_compressed(self.c)

    @classmethod
    def from_bytes(cls, data: bytes, path="<bytes>", offset: int = 0) -> "Proof":
        """Parse 192 bytes, checking each point (curve, subgroup, encoding).

        Raises:
            KeyFileError: wrong length or an invalid point (names path, offset and the point).
        """
        if len(data) != PROOF_SIZE:
            raise KeyFileError(path, offset, f"proof needs {PROOF_SIZE} bytes, got {len(data)}")
        pts = []
        for name, grp, lo, hi in (("A", G1, 0, 48), ("B", G2, 48, 144), ("C", G1, 144, 192)):
            try:
                pts.append(grp.from_compressed(data[lo:hi]))
            except CurveError as e:
                raise KeyFileError(path, offset + lo, f"proof {name}: {e}") from None
        return cls(*pts)


# --- files ------------------------------------------------------------------------------------


def write_proofs(path, proofs: list[Proof]) -> None:
    """Write proofs (192 bytes each, concatenated) atomically."""
    atomic_write_bytes(path, b"".join(p.to_bytes() for p in proofs))


def read_proofs(path) -> list[Proof]:
    """Read a file of concatenated 192-byte proofs.

    Raises:
        KeyFileError: empty file, length not a multiple of 192, or an invalid point.
    """
    data = Path(path).read_bytes()
    if not data or len(data) % PROOF_SIZE:
        raise KeyFileError(path, len(data), f"length {len(data)} is not a positive multiple of {PROOF_SIZE}")
    return [Proof.from_bytes(data[i : i + PROOF_SIZE], path, i) for i in range(0, len(data), PROOF_SIZE)]


def write_vk(path, vk: VerifyingKey) -> None:
    """Write a ``.vk`` file atomically."""
    atomic_write_bytes(path, vk.to_bytes())


def write_params(path, pk: ProvingKey, known_good: bool = True) -> None:
    """Write a ``.params`` file atomically (streamed, no second copy of the key in memory).

    Args:
        known_good: the points were computed here (setup), not read from elsewhere: record the
            file's digest as checked so the first read skips the subgroup checks.
    """
    h = hashlib.sha256()
    with atomic_open(path) as f:
        for chunk in _param_chunks(pk):
            h.update(chunk)
            f.write(chunk)
    pk.digest = h.hexdigest()
    if known_good:
        _CHECKED.mark(pk.digest, path)


_WRITE_BLOCK = 1 << 26  # bytes per write: bounds the temporary copy of a non-contiguous view
QUERIES = ("h", "l", "a", "b_g1", "b_g2")  # bellperson's order of the point vectors in a .params file
_QUERY_GROUPS = tuple(zip(QUERIES, (G1, G1, G1, G1, G2)))  # (vector, its group)


def write_resident_params(path, key: "ResidentKey", rows: int = 1 << 20) -> str:
    """Write a resident key (queries in MSM contexts, e.g. GPU memory) as a ``.params`` file in
    bellperson's layout, ``rows`` points at a time (each slice converted where it lives and
    downloaded): host memory holds one slice, not the key (≈ 47 GB at a 32 GiB partition).

    The file's SHA-256 is computed while writing and recorded as checked (the points were
    computed here), so the first read trusts it by identity (see the module docstring).

    Returns:
        The SHA-256 hex digest of the file.

    Raises:
        NotImplementedError: a context that cannot hand out its bases (``MSMContext.encoded``).
    """
    h = hashlib.sha256()
    with atomic_open(path) as f:
        for chunk in _resident_chunks(key, rows):
            h.update(chunk)
            f.write(chunk)
    digest = h.hexdigest()
    _CHECKED.mark(digest, path)
    return digest


def _resident_slices(ctx, rows: int):
    """A resident query's encodings ``rows`` points at a time, as bytes views (``encoded``)."""
    for lo in range(0, ctx.size, rows):
        yield memoryview(np.ascontiguousarray(ctx.encoded(lo, min(ctx.size, lo + rows)))).cast("B")


def _resident_chunks(key: "ResidentKey", rows: int):
    yield key.vk.to_bytes()
    for name in QUERIES:
        ctx = key.ctx[name]
        yield struct.pack(">I", ctx.size)
        yield from _resident_slices(ctx, rows)


def resident_to_host(key: "ResidentKey", folder, rows: int = 1 << 21) -> ProvingKey:
    """A resident key as a ``ProvingKey`` whose point arrays are host files mapped read-only, one
    per query (``<folder>/<query>.bases``: the uncompressed encodings, nothing else), written
    ``rows`` points at a time from the contexts (``MSMContext.encoded``). For a run that proves
    under a device limit right after a development setup: no ``.params`` layout, no SHA-256
    and no point checks (the points were computed here; the ``digest`` is empty), so a 32 GiB
    partition's 47 GB cost the copy alone. In tmpfs (``/dev/shm``) the files are host memory
    outside the process's RSS, and the pages the streamed MSMs hand back (``release_pages``)
    stay there. The caller removes the folder when done.

    Raises:
        NotImplementedError: a context that cannot hand out its bases.
        OSError: the folder cannot be written.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    arrays = {}
    for name, grp in _QUERY_GROUPS:
        ctx = key.ctx[name]
        path = folder / f"{name}.bases"
        with open(path, "wb") as f:
            for chunk in _resident_slices(ctx, rows):
                f.write(chunk)
        shape = (ctx.size, grp.uncompressed_size)
        arrays[name] = (np.frombuffer(map_readonly(path), dtype=np.uint8).reshape(shape) if ctx.size
                        else np.empty(shape, dtype=np.uint8))
    return ProvingKey(key.vk, **arrays)


def _param_chunks(pk: ProvingKey):
    yield pk.vk.to_bytes()
    for arr in (getattr(pk, q) for q in QUERIES):
        yield struct.pack(">I", arr.shape[0])
        rows = max(1, _WRITE_BLOCK // max(1, arr.shape[1] if arr.ndim > 1 else 1))
        for i in range(0, arr.shape[0], rows):
            yield memoryview(np.ascontiguousarray(arr[i : i + rows])).cast("B")


_CHECKED = CheckRecords("checked-params")


def trusted_digest(path) -> str | None:
    """The SHA-256 of ``path`` if this very file version was checked (or written by setup) before,
    else None (``CheckRecords.trusted_digest``: never a hash of the file)."""
    return _CHECKED.trusted_digest(path)


class _Reader:
    """Sequential reader over a byte buffer that reports the file and offset on errors."""

    def __init__(self, path, data: bytes | memoryview):
        self.path, self.data, self.pos = path, memoryview(data), 0

    def take(self, n: int, what: str) -> memoryview:
        if self.pos + n > len(self.data):
            raise KeyFileError(self.path, self.pos, f"truncated: {what} needs {n} bytes, {len(self.data) - self.pos} left")
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out

    def u32(self, what: str) -> int:
        return struct.unpack(">I", self.take(4, what))[0]

    def point(self, grp: Group, what: str, check: bool = True, compressed: bool = False):
        off = self.pos
        try:
            if compressed:
                return grp.from_compressed(bytes(self.take(grp.compressed_size, what)))
            return grp.from_uncompressed(bytes(self.take(grp.uncompressed_size, what)), check_subgroup=check)
        except CurveError as e:
            raise KeyFileError(self.path, off, f"{what}: {e}") from None

    def points(self, grp: Group, what: str, check: bool) -> np.ndarray:
        n = self.u32(f"{what} length")
        start = self.pos
        raw = self.take(n * grp.uncompressed_size, f"{what} ({n} points)")
        arr = np.frombuffer(raw, dtype=np.uint8).reshape(n, grp.uncompressed_size)
        if check:
            w = grp.uncompressed_size
            for i in range(n):
                try:
                    grp.from_uncompressed(bytes(raw[i * w : (i + 1) * w]), check_subgroup=True)
                except CurveError as e:
                    raise KeyFileError(self.path, start + i * w, f"{what}[{i}]: {e}") from None
        return arr


# the verifying key's points before its IC, in file order
_VK_POINTS = (("alpha_g1", G1), ("beta_g1", G1), ("beta_g2", G2), ("gamma_g2", G2), ("delta_g1", G1), ("delta_g2", G2))


def _read_vk(r: _Reader, check: bool, compressed: bool = False) -> VerifyingKey:
    pts = [r.point(grp, f"vk.{name}", check, compressed) for name, grp in _VK_POINTS]
    n = r.u32("vk.ic length")
    if n == 0:
        raise KeyFileError(r.path, r.pos - 4, "vk.ic is empty (needs public inputs + 1 points)")
    ic = [r.point(G1, f"vk.ic[{i}]", check, compressed) for i in range(n)]
    return VerifyingKey(*pts, ic)


def read_vk(path) -> VerifyingKey:
    """Read and fully check a ``.vk`` file (every point on its curve and in its subgroup).

    Both point forms are read: bellperson's ``VerifyingKey::write`` (uncompressed) and the same
    layout with compressed points (as polka-storage and other chain runtimes store vks); the
    compression flag (bit 7 of byte 0, zcash encoding) of α_G1 says which.

    Raises:
        KeyFileError: truncation, trailing bytes, or an invalid point (file, offset, field).
    """
    data = Path(path).read_bytes()
    r = _Reader(path, data)
    vk = _read_vk(r, True, compressed=bool(data[:1]) and bool(data[0] & 0x80))
    if r.pos != len(data):
        raise KeyFileError(path, r.pos, f"{len(data) - r.pos} unexpected trailing bytes after the verifying key")
    return vk


def vk_ic_length(path) -> int:
    """``ic.len()`` (public inputs + 1, ONE included) of the verifying key at the start of a ``.vk``
    or ``.params`` file (bellperson's uncompressed layout: a ``.params`` begins with its vk), read
    from the file's first 868 bytes; no point is decoded or checked (a reader that uses the key
    checks it).

    Raises:
        KeyFileError: the file is shorter than the vk's head, or the count is 0.
        OSError: the file cannot be read.
    """
    head = sum(grp.uncompressed_size for _, grp in _VK_POINTS)
    with open(path, "rb") as f:
        r = _Reader(path, f.read(head + 4))
    r.take(head, "vk points")
    n = r.u32("vk.ic length")
    if n == 0:
        raise KeyFileError(path, head, "vk.ic is empty (needs public inputs + 1 points)")
    return n


def file_digest(path) -> str:
    """SHA-256 hex digest of a file, read in 16 MiB blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 24):
            h.update(block)
    return h.hexdigest()


def trust_params_file(path) -> str:
    """Record a ``.params`` file as checked without checking its points, for a file trusted by
    another digest: Filecoin's official files, whose BLAKE2b-512 prefix was checked against
    ``parameters.json`` (``cuzk.groth16.official.verify_official``), as Filecoin's own tools trust
    them (``parameter_cache.rs``), so a later ``read_params`` neither hashes nor point-checks it
    (a 2 KiB PoRep key's checks take about 20 s on the 2-core machine, a 32 GiB one's hours).
    ``read_params(path, check=True)`` still checks every point on request.

    Returns:
        the file's SHA-256 (hex), as ``read_params`` records it.
    """
    digest = trusted_digest(path)
    if digest is None:
        digest = file_digest(path)
        _CHECKED.mark(digest, path)
    return digest


def check_params_file(path) -> None:
    """A cheap integrity check of a ``.params`` file (no hash, no subgroup checks; run on existing
    keys before a workflow run): the verifying key's points parse, and every vector's length
    field fits the file.

    Raises:
        KeyFileError: naming the file, the offset and the fault.
    """
    with open(path, "rb") as f:
        if os.fstat(f.fileno()).st_size == 0:
            raise KeyFileError(path, 0, "truncated: the file is empty")
        data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    r = _Reader(path, data)
    _read_vk(r, False)
    for name, grp in _QUERY_GROUPS:
        n = r.u32(f"{name} length")
        r.take(n * grp.uncompressed_size, f"{name} ({n} points)")


def read_params(path, check: bool | None = None) -> ProvingKey:
    """Read a ``.params`` file into a ProvingKey whose point arrays are views of the mapped file.

    Args:
        path: the file.
        check: True to check every point, False to check none beyond the curve equation of the
            vk, None (default) to check unless this file version, or a file with the same
            SHA-256, was checked before (see the module docstring for the records).

    Returns:
        A ProvingKey: ``h``, ``l``, ``a``, ``b_g1`` (n, 96) and ``b_g2`` (n, 192) uint8 read-only
        views of the file's pages (host memory grows only with the pages a consumer touches);
        ``digest`` is the file's SHA-256 hex.

    Raises:
        KeyFileError: truncation (with the offset and vector), an invalid point (offset and
            index), or a length field that runs past the end of the file.
    """
    if os.stat(path).st_size == 0:
        raise KeyFileError(path, 0, "truncated: the file is empty")
    data = map_readonly(path)   # streamed queries are read from the file by pread (``fileio.read_rows``)
    digest = trusted_digest(path)
    if digest is None:
        digest = sha256_released(np.frombuffer(data, dtype=np.uint8)).hexdigest()  # about 1 s per GB
        if check is None:
            check = not _CHECKED.seen(digest)
            if not check:
                _CHECKED.mark(digest, path)  # same content checked under another name
    elif check is None:
        check = False
    # the layout first (every length fits the file), so that a truncated file is refused before
    # any subgroup check (about 35 µs a point)
    r = _Reader(path, data)
    vk = _read_vk(r, False)
    h, l_, a, b_g1, b_g2 = (r.points(grp, name, False) for name, grp in _QUERY_GROUPS)
    if b_g1.shape[0] != b_g2.shape[0]:
        raise KeyFileError(path, None, f"b_g1 has {b_g1.shape[0]} points but b_g2 has {b_g2.shape[0]}")
    if check:
        r = _Reader(path, data)
        vk = _read_vk(r, True)
        for name, grp in _QUERY_GROUPS:
            r.points(grp, name, True)
        _CHECKED.mark(digest, path)
    return ProvingKey(vk, h, l_, a, b_g1, b_g2, digest=digest)
