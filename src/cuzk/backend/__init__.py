"""Compute backends: the ``Backend`` interface and its ``cpu`` implementation.

``get_backend("auto" | "cpu" | "cuda", threads)``: ``auto`` is ``cpu`` until the CUDA backend
lands; asking for ``cuda`` without it raises ``BackendUnavailableError`` (never a silent fallback).
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
        BackendUnavailableError: "cuda" requested but no CUDA backend/device is available.
    """
    if name not in BACKENDS:
        raise ValueError(f"unknown backend {name!r}; choose one of {', '.join(BACKENDS)}")
    if name == "cuda":
        raise BackendUnavailableError("backend 'cuda' is not available: the CUDA backend is not built yet")
    from .cpu import CPUBackend

    return CPUBackend(threads=threads)


__all__ = ["Backend", "BackendUnavailableError", "CSRMatrix", "MSMContext", "get_backend", "BACKENDS"]
