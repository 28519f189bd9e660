"""Damaged intermediate files: the cheap checks the workflow runs on every existing file while its
DAG is built (:func:`damaged_files`; the Snakefile moves each damaged one aside to
``<name>.damaged`` so that its rule makes it again), and the same remedy for a witness whose damage
only its checksum shows, found while a batch is proved (:func:`damaged_witness_aside`).
"""

from __future__ import annotations

import os
import shutil
from contextlib import contextmanager
from pathlib import Path

from .errors import CuzkError
from .groth16 import check_params_file, read_proofs, read_vk
from .r1cs.pce import check_pce_file
from .r1cs.witness import WitnessFormatError, check_witness_file
from .sector.c1 import C1Error
from .sector.jsondoc import read_record


class DamagedFilesError(CuzkError):
    """Existing intermediate files that fail their cheap checks (:func:`damaged_files`), found
    while the workflow's DAG is built; the message names each and what the run does about it."""


def damaged_files(paths) -> list[tuple[str, str]]:
    """Cheap checks of a run's existing intermediate files before any job runs (no hashing of
    large files): ``.pce`` and ``.params`` by header and length, ``.vk`` and ``.proof`` files
    read whole (small), witnesses by header and length, check records parsed. Missing files are
    skipped. Returns ``(path, what is wrong)`` of every damaged one (the reason without the path).
    """
    checks = {".pce": check_pce_file, ".params": check_params_file, ".vk": read_vk, ".proof": read_proofs,
              ".wit": check_witness_file}
    out = []
    for p in map(str, paths):
        if not os.path.isfile(p):
            continue
        fn = checks.get(os.path.splitext(p)[1])
        if fn is None and p.endswith(".checked.json"):
            fn = lambda q: read_record(q, C1Error)  # noqa: E731
        if fn is None:
            continue
        try:
            fn(p)
        except (CuzkError, OSError) as e:
            why = str(e)   # the caller names the path: not again inside its reason
            out.append((p, why[len(p):].lstrip(": ") if why.startswith(p) else why))
    return out


def aside_path(path) -> str:
    """Where a damaged file or folder is kept once moved aside: ``<path>.damaged``."""
    return f"{path}.damaged"


def set_aside(path) -> str:
    """Move a damaged file or folder to :func:`aside_path` (replacing an earlier copy there), so
    that the rule that makes it runs again; returns where it went."""
    moved = aside_path(path)
    if os.path.isdir(moved):
        shutil.rmtree(moved)
    os.replace(path, moved)
    return moved


@contextmanager
def damaged_witness_aside(witness_dirs):
    """A ``WitnessFormatError`` about a file in one of ``witness_dirs`` (found while a batch is
    proved: the DAG-time check, ``damaged_files``, reads headers and lengths only, not checksums)
    moves that file aside to ``<name>.damaged`` and says so, so that the workflow's next run makes
    it again instead of failing the same way; the error is raised again with that note."""
    try:
        yield
    except WitnessFormatError as e:
        path = Path(e.path)
        if not (path.is_file() and any(path.parent.resolve() == Path(d).resolve() for d in witness_dirs)):
            raise
        moved = set_aside(path)
        raise WitnessFormatError(path, f"{e.reason}; moved aside to {moved}: run again to make it anew") from e


def refuse_set_aside(paths) -> None:
    """Refuse witness files that an earlier attempt moved aside (:func:`damaged_witness_aside`;
    the profile's retry of the same job, or a rerun before their synthesize step has made them
    again), naming the ``.damaged`` copy, before any key is read.

    Raises:
        WitnessFormatError: the first such path.
    """
    for p in map(Path, paths):
        aside = aside_path(p)
        if not p.exists() and os.path.exists(aside):
            raise WitnessFormatError(p, f"missing: moved aside to {aside} as damaged; run the workflow again to make it anew")
