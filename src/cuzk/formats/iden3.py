"""The iden3 binary container shared by circom's ``.r1cs``, ``.wtns`` and snarkjs' ``.zkey``/``.ptau``.

Layout (iden3 ``binfileutils``; FORMATS.md "circom / snarkjs"), all little-endian:

    magic      4 bytes, e.g. b"r1cs", b"wtns", b"zkey", b"ptau"
    version    u32
    nSections  u32
    then nSections times:  type u32 ‖ size u64 ‖ size bytes

Sections may come in any order (circom writes the ``.r1cs`` constraints before the header); a
reader looks them up by type. This module only splits a file into sections and offers a bounded
little-endian reader over one section; what the sections contain is the business of ``r1cs``,
``wtns`` and ``zkey``.

Errors are :class:`Iden3FormatError` (a ``ValueError``) naming the file and, where one is
involved, the section (number and name), e.g. ``"c.zkey: section 9 (H): truncated: …"``.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from ..errors import CuzkError
from ..fileio import atomic_open

SECTION_NAMES: dict[str, dict[int, str]] = {
    "r1cs": {1: "header", 2: "constraints", 3: "wire-to-label map", 4: "custom gates list",
             5: "custom gates uses"},
    "wtns": {1: "header", 2: "witness"},
    "zkey": {1: "protocol", 2: "groth16 header", 3: "IC", 4: "coefficients", 5: "A", 6: "B1",
             7: "B2", 8: "C", 9: "H", 10: "contributions"},
    "ptau": {1: "header", 2: "tauG1", 3: "tauG2", 4: "alphaTauG1", 5: "betaTauG1", 6: "betaG2",
             7: "contributions", 12: "lagrange tauG1", 13: "lagrange tauG2",
             14: "lagrange alphaTauG1", 15: "lagrange betaTauG1"},
}


class Iden3FormatError(CuzkError, ValueError):
    """A circom/snarkjs binary file is malformed or does not fit.

    Attributes:
        path: the file (str).
        section: the section type involved, or None for container-level problems (magic,
            version, section table).
        section_name: its name for the file's kind ("header", "H", …), or "".
    """

    def __init__(self, path, section: int | None, message: str, kind: str = ""):
        self.path = str(path)
        self.section = section
        self.section_name = SECTION_NAMES.get(kind, {}).get(section, "") if section is not None else ""
        where = ""
        if section is not None:
            where = f" section {section}" + (f" ({self.section_name})" if self.section_name else "")
        super().__init__(f"{self.path}:{where}{':' if where else ''} {message}")


class Iden3CurveError(Iden3FormatError):
    """The file is for another curve (its prime is not BLS12-381's r or q, e.g. a BN254 file)."""


class Iden3TruncatedError(Iden3FormatError):
    """The file or a section ends before the data its header announces."""


class WitnessLengthError(Iden3FormatError):
    """A witness does not have the number of values the circuit or key needs."""


@dataclass
class Container:
    """A parsed iden3 container: the whole file's bytes and its section table.

    Attributes:
        path: the file (for messages).
        magic: the 4-character file kind ("r1cs", "wtns", "zkey", "ptau").
        version: the u32 version.
        data: the file bytes.
        sections: type → list of (offset of the section body, size), in file order.
    """

    path: str
    magic: str
    version: int
    data: memoryview
    sections: dict[int, list[tuple[int, int]]]

    def error(self, section: int | None, message: str, cls=Iden3FormatError) -> Iden3FormatError:
        """An error of class ``cls`` naming this file and ``section``."""
        return cls(self.path, section, message, self.magic)

    def has(self, section: int) -> bool:
        """True when the file has a section of this type."""
        return section in self.sections

    def section(self, section: int) -> memoryview:
        """Body of the unique section of type ``section``.

        Raises:
            Iden3FormatError: the section is missing or appears more than once.
        """
        entries = self.sections.get(section)
        if not entries:
            raise self.error(section, "section is missing")
        if len(entries) > 1:
            raise self.error(section, f"section appears {len(entries)} times, expected once")
        off, size = entries[0]
        return self.data[off : off + size]

    def reader(self, section: int) -> "SectionReader":
        """A :class:`SectionReader` over the unique section ``section``."""
        return SectionReader(self, section, self.section(section))


class SectionReader:
    """Sequential little-endian reads within one section; overruns raise Iden3TruncatedError."""

    def __init__(self, container: Container, section: int, body: memoryview):
        self.container, self.section, self.body, self.pos = container, section, body, 0

    def error(self, message: str, cls=Iden3FormatError) -> Iden3FormatError:
        """An error naming the file and this section."""
        return self.container.error(self.section, message, cls)

    @property
    def remaining(self) -> int:
        """Bytes left in the section."""
        return len(self.body) - self.pos

    def take(self, n: int, what: str) -> memoryview:
        """The next n bytes.

        Raises:
            Iden3TruncatedError: fewer than n bytes are left (names ``what``).
        """
        if n < 0 or self.pos + n > len(self.body):
            raise self.error(
                f"truncated: {what} needs {n} bytes at offset {self.pos}, {self.remaining} left",
                Iden3TruncatedError,
            )
        out = self.body[self.pos : self.pos + n]
        self.pos += n
        return out

    def u32(self, what: str) -> int:
        """The next little-endian u32."""
        return struct.unpack("<I", self.take(4, what))[0]

    def u64(self, what: str) -> int:
        """The next little-endian u64."""
        return struct.unpack("<Q", self.take(8, what))[0]

    def bigint(self, n8: int, what: str) -> int:
        """The next n8-byte little-endian unsigned integer."""
        return int.from_bytes(self.take(n8, what), "little")

    def done(self, what: str) -> None:
        """Check the section was consumed exactly.

        Raises:
            Iden3FormatError: bytes are left over.
        """
        if self.remaining:
            raise self.error(f"{self.remaining} unexpected bytes after {what}")


def read_container(path, magic: str, max_version: int, data: bytes | None = None) -> Container:
    """Read a whole iden3 container file and index its sections.

    Args:
        path: the file.
        magic: the expected 4-character kind ("r1cs", "wtns", "zkey", "ptau").
        max_version: the highest version understood (r1cs 1, wtns 2, zkey 1, ptau 1).
        data: the file's bytes when the caller has read them already (``path`` then only
            names the file in messages).

    Raises:
        Iden3FormatError: wrong magic, unsupported version, or a malformed section table.
        Iden3TruncatedError: the file ends inside the header, a section header or a section.
        OSError: the file cannot be read.
    """
    data = memoryview(Path(path).read_bytes() if data is None else data)
    if len(data) < 12:
        if bytes(data[:4]) != magic.encode()[: len(data[:4])]:
            raise Iden3FormatError(path, None, f"not a {magic} file: magic {bytes(data[:4])!r}", magic)
        raise Iden3TruncatedError(path, None, f"truncated: {len(data)} bytes, the file header needs 12", magic)
    got = bytes(data[:4])
    if got != magic.encode():
        raise Iden3FormatError(path, None, f"not a {magic} file: magic {got!r}, expected {magic.encode()!r}", magic)
    version, nsec = struct.unpack_from("<II", data, 4)
    if version < 1 or version > max_version:
        raise Iden3FormatError(path, None, f"unsupported {magic} version {version} (this reader knows 1..{max_version})", magic)
    pos = 12
    sections: dict[int, list[tuple[int, int]]] = {}
    for i in range(nsec):
        if pos + 12 > len(data):
            raise Iden3TruncatedError(
                path, None, f"truncated: header of section entry {i} of {nsec} at byte {pos}", magic
            )
        typ, size = struct.unpack_from("<IQ", data, pos)
        pos += 12
        if pos + size > len(data):
            raise Iden3TruncatedError(
                path, typ, f"truncated: section announces {size} bytes at byte {pos}, the file has "
                f"{len(data) - pos} left", magic,
            )
        sections.setdefault(typ, []).append((pos, size))
        pos += size
    if pos != len(data):
        raise Iden3FormatError(path, None, f"{len(data) - pos} bytes after the last of {nsec} sections", magic)
    return Container(str(path), magic, version, data, sections)


def write_container(path: str | os.PathLike, magic: str, version: int,
                    sections: Iterable[tuple[int, bytes | bytearray | memoryview]]) -> None:
    """Write an iden3 container atomically (``cuzk.fileio.atomic_open``).

    Args:
        path: the output file.
        magic: 4 ASCII characters.
        version: u32 version.
        sections: (type, body) pairs, written in the given order.

    Raises:
        ValueError: magic is not 4 bytes.
    """
    mb = magic.encode()
    if len(mb) != 4:
        raise ValueError(f"magic must be 4 bytes, got {magic!r}")
    sections = list(sections)
    with atomic_open(path) as f:
        f.write(mb + struct.pack("<II", version, len(sections)))
        for typ, body in sections:
            f.write(struct.pack("<IQ", typ, len(body)))
            f.write(body)


__all__ = [
    "Container",
    "Iden3CurveError",
    "Iden3FormatError",
    "Iden3TruncatedError",
    "SECTION_NAMES",
    "SectionReader",
    "WitnessLengthError",
    "read_container",
    "write_container",
]
