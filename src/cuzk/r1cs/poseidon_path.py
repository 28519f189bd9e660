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

Separately, what the witness file keeps of those hashes (config ``witness_poseidon``, ``cuzk
synthesize --witness-poseidon``): ``values`` (every op value, as computed above) or ``inputs``
(each distinct hash's inputs: ``cuzk.r1cs.poseidon.values_computed_later``; the synthesis
computes only the digests, and the prover the values: on the GPU by the Poseidon kernel, in
place). A full 32 GiB WindowPoSt partition's file is then 0.25 GiB instead of 3.76 GiB.

The chosen library travels to the synthesis workers (``cuzk.r1cs.parallel.map_rows``) as its
path, an argument of each chunk: a worker forked before the choice loads the same file.
"""

from __future__ import annotations

import contextlib
from typing import NamedTuple

from ..backend import poseidon_host
from ..errors import CuzkError
from ..backend.native import built_once
from .native_path import choose_native
from .poseidon import GPU_CORE, NATIVE_CORES, gpu_poseidon, native_poseidon, values_computed_later

POSEIDON_PATHS = ("auto", "native", "python", "gpu")
"""The values of ``synthesis_poseidon`` (``auto`` first: the default)."""

CONFIG_KEY = "synthesis_poseidon"

WITNESS_POSEIDON = ("inputs", "values")
"""The values of ``witness_poseidon`` (``inputs`` first: the default)."""

_WARNED: list = []    # the fallback warning is given once per process


class PoseidonPathError(CuzkError, ValueError):
    """An unknown ``synthesis_poseidon`` value."""


class NativePoseidonFallbackWarning(UserWarning):
    """``synthesis_poseidon: auto`` could not build the native Poseidon core and synthesizes with
    Python."""


class PoseidonPath(NamedTuple):
    """A chosen path: ``name`` (``"native"``, ``"gpu"`` or ``"python"``), ``lib`` (the native
    library's path, ``cuzk.r1cs.poseidon.GPU_CORE`` for gpu, None for python) and ``keep`` (a
    :data:`WITNESS_POSEIDON` value)."""

    name: str
    lib: object
    keep: str = "values"

    @contextlib.contextmanager
    def active(self):
        """A context manager within which neptune ``circuit.rs`` hashes' values take this path
        (and the witness keeps their inputs only, with ``keep`` ``inputs``)."""
        with contextlib.ExitStack() as stack:
            if self.keep == "inputs":
                stack.enter_context(values_computed_later())
            if self.lib is GPU_CORE:
                stack.enter_context(gpu_poseidon())
            elif self.lib is not None:
                stack.enter_context(native_poseidon(self.lib))
            yield


def choose_poseidon(choice: str = "auto", keep: str = "values") -> PoseidonPath:
    """The Poseidon witness path for ``choice`` (:data:`POSEIDON_PATHS`), keeping ``keep``
    (:data:`WITNESS_POSEIDON`) in the witness.

    Raises:
        PoseidonPathError: ``choice`` is not one of :data:`POSEIDON_PATHS` (the message names
            ``synthesis_poseidon``), or ``keep`` not one of :data:`WITNESS_POSEIDON` (names
            ``witness_poseidon``).
        NativeBuildError: ``native`` and the core cannot be built (no compiler, a failed build:
            the message names the compiler, the source and the compiler's output).
        BackendUnavailableError: ``gpu`` without CuPy or a CUDA device.
    """
    if keep not in WITNESS_POSEIDON:
        raise PoseidonPathError(f"witness_poseidon: {keep!r} is not one of {', '.join(WITNESS_POSEIDON)}")
    if choice == "gpu":
        from ..backend.cuda.runtime import _cupy   # CuPy on use: the GPU path only

        _cupy()
        return PoseidonPath("gpu", GPU_CORE, keep)
    return PoseidonPath(*choose_native(choice, key=CONFIG_KEY, values=POSEIDON_PATHS, fallback="python",
                                       build=lambda: built_once(NATIVE_CORES, poseidon_host.build), error=PoseidonPathError,
                                       warning=NativePoseidonFallbackWarning, warned=_WARNED,
                                       what="Poseidon core"), keep)


__all__ = ["CONFIG_KEY", "NativePoseidonFallbackWarning", "POSEIDON_PATHS", "PoseidonPath", "PoseidonPathError",
           "WITNESS_POSEIDON", "choose_poseidon"]
