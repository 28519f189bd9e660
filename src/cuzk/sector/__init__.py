"""Sector side of the proofs: everything up to the vanilla proofs a circuit consumes.

- ``fr32``: Fr32 padding; ``commd``: the sha254 comm_d tree (and ``sha254``);
  ``challenges``: interactive PoRep challenges; ``graph``: the SDR parent graph;
  ``labels``: SDR labeling; ``replica``: encoding, tree_c, tree_r_last, comm_r.
- ``c1``: C1 files (comm_d vanilla proofs, replica_id, registered proofs);
  ``jsondoc``: strict reading of sector JSON documents, shared schema parts, and the check-once
  records (a document checked when it enters, trusted later by its SHA-256);
  ``porep_c1``: full StackedDRG vanilla proofs of a sealed sector, and their verification;
  ``synthetic``: sparse synthetic 32/64 GiB C1 files.
- ``post``: WinningPoSt / WindowPoSt challenges, sealed-sector files, vanilla proofs;
  ``post_synthetic``: sparse tree_r_last openings of synthetic sectors (any size) for PoSt.
- ``update``: SnapDeals (empty-sector update): challenges, rho encoding, partition vanilla proofs.
- ``prepare``: the ``prepare`` step (data → padding → sealing → C1).

Each module names the rust-fil-proofs source of its formulas.
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
