"""Kernel launches through the CUDA driver with argument blocks built once (``DriverLaunch``): the
host's cost of a launch whose shape repeats (the NTT's passes, ``ntt.NTTOps._ntt``)."""

from __future__ import annotations

import ctypes
import functools

import numpy as np

from .runtime import _cupy

_CTYPES = {np.int32: ctypes.c_int32, np.uint32: ctypes.c_uint32, np.int64: ctypes.c_int64, np.uint64: ctypes.c_uint64}


class DriverLaunch:
    """One kernel launch of a fixed shape through the CUDA driver (``cuLaunchKernel``, by CuPy's
    ``cupy_backends.cuda.api.driver.launchKernel``): the kernel, grid, block, dynamic shared
    memory and the arguments after the first ``arrays`` are fixed when it is built; a call gives
    the first ``arrays`` (device arrays) and the stream. CuPy's ``RawKernel.__call__`` converts
    every argument at each launch; here the argument block is built once and a call writes the
    array pointers into it: a small NTT's host time is its launches (stop 48,
    ``benchmarks/ntt_fast/overhead.py``).

    Args:
        kernel: a CuPy RawKernel (its function on the current device is launched).
        grid, block: blocks and threads per block (x only).
        smem: dynamic shared-memory bytes (over 48 KiB: opted in on the kernel beforehand).
        arrays: how many leading arguments are device arrays given per call.
        fixed: the remaining arguments: numpy int32/uint32/int64/uint64 scalars (as the kernel's
            parameters declare them) or CuPy arrays (kept alive by this object).

    Not thread-safe: a call writes the instance's argument block (one instance per thread).

    Raises:
        TypeError: a fixed argument of another type.
    """

    __slots__ = ("_fn", "_grid", "_block", "_smem", "_slots", "_params", "_addr", "_keep")

    def __init__(self, kernel, grid: int, block: int, smem: int, arrays: int, fixed: tuple):
        self._fn = kernel.kernel.ptr
        self._grid, self._block, self._smem = int(grid), int(block), int(smem)
        self._slots = [ctypes.c_void_p() for _ in range(arrays)]
        vals = list(self._slots)
        for v in fixed:
            if type(v) in _CTYPES:
                vals.append(_CTYPES[type(v)](int(v)))
            elif hasattr(v, "data") and hasattr(v.data, "ptr"):
                vals.append(ctypes.c_void_p(v.data.ptr))
            else:
                raise TypeError(f"DriverLaunch: argument of type {type(v).__name__} (numpy int scalars or CuPy arrays)")
        self._params = (ctypes.c_void_p * len(vals))(*(ctypes.addressof(v) for v in vals))
        self._addr = ctypes.addressof(self._params)
        self._keep = (vals, fixed)

    def __call__(self, stream: int, *arrays) -> None:
        """Launch on ``stream`` (a CUDA stream handle: ``Stream.ptr``) with ``arrays`` first."""
        for slot, a in zip(self._slots, arrays):
            slot.value = a.data.ptr
        _launch_kernel()(self._fn, self._grid, 1, 1, self._block, 1, 1, self._smem, stream, self._addr, 0)


@functools.cache
def _launch_kernel():
    """CuPy's ``cuLaunchKernel`` binding (``cupy_backends.cuda.api.driver.launchKernel``)."""
    return _cupy().cuda.driver.launchKernel
