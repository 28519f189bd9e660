"""Compute backends: the ``Backend`` interface, its ``cpu`` and ``cuda`` implementations.

Modules: ``base`` (the interface, ``MSMContext``, the backend errors), ``cpu`` (gmpy2 and
arkworks, MSMs and setup in ``workers`` processes), ``cuda`` (CuPy kernels; imported only when
asked for), ``gpus`` (which GPU a step claims, by a lock file per device).

``get_backend("auto" | "cpu" | "cuda", threads, gpu_mem_limit)``: ``auto`` is ``cuda`` when CuPy
sees a device and ``cpu`` otherwise; asking for ``cuda`` without one raises
``BackendUnavailableError`` (never a silent fallback). ``gpu_mem_limit`` (bytes) caps the cuda
backend's device memory (CuPy's memory pool); running out raises ``GPUMemoryError``.
"""

from __future__ import annotations

from .cpu import CPUBackend
from .base import Backend, BackendUnavailableError, CompactAssignment, CSRMatrix, GPUMemoryError, MSMContext


BACKENDS = ("auto", "cpu", "cuda")


def gpu_mem_limit_bytes(gb: float | None) -> int | None:
    """``gpu_mem_limit_gb`` (GiB, as config.yaml and the CLI give it; None or 0 = no limit) → bytes.

    Raises:
        ValueError: a negative or non-numeric value.
    """
    if gb is None:
        return None
    if isinstance(gb, bool) or not isinstance(gb, (int, float)) or gb < 0:
        raise ValueError(f"gpu_mem_limit_gb must be a non-negative number of GiB, got {gb!r}")
    return int(gb * (1 << 30)) or None


def backend_kind(name: str) -> str:
    """What ``get_backend(name)`` runs on: "cuda" for "cuda" (whether or not a device is there:
    ``get_backend`` then raises) and for "auto" when CuPy sees a device, else "cpu".

    Raises:
        ValueError: unknown name.
    """
    if name not in BACKENDS:
        raise ValueError(f"unknown backend {name!r}; choose one of {', '.join(BACKENDS)}")
    if name == "auto":
        from .cuda import cuda_available  # imports CuPy: only when auto must look for a GPU

        return "cuda" if cuda_available() else "cpu"
    return name


def get_backend(name: str = "auto", threads: int = 1, gpu_mem_limit: int | None = None,
                device: int | None = None) -> Backend:
    """Return a backend by name.

    Args:
        name: "auto", "cpu" or "cuda".
        threads: CPU cores the step may use (worker processes for MSMs and setup).
        gpu_mem_limit: bytes of device memory the cuda backend may hold (CuPy's memory pool; MSMs
            run in chunks to stay under it); None = no limit. Ignored by the cpu backend.
        device: CUDA ordinal for the cuda backend (None: CuPy's current device; workflow steps
            pass the one they claimed, ``cuzk.backend.gpus``). Ignored by the cpu backend.

    Raises:
        ValueError: unknown name, or a gpu_mem_limit below 1.
        BackendUnavailableError: "cuda" requested but CuPy or a device is missing.
    """
    kind = backend_kind(name)
    if gpu_mem_limit is not None and int(gpu_mem_limit) < 1:
        raise ValueError(f"gpu_mem_limit must be ≥ 1 byte or None, got {gpu_mem_limit!r}")
    if kind == "cuda":
        from .cuda import CUDABackend  # imports CuPy: only when the GPU is asked for

        return CUDABackend(threads=threads, mem_limit=gpu_mem_limit, device=device)
    return CPUBackend(threads=threads)


__all__ = ["Backend", "BackendUnavailableError", "CompactAssignment", "CSRMatrix", "GPUMemoryError", "MSMContext", "backend_kind", "get_backend",
           "gpu_mem_limit_bytes", "BACKENDS"]
