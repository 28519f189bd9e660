"""snarkjs Groth16 ``.zkey`` files (iden3 container, magic ``zkey``, version 1): read and write.

Sections (snarkjs ``zkey_utils.js``/``zkey_new.js``; FORMATS.md):
  1  protocol: u32, 1 = Groth16 (2 PLONK, 10 FFLONK are refused);
  2  header: u32 n8q (48), q, u32 n8r (32), r, u32 nVars, u32 nPublic (ONE not counted),
     u32 domainSize, then α1, β1 (G1), β2, γ2 (G2), δ1 (G1), δ2 (G2);
  3  IC: nPublic + 1 G1 points;
  4  coefficients: u32 count, then count × (u32 matrix 0 = A / 1 = B, u32 constraint,
     u32 signal, Fr as value·R² mod r) — the QAP's A and B over domainSize rows; the C matrix is
     not stored (the prover takes c = a·b pointwise);
  5  A: nVars G1;  6  B1: nVars G1;  7  B2: nVars G2;
  8  C: nVars − nPublic − 1 G1 (private wires only);
  9  H: domainSize G1 — L^(2n)_(2i+1)(τ)/δ, the odd Lagrange points of the 2n domain;
  10 contributions (MPC transcript: 64-byte circuit hash, u32 count, …): kept as raw bytes.
Points are affine, little-endian Montgomery, infinity all zeros (see ``encoding``).

In memory, :class:`ZKey` keeps point vectors as cuzk's ``(n, 96)``/``(n, 192)`` uint8
uncompressed arrays and coefficients in canonical form; :func:`write_zkey` writes what
:func:`read_zkey` reads (sections 1–10 in order).
"""

from __future__ import annotations

import json
import logging
import mmap
import os
import struct
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import CuzkError
from ..field.sparse import CSRMatrix
from ..curve import G1, G2, CurveError, Group
from ..field import FQ, FR
from ..fileio import atomic_open, cache_dir
from ..groth16.keys import VerifyingKey
from .digest import map_file, sha256_of
from .encoding import (coeffs_from_zkey_rows, coeffs_to_zkey, ge_modulus, ints_from_le_rows, ints_to_le,
                       lem_to_points, points_to_lem)
from .iden3 import Container, Iden3CurveError, read_container, write_container

GROTH16_PROTOCOL = 1
COEFF_DTYPE = np.dtype([("matrix", "<u4"), ("constraint", "<u4"), ("signal", "<u4"), ("value", "V32")])


@dataclass
class ZKey:
    """A snarkjs Groth16 proving key.

    Attributes:
        n_vars: wires (ONE, outputs, public inputs, private inputs, internal).
        n_public: public values besides ONE.
        domain_size: the QAP domain n (a power of two ≥ constraints + n_public + 1).
        alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2: py-arkworks points.
        ic: ``(n_public + 1, 96)`` uint8 (uncompressed G1).
        coeff_matrix, coeff_constraint, coeff_signal: ``(m,)`` uint32 of the coefficient section.
        coeff_value: ``(m,)`` int array, canonical coefficient values (not ·R²).
        a, b_g1: ``(n_vars, 96)`` uint8; b_g2: ``(n_vars, 192)`` uint8;
        c: ``(n_vars − n_public − 1, 96)``; h: ``(domain_size, 96)``. Infinity points kept.
        contributions: raw body of section 10 (b"" when absent).
    """

    n_vars: int
    n_public: int
    domain_size: int
    alpha_g1: object
    beta_g1: object
    beta_g2: object
    gamma_g2: object
    delta_g1: object
    delta_g2: object
    ic: np.ndarray
    coeff_matrix: np.ndarray
    coeff_constraint: np.ndarray
    coeff_signal: np.ndarray
    coeff_value: np.ndarray
    a: np.ndarray
    b_g1: np.ndarray
    b_g2: np.ndarray
    c: np.ndarray
    h: np.ndarray
    contributions: bytes = field(default=b"")

    def verifying_key(self) -> VerifyingKey:
        """The Groth16 verifying key (for ``cuzk.groth16.verify``)."""
        return VerifyingKey(self.alpha_g1, self.beta_g1, self.beta_g2, self.gamma_g2, self.delta_g1,
                            self.delta_g2, G1.from_array(self.ic, check_subgroup=False))

    def qap_matrix(self, matrix: int, row_map=None) -> CSRMatrix:
        """The QAP's A (matrix 0) or B (1) from the coefficient section as a CSR matrix.

        Args:
            matrix: 0 for A, 1 for B.
            row_map: optional function of an int64 row array returning new row indices (a
                permutation of range(domain_size)); the prover uses it to move snarkjs' domain
                order into the backend's.

        Returns:
            ``CSRMatrix`` of shape (domain_size, n_vars); duplicate (row, signal) entries summed.
        """
        sel = self.coeff_matrix == matrix
        rows = self.coeff_constraint[sel].astype(np.int64)
        if row_map is not None:
            rows = np.asarray(row_map(rows), dtype=np.int64)
        cols = self.coeff_signal[sel].astype(np.int64)
        vals = self.coeff_value[sel]
        n = self.domain_size
        order = np.lexsort((cols, rows))
        rows, cols, vals = rows[order], cols[order], vals[order]
        if len(rows):
            start = np.ones(len(rows), dtype=bool)
            start[1:] = (rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1])
            if not start.all():
                g = np.flatnonzero(start)
                vals = np.mod(np.add.reduceat(vals, g), FR.modulus)
                rows, cols = rows[g], cols[g]
        # distinct values in order of first appearance; equal entries are mostly the same object
        # (read_zkey converts each distinct value once), so group by identity first
        _, first, inv = np.unique(np.fromiter(map(id, vals), dtype=np.int64, count=len(vals)),
                                  return_index=True, return_inverse=True)
        by_first = np.argsort(first, kind="stable")
        table: dict = {}
        slot = np.empty(len(first), dtype=np.int32)
        slot[by_first] = [table.setdefault(vals[i], len(table)) for i in first[by_first].tolist()]
        ids = slot[inv.reshape(-1)].astype(np.int32) if len(vals) else np.zeros(0, dtype=np.int32)
        coeffs = np.empty(len(table), dtype=object)
        coeffs[:] = list(table.keys())
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
        return CSRMatrix(indptr, cols, ids, coeffs, (n, self.n_vars))


# --- reading ------------------------------------------------------------------------------


def _point_bytes(cont: Container, section: int, group: Group, count: int, what: str) -> tuple:
    """(reader, raw bytes) of a point section whose size is checked against ``count``."""
    r = cont.reader(section)
    raw = r.take(count * group.uncompressed_size, f"{count} {group.name} points of {what}")
    r.done(f"{count} {what} points")
    return r, raw


def _points(r, raw, group: Group, what: str, check: bool) -> tuple[np.ndarray, list]:
    """(uncompressed array, decoded points when ``check``, else []); encodings and the curve
    equation checked, not the subgroup (``_subgroup``, once every point has passed this)."""
    try:
        arr = lem_to_points(raw, group)
        return arr, group.from_array(arr, check_subgroup=False) if check else []
    except CurveError as e:
        raise r.error(f"{what}: {e}") from None


def _subgroup(r, points: list, group: Group, what: str) -> None:
    try:
        group.check_subgroup(points)
    except CurveError as e:
        raise r.error(f"{what}: {e}") from None


def read_zkey(path, check: bool = True, cache: bool = True, info: dict | None = None) -> ZKey:
    """Read a snarkjs Groth16 ``.zkey`` for BLS12-381.

    Args:
        path: the file.
        check: check every point (curve equation and subgroup; about 35 µs per G1 point on
            the CPU) unless a file with this SHA-256 was checked before (a record in
            ``$CUZK_CACHE_DIR/checked-zkey``, as ``read_params`` keeps); False checks only the
            header points.
        cache: use the converted-key cache (``$CUZK_CACHE_DIR/converted-zkey/<sha256>``, see
            ``ZKEY_CACHE_VERSION``): the file's SHA-256 (about 50 ms for 45 MB) finds a copy
            of this key already converted from Montgomery form, which loads in a few tens of
            milliseconds instead of about a second at 2^16. A missing, stale or corrupt copy
            (magic, version, digest, sizes or CRC-32 do not match) is ignored with a warning
            and rebuilt; a read-only cache only costs the conversion next time.
        info: if given, filled with "sha256" (the file's digest) and "cache": "hit", "miss"
            (converted and stored) or "off".

    Raises:
        Iden3FormatError: wrong magic/version, not Groth16, wrong n8q/n8r, a domain size that is
            not a power of two, section sizes that disagree with the header counts, a
            coefficient index out of range, or an invalid point (file, section and index named).
        Iden3CurveError: q or r is not BLS12-381's (e.g. a BN254 key).
        Iden3TruncatedError: a section ends early.
    """
    data, ident = map_file(path)
    digest = sha256_of(data, ident)
    if info is not None:
        info.update(sha256=digest, cache="miss" if cache else "off")
    checked = check and _checked_marker(digest).exists()
    if cache and (not check or checked):
        zk = _cache_load(_cache_path(digest), digest, len(data), path)
        if zk is not None:
            if info is not None:
                info["cache"] = "hit"
            return zk
    zk = _parse_zkey(path, data, check and not checked)
    if check and not checked:
        _touch(_checked_marker(digest))
    if cache and (check and not checked) and _cache_path(digest).exists():
        return zk  # only the check was missing: the entry was there (if damaged, the next read rebuilds it)
    if cache:
        _cache_store(_cache_path(digest), digest, len(data), zk)
    return zk


def _parse_zkey(path, data: bytes, check: bool) -> ZKey:
    cont = read_container(path, "zkey", 1, data)
    p = cont.reader(1)
    proto = p.u32("protocol")
    if proto != GROTH16_PROTOCOL:
        raise p.error(f"protocol {proto} is not Groth16 (1)")
    h = cont.reader(2)
    n8q = h.u32("n8q")
    q = h.bigint(n8q, "q")
    if q != FQ.modulus:
        raise h.error(f"q = {q} is not BLS12-381's base field prime", Iden3CurveError)
    n8r = h.u32("n8r")
    r = h.bigint(n8r, "r")
    if r != FR.modulus:
        raise h.error(f"r = {r} is not BLS12-381's scalar field order", Iden3CurveError)
    if n8q != 48 or n8r != 32:
        raise h.error(f"n8q = {n8q}, n8r = {n8r}; expected 48 and 32")
    n_vars = h.u32("nVars")
    n_public = h.u32("nPublic")
    n = h.u32("domainSize")
    if n < 1 or n & (n - 1):
        raise h.error(f"domainSize {n} is not a power of two")
    if n_public + 1 > n_vars:
        raise h.error(f"nPublic + 1 = {n_public + 1} exceeds nVars = {n_vars}")
    vk_raw = [h.take(grp.uncompressed_size, name) for name, grp in _VK_POINTS]
    h.done("the Groth16 header")

    # every size and index first, so a malformed file is refused before the point checks
    sections = [(_point_bytes(cont, sec, grp, count, what), grp, what) for sec, grp, count, what in (
        (3, G1, n_public + 1, "IC"), (5, G1, n_vars, "A"), (6, G1, n_vars, "B1"), (7, G2, n_vars, "B2"),
        (8, G1, n_vars - n_public - 1, "C"), (9, G1, n, "H"))]
    cr = cont.reader(4)
    m = cr.u32("coefficient count")
    raw = cr.take(m * COEFF_DTYPE.itemsize, f"{m} coefficients")
    cr.done(f"{m} coefficients")
    rec = np.frombuffer(raw, dtype=COEFF_DTYPE)
    matrix = rec["matrix"].astype(np.uint32)
    constraint = rec["constraint"].astype(np.uint32)
    signal = rec["signal"].astype(np.uint32)
    stored = np.ascontiguousarray(rec["value"]).tobytes()
    for bad, msg in (
        (matrix > 1, "matrix is not 0 (A) or 1 (B)"),
        (constraint >= n, f"constraint ≥ domainSize {n}"),
        (signal >= n_vars, f"signal ≥ nVars {n_vars}"),
        (ge_modulus(np.frombuffer(stored, dtype="<u8").reshape(m, 4), FR.modulus), "value not below r"),
    ):
        bad = np.asarray(bad, dtype=bool)
        if bad.any():
            raise cr.error(f"coefficient {int(np.flatnonzero(bad)[0])}: {msg}")
    value = coeffs_from_zkey_rows(np.frombuffer(stored, dtype=np.uint8).reshape(m, 32))
    contrib = bytes(cont.section(10)) if cont.has(10) else b""
    # cheap checks of every point (encoding, curve equation) before any subgroup check
    pts = []
    for raw, (name, grp) in zip(vk_raw, _VK_POINTS):
        try:
            pts.append(grp.from_uncompressed(lem_to_points(raw, grp)[0].tobytes(), check_subgroup=False))
        except CurveError as e:
            raise h.error(f"{name}: {e}") from None
    arrays = [_points(r, raw, grp, what, check) for (r, raw), grp, what in sections]
    for p, (name, grp) in zip(pts, _VK_POINTS):
        _subgroup(h, [p], grp, name)
    for ((r, _), grp, what), (_, decoded) in zip(sections, arrays):
        _subgroup(r, decoded, grp, what)
    ic, a, b1, b2, c, hp = (arr for arr, _ in arrays)
    return ZKey(n_vars, n_public, n, *pts, ic, matrix, constraint, signal, value, a, b1, b2, c, hp, contrib)


# --- the converted-key cache --------------------------------------------------------------

ZKEY_CACHE_VERSION = 2
"""Layout of a converted-key cache file (``$CUZK_CACHE_DIR/converted-zkey/<sha256 of the .zkey>``):
16-byte magic ``_CACHE_MAGIC``, u32 version, u32 header length, u32 CRC-32 of the header (version
1 had none: a changed dtype or offset in its header gave a wrong key), a JSON header (the .zkey's
SHA-256 and size, n_vars, n_public, domain_size, and for each array its dtype, shape, offset
and length in the payload, the payload's length and CRC-32), zero padding to 64 bytes, then
the payload: the ``ZKey`` arrays as read_zkey returns them (points uncompressed in zcash form,
coefficients canonical as 32-byte little-endian), each starting on a 64-byte boundary."""

_CACHE_MAGIC = b"cuzk zkey cache\n"
_CACHE_KEEP = 8
"""Converted keys kept in the cache; the least recently used beyond this are removed."""
_VK_POINTS = (("alpha1", G1), ("beta1", G1), ("beta2", G2), ("gamma2", G2), ("delta1", G1), ("delta2", G2))
_VK_FIELDS = ("alpha_g1", "beta_g1", "beta_g2", "gamma_g2", "delta_g1", "delta_g2")
_ARRAY_FIELDS = ("ic", "coeff_matrix", "coeff_constraint", "coeff_signal", "a", "b_g1", "b_g2", "c", "h")

log = logging.getLogger(__name__)


class ZKeyCacheError(CuzkError, ValueError):
    """A converted-key cache file does not match its .zkey or is damaged (never raised by
    ``read_zkey``, which ignores such a file and rebuilds it)."""


def _cache_path(digest: str) -> Path:
    return cache_dir() / "converted-zkey" / digest


def _checked_marker(digest: str) -> Path:
    return cache_dir() / "checked-zkey" / digest


def _touch(path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
    except OSError:
        pass  # a read-only cache only costs the work next time


def _cache_arrays(zk: ZKey) -> dict[str, np.ndarray]:
    vk = b"".join(grp.to_uncompressed(getattr(zk, f)) for f, (_, grp) in zip(_VK_FIELDS, _VK_POINTS))
    out = {"vk": np.frombuffer(vk, dtype=np.uint8)}
    for f in _ARRAY_FIELDS:
        out[f] = np.ascontiguousarray(getattr(zk, f))
    out["coeff_value"] = np.frombuffer(ints_to_le(zk.coeff_value, 32), dtype=np.uint8).reshape(-1, 32)
    out["contributions"] = np.frombuffer(zk.contributions, dtype=np.uint8)
    return out


def _cache_store(path: Path, digest: str, size: int, zk: ZKey) -> None:
    """Write the converted key atomically; failures (read-only or full disk) are logged, not raised."""
    try:
        arrays = _cache_arrays(zk)
        table, off, crc = [], 0, 0
        for name, arr in arrays.items():
            off = -(-off // 64) * 64
            table.append([name, arr.dtype.str, list(arr.shape), off, arr.nbytes])
            off += arr.nbytes
        chunks, pos = [], 0
        for (_, _, _, o, nb), arr in zip(table, arrays.values()):
            chunks.append(bytes(o - pos))
            if nb:
                chunks.append(memoryview(arr).cast("B"))
            pos = o + nb
        for ch in chunks:
            crc = zlib.crc32(ch, crc)
        hb = json.dumps({
            "zkey_sha256": digest, "zkey_bytes": size, "n_vars": zk.n_vars, "n_public": zk.n_public,
            "domain_size": zk.domain_size, "arrays": table, "payload_bytes": off, "crc32": crc,
        }).encode()
        prefix = _CACHE_MAGIC + struct.pack("<III", ZKEY_CACHE_VERSION, len(hb), zlib.crc32(hb)) + hb
        prefix += bytes(-len(prefix) % 64)
        with atomic_open(path) as f:
            f.write(prefix)
            for ch in chunks:
                f.write(ch)
        _prune(path.parent)
    except OSError as e:
        log.warning("could not write the converted-key cache %s: %s", path, e)


def _prune(folder: Path) -> None:
    try:
        entries = sorted((p for p in folder.iterdir() if len(p.name) == 64 and p.is_file()),
                         key=lambda p: p.stat().st_mtime, reverse=True)
        for old in entries[_CACHE_KEEP:]:
            old.unlink(missing_ok=True)
    except OSError:
        pass  # another process pruned or wrote at the same time


def _cache_parse(data: memoryview, digest: str, size: int) -> tuple[dict, dict[str, np.ndarray]]:
    if len(data) < 20 or bytes(data[:16]) != _CACHE_MAGIC:
        raise ZKeyCacheError("not a converted-key cache file (magic)")
    version = struct.unpack_from("<I", data, 16)[0]
    if version != ZKEY_CACHE_VERSION:
        raise ZKeyCacheError(f"cache version {version}, this reader writes {ZKEY_CACHE_VERSION}")
    if len(data) < 28:
        raise ZKeyCacheError("truncated header")
    hlen, hcrc = struct.unpack_from("<II", data, 20)
    hb = bytes(data[28 : 28 + hlen])
    if len(hb) != hlen or zlib.crc32(hb) != hcrc:
        raise ZKeyCacheError("truncated header or header CRC-32 mismatch")
    try:
        head = json.loads(hb)
    except ValueError as e:
        raise ZKeyCacheError(f"unreadable header: {e}") from None
    if not isinstance(head, dict) or head.get("zkey_sha256") != digest or head.get("zkey_bytes") != size:
        raise ZKeyCacheError("made from another .zkey (digest or size differ)")
    start = -(-(28 + hlen) // 64) * 64
    payload = data[start:]
    if len(payload) != head["payload_bytes"]:
        raise ZKeyCacheError(f"payload has {len(payload)} bytes, the header says {head['payload_bytes']}")
    if zlib.crc32(payload) != head["crc32"]:
        raise ZKeyCacheError("payload CRC-32 mismatch")
    arrays = {}
    for name, dtype, shape, off, nbytes in head["arrays"]:
        dt = np.dtype(dtype)
        count = int(np.prod(shape)) if shape else 1
        if off < 0 or off + nbytes > len(payload) or count * dt.itemsize != nbytes:
            raise ZKeyCacheError(f"array {name} does not fit the payload")
        arrays[name] = np.frombuffer(payload, dtype=dt, count=count, offset=off).reshape(shape)
    return head, arrays


def _cache_load(path: Path, digest: str, size: int, zkey_path) -> ZKey | None:
    """The cached conversion of the .zkey with this digest, or None (missing, or ignored as corrupt)."""
    try:
        data = memoryview(map_file(path, mmap.ACCESS_COPY)[0])  # private pages: the arrays are writable views
    except FileNotFoundError:
        return None
    except OSError as e:
        log.warning("ignoring the converted-key cache %s: %s", path, e)
        return None
    try:
        head, arr = _cache_parse(data, digest, size)
        nv, npub, n = int(head["n_vars"]), int(head["n_public"]), int(head["domain_size"])
        m = len(arr["coeff_matrix"])
        shapes = {"vk": (864,), "ic": (npub + 1, 96), "a": (nv, 96), "b_g1": (nv, 96), "b_g2": (nv, 192),
                  "c": (nv - npub - 1, 96), "h": (n, 96), "coeff_constraint": (m,), "coeff_signal": (m,),
                  "coeff_value": (m, 32)}
        for name, shape in shapes.items():
            if arr[name].shape != shape:
                raise ZKeyCacheError(f"array {name} has shape {arr[name].shape}, expected {shape}")
        vk, pts, pos = arr["vk"].tobytes(), [], 0
        for _, grp in _VK_POINTS:
            pts.append(grp.from_uncompressed(vk[pos : pos + grp.uncompressed_size], check_subgroup=True))
            pos += grp.uncompressed_size
        value = ints_from_le_rows(arr["coeff_value"])
    except (ZKeyCacheError, CurveError, KeyError, TypeError, ValueError, OSError) as e:
        log.warning("ignoring the converted-key cache %s (%s); converting %s again", path, e, zkey_path)
        return None
    try:
        os.utime(path)  # most recently used: pruned last
    except OSError:
        pass  # a read-only cache still serves
    return ZKey(nv, npub, n, *pts, arr["ic"], arr["coeff_matrix"], arr["coeff_constraint"], arr["coeff_signal"],
                value, arr["a"], arr["b_g1"], arr["b_g2"], arr["c"], arr["h"], arr["contributions"].tobytes())


# --- writing ------------------------------------------------------------------------------


def _pt(p, grp: Group) -> bytes:
    return points_to_lem(grp.to_array([p]), grp)


def write_zkey(path, zk: ZKey) -> None:
    """Write ``zk`` as a snarkjs Groth16 ``.zkey`` (sections 1–10) atomically.

    Section 10 is ``zk.contributions`` when set, else a zero 64-byte circuit hash and no
    contributions: ``snarkjs groth16 prove`` and ``zkey export verificationkey`` accept it;
    ``snarkjs zkey verify`` (which recomputes the hash from a ceremony) does not.

    Raises:
        ValueError: array shapes disagree with n_vars, n_public, domain_size.
    """
    nv, npub, n = zk.n_vars, zk.n_public, zk.domain_size
    for name, arr, rows, size in (
        ("ic", zk.ic, npub + 1, 96), ("a", zk.a, nv, 96), ("b_g1", zk.b_g1, nv, 96),
        ("b_g2", zk.b_g2, nv, 192), ("c", zk.c, nv - npub - 1, 96), ("h", zk.h, n, 96),
    ):
        if arr.shape != (rows, size):
            raise ValueError(f"zkey {name} has shape {arr.shape}, expected ({rows}, {size})")
    header = b"".join([
        struct.pack("<I", 48), FQ.modulus.to_bytes(48, "little"),
        struct.pack("<I", 32), FR.modulus.to_bytes(32, "little"),
        struct.pack("<III", nv, npub, n),
        _pt(zk.alpha_g1, G1), _pt(zk.beta_g1, G1), _pt(zk.beta_g2, G2),
        _pt(zk.gamma_g2, G2), _pt(zk.delta_g1, G1), _pt(zk.delta_g2, G2),
    ])
    m = len(zk.coeff_value)
    rec = np.empty(m, dtype=COEFF_DTYPE)
    rec["matrix"] = zk.coeff_matrix
    rec["constraint"] = zk.coeff_constraint
    rec["signal"] = zk.coeff_signal
    rec["value"] = np.frombuffer(ints_to_le(coeffs_to_zkey(zk.coeff_value), 32), dtype="V32")
    coeffs = struct.pack("<I", m) + rec.tobytes()
    contrib = zk.contributions or bytes(64) + struct.pack("<I", 0)
    write_container(path, "zkey", 1, [
        (1, struct.pack("<I", GROTH16_PROTOCOL)),
        (2, header),
        (3, points_to_lem(zk.ic, G1)),
        (4, coeffs),
        (5, points_to_lem(zk.a, G1)),
        (6, points_to_lem(zk.b_g1, G1)),
        (7, points_to_lem(zk.b_g2, G2)),
        (8, points_to_lem(zk.c, G1)),
        (9, points_to_lem(zk.h, G1)),
        (10, contrib),
    ])


__all__ = ["COEFF_DTYPE", "GROTH16_PROTOCOL", "ZKEY_CACHE_VERSION", "ZKey", "ZKeyCacheError", "read_zkey",
           "write_zkey"]
