"""PCE files: a circuit shape's R1CS (A, B, C in CSR with a coefficient table), written once.

Layout (version 1, all integers little-endian, every array starting on an 8-byte boundary):

    offset 0   magic      8 bytes  b"CUZKPCE\\0"
               version    u32      1
               hdr_len    u32      length of the JSON header in bytes
               header     JSON     counts, dtypes, gadget names, circuit description (free-form)
               padding    to 8 bytes
               arrays     in the order of ``header["arrays"]``: for A, B, C: indptr, indices,
                          coeff_ids; then coeffs (ncoeffs × 32 bytes, canonical Fr LE),
                          density_a, density_b (numpy.packbits, bit order little), gadget_starts,
                          gadget_ids; each padded to 8 bytes
               checksum   32 bytes SHA-256 of everything before it

Column indices are stored as uint32 when num_vars < 2^32 and coefficient ids as uint16 when the
table has < 2^16 entries (the common case: ±1 and powers of two), so a non-zero costs 6 bytes.
Written through a temporary file and renamed (``cuzk.fileio``). Reading verifies magic,
version, sizes, the checksum and every index's range before returning anything, once per file
version: the writer (which checks the ranges before writing) and a reader that finds the file
sound record it (``CheckRecords("checked-pce")``, by identity), and a later read whose record
holds the file's stored checksum skips the hash and the range passes (about 6 s for a 32 GiB
partition's 8.7 GB file, paid by every prove job before). A matrix damaged in place behind such a
record cannot produce a wrong proof: the prover refuses a witness that fails a row, and every
proof is verified before it is written.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
from pathlib import Path

import numpy as np

from ..errors import CuzkError
from ..field.sparse import CSRMatrix
from ..field import FR, from_limbs, to_limbs
from ..fileio import CheckRecords, atomic_open, map_readonly, release_pages, sha256_released
from .system import R1CS

MAGIC = b"CUZKPCE\0"
VERSION = 1
_CHECKSUM = 32
_CHECKED = CheckRecords("checked-pce")


class PCEFormatError(CuzkError, ValueError):
    """A PCE file is malformed: names the file and what is wrong."""

    def __init__(self, path, message: str):
        self.path = str(path)
        super().__init__(f"{self.path}: {message}")


def _pad8(n: int) -> int:
    return (-n) % 8


def _arrays(r1cs: R1CS, idx_dtype, cid_dtype) -> list[tuple[str, np.ndarray]]:
    out = []
    for name in ("A", "B", "C"):
        m = getattr(r1cs, name)
        out += [
            (f"{name}.indptr", np.ascontiguousarray(m.indptr, dtype="<i8")),
            (f"{name}.indices", np.ascontiguousarray(m.indices, dtype=idx_dtype)),
            (f"{name}.coeff_ids", np.ascontiguousarray(m.coeff_ids, dtype=cid_dtype)),
        ]
    coeffs = r1cs.A.coeffs
    out += [
        ("coeffs", to_limbs(coeffs, FR.limbs).view(np.uint8).reshape(-1)),
        ("density_a", np.packbits(np.asarray(r1cs.density_a, dtype=bool), bitorder="little")),
        ("density_b", np.packbits(np.asarray(r1cs.density_b, dtype=bool), bitorder="little")),
        ("gadget_starts", np.ascontiguousarray(r1cs.gadget_starts, dtype="<i8")),
        ("gadget_ids", np.ascontiguousarray(r1cs.gadget_ids, dtype="<i4")),
    ]
    return out


def write_pce(path, r1cs: R1CS, description: dict | None = None) -> None:
    """Write ``r1cs`` to ``path`` atomically.

    Args:
        path: output file.
        r1cs: finalized system; A, B, C must share one coefficient table (as ``finalize`` makes).
        description: JSON-serializable circuit description stored in the header (shape id,
            sector size, challenges, …).

    Raises:
        ValueError: the matrices do not share one coefficient table.
        PCEFormatError: a column index or coefficient id out of range (nothing is written).
    """
    if not (r1cs.A.coeffs is r1cs.B.coeffs is r1cs.C.coeffs) and not (
        np.array_equal(r1cs.A.coeffs, r1cs.B.coeffs) and np.array_equal(r1cs.A.coeffs, r1cs.C.coeffs)
    ):
        raise ValueError("PCE needs A, B and C to share one coefficient table")
    idx_dtype = "<u4" if r1cs.num_vars < 2**32 else "<i8"
    ncoeffs = len(r1cs.A.coeffs)
    for name in ("A", "B", "C"):   # what a reader checks, so that the written file can be trusted
        m = getattr(r1cs, name)
        _check_ranges(path, name, _range(m.indices), _range(m.coeff_ids), r1cs.num_vars, ncoeffs)
    cid_dtype = "<u2" if ncoeffs < 2**16 else "<i4"
    arrays = _arrays(r1cs, idx_dtype, cid_dtype)
    header = {
        "num_inputs": r1cs.num_inputs,
        "num_aux": r1cs.num_aux,
        "num_constraints": r1cs.num_constraints,
        "nnz": [r1cs.A.nnz, r1cs.B.nnz, r1cs.C.nnz],
        "ncoeffs": ncoeffs,
        "index_dtype": idx_dtype,
        "coeff_id_dtype": cid_dtype,
        "gadget_names": list(r1cs.gadget_names),
        "arrays": [[name, arr.dtype.str, int(arr.size)] for name, arr in arrays],
        "description": description or {},
    }
    hdr = json.dumps(header, separators=(",", ":")).encode()
    h = hashlib.sha256()
    with atomic_open(path) as f:

        def put(b: bytes | memoryview) -> None:
            h.update(b)
            f.write(b)

        head = MAGIC + struct.pack("<II", VERSION, len(hdr)) + hdr
        put(head + bytes(_pad8(len(head))))
        for _, arr in arrays:
            raw = memoryview(arr).cast("B")
            put(raw)
            put(bytes(_pad8(arr.nbytes)))
        f.write(h.digest())
    _CHECKED.mark(h.hexdigest(), path)


def read_pce_header(path) -> dict:
    """The JSON header of a PCE file (counts and description) without reading the arrays.

    Raises:
        PCEFormatError: wrong magic/version or a truncated header.
    """
    with open(path, "rb") as f:
        head = f.read(16)
        if len(head) < 16 or head[:8] != MAGIC:
            raise PCEFormatError(path, "not a PCE file (bad magic)")
        version, hlen = struct.unpack("<II", head[8:16])
        if version != VERSION:
            raise PCEFormatError(path, f"PCE version {version} is not supported (expected {VERSION})")
        hdr = f.read(hlen)
        if len(hdr) != hlen:
            raise PCEFormatError(path, "truncated header")
    try:
        return json.loads(hdr)
    except ValueError as e:
        raise PCEFormatError(path, f"header is not valid JSON: {e}") from None


def check_pce_file(path) -> None:
    """A cheap integrity check (no hashing; what runs on every existing PCE before a workflow
    run): magic, version, header, and the file's length against the arrays the header lists.

    Raises:
        PCEFormatError: naming the file and the fault.
    """
    header = read_pce_header(path)
    with open(path, "rb") as f:
        hlen = struct.unpack("<I", f.read(16)[12:16])[0]
    try:
        size = 16 + hlen
        size += _pad8(size)
        for _, dt, n in header["arrays"]:
            nbytes = np.dtype(dt).itemsize * int(n)
            size += nbytes + _pad8(nbytes)
    except (KeyError, TypeError, ValueError) as e:
        raise PCEFormatError(path, f"header does not describe its arrays: {e}") from None
    have = os.path.getsize(path)
    if have != size + _CHECKSUM:
        raise PCEFormatError(path, f"{have} bytes, the header describes {size + _CHECKSUM}: truncated or damaged")


def _range(arr) -> tuple[int, int]:
    """(min, max) of an index array; (0, -1) when empty."""
    return (int(arr.min()), int(arr.max())) if len(arr) else (0, -1)


def _check_ranges(path, name: str, cols: tuple[int, int], cids: tuple[int, int], nv: int, ncoeffs: int) -> None:
    if cols[1] >= nv or cols[0] < 0:
        raise PCEFormatError(path, f"matrix {name}: column index out of range")
    if cids[1] >= ncoeffs or cids[0] < 0:
        raise PCEFormatError(path, f"matrix {name}: coefficient id out of range")


def _owned(view: np.ndarray, dtype) -> np.ndarray:
    """A copy of a mapped array in ``dtype``; the view's pages are handed back (one copy in RSS)."""
    out = view.astype(dtype)
    release_pages(view)
    return out


_RANGE_CHUNK = 1 << 26   # entries per slice when a mapped array's range is checked


def _mapped_range(view: np.ndarray) -> tuple[int, int]:
    """(min, max) of a mapped array, slice by slice with each slice's pages handed back, so the
    check reads the file once without keeping it resident; (0, -1) when empty."""
    lo, hi = None, None
    for a in range(0, len(view), _RANGE_CHUNK):
        piece = view[a : a + _RANGE_CHUNK]
        pl, ph = int(piece.min()), int(piece.max())
        release_pages(piece)
        lo, hi = (pl, ph) if lo is None else (min(lo, pl), max(hi, ph))
    return (0, -1) if lo is None else (lo, hi)


def read_pce(path, mapped: bool = False, check: bool = False) -> tuple[R1CS, dict]:
    """Read a PCE file.

    Args:
        path: the file.
        check: verify the checksum and the index ranges even when this file version's record
            holds its stored checksum (by default such a file is trusted: see the module
            docstring); a file found sound is recorded.
        mapped: False (default): A, B and C own their arrays (indptr and indices int64,
            coeff_ids int32; one copy in host memory, about 16 B per non-zero). True: they are
            read-only views of the mapped file in its stored dtypes (indices ``<u4`` when fewer
            than 2^32 variables, coeff_ids ``<u2`` or ``<i4``), checked slice by slice with the
            pages handed back, so the step's RSS does not grow by the matrices (8.7 GB at
            32 GiB): for a consumer that copies them elsewhere in slices (the cuda backend's
            ``spmv`` upload) and never fancy-indexes them on the host.

    Returns:
        (r1cs, description).

    Raises:
        PCEFormatError: bad magic or version, truncation, checksum mismatch, or inconsistent
            array sizes (each names the file).
    """
    path = Path(path)
    header = read_pce_header(path)
    data = np.frombuffer(map_readonly(path), dtype=np.uint8)   # slices readable by pread (``fileio.read_rows``)
    if len(data) < _CHECKSUM:
        raise PCEFormatError(path, "truncated")
    body = data[:-_CHECKSUM]
    stored = bytes(data[-_CHECKSUM:])
    trusted = not check and _CHECKED.trusted_digest(path) == stored.hex()
    if not trusted and sha256_released(body).digest() != stored:
        raise PCEFormatError(path, "checksum mismatch: the file is truncated or corrupted")
    hlen = struct.unpack("<I", bytes(data[12:16]))[0]
    pos = 16 + hlen
    pos += _pad8(pos)
    arrs = {}
    for name, dt, size in header["arrays"]:
        nbytes = np.dtype(dt).itemsize * size
        if pos + nbytes > len(body):
            raise PCEFormatError(path, f"array {name} runs past the end of the file")
        arrs[name] = np.frombuffer(body[pos : pos + nbytes], dtype=dt)  # a view; converted below
        pos += nbytes + _pad8(nbytes)
    if pos != len(body):
        raise PCEFormatError(path, f"{len(body) - pos} unexpected bytes after the arrays")
    ni, na, nc = header["num_inputs"], header["num_aux"], header["num_constraints"]
    nv = ni + na
    coeffs = from_limbs(arrs["coeffs"].view("<u8").reshape(-1, FR.limbs))
    if len(coeffs) != header["ncoeffs"]:
        raise PCEFormatError(path, "coefficient table size disagrees with the header")
    mats = []
    for k, name in enumerate(("A", "B", "C")):
        if mapped:
            indptr, indices, cids = (arrs[f"{name}.{a}"] for a in ("indptr", "indices", "coeff_ids"))
        else:
            indptr, indices, cids = (_owned(arrs[f"{name}.{a}"], t) for a, t in
                                     (("indptr", np.int64), ("indices", np.int64), ("coeff_ids", np.int32)))
        if len(indptr) != nc + 1 or indptr[-1] != len(indices) or len(indices) != header["nnz"][k]:
            raise PCEFormatError(path, f"matrix {name}: CSR sizes disagree with the header")
        if not trusted:
            rng = _mapped_range if mapped else _range
            _check_ranges(path, name, rng(indices), rng(cids), nv, len(coeffs))
        mats.append(CSRMatrix(indptr, indices, cids, coeffs, (nc, nv)))
    dens = [np.unpackbits(arrs[d], bitorder="little", count=nv).astype(bool) for d in ("density_a", "density_b")]
    if not trusted:
        _CHECKED.mark(stored.hex(), path)
    r1cs = R1CS(
        num_inputs=ni,
        num_aux=na,
        num_constraints=nc,
        A=mats[0],
        B=mats[1],
        C=mats[2],
        density_a=dens[0],
        density_b=dens[1],
        gadget_starts=arrs["gadget_starts"].astype(np.int64),
        gadget_ids=arrs["gadget_ids"].astype(np.int32),
        gadget_names=tuple(header["gadget_names"]),
    )
    return r1cs, header.get("description", {})
