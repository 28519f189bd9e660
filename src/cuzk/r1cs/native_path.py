"""The choice shared by synthesis's witness paths (``synthesis_sha``: ``cuzk.r1cs.sha_path``,
``synthesis_poseidon``: ``cuzk.r1cs.poseidon_path``): a config value among ``auto``, ``native``
and a fallback (the Python/numpy code): ``native`` builds the core (cached per machine by
``cuzk.backend.native``) or raises :class:`~cuzk.backend.native.NativeBuildError`; ``auto`` builds
it and, when that fails, takes the fallback with one warning per process and key. Also what a
``gpu`` value means for the step (:func:`synthesis_on_gpu`, :func:`synthesis_threads`), which the
workflow declares and ``cuzk.pipeline`` does.
"""

from __future__ import annotations

import warnings
from typing import Callable

from ..backend.native import NativeBuildError


def choose_native(choice: str, *, key: str, values: tuple, fallback: str, build: Callable, error: type,
                  warning: type, warned: list, what: str):
    """``(name, built)`` for a config value: ``("native", build())`` or ``(fallback, None)``.

    Args:
        choice: the config value, one of ``values`` (``auto``, ``native`` and ``fallback``).
        key: the config key (named in the error and the warning).
        fallback: the value that needs no build.
        build: builds (or fetches the process's cached) core; raises NativeBuildError.
        error: the exception class of an unknown ``choice``.
        warning: the warning category of ``auto``'s fallback.
        warned: the caller's once-per-process flag (a list, non-empty once warned).
        what: the core's name in the warning (``"SHA-256 core"``).

    Raises:
        error: ``choice`` is not one of ``values`` (the message names ``key``).
        NativeBuildError: ``native`` and the core cannot be built.
    """
    if choice not in values:
        raise error(f"{key}: {choice!r} is not one of {', '.join(values)}")
    if choice == fallback:
        return fallback, None
    if choice == "native":
        return "native", build()
    try:
        return "native", build()
    except NativeBuildError as e:
        if not warned:
            warned.append(True)
            warnings.warn(f"{key}: auto: the native {what} is not available, synthesizing with {fallback} "
                          f"(slower, same witness): {e}", warning, stacklevel=3)
        return fallback, None


def synthesis_on_gpu(sha: str, poseidon: str) -> bool:
    """Whether a synthesize step with these ``synthesis_sha`` / ``synthesis_poseidon`` values (or
    chosen paths' names) runs a witness kernel on the GPU: it then claims one
    (``cuzk.pipeline._synthesis_gpu``) and the workflow declares ``gpu=1`` for it."""
    return "gpu" in (sha, poseidon)


def synthesis_threads(poseidon: str, threads: int) -> int:
    """Processes of a synthesize step asked for ``threads``: 1 when the Poseidon values come from
    the GPU kernel (``poseidon`` gpu), which runs in the step's own process."""
    return 1 if poseidon == "gpu" else threads


__all__ = ["choose_native", "synthesis_on_gpu", "synthesis_threads"]
