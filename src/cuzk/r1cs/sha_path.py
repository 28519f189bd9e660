"""Which code computes the SHA-256 compressions' witness bits in CPU synthesis (config
``synthesis_sha``, ``cuzk synthesize --sha``).

- ``numpy``: the word-level gadget (``cuzk.r1cs.sha256._WordWitness``), numpy over the k
  instances of each call.
- ``native``: the GPU kernel's core built for the host with the C++ compiler
  (``cuzk.backend.sha_host``, built once per machine and cached by ``cuzk.backend.native``),
  handed each call through ``cuzk.r1cs.sha_calls.delegate_compressions``; the witness is byte
  for byte the numpy path's (``tests/test_sha_path.py``). The build, or its failure
  (``NativeBuildError``), happens when the path is chosen, before any synthesis work.
- ``gpu``: the SHA-256 kernel itself (``cuzk.backend.cuda.witness.gpu_compute``: one launch per
  call, its bits downloaded into the same value store) on the GPU the synthesize step claims
  (``cuzk.pipeline``); the same bytes (``tests/test_synthesis_gpu.py``). Without CuPy or a device
  it is refused when chosen (``BackendUnavailableError``), before any synthesis work.
- ``auto``: ``native`` when it builds, else ``numpy`` with one warning per process; in the
  workflow with a cuda prover, ``prover`` in place of native (:data:`AUTO_PROVER`). Never
  ``gpu``: a 32 GiB partition's witness took 1.16 s with both kernels against 1.09 s with both
  native cores on the H200 host, benchmarks/results/2026-12-04-h200-stop39/call5.
- ``prover``: the witness file keeps each delegated call's input words instead of its bits
  (version 3, ``cuzk.backend.sha_host.deferred_compute``): the synthesis computes only the
  words a later call needs (the native core run without its bits) and the prover
  computes the bits, the cuda backend on the GPU straight into device memory
  (``cuzk.backend.cuda.computed.sha_bits_on_device``: the bits never exist on the host), the CPU backend
  with the host core (``CompactAssignment.resolved``). Needs the native build.

Delegation works in block order only (upstream order permutes the compressions' bit loops): with
an upstream-order PCE (``upstream_order: true``) ``auto`` takes ``numpy`` and ``native``, ``gpu``
and ``prover`` are refused (:class:`ShaPathError`).
"""

from __future__ import annotations

import contextlib
from typing import Callable, NamedTuple

from ..backend.sha_host import deferred_compute, host_compute, host_core, job_table
from ..errors import CuzkError
from ..backend.native import built_once
from .native_path import choose_native
from .sha_calls import delegate_compressions

SHA_PATHS = ("auto", "native", "numpy", "gpu", "prover")
"""The values of ``synthesis_sha`` (``auto`` first: the default)."""

AUTO_PROVER = "auto-prover"
"""What the workflow's synthesize steps take for ``auto`` when the prove step runs on the GPU
(:func:`prover_choice`): ``prover`` when the native core builds and the PCE is in block order,
else ``auto``'s choice (numpy, with its warning when the build fails). On the H100 host a 32 GiB
partition's synthesis took 1.27-1.38 s with ``prover`` against 1.42-1.71 s native, the prover's
upload 1 ms longer (benchmarks/results/2026-12-05-stop49, call 2); a CPU prover would compute the
bits on the host (2.9 s), so ``auto`` alone stays native."""

CONFIG_KEY = "synthesis_sha"


class ShaPathError(CuzkError, ValueError):
    """An unknown ``synthesis_sha`` value, or ``native`` asked for where it cannot run (an
    upstream-order PCE)."""


class NativeShaFallbackWarning(UserWarning):
    """``synthesis_sha: auto`` could not build the native SHA-256 core and synthesizes with numpy."""


class ShaPath(NamedTuple):
    """A chosen path: ``name`` (``"native"``, ``"gpu"``, ``"numpy"`` or ``"prover"``) and
    ``compute`` (the delegate for ``delegate_compressions``, None for numpy; for ``prover`` its
    ``calls`` attribute is the list it fills: the current system's deferred calls)."""

    name: str
    compute: Callable | None

    def active(self):
        """A context manager within which witness-only compressions take this path (a new
        system's: ``prover`` forgets the calls of the one before)."""
        calls = getattr(self.compute, "calls", None)
        if calls is not None:
            calls.clear()
        return delegate_compressions(self.compute) if self.compute is not None else contextlib.nullcontext()

    def finish(self, cw):
        """The compact assignment (``ConstraintSystem.assignment_compact``) as the witness file
        keeps it: with ``prover``, the job table of the calls made under :meth:`active` attached
        (``CompactAssignment.sha``); else ``cw`` itself."""
        calls = getattr(self.compute, "calls", None)
        if calls:   # none deferred (a PoSt circuit, or each call its kind's first): the file as before
            cw.sha = job_table(calls)
        return cw


_NATIVE: dict = {}    # (cache directory, $CXX) → delegate: built and loaded once per process
_DEFERRED: dict = {}  # likewise, the prover path's delegate maker
_WARNED: list = []    # the fallback warning is given once per process


def _native() -> Callable:
    return built_once(_NATIVE, lambda root: host_compute(host_core(root)))


def _deferred(root) -> Callable:
    run = host_core(root)
    return lambda calls: deferred_compute(run, calls)


def _native_or_numpy(choice: str, build: Callable):
    """``native_path.choose_native`` for ``synthesis_sha``: ("native", build()) or ("numpy", None)."""
    return choose_native(choice, key=CONFIG_KEY, values=SHA_PATHS, fallback="numpy", build=build, error=ShaPathError,
                         warning=NativeShaFallbackWarning, warned=_WARNED, what="SHA-256 core")


def prover_choice(choice: str, gpu_prover: bool) -> str:
    """The ``synthesis_sha`` value a workflow's synthesize step runs with: :data:`AUTO_PROVER` for
    ``auto`` when the prove step runs on the GPU (its backend resolves to cuda), else ``choice``."""
    return AUTO_PROVER if choice == "auto" and gpu_prover else choice


def choose_sha(choice: str = "auto", upstream_order: bool = False) -> ShaPath:
    """The SHA-256 witness path for ``choice`` (:data:`SHA_PATHS`, or :data:`AUTO_PROVER`) and a
    PCE's order.

    Raises:
        ShaPathError: ``choice`` is not one of :data:`SHA_PATHS` (the message names
            ``synthesis_sha``), or is ``native``, ``gpu`` or ``prover`` with ``upstream_order``.
        NativeBuildError: ``native`` or ``prover`` and the core cannot be built (no compiler, a
            failed build: the message names the compiler, the source and the compiler's output).
        BackendUnavailableError: ``gpu`` without CuPy or a CUDA device.
    """
    if choice == "prover" and not upstream_order:
        return ShaPath("prover", built_once(_DEFERRED, _deferred)([]))
    if choice == AUTO_PROVER:   # auto's fallbacks (numpy in upstream order, or without a build)
        if upstream_order:
            return ShaPath("numpy", None)
        _, make = _native_or_numpy("auto", lambda: built_once(_DEFERRED, _deferred))
        return ShaPath("prover", make([])) if make else ShaPath("numpy", None)
    if choice in SHA_PATHS and choice != "numpy" and upstream_order:
        if choice in ("native", "gpu", "prover"):
            raise ShaPathError(f"{CONFIG_KEY}: {choice} computes the SHA-256 witness in cuzk's block order only; this "
                               f"PCE is in rust-fil-proofs' order (upstream_order: true): use auto or numpy")
        return ShaPath("numpy", None)
    if choice == "gpu":
        from ..backend.cuda.witness import gpu_compute   # CuPy on use: the GPU path only

        return ShaPath("gpu", gpu_compute())
    return ShaPath(*_native_or_numpy(choice, _native))


__all__ = ["AUTO_PROVER", "CONFIG_KEY", "NativeShaFallbackWarning", "SHA_PATHS", "ShaPath", "ShaPathError", "choose_sha",
           "prover_choice"]
