"""Filecoin's published Groth16 parameter files, by name and digest.

Facts (rust-fil-proofs 87348a74):

* ``parameters.json`` beside this module is a byte-for-byte copy of rust-fil-proofs'
  ``parameters.json`` at that commit: file name → {cid, digest, sector_size}, for every
  ``.params`` and ``.vk`` file (the ``.meta`` files are not listed). The stacked-proof-of-replication ``.params`` and ``.vk``
  are one per sector size; PoSt has two of each per size (winning and window), told apart only by
  the circuit identifier's hash in the name.
* Where they live: ``$FIL_PROOFS_PARAMETER_CACHE``, else ``/var/tmp/filecoin-proof-parameters``
  (``storage-proofs-core/src/settings.rs``: prefix ``FIL_PROOFS``, default ``parameter_cache``).
* The digest: BLAKE2b-512 (``blake2b_simd`` default parameters) of the whole file, its hex truncated
  to 32 characters, i.e. the first 16 bytes (``parameter_cache.rs`` ``verify_production_entry``;
  go-paramfetch checks the same on fetch).

Upstream hashes a file once per process; here a verified file is recorded by its identity
(:func:`cuzk.fileio.file_identity`: path, device, inode, size) under ``$CUZK_CACHE_DIR/official-params``
with its digest and modification time, so a 44 GiB file is hashed on first use only, and again
after any change (nothing touches official files, unlike the workflow's own keys).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from ..errors import CuzkError
from ..fileio import cache_dir, file_identity

__all__ = ["DEFAULT_PARAMS_DIR", "MANIFEST", "OfficialParamsError",
           "blake2b_digest", "official_file", "params_dir", "porep_file", "read_manifest", "verify_official"]

MANIFEST = Path(__file__).with_name("parameters.json")
DEFAULT_PARAMS_DIR = Path("/var/tmp/filecoin-proof-parameters")
_BLOCK = 1 << 24


class OfficialParamsError(CuzkError, ValueError):
    """An official parameter file is missing, unknown to the manifest or has the wrong digest;
    or the manifest is malformed. Names the file and the field."""

    def __init__(self, path, field: str, message: str):
        self.path, self.field = str(path), field
        super().__init__(f"{self.path}: {field}: {message}")


def params_dir(configured=None) -> Path:
    """The directory of official files: ``configured`` if given, else
    ``$FIL_PROOFS_PARAMETER_CACHE``, else :data:`DEFAULT_PARAMS_DIR`."""
    return Path(configured or os.environ.get("FIL_PROOFS_PARAMETER_CACHE") or DEFAULT_PARAMS_DIR)


def read_manifest(path=MANIFEST) -> dict[str, dict]:
    """A ``parameters.json`` manifest: file name → {"cid": str, "digest": 32 hex chars,
    "sector_size": int}.

    Raises:
        OfficialParamsError: not JSON, or an entry without those fields (names the entry).
        OSError: the file cannot be read.
    """
    try:
        doc = json.loads(Path(path).read_bytes())
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise OfficialParamsError(path, "<json>", f"not a JSON manifest: {e}") from None
    if not isinstance(doc, dict):
        raise OfficialParamsError(path, "<root>", "not an object of file name → entry")
    for name, e in doc.items():
        ok = isinstance(e, dict) and isinstance(e.get("cid"), str) and isinstance(e.get("sector_size"), int)
        d = e.get("digest") if isinstance(e, dict) else None
        if not (ok and isinstance(d, str) and len(d) == 32 and all(c in "0123456789abcdef" for c in d)):
            raise OfficialParamsError(path, name, "entry needs cid (str), digest (32 lowercase hex) and sector_size (int)")
    return doc


def blake2b_digest(path) -> str:
    """Filecoin's digest of a file: the first 16 bytes of its BLAKE2b-512, hex (32 chars), read
    in 16 MiB blocks."""
    h = hashlib.blake2b()
    with open(path, "rb") as f:
        while block := f.read(_BLOCK):
            h.update(block)
    return h.hexdigest()[:32]


def porep_file(sector_size: int, ext: str = ".params", manifest: dict | None = None) -> str:
    """The manifest's name of the PoRep (stacked-proof-of-replication) file of a sector size;
    ``ext`` is ".params" or ".vk". Raises OfficialParamsError when there is not exactly one."""
    manifest = read_manifest() if manifest is None else manifest
    hits = [n for n, e in manifest.items()
            if n.startswith("v28-stacked-proof-of-replication-") and n.endswith(ext) and e["sector_size"] == sector_size]
    if len(hits) != 1:
        raise OfficialParamsError(MANIFEST, "sector_size", f"{len(hits)} PoRep {ext} files for {sector_size}-byte sectors")
    return hits[0]


def _record(path) -> Path | None:
    ident = file_identity(path)
    return None if ident is None else cache_dir() / "official-params" / ident


def verify_official(name: str, directory=None, manifest: dict | None = None) -> Path:
    """The path of official file ``name`` in ``directory`` (:func:`params_dir`), its digest
    checked against the manifest (default: :data:`MANIFEST`) on first use and recorded.

    Returns:
        The file's path. A file whose identity was recorded with the manifest's digest is not
        hashed again.

    Raises:
        OfficialParamsError: the name is not in the manifest (field "name"), the file is missing
            ("<missing>"), or its digest differs ("digest", with both values); each names the file.
    """
    manifest = read_manifest() if manifest is None else manifest
    path = params_dir(directory) / name
    if name not in manifest:
        raise OfficialParamsError(path, "name", "not a file of Filecoin's parameters.json")
    want = manifest[name]["digest"]
    if not path.is_file():
        raise OfficialParamsError(path, "<missing>", f"no such file (expected digest {want})")
    rec, stamp = _record(path), f"{want} {path.stat().st_mtime_ns}"
    try:
        if rec is not None and rec.read_text().strip() == stamp:
            return path
    except OSError:
        pass
    got = blake2b_digest(path)
    if got != want:
        raise OfficialParamsError(path, "digest", f"BLAKE2b-512 prefix {got}, parameters.json says {want}")
    try:
        rec.parent.mkdir(parents=True, exist_ok=True)
        rec.write_text(stamp)
    except (OSError, AttributeError):
        pass  # a read-only cache only costs the hash next time
    return path


def official_file(shape, directory=None, manifest: dict | None = None) -> Path | None:
    """Where Filecoin's ``.params`` for a PoRep ``shape`` lies in ``directory`` (:func:`params_dir`),
    if it is there: a ``stat``, no digest (the workflow asks at DAG time, and uses it only for a
    PCE in upstream order; the job that takes it, ``pipeline.use_official_params``, checks it).
    None for a shape without one (test-only and PoSt
    shapes: PoSt files are told apart only by the circuit identifier's hash) or when absent."""
    if getattr(shape, "kind", None) != "porep" or shape.test_only:
        return None
    manifest = read_manifest() if manifest is None else manifest
    path = params_dir(directory) / porep_file(shape.sector_size, ".params", manifest)
    return path if path.is_file() else None
