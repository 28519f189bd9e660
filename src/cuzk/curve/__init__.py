"""BLS12-381 G1 and G2 on the CPU: encodings, validity checks, arithmetic through py-arkworks-bls12381.

Encodings (zcash / bellperson / blst, see FORMATS.md):
- compressed: G1 48 bytes, G2 96 bytes, big-endian x, flags in byte 0 (0x80 compressed,
  0x40 infinity, 0x20 larger y); G2 writes x.c1 before x.c0.
- uncompressed: G1 96 bytes (x ‖ y), G2 192 bytes (x.c1 ‖ x.c0 ‖ y.c1 ‖ y.c0), big-endian,
  flag 0x40 for the point at infinity (all other bytes zero).

py-arkworks-bls12381's ``to_xy_bytes_be`` is flag-less with c0 first; this module translates.
Point arrays on the host are ``(n, 96)`` / ``(n, 192)`` uint8 arrays in the uncompressed form.
"""

from __future__ import annotations

from .groups import (
    G1,
    G2,
    CurveError,
    EncodingError,
    Group,
    NotInSubgroupError,
    NotOnCurveError,
)

__all__ = [
    "G1",
    "G2",
    "CurveError",
    "EncodingError",
    "Group",
    "NotInSubgroupError",
    "NotOnCurveError",
]
