"""Witness files: one sector's assignment, bit-valued variables packed as bits.

Layout (version 1, little-endian):

    magic     8 bytes  b"CUZKWIT\\0"
    version   u32      1
    hdr_len   u32      length of the JSON header
    header    JSON     num_inputs, num_aux, num_bits, num_wide, pce_digest (the shape it fits)
    padding   to 8 bytes
    inputs    num_inputs × 32 bytes, canonical Fr little-endian (ONE first)
    is_bit    ceil(num_aux / 8) bytes, numpy.packbits(bitorder="little"): aux j is 0/1
    bits      ceil(num_bits / 8) bytes, the values of the bit-valued aux in order
    wide      num_wide × 32 bytes, the other aux values in order
    checksum  32 bytes SHA-256 of everything before it

A PoRep witness is mostly bits (SHA-256), so this is about 1/200 of 32 bytes per variable.

Version 2 (written only where some wide values are computed from their inputs,
``witness_poseidon: inputs``: ``cuzk.r1cs.poseidon.PoseidonWalks``) adds to the header
``computed``, one entry per run of such values: ``values`` (how many), ``count`` (rows: hash
calls), ``m`` (distinct rows), ``width`` (inputs per row) and ``spec`` (what computes them: kind,
arity, tag, strength). Its ``wide`` section then holds only the other wide values (num_wide − Σ
values, in order), and after it come, per run in order, the inputs (m × width × 32 bytes,
canonical Fr), the rows (count × 4 bytes, uint32 indices below m, zero-padded to 8 bytes) and the
offsets (count × 8 bytes, uint64: where each row's values begin among the wide values; in cuzk's
block order a run's rows follow each other, in rust-fil-proofs' order each hash's values are
still together but the calls are spread out). A full 32 GiB WindowPoSt partition: 0.25 GiB instead of 3.76 GiB
(52 MB of them Poseidon inputs, 0.9 MB rows).

Version 3 (written only where the SHA-256 compressions' bits are computed by the prover,
``synthesis_sha: prover``: ``cuzk.backend.sha_host.deferred_compute``) is version 2 (computed runs
or none) with ``sha`` in the header (``calls``, ``lanes``, ``end``: the job table's rows, lanes and
one past its last aux index); its ``bits`` section holds 0 for those compressions' bits (but their
output words', which later gadgets read), and after
the computed runs come the job table (calls × 208 bytes, ``sha_host.JOB_DTYPE``), the lanes' calls
(lanes × 4 bytes, uint32, zero-padded to 8 bytes) and their input words (lanes × 96 bytes: 8 state
and 16 message words, uint32). A 32 GiB PoRep partition's 127.5 M bits are then 5,040 lanes of
inputs (about 0.6 MB) that the GPU turns into its bits in device memory (the zeros are still
packed in ``bits``: the file is not smaller).
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from ..backend.base import CompactAssignment
from ..backend.sha_host import JOB_DTYPE, ShaJobs
from ..errors import CuzkError
from ..field import FR, LimbRuns, from_limbs, to_limbs
from ..fileio import atomic_open
from .poseidon import PoseidonWalks   # the only kind of computed run so far

MAGIC = b"CUZKWIT\0"
_PIECE = 32 << 20   # bytes hashed beside each write (write_witness_compact)
VERSION = 1
VERSION_COMPUTED = 2
"""The version of a file with computed runs (the layout above)."""
VERSION_SHA = 3
"""The version of a file with a SHA-256 job table (the layout above)."""


class WitnessFormatError(CuzkError, ValueError):
    """A witness file is malformed or does not fit the expected shape (names the file)."""

    def __init__(self, path, message: str):
        self.path, self.reason = str(path), message
        super().__init__(f"{self.path}: {message}")


def _limbs(values) -> np.ndarray:
    """``(n, 4)`` uint64 canonical limbs of an int array (of any dtype)."""
    values = np.asarray(values, dtype=object)
    return to_limbs(values, FR.limbs) if len(values) else np.zeros((0, FR.limbs), dtype=np.uint64)


def write_witness(path, inputs: np.ndarray, aux: np.ndarray, pce_digest: str = "") -> None:
    """Write an assignment atomically (``write_witness_compact`` of its compact form).

    Args:
        inputs: ``(num_inputs,)`` int array, canonical Fr, ONE first.
        aux: ``(num_aux,)`` int array (or numpy unsigned array), canonical Fr.
        pce_digest: identifies the circuit shape (e.g. SHA-256 of its PCE file), checked on read.

    Raises:
        ValueError: a value is not below r.
    """
    aux = np.asarray(aux)
    # elementwise comparisons (numpy's loop, also over object arrays of ints/mpz): about twice as
    # fast as a Python generator at 130 M values (a 32 GiB partition)
    is_one = np.asarray(aux == 1, dtype=bool)
    is_bit = is_one | np.asarray(aux == 0, dtype=bool)
    cw = CompactAssignment(_limbs(inputs), np.packbits(is_bit, bitorder="little"),
                           np.packbits(is_one[is_bit], bitorder="little"), _limbs(aux[~is_bit]), len(aux),
                           int(is_bit.sum()))
    write_witness_compact(path, cw, pce_digest)


def write_witness_compact(path, cw: CompactAssignment, pce_digest: str = "") -> None:
    """Write an assignment given as it is stored (``ConstraintSystem.assignment_compact``: no
    Python int per value) atomically, in the layout above.

    Args:
        cw: the assignment (``cuzk.backend.CompactAssignment``); a wide section given as a
            ``cuzk.field.LimbRuns`` is written chunk by chunk, never made whole.
        pce_digest: identifies the circuit shape (e.g. SHA-256 of its PCE file), checked on read.
    """
    header = {
        "num_inputs": len(cw.inputs),
        "num_aux": cw.num_aux,
        "num_bits": cw.num_bits,
        "num_wide": len(cw.wide),
        "pce_digest": pce_digest,
    }
    runs = cw.wide.computed() if isinstance(cw.wide, LimbRuns) else []
    if runs:
        header["computed"] = [{"values": rows.shape[0] * lm.shape[1], "count": rows.shape[0], "m": lm.shape[0],
                               "width": lm.inputs.shape[1], "spec": lm.spec()} for _, lm, rows in runs]
    sha = cw.sha
    if sha is not None:
        header["sha"] = {"calls": len(sha.jobs), "lanes": len(sha.job_of), "end": sha.end}
    hdr = json.dumps(header).encode()
    h = hashlib.sha256()
    # each piece hashed on a thread while it is written (both release the GIL): the 2 s of
    # SHA-256 of a 32 GiB WindowPoSt witness (3.76 GB) no longer add to its write
    with atomic_open(path) as f, ThreadPoolExecutor(1) as hasher:

        def put(b) -> None:
            for lo in range(0, len(b), _PIECE):
                piece = b[lo:lo + _PIECE]
                done = hasher.submit(h.update, piece)
                f.write(piece)
                done.result()

        version = VERSION_SHA if sha is not None else VERSION_COMPUTED if runs else VERSION
        head = MAGIC + struct.pack("<II", version, len(hdr)) + hdr
        put(head + bytes((-len(head)) % 8))
        tail = [a for offsets, lm, rows in runs for a in (lm.inputs, _padded_rows(rows), offsets.astype(np.uint64))]
        if sha is not None:
            tail += [sha.jobs.view(np.uint8), _padded_rows(sha.job_of), sha.vals.astype(np.uint32, copy=False)]
        for arr in (cw.inputs, cw.mask, cw.bits, cw.wide, *tail):
            for part in arr.chunks(computed=False) if isinstance(arr, LimbRuns) else (arr,):
                data = np.ascontiguousarray(part).astype(part.dtype.newbyteorder("<"), copy=False)
                put(data.reshape(-1).view(np.uint8))
        f.write(h.digest())


def _padded_rows(rows: np.ndarray) -> np.ndarray:
    """A computed run's rows as the file stores them: uint32, zero-padded to 8 bytes."""
    out = np.zeros(rows.shape[0] + rows.shape[0] % 2, dtype=np.uint32)
    out[: rows.shape[0]] = rows
    return out


def _layout(path, head: bytes) -> tuple[dict, int, list[int]]:
    """The header of a witness file from its first bytes (at least 16, the header after them when
    present): (header, offset of the first section, the section sizes: four, then three per
    computed run, then three for a SHA-256 job table).

    Raises:
        WitnessFormatError: bad magic, an unknown version, or a damaged header.
    """
    if len(head) < 16 or head[:8] != MAGIC:
        raise WitnessFormatError(path, "not a witness file (bad magic or too short)")
    version, hlen = struct.unpack("<II", head[8:16])
    if version not in (VERSION, VERSION_COMPUTED, VERSION_SHA):
        raise WitnessFormatError(path, f"witness version {version} is not supported")
    try:
        hd = json.loads(head[16 : 16 + hlen])
        ni, na, nb, nw = hd["num_inputs"], hd["num_aux"], hd["num_bits"], hd["num_wide"]
        runs = hd.get("computed", []) if version != VERSION else []
        stored = nw - sum(int(r["values"]) for r in runs)
        sizes = [32 * ni, (na + 7) // 8, (nb + 7) // 8, 32 * stored]
        for r in runs:
            sizes += [32 * int(r["m"]) * int(r["width"]), 8 * -(-int(r["count"]) // 2), 8 * int(r["count"])]
        sha = hd.get("sha") if version == VERSION_SHA else None
        if sha is not None:
            calls, lanes = int(sha["calls"]), int(sha["lanes"])
            sizes += [JOB_DTYPE.itemsize * calls, 8 * -(-lanes // 2), 96 * lanes]
            if not 0 <= int(sha["end"]) <= na:
                raise ValueError(f"the SHA-256 job table ends at aux {sha['end']}, outside the {na} aux values")
        if min(sizes) < 0 or (version == VERSION and runs) or (version == VERSION_COMPUTED and not runs) \
                or (version == VERSION_SHA) != (sha is not None):
            raise ValueError("negative sizes, or computed runs or a SHA-256 table that disagree with the version")
    except (ValueError, KeyError, TypeError, OverflowError) as e:   # OverflowError: int(Infinity)
        raise WitnessFormatError(path, f"header is damaged: {e}") from None
    pos = 16 + hlen
    return hd, pos + (-pos) % 8, sizes


def check_witness_file(path) -> None:
    """A cheap integrity check (no hashing; run on existing witnesses before a workflow run):
    magic, version, header, and the file's length against the sections the header counts.

    Raises:
        WitnessFormatError: naming the file and the fault.
    """
    _, pos, sizes = _read_layout(path)
    have, size = os.path.getsize(path), pos + sum(sizes) + 32
    if have != size:
        raise WitnessFormatError(path, f"{have} bytes, the header describes {size}: truncated or damaged")


def _read_layout(path) -> tuple[dict, int, list[int]]:
    """``_layout`` of a witness file from its first bytes only."""
    with open(path, "rb") as f:
        head = f.read(16)
        if len(head) == 16:
            head += f.read(struct.unpack("<I", head[12:16])[0])
    return _layout(path, head)


def witness_compact_bytes(path) -> int:
    """Bytes of the assignment a witness file holds in compact form (``CompactAssignment.nbytes``,
    computed values counted as values: what the cuda prover keeps on the device per partition in
    flight, ``plan_prove``'s ``compact_w``), from its header only.

    Raises:
        WitnessFormatError: bad magic, another version, or a damaged header.
    """
    hd, _, sizes = _read_layout(path)
    return sum(sizes[:3]) + 32 * int(hd["num_wide"])


def keeps_values(path) -> bool:
    """Whether a witness file holds every wide value (version 1), not the inputs of some
    (version 2: ``witness_poseidon: inputs``), from its header; True for a file that cannot be
    read (the reader names its fault later)."""
    try:
        return "computed" not in _read_layout(path)[0]
    except (OSError, WitnessFormatError):
        return True


def read_witness_compact(path, pce_digest: str | None = None) -> CompactAssignment:
    """Read an assignment as the file stores it (bits packed, the other values as limbs): what the
    cuda backend uploads and expands on the GPU (about 35 MB at 32 GiB instead of 4.2 GB).

    Args:
        pce_digest: when given, the file's shape digest must equal it.

    Returns:
        A ``cuzk.backend.CompactAssignment`` (its arrays are views of the file's bytes).

    Raises:
        WitnessFormatError: bad magic/version, truncation, checksum mismatch, sizes that do not
            add up, a value not below r, or a witness made for another shape.
    """
    raw = Path(path).read_bytes()
    if len(raw) < 48 or raw[:8] != MAGIC:
        raise WitnessFormatError(path, "not a witness file (bad magic or too short)")
    if hashlib.sha256(raw[:-32]).digest() != raw[-32:]:
        raise WitnessFormatError(path, "checksum mismatch: the file is truncated or corrupted")
    hd, pos, sizes = _layout(path, raw)
    have = str(hd.get("pce_digest"))
    if pce_digest is not None and have != pce_digest:
        raise WitnessFormatError(path, f"made for shape {have[:16]}…, expected {pce_digest[:16]}…")
    ni, na, nb, nw = hd["num_inputs"], hd["num_aux"], hd["num_bits"], hd["num_wide"]
    if pos + sum(sizes) != len(raw) - 32 or nb + nw != na:
        raise WitnessFormatError(path, "section sizes do not match the header")
    parts = []
    for s in sizes:
        parts.append(np.frombuffer(raw, dtype=np.uint8, count=s, offset=pos))
        pos += s
    try:
        wide = parts[3].view("<u8").reshape(-1, FR.limbs)
        sha = _sha_table(hd["sha"], parts[-3:]) if "sha" in hd else None
        if "computed" in hd:
            wide = _with_computed(hd["computed"], wide, parts[4:len(parts) - (3 if sha else 0)])
        return CompactAssignment(parts[0].view("<u8").reshape(ni, FR.limbs), parts[1], parts[2], wide, na, nb, sha=sha)
    except (ValueError, KeyError, TypeError, OverflowError) as e:
        raise WitnessFormatError(path, str(e)) from None


def _sha_table(hd: dict, parts: list) -> ShaJobs:
    """The SHA-256 job table of a version 3 file (its three sections).

    Raises:
        ValueError: a lane's call, or a call's lanes, outside the table.
    """
    lanes = int(hd["lanes"])
    jobs = parts[0].view(JOB_DTYPE)
    job_of = parts[1].view("<u4")[:lanes]
    if lanes and int(job_of.max()) >= jobs.shape[0]:
        raise ValueError("the SHA-256 job table names a call it does not hold")
    first = jobs["first"].astype(np.int64)[job_of]
    t = np.arange(lanes, dtype=np.int64)
    if not ((first <= t) & (t < first + jobs["k"][job_of])).all():   # the cores index lanes from first
        raise ValueError("a lane of the SHA-256 job table lies outside its call's lanes")
    return ShaJobs(jobs, job_of, parts[2].view("<u4").reshape(lanes, 24), int(hd["end"]))


def _with_computed(runs: list, stored: np.ndarray, parts: list) -> LimbRuns:
    """The wide values of a version 2 file: the stored ones and the computed runs, consecutive
    runs in their places (block order) or placed by their offsets (LimbRuns checks them).

    Raises:
        ValueError, KeyError: an unknown run, or rows or offsets out of range.
    """
    made = []
    for r, inp, rows, offsets in zip(runs, parts[0::3], parts[1::3], parts[2::3]):
        walks = PoseidonWalks.from_spec(r["spec"], inp.view("<u8").reshape(int(r["m"]), int(r["width"]), FR.limbs))
        if walks.shape[1] * int(r["count"]) != int(r["values"]):
            raise ValueError(f"a computed run of {r['values']} values is {r['count']} rows of {walks.shape[1]}")
        made.append((walks, rows.view("<u4")[: int(r["count"])], offsets.view("<u8")))
    pieces, s, pos = [], 0, 0   # stored values placed, wide position reached
    for walks, rows, offsets in made:
        at = int(offsets[0]) if offsets.size else pos
        if at < pos or not np.array_equal(offsets, at + walks.shape[1] * np.arange(offsets.shape[0], dtype=np.uint64)):
            return LimbRuns([(stored, None)], placed=made)   # not one after another: placed
        pieces += [(stored[s:s + at - pos], None), (walks, rows)]
        s, pos = s + at - pos, at + walks.shape[1] * rows.shape[0]
    return LimbRuns(pieces + [(stored[s:], None)])


def read_witness(path, pce_digest: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Read an assignment.

    Args:
        pce_digest: when given, the file's shape digest must equal it.

    Returns:
        (inputs, aux) as int arrays.

    Raises:
        WitnessFormatError: bad magic/version, truncation, checksum mismatch, sizes that do not
            add up, a value not below r, or a witness made for another shape.
    """
    cw = read_witness_compact(path, pce_digest)
    is_bit = cw.is_bit()
    aux = np.empty(cw.num_aux, dtype=object)
    aux[is_bit] = [int(b) for b in cw.bit_values()] if cw.num_bits else []
    aux[~is_bit] = from_limbs(cw.wide) if len(cw.wide) else np.empty(0, dtype=object)
    return from_limbs(cw.inputs) if len(cw.inputs) else np.empty(0, dtype=object), aux


def read_witness_limbs(path, pce_digest: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Read an assignment as limb arrays, with no Python integer per value: what a GPU prover
    uploads as is (at 32 GiB, 130 M aux values: about a second instead of half a minute).

    Returns:
        (inputs, aux) as ``(num_inputs, 4)`` and ``(num_aux, 4)`` uint64 arrays of canonical
        little-endian limbs (values already checked below r): consecutive views of one
        ``(num_inputs + num_aux, 4)`` array, which ``Prover.assignment`` takes as w without a copy.

    Raises:
        WitnessFormatError: as ``read_witness``.
    """
    cw = read_witness_compact(path, pce_digest)
    w = cw.limbs()   # one buffer: see above
    ni = len(cw.inputs)
    return w[:ni], w[ni:]
