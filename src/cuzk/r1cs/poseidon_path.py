"""Which code computes the Poseidon hashes' witness values in CPU synthesis (config
``synthesis_poseidon``, ``cuzk synthesize --poseidon``).

- ``python``: ``cuzk.r1cs.poseidon._legacy_limbs`` with gmpy2 object arrays, round by round over
  the hashes of a call.
- ``native``: the C++ core (``cuzk.backend.poseidon_host``, built once per machine and cached by
  ``cuzk.backend.native``): the same values, byte for byte (``tests/test_poseidon_native.py``).
  The build, or its failure (``NativeBuildError``), happens when the path is chosen, before any
  synthesis work.
- ``gpu``: the Poseidon kernel (``cuzk.backend.cuda.poseidon``, ``cuzk.r1cs.poseidon.gpu_poseidon``)
  on the GPU the synthesize step claims (``cuzk.pipeline``), in the step's own process (no
  workers: a PoSt step then runs on one core): the same values (``tests/test_poseidon_gpu.py``,
  ``tests/test_synthesis_gpu.py``). Without CuPy or a device it is refused when chosen
  (``BackendUnavailableError``), before any synthesis work.
- ``auto``: ``native`` when it builds, else ``python`` with one warning per process (never ``gpu``:
  the C1 parse and the rest of the witness stay on the CPU, so the kernel wins only where few
  cores share the hashes: a 128-sector slice of a 32 GiB WindowPoSt partition 1.25 s against
  3.1 s of one native process, benchmarks/results/2026-12-04-h200-stop39/call4).

The chosen library travels to the synthesis workers (``cuzk.r1cs.parallel.map_rows``) as its
path, an argument of each chunk: a worker forked before the choice loads the same file.
"""

from __future__ import annotations

import contextlib
from typing import NamedTuple

from ..backend import poseidon_host
from ..errors import CuzkError
from .native_path import built_once, choose_native
from .poseidon import GPU_CORE, gpu_poseidon, native_poseidon

POSEIDON_PATHS = ("auto", "native", "python", "gpu")
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
    """A chosen path: ``name`` (``"native"``, ``"gpu"`` or ``"python"``) and ``lib`` (the native
    library's path, ``cuzk.r1cs.poseidon.GPU_CORE`` for gpu, None for python)."""

    name: str
    lib: object

    def active(self):
        """A context manager within which neptune ``circuit.rs`` hashes' values take this path."""
        if self.lib is GPU_CORE:
            return gpu_poseidon()
        return native_poseidon(self.lib) if self.lib is not None else contextlib.nullcontext()


def choose_poseidon(choice: str = "auto") -> PoseidonPath:
    """The Poseidon witness path for ``choice`` (:data:`POSEIDON_PATHS`).

    Raises:
        PoseidonPathError: ``choice`` is not one of :data:`POSEIDON_PATHS` (the message names
            ``synthesis_poseidon``).
        NativeBuildError: ``native`` and the core cannot be built (no compiler, a failed build:
            the message names the compiler, the source and the compiler's output).
        BackendUnavailableError: ``gpu`` without CuPy or a CUDA device.
    """
    if choice == "gpu":
        from ..backend.cuda.runtime import _cupy   # CuPy on use: the GPU path only

        _cupy()
        return PoseidonPath("gpu", GPU_CORE)
    return PoseidonPath(*choose_native(choice, key=CONFIG_KEY, values=POSEIDON_PATHS, fallback="python",
                                       build=lambda: built_once(_NATIVE, poseidon_host.build), error=PoseidonPathError,
                                       warning=NativePoseidonFallbackWarning, warned=_WARNED,
                                       what="Poseidon core"))


__all__ = ["CONFIG_KEY", "NativePoseidonFallbackWarning", "POSEIDON_PATHS", "PoseidonPath", "PoseidonPathError",
           "choose_poseidon"]
