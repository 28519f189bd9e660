"""The ``prepare`` step: sector data → Fr32 padding → comm_d tree → challenges → C1 file.

The chain supplies the ticket and the interactive seed in Filecoin; a batch run here derives
them from the batch's ``randomness`` string and the sector id (SHA-256 with a domain tag), so a
rerun reproduces the same C1 file.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from ..errors import CuzkError
from .c1 import build_c1, write_c1
from .fr32 import pad_sector, unpadded_size
from .porep_c1 import seal_and_prove
from .post import write_sealed


class SectorInputError(CuzkError, ValueError):
    """Sector data cannot be used: names the file (or sector) and what is wrong."""


def dev_randomness(tag: str, randomness: str, sector_id: int) -> bytes:
    """32 bytes = SHA-256(tag ‖ 0 ‖ randomness ‖ 0 ‖ sector_id u64 LE): stand-in for chain randomness."""
    return hashlib.sha256(tag.encode() + b"\0" + randomness.encode() + b"\0" + sector_id.to_bytes(8, "little")).digest()


def check_payload_size(path, sector_size: int) -> None:
    """Refuse a data file larger than a sector's payload (sector_size · 127/128 bytes: Fr32
    padding, ``fr32.unpadded_size``) from its size alone (the workflow checks it while the DAG is
    built, before any job runs).

    Raises:
        SectorInputError: too many bytes, naming the file and both sizes; OSError: no such file.
    """
    cap = unpadded_size(sector_size)
    size = Path(path).stat().st_size
    if size > cap:
        raise SectorInputError(f"{path}: {size} bytes do not fit a {sector_size}-byte sector (at most {cap} bytes of payload)")


def load_payload(data: str | Path | None, sector_size: int, generate_seed: int | None = None) -> bytes:
    """The unpadded payload of a sector: a file's bytes, or random bytes from ``generate_seed``.

    Raises:
        SectorInputError: missing/unreadable file, or more bytes than the sector holds
            (sector_size · 127/128), naming the file and both sizes.
    """
    cap = unpadded_size(sector_size)
    if data is None:
        if generate_seed is None:
            raise SectorInputError("a sector needs a data file or a generate seed")
        return np.random.default_rng(generate_seed).integers(0, 256, size=cap, dtype=np.uint8).tobytes()
    p = Path(data)
    try:
        check_payload_size(p, sector_size)
        return p.read_bytes()
    except OSError as e:
        raise SectorInputError(f"{p}: cannot read sector data: {e.strerror or e}") from None


def prepare_sector(
    out_path,
    sector_id: int,
    sector_size: int,
    partitions: int,
    challenges: int,
    data: str | Path | None = None,
    generate_seed: int | None = None,
    prover_id: bytes = bytes(32),
    randomness: str = "cuzk-dev",
    layers: int | None = None,
    sealed_out=None,
) -> dict:
    """Write one sector's C1 file and return it.

    Args:
        layers: None: the comm_d C1 (:func:`cuzk.sector.c1.build_c1`); an int: seal the sector
            with that many SDR layers and write the full PoRep C1
            (:func:`cuzk.sector.porep_c1.seal_and_prove`).
        sealed_out: also write the sealed-sector file (tree_r_last, comm_c) WindowPoSt and
            WinningPoSt read (:func:`cuzk.sector.post.write_sealed`); a comm_d-only sector is
            sealed with 2 layers for it.

    Raises:
        SectorInputError: see ``load_payload``.
    """
    payload = load_payload(data, sector_size, generate_seed)
    padded = pad_sector(payload, sector_size)
    ticket = dev_randomness("ticket", randomness, sector_id)
    seed = dev_randomness("seed", randomness, sector_id)
    keep: dict = {}
    if layers is None:
        c1 = build_c1(padded, sector_size, sector_id, prover_id, ticket=ticket, seed=seed,
                      partitions=partitions, challenges=challenges)
        if sealed_out is not None:
            seal_and_prove(padded, sector_size, sector_id, prover_id, ticket, seed, 2, partitions=1, challenges=1,
                           keep=keep)
    else:
        c1 = seal_and_prove(padded, sector_size, sector_id, prover_id, ticket, seed, layers,
                            partitions=partitions, challenges=challenges, keep=keep)
    write_c1(out_path, c1)
    if sealed_out is not None:
        write_sealed(sealed_out, sector_id, keep["replica"])
    return c1
