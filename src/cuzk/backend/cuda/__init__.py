"""The ``cuda`` backend: CUDA C kernels (``*.cu``/``*.cuh`` beside this file) compiled by CuPy.

Importing this package does not import CuPy; ``cuda_available()`` checks for CuPy and a device,
and ``CUDABackend()`` raises ``cuzk.backend.BackendUnavailableError`` when either is missing.
Everything runs on the GPU (NTTs, SpMV, G1 and G2 MSMs, fixed-base products for setup); the
module docstring of ``cuzk.backend.cuda.backend`` lists the kernels.
"""

from __future__ import annotations

from .backend import CUDABackend, CUDAMSMContext, cuda_available

__all__ = ["CUDABackend", "CUDAMSMContext", "cuda_available"]
