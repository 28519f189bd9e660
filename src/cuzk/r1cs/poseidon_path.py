"""Which code computes the Poseidon hashes' witness values in CPU synthesis (config
``synthesis_poseidon``, ``cuzk synthesize --poseidon``).

- ``python``: ``cuzk.r1cs.poseidon._legacy_limbs`` with gmpy2 object arrays, round by round over
  the hashes of a call.
- ``native``: the C++ core (``cuzk.backend.poseidon_host``, built once per machine and cached by
  ``cuzk.backend.native``): the same values, byte for byte (``tests/test_poseidon_native.py``).
  The build, or its failure (``NativeBuildError``), happens when the path is chosen, before any
  synthesis work.
- ``auto``: ``native`` when it builds, else ``python`` with one warning per process.

The chosen library travels to the synthesis workers (``cuzk.r1cs.parallel.map_rows``) as its
path, an argument of each chunk: a worker forked before the choice loads the same file.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import NamedTuple

from ..backend import poseidon_host
from ..errors import CuzkError
from .native_path import built_once, choose_native
from .poseidon import native_poseidon

POSEIDON_PATHS = ("auto", "native", "python")
"""The values of ``synthesis_poseidon`` (``auto`` first: the default)."""

CONFIG_KEY = "synthesis_poseidon"

_NATIVE: dict = {}    # (cache directory, $CXX) → library: built and checked once per process
_WARNED: list = []    # the fallback warning is given once per process


class PoseidonPathError(CuzkError, ValueError):
    """An unknown ``synthesis_poseidon`` value."""


class NativePoseidonFallbackWarning(UserWarning):
    """``synthesis_poseidon: auto`` could not build the native Poseidon core and synthesizes with
    Python."""


class PoseidonPath(NamedTuple):
    """A chosen path: ``name`` (``"native"`` or ``"python"``) and ``lib`` (the native library's
    path, None for python)."""

    name: str
    lib: Path | None

    def active(self):
        """A context manager within which neptune ``circuit.rs`` hashes' values take this path."""
        return native_poseidon(self.lib) if self.lib is not None else contextlib.nullcontext()


def choose_poseidon(choice: str = "auto") -> PoseidonPath:
    """The Poseidon witness path for ``choice`` (:data:`POSEIDON_PATHS`).

    Raises:
        PoseidonPathError: ``choice`` is not one of :data:`POSEIDON_PATHS` (the message names
            ``synthesis_poseidon``).
        NativeBuildError: ``native`` and the core cannot be built (no compiler, a failed build:
            the message names the compiler, the source and the compiler's output).
    """
    return PoseidonPath(*choose_native(choice, key=CONFIG_KEY, values=POSEIDON_PATHS, fallback="python",
                                       build=lambda: built_once(_NATIVE, poseidon_host.build), error=PoseidonPathError,
                                       warning=NativePoseidonFallbackWarning, warned=_WARNED,
                                       what="Poseidon core"))


__all__ = ["CONFIG_KEY", "NativePoseidonFallbackWarning", "POSEIDON_PATHS", "PoseidonPath", "PoseidonPathError",
           "choose_poseidon"]
