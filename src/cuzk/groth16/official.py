"""Filecoin's published Groth16 parameter files, by name and digest.

Facts (rust-fil-proofs 87348a74):

* ``parameters.json`` beside this module is a byte-for-byte copy of rust-fil-proofs'
  ``parameters.json`` at that commit: file name → {cid, digest, sector_size}, for every
  ``.params`` and ``.vk`` file (the ``.meta`` files are not listed).
* A name is ``v28-<cache prefix>-merkletree-<tree>-<circuit identifier hash>.<ext>``; the cache
  prefixes (each compound proof's ``CacheableParameters::cache_prefix``): ``stacked-proof-of-replication``
  (one per sector size), ``proof-of-spacetime-fallback`` (two per size, winning and window, told
  apart only by the hash), ``empty-sector-update`` (one per size: the SnapDeals circuit built
  here) and ``empty-sector-update-poseidon`` (32 and 64 GiB: storage-proofs-update's Poseidon
  variant, another circuit, not built here). A file is picked for a shape by its family, sector
  size and the IC length of its verifying key (public inputs + 1), which differs between
  winning and window PoSt at every size.
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

from ..circuits.registry import family_of
from ..errors import CuzkError
from ..fileio import cache_dir, file_identity
from .keys import KeyFileError, vk_ic_length

__all__ = ["DEFAULT_PARAMS_DIR", "MANIFEST", "OfficialParamsError",
           "blake2b_digest", "family_files", "official_file", "params_dir", "porep_file", "read_manifest", "verify_official"]

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


# shape family (circuits.registry) → its files' cache prefix; porep-commd, a part of the PoRep
# statement, is offered the PoRep files (their IC length is not its own: check-params' tests
# prove with a comm_d key under a test manifest's PoRep name)
_CACHE_PREFIX = {"porep": "stacked-proof-of-replication", "porep-commd": "stacked-proof-of-replication",
                 "post": "proof-of-spacetime-fallback", "update": "empty-sector-update"}


def family_files(family: str, sector_size: int, ext: str = ".params", manifest: dict | None = None) -> list[str]:
    """The manifest's names of ``family``'s files (a ``circuits.registry`` family name) for a
    sector size, sorted; ``ext`` is ".params" or ".vk". Empty for a family without files
    (or a size without them). A name's cache prefix is what precedes ``-merkletree-``."""
    manifest = read_manifest() if manifest is None else manifest
    want = _CACHE_PREFIX.get(family)
    return sorted(n for n, e in manifest.items() if n.endswith(ext) and e["sector_size"] == sector_size
                  and n.startswith("v28-") and n[4:].partition("-merkletree-")[0] == want)


def porep_file(sector_size: int, ext: str = ".params", manifest: dict | None = None) -> str:
    """The manifest's name of the PoRep (stacked-proof-of-replication) file of a sector size;
    ``ext`` is ".params" or ".vk". Raises OfficialParamsError when there is not exactly one."""
    hits = family_files("porep", sector_size, ext, manifest)
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
    """Where Filecoin's ``.params`` for ``shape`` lies in ``directory`` (:func:`params_dir`), if
    it is there: among the manifest's files of the shape's family and sector size
    (:func:`family_files`) that are present, the one whose verifying key (the head of the
    ``.params``) has the shape's IC length, ``shape.stats()["inputs"]`` (ONE included). Reads
    868 bytes of each present candidate, no digest (the workflow asks while its DAG is built;
    the job that takes the file, ``pipeline.use_official_params``, checks it).

    Returns:
        The path, or None when no candidate is present (or the family or size has none, as
        test-only sizes).

    Raises:
        OfficialParamsError: candidates are present but none or several have the shape's IC
            length (field "ic", naming each file and its length), or one is not a key file
            (field "vk").
    """
    d = params_dir(directory)
    present = [d / n for n in family_files(family_of(shape).name, shape.sector_size, ".params", manifest)
               if (d / n).is_file()]
    if not present:
        return None
    want, lengths = shape.stats()["inputs"], {}
    for p in present:
        try:
            lengths[p] = vk_ic_length(p)
        except KeyFileError as e:
            raise OfficialParamsError(p, "vk", f"not a key file{str(e).removeprefix(e.path)}") from None
    hits = [p for p, n in lengths.items() if n == want]
    if len(hits) != 1:
        seen = ", ".join(f"{p.name} ({n})" for p, n in lengths.items())
        raise OfficialParamsError(d, "ic", f"{len(hits)} of the files present for {shape.name} have its IC length "
                                  f"{want} (public inputs + 1): {seen}")
    return hits[0]
