"""The ``cuda`` backend: CUDA C kernels (``*.cu``/``*.cuh`` beside this file) compiled by CuPy.

Importing this package does not import CuPy; ``cuda_available()`` checks for CuPy and a device,
and ``CUDABackend()`` raises ``cuzk.backend.BackendUnavailableError`` when either is missing.
Everything runs on the GPU (NTTs, SpMV, G1 and G2 MSMs, fixed-base products for setup). Each
kernel file's host side sits beside it: ``runtime`` (module loading, the memory pool, transfers),
``ntt``, ``spmv``, ``msm``; ``launch`` the driver launches of repeated shapes (the NTT passes);
``plan`` holds the device-memory planning (no CuPy) and ``backend`` composes ``CUDABackend``; its
module docstring lists the kernels.
"""

from __future__ import annotations

from .backend import CUDABackend
from .msm import CUDAMSMContext
from .runtime import cuda_available, require_cuda

__all__ = ["CUDABackend", "CUDAMSMContext", "cuda_available", "require_cuda"]
