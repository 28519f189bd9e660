"""G1/G2 groups: serialization between the zcash forms and py-arkworks-bls12381 points."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import py_arkworks_bls12381 as ark

from ..errors import CuzkError
from ..field import FQ, FR


class CurveError(CuzkError, ValueError):
    """Base class of point decoding errors."""


class EncodingError(CurveError):
    """Bytes are not a well-formed point encoding (length, flags, non-canonical coordinate)."""


class NotOnCurveError(CurveError):
    """Coordinates do not satisfy the curve equation."""


class NotInSubgroupError(CurveError):
    """The point is on the curve but outside the prime-order subgroup."""


_Q = FQ.modulus
_R = FR.modulus
_FLAG_COMPRESSED = 0x80
_FLAG_INFINITY = 0x40
_FLAG_SORT = 0x20


@dataclass(frozen=True)
class Group:
    """One of G1, G2 with its encodings.

    Attributes:
        name: "G1" or "G2".
        point: the py-arkworks-bls12381 point class.
        coord_words: Fq words per coordinate (1 for G1, 2 for G2).
    """

    name: str
    point: type
    coord_words: int

    @property
    def compressed_size(self) -> int:
        """Bytes of the compressed form (48 G1, 96 G2)."""
        return 48 * self.coord_words

    @property
    def uncompressed_size(self) -> int:
        """Bytes of the uncompressed form (96 G1, 192 G2)."""
        return 96 * self.coord_words

    def generator(self):
        """The standard generator (zcash / IETF)."""
        return self.point()

    def identity(self):
        """The point at infinity."""
        return self.point.identity()

    # --- uncompressed ------------------------------------------------------------------------

    def _swap(self, xy: bytes) -> bytes:
        # arkworks orders Fq2 as c0 ‖ c1; zcash as c1 ‖ c0.
        if self.coord_words == 1:
            return xy
        w = 48
        return xy[w : 2 * w] + xy[:w] + xy[3 * w : 4 * w] + xy[2 * w : 3 * w]

    def to_uncompressed(self, p) -> bytes:
        """Point → uncompressed bytes (96 G1 / 192 G2)."""
        xy = p.to_xy_bytes_be()
        if not any(xy):
            return bytes([_FLAG_INFINITY]) + bytes(len(xy) - 1)
        return self._swap(xy)

    def from_uncompressed(self, data: bytes, check_subgroup: bool = True):
        """Uncompressed bytes → point.

        The curve equation is always checked; the subgroup check (an endomorphism test in
        arkworks, about 35 µs for G1) can be skipped for data already known good.

        Raises:
            EncodingError: wrong length, compression flag set, bad infinity encoding, or a
                coordinate not below q.
            NotOnCurveError: coordinates off the curve.
            NotInSubgroupError: on the curve but not in the r-order subgroup.
        """
        if len(data) != self.uncompressed_size:
            raise EncodingError(f"{self.name}: uncompressed point needs {self.uncompressed_size} bytes, got {len(data)}")
        flags = data[0] & 0xE0
        if flags & _FLAG_COMPRESSED:
            raise EncodingError(f"{self.name}: compression flag set in an uncompressed point")
        body = bytes([data[0] & 0x1F]) + bytes(data[1:])
        if flags & _FLAG_INFINITY:
            if flags & _FLAG_SORT or any(body):
                raise EncodingError(f"{self.name}: malformed point at infinity")
            return self.point.identity()
        if flags & _FLAG_SORT:
            raise EncodingError(f"{self.name}: sort flag set in an uncompressed point")
        for i in range(0, len(body), 48):
            if int.from_bytes(body[i : i + 48], "big") >= _Q:
                raise EncodingError(f"{self.name}: coordinate not below the field modulus")
        if not any(body):
            raise NotOnCurveError(f"{self.name}: (0, 0) is not on the curve")
        try:
            p = self.point.from_xy_bytes_unchecked_be(self._swap(body))
        except ValueError as e:
            raise NotOnCurveError(f"{self.name}: point is not on the curve") from e
        if check_subgroup:
            self.check_subgroup([p])
        return p

    def check_subgroup(self, points: Sequence) -> None:
        """Check points (decoded with ``check_subgroup=False``) lie in the r-order subgroup.

        Separate from decoding so that a reader can check every point's encoding and curve
        equation (cheap) before any subgroup check (about 35 µs a G1 point).

        Raises:
            NotInSubgroupError: the first point outside it (its index named when there are several).
        """
        for i, p in enumerate(points):
            if not p.is_in_subgroup():
                where = f"point {i}: " if len(points) > 1 else ""
                raise NotInSubgroupError(f"{where}{self.name}: point is not in the prime-order subgroup")

    # --- compressed --------------------------------------------------------------------------

    def to_compressed(self, p) -> bytes:
        """Point → compressed bytes (48 G1 / 96 G2)."""
        return bytes(p.to_compressed_bytes())

    def from_compressed(self, data: bytes):
        """Compressed bytes → point, with curve and subgroup checks.

        Raises:
            EncodingError: wrong length, flags, non-canonical x, or x with no curve point.
            NotInSubgroupError: the point is outside the prime-order subgroup.
        """
        if len(data) != self.compressed_size:
            raise EncodingError(f"{self.name}: compressed point needs {self.compressed_size} bytes, got {len(data)}")
        if not data[0] & _FLAG_COMPRESSED:
            raise EncodingError(f"{self.name}: compression flag not set")
        if data[0] & _FLAG_INFINITY:
            if data[0] & 0x3F or any(data[1:]):
                raise EncodingError(f"{self.name}: malformed point at infinity")
            return self.point.identity()
        body = bytes([data[0] & 0x1F]) + bytes(data[1:])
        for i in range(0, len(body), 48):
            if int.from_bytes(body[i : i + 48], "big") >= _Q:
                raise EncodingError(f"{self.name}: x coordinate not below the field modulus")
        try:
            p = self.point.from_compressed_bytes_unchecked(bytes(data))
        except (ValueError, Exception) as e:
            raise EncodingError(f"{self.name}: x is not the abscissa of a curve point") from e
        if not p.is_in_subgroup():
            raise NotInSubgroupError(f"{self.name}: point is not in the prime-order subgroup")
        return p

    # --- arrays ------------------------------------------------------------------------------

    def to_array(self, points: Sequence) -> np.ndarray:
        """Points → ``(n, uncompressed_size)`` uint8 array of uncompressed encodings."""
        buf = b"".join(self.to_uncompressed(p) for p in points)
        return np.frombuffer(buf, dtype=np.uint8).reshape(len(points), self.uncompressed_size).copy()

    def from_array(self, arr: np.ndarray | bytes, check_subgroup: bool = True) -> list:
        """``(n, uncompressed_size)`` uint8 array (or its bytes) → list of points.

        Raises:
            CurveError (a subclass) with the index of the first bad point.
        """
        raw = arr.tobytes() if isinstance(arr, np.ndarray) else bytes(arr)
        w = self.uncompressed_size
        if len(raw) % w:
            raise EncodingError(f"{self.name}: {len(raw)} bytes is not a whole number of points")
        out = []
        for i in range(0, len(raw), w):
            try:
                out.append(self.from_uncompressed(raw[i : i + w], check_subgroup))
            except CurveError as e:
                raise type(e)(f"point {i // w}: {e}") from None
        return out

    def sum(self, points: Sequence):
        """Σ points by plain additions (the bit-valued part of an MSM)."""
        acc = self.point.identity()
        for p in points:
            acc = acc + p
        return acc

    def msm(self, points: Sequence, scalars: Sequence[int]):
        """Σ scalars[i]·points[i] (Pippenger in arkworks), scalars as ints in [0, r).

        Raises:
            ValueError: lengths differ.
        """
        if len(points) != len(scalars):
            raise ValueError(f"{self.name} msm: {len(points)} points but {len(scalars)} scalars")
        if not points:
            return self.point.identity()
        sc = [ark.Scalar.from_le_bytes(int(s).to_bytes(32, "little")) for s in scalars]
        return self.point.multiexp_unchecked(list(points), sc)

    def mul(self, p, k: int):
        """k·p for an integer k (reduced mod r)."""
        return p * ark.Scalar.from_le_bytes_mod_order(int(k % _R).to_bytes(32, "little"))


G1 = Group("G1", ark.G1Point, 1)
G2 = Group("G2", ark.G2Point, 2)
