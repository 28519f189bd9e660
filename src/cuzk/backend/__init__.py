"""Compute backends: the ``Backend`` interface and its ``cpu`` implementation.

``get_backend("auto" | "cpu" | "cuda", threads)``: ``auto`` is ``cuda`` when CuPy sees a device
and ``cpu`` otherwise; asking for ``cuda`` without one raises ``BackendUnavailableError`` (never a
silent fallback).
"""

from __future__ import annotations

from .base import Backend, CSRMatrix, MSMContext


class BackendUnavailableError(RuntimeError):
    """The requested backend cannot run on this machine (e.g. ``cuda`` without a device)."""


BACKENDS = ("auto", "cpu", "cuda")


def get_backend(name: str = "auto", threads: int = 1) -> Backend:
    """Return a backend by name.

    Args:
        name: "auto", "cpu" or "cuda".
        threads: CPU cores the step may use (worker processes for MSMs and setup).

    Raises:
        ValueError: unknown name.
        BackendUnavailableError: "cuda" requested but CuPy or a device is missing.
    """
    if name not in BACKENDS:
        raise ValueError(f"unknown backend {name!r}; choose one of {', '.join(BACKENDS)}")
    from .cuda import CUDABackend, cuda_available

    if name == "cuda" or (name == "auto" and cuda_available()):
        return CUDABackend(threads=threads)
    from .cpu import CPUBackend

    return CPUBackend(threads=threads)


__all__ = ["Backend", "BackendUnavailableError", "CSRMatrix", "MSMContext", "get_backend", "BACKENDS"]
