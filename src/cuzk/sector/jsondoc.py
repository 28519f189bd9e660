"""Sector JSON documents (C1 files, PoSt vanilla proofs): strict reading, shared schema parts, and
checking a document once when it enters the workflow.

Strict reading (:func:`load_json`): the bytes must be UTF-8, the text JSON without floats,
``NaN``/``Infinity`` or nesting deeper than :data:`MAX_DEPTH`; every failure is the caller's typed
error (``C1Error``, ``PoStError``) naming the file, never a ``UnicodeDecodeError`` or
``RecursionError``. None of these documents has a fractional number, so ``2.0`` where an integer
belongs is refused here rather than passing a JSON schema's "integer" (which admits ``2.0``).

Checked once (:func:`admit`, :func:`load_checked`): a full check of a 32 GiB C1 costs about 12 s
(``verify_porep_c1``); the workflow pays it once, when the file enters, and records the file's
SHA-256 in a small JSON record. Every later step reads the document through the record: the
bytes' digest must equal the recorded one (else the typed error names the file and says it
changed after it was checked), and then the document is trusted without the proof checks.

Partition slices (:func:`admit` with ``slices``, :func:`load_checked_partition`): parsing a
38 MB 32 GiB C1 (21 million Python objects) took 2.1-3.0 s of each of a sector's ten partition
jobs on the 2-core machine, 1.7 s on the H200 host; its one-partition slice parses in 0.18 s.
The check writes each partition's slice beside the record and records their digests; a
partition job still hashes the whole file against the record, then parses only its slice (a
missing or changed slice: the whole file, with a warning).

Rejected (:func:`reject`, :func:`rejection`): where the workflow lets a batch go on without a
sector whose document fails its check, the check writes a record of the refusal instead (the
reason, the bytes' SHA-256); every reader of the record (:func:`load_checked`) then raises the
same typed error with that reason, so a rejected document is never trusted.
"""

from __future__ import annotations

import gc
import hashlib
import json
import logging
import os
import re
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from ..fileio import atomic_write_bytes, atomic_write_text

log = logging.getLogger(__name__)

U64_MAX = (1 << 64) - 1
MAX_DEPTH = 64  # deeper than any sector document (a C1 nests 9 levels)
RECORD_FORMAT = "cuzk-checked/1"

#: JSON schema parts shared by the C1 and PoSt schemas.
BYTES32 = {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 255}, "minItems": 32, "maxItems": 32}
NAT = {"type": "integer", "minimum": 0, "maximum": U64_MAX}


def nat(minimum: int = 0, maximum: int = U64_MAX) -> dict:
    """A JSON-schema integer in [minimum, maximum] (default: a u64, as upstream's fields are)."""
    return {"type": "integer", "minimum": minimum, "maximum": maximum}


ErrorFactory = Callable[[object, str, str], Exception]


def _no_float(text: str):
    raise ValueError(f"number {text[:40]} has a fraction or exponent; only integers belong here")


def _no_constant(text: str):
    raise ValueError(f"{text} is not a JSON number")


# a JSON string: quote, then anything but a quote or backslash, or a backslash escape, then quote
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_STEP = np.zeros(256, np.int8)   # a byte's change of nesting depth outside strings
_STEP[list(b"[{")], _STEP[list(b"]}")] = 1, -1
_DEPTH_CHUNK = 1 << 24   # bytes per running sum: bounds the scan's temporaries (int32, 64 MiB)


def _depth(data: bytes) -> int:
    """The deepest nesting of arrays and objects in valid JSON text ``data``, from its brackets
    outside strings, as a running sum over chunks: a C1 of 38 MB is scanned in about 0.2 s, where
    walking the parsed document took 4.7 s (21 million objects), and a 32 GiB WindowPoSt vanilla
    file (203 MB) with about 0.3 GB of temporaries (one sum over the whole text took 3.8 GB)."""
    b = np.frombuffer(_STRING.sub(b'""', data), np.uint8)
    deepest = level = 0
    for lo in range(0, len(b), _DEPTH_CHUNK):
        run = np.cumsum(_STEP[b[lo:lo + _DEPTH_CHUNK]], dtype=np.int32)
        deepest = max(deepest, level + int(run.max()))
        level += int(run[-1])
    return deepest


def loads(data: bytes, path, error: ErrorFactory, check_depth: bool = True):
    """Parse ``data`` (the bytes of ``path``) strictly; see the module docstring.
    ``check_depth=False`` skips the nesting scan (0.3 s for a 38 MB C1) for bytes that passed it
    before (:func:`load_checked`: the same SHA-256 as the checked ones).

    Raises:
        ``error(path, "<encoding>" | "<json>", message)`` for non-UTF-8 bytes, invalid JSON,
        floats or NaN/Infinity, integers too long to parse, or nesting deeper than MAX_DEPTH.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise error(path, "<encoding>", f"not UTF-8 text (byte {e.start}: {e.reason})") from None
    collecting = gc.isenabled()
    gc.disable()   # no cycles here; collections over millions of new lists doubled the parse
    try:
        doc = json.loads(text, parse_float=_no_float, parse_constant=_no_constant)
    except json.JSONDecodeError as e:
        raise error(path, "<json>", f"not valid JSON: {e}") from None
    except RecursionError:
        raise error(path, "<json>", f"nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as e:  # a float, NaN/Infinity, or an integer past Python's digit limit
        raise error(path, "<json>", str(e)) from None
    finally:
        if collecting:
            gc.enable()
    if check_depth and _depth(data) > MAX_DEPTH:
        raise error(path, "<json>", f"nested deeper than {MAX_DEPTH} levels")
    return doc


def load_json(path, error: ErrorFactory):
    """Read and strictly parse a JSON document file (:func:`loads`).

    Raises:
        the caller's ``error`` (see :func:`loads`); OSError when the file cannot be read.
    """
    return loads(Path(path).read_bytes(), path, error)


def write_doc(path, doc) -> None:
    """Write a sector JSON document compactly and atomically (``cuzk.fileio``)."""
    atomic_write_text(path, json.dumps(doc, separators=(",", ":")) + "\n")


def read_verified(path, error: ErrorFactory, verify: Callable[[dict, str], None]):
    """Read a document strictly (:func:`load_json`) and check it fully with ``verify(doc, path)``.

    Raises:
        the caller's ``error`` (reading faults, and whatever ``verify`` raises); OSError.
    """
    doc = load_json(path, error)
    verify(doc, os.fspath(path))
    return doc

def slice_path(record_path, k: int) -> Path:
    """Where :func:`admit` writes partition ``k``'s slice of a document: beside its record."""
    return Path(f"{os.fspath(record_path)}.p{k}.json")


def admit(path, record_out, verify: Callable[[dict, str], None], error: ErrorFactory,
          slices: Callable[[dict], Sequence[dict]] | None = None, **facts) -> dict:
    """Check a document fully once and record its digest for later steps.

    Args:
        path: the document (C1 or PoSt vanilla file).
        record_out: the record to write (JSON, atomically): format, the document's path, size
            and SHA-256, and ``facts`` (e.g. ``synthetic``, ``sector_id``).
        verify: ``verify(doc, path)`` raising the typed error on any fault (e.g.
            ``verify_porep_c1``); it sees the very bytes whose digest is recorded, and may return
            a dict of facts to record too.
        error: the typed error factory for reading faults.
        slices: ``slices(doc)`` → one document per partition holding only that partition's data
            (``Family.slice``): each written compactly to :func:`slice_path` before the record,
            its SHA-256 recorded under ``"slices"``.

    Returns:
        The record as a dict. Raises the typed error (or OSError) before writing anything; a
        rejection record in the document's place (:func:`reject`, written by an earlier step)
        raises ``error(path, "<rejected>", ...)`` with its reason, parsed once with the rest.
    """
    data = Path(path).read_bytes()
    doc = loads(data, path, error)
    if (why := _reason(doc)) is not None:   # an earlier step's refusal in its place (import_c1's)
        raise error(path, "<rejected>", f"rejected before its check: {why}")
    found = verify(doc, os.fspath(path)) or {}
    rec = {"format": RECORD_FORMAT, "path": os.fspath(path), "bytes": len(data),
           "sha256": hashlib.sha256(data).hexdigest(), **facts, **found}
    if slices is not None:
        digests = []
        for k, piece in enumerate(slices(doc)):
            raw = (json.dumps(piece, separators=(",", ":")) + "\n").encode()
            atomic_write_bytes(slice_path(record_out, k), raw)
            digests.append(hashlib.sha256(raw).hexdigest())
        rec["slices"] = digests
    atomic_write_text(record_out, json.dumps(rec, indent=1) + "\n")
    return rec


def reject(path, record_out, exc: Exception) -> dict:
    """Record that ``path`` failed its check with ``exc`` (the caller's typed input error): the
    record (JSON, atomically) has the format, path, size and SHA-256 of the refused bytes (an
    unreadable file: size 0 and an empty digest), ``rejected`` (the error's text) and ``error``
    (its class name), and logs the refusal as an error. Returns it."""
    try:
        data = Path(path).read_bytes()
    except OSError:
        data = None
    rec = {"format": RECORD_FORMAT, "path": os.fspath(path), "bytes": len(data or b""),
           "sha256": hashlib.sha256(data).hexdigest() if data is not None else "",
           "rejected": str(exc), "error": type(exc).__name__}
    atomic_write_text(record_out, json.dumps(rec, indent=1) + "\n")
    log.error("rejected %s: %s: %s", path, type(exc).__name__, exc)
    return rec


def rejection(record_path) -> str | None:
    """The reason a record written by :func:`reject` gives, or None: the record admits its
    document, or it is missing or unreadable (its readers name what is wrong)."""
    try:
        return _reason(json.loads(Path(record_path).read_bytes()))
    except (OSError, ValueError):
        return None


def _reason(rec) -> str | None:
    """The reason of a parsed rejection record (:func:`reject`), or None for any other document."""
    if isinstance(rec, dict) and rec.get("format") == RECORD_FORMAT and isinstance(rec.get("rejected"), str):
        return rec["rejected"]
    return None


def stale_rejection(record_path) -> list:
    """The rejection records to drop because the file they refused changed: ``record_path`` when
    it is a rejection (:func:`reject`) whose refused file now reads with another size or SHA-256
    (replaced, e.g. by an older copy whose modification time Snakemake does not see as newer),
    and, where the refused file is itself a rejection record (an imported C1's, ``import_c1``)
    that is stale, that one's list then ``record_path``. Empty for a current rejection, any other
    record, or a refused file that is missing or unreadable now (nothing new to check).
    Reads the refused file whole (rejected inputs only)."""
    try:
        rec = json.loads(Path(record_path).read_bytes())
    except (OSError, ValueError):
        return []
    path = rec.get("path") if _reason(rec) is not None else None
    if not isinstance(path, str) or os.path.abspath(path) == os.path.abspath(record_path):
        return []
    try:
        data = Path(path).read_bytes()
    except OSError:
        return []
    inner = stale_rejection(path)
    if inner or len(data) != rec.get("bytes") or hashlib.sha256(data).hexdigest() != rec.get("sha256"):
        return [*inner, os.fspath(record_path)]
    return []


def read_record(record_path, error: ErrorFactory) -> dict:
    """A record written by :func:`admit`. Raises ``error`` for a malformed record."""
    rec = load_json(record_path, error)
    if not isinstance(rec, dict) or rec.get("format") != RECORD_FORMAT or not isinstance(rec.get("sha256"), str):
        raise error(record_path, "format", f"not a {RECORD_FORMAT} check record")
    return rec


def load_checked(path, record_path, error: ErrorFactory):
    """Read a document admitted before, trusting it by its recorded SHA-256 (no proof checks).

    Raises:
        ``error(path, "<sha256>", ...)`` when the bytes differ from the checked ones (the file
        changed after it entered the workflow), ``error(path, "<check>", ...)`` with the reason
        when the record is a rejection (:func:`reject`), or any strict-reading error; OSError
        when a file cannot be read.
    """
    _, data = _checked_bytes(path, record_path, error)
    return loads(data, path, error, check_depth=False)


def _checked_bytes(path, record_path, error: ErrorFactory) -> tuple[dict, bytes]:
    """(record, the document's bytes) once the bytes' SHA-256 equals the recorded one."""
    rec = read_record(record_path, error)
    if (why := _reason(rec)) is not None:
        raise error(path, "<check>", f"rejected by its check ({record_path}): {why}")
    data = Path(path).read_bytes()
    got = hashlib.sha256(data).hexdigest()
    if got != rec["sha256"]:
        raise error(path, "<sha256>", f"changed after it was checked ({record_path}): sha256 {got[:16]}… is not the "
                                      f"checked {rec['sha256'][:16]}…; rerun the workflow to check the new file")
    return rec, data


def load_checked_partition(path, record_path, error: ErrorFactory, k: int):
    """Partition ``k``'s slice of a document admitted with ``slices`` (:func:`admit`), after the
    whole document's bytes are checked against the record as :func:`load_checked` does; the
    whole document when the record has no slice ``k`` or the slice file is missing or differs
    from its recorded digest (logged: the check step wrote it, so something changed it since).

    Raises:
        as :func:`load_checked`.
    """
    rec, data = _checked_bytes(path, record_path, error)
    digests = rec.get("slices")
    if isinstance(digests, list) and 0 <= k < len(digests):
        sp = slice_path(record_path, k)
        try:
            raw = sp.read_bytes()
        except OSError as e:
            log.warning("%s: slice %d unreadable (%s); parsing the whole document", path, k, e)
        else:
            if hashlib.sha256(raw).hexdigest() == digests[k]:
                return loads(raw, sp, error, check_depth=False)
            log.warning("%s: slice %s differs from its checked digest; parsing the whole document", path, sp)
    return loads(data, path, error, check_depth=False)




__all__ = ["BYTES32", "MAX_DEPTH", "NAT", "RECORD_FORMAT", "U64_MAX", "admit", "load_checked",
           "load_checked_partition", "load_json", "loads", "nat", "read_record", "reject", "rejection",
           "slice_path"]
