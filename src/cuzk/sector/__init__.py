"""Sector input: Fr32 padding, the comm_d tree, interactive PoRep challenges.

See :mod:`cuzk.sector.fr32`, :mod:`cuzk.sector.commd` and :mod:`cuzk.sector.challenges` for
formats, formulas and their rust-fil-proofs sources.
"""

from .challenges import (
    POREP_MINIMUM_CHALLENGES,
    POREP_PARTITIONS,
    SECTOR_SIZES,
    challenge_counts,
    derive_all_challenges,
    derive_challenges,
)
from .commd import (
    NODE_SIZE,
    build_tree,
    comm_d,
    merkle_path,
    sha254,
    verify_path,
    zero_comm_d,
    zero_subtree_roots,
)
from .c1 import C1Error, build_c1, read_c1, replica_id, write_c1
from .fr32 import fr32_pad, fr32_unpad, pad_sector, unpadded_size
from .prepare import SectorInputError, load_payload, prepare_sector

__all__ = [
    "C1Error",
    "SectorInputError",
    "build_c1",
    "load_payload",
    "prepare_sector",
    "read_c1",
    "replica_id",
    "write_c1",
    "NODE_SIZE",
    "SECTOR_SIZES",
    "POREP_PARTITIONS",
    "POREP_MINIMUM_CHALLENGES",
    "challenge_counts",
    "derive_challenges",
    "derive_all_challenges",
    "sha254",
    "build_tree",
    "comm_d",
    "merkle_path",
    "verify_path",
    "zero_comm_d",
    "zero_subtree_roots",
    "fr32_pad",
    "fr32_unpad",
    "pad_sector",
    "unpadded_size",
]
