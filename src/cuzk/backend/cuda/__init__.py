"""The ``cuda`` backend: CUDA C kernels (``*.cu``/``*.cuh`` beside this file) compiled by CuPy.

Importing this package does not import CuPy; ``cuda_available()`` checks for CuPy and a device,
and ``CUDABackend()`` raises ``cuzk.backend.BackendUnavailableError`` when either is missing.
What runs on the GPU and what is delegated to the CPU backend is listed in
``cuzk.backend.cuda.backend``'s module docstring.
"""

from __future__ import annotations

from .backend import CUDABackend, CUDAMSMContext, cuda_available

__all__ = ["CUDABackend", "CUDAMSMContext", "cuda_available"]
