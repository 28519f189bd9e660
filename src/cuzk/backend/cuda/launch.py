"""Kernel launches through the CUDA driver with argument blocks built once (``DriverLaunch``): the
host's cost of a launch whose shape repeats (the NTT's passes, ``ntt.NTTOps._ntt``), and launches
that may start before the kernel ahead of them in the stream ends (``DriverLaunch.after``:
programmatic dependent launch, ``cuLaunchKernelEx``)."""

from __future__ import annotations

import ctypes
import functools

import numpy as np

from .runtime import _cupy

_PROGRAMMATIC_STREAM_SERIALIZATION = 6
"""``CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION`` (cuda.h, CUDA 12 and 13)."""


class _LaunchAttribute(ctypes.Structure):
    """cuda.h ``CUlaunchAttribute``: the id, padding to 8 bytes, a 64-byte value union."""

    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_char * 4), ("value", ctypes.c_int * 16)]


class _LaunchConfig(ctypes.Structure):
    """cuda.h ``CUlaunchConfig`` (the argument of ``cuLaunchKernelEx``)."""

    _fields_ = [("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3), ("shared_mem", ctypes.c_uint),
                ("stream", ctypes.c_void_p), ("attrs", ctypes.POINTER(_LaunchAttribute)), ("num_attrs", ctypes.c_uint)]


@functools.cache
def _launch_kernel_ex():
    """libcuda's ``cuLaunchKernelEx`` (CUDA ≥ 12) through ctypes, None where it cannot be loaded."""
    try:
        fn = ctypes.CDLL("libcuda.so.1").cuLaunchKernelEx
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_void_p] * 4
    fn.restype = ctypes.c_int
    return fn


_CTYPES = {np.int32: ctypes.c_int32, np.uint32: ctypes.c_uint32, np.int64: ctypes.c_int64, np.uint64: ctypes.c_uint64}


class DriverLaunch:
    """One kernel launch of a fixed shape through the CUDA driver (``cuLaunchKernel``, by CuPy's
    ``cupy_backends.cuda.api.driver.launchKernel``): the kernel, grid, block, dynamic shared
    memory and the arguments after the first ``arrays`` are fixed when it is built; a call gives
    the first ``arrays`` (device arrays) and the stream. CuPy's ``RawKernel.__call__`` converts
    every argument at each launch; here the argument block is built once and a call writes the
    array pointers into it: a small NTT's host time is its launches (stop 48,
    ``benchmarks/ntt_fast/overhead.py``). ``raw`` makes the same launch by CuPy's call (A/B).

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

    __slots__ = ("_kernel", "_fixed", "_fn", "_grid", "_block", "_smem", "_slots", "_params", "_addr", "_keep", "_cfg",
                 "_cfg_addr")

    def __init__(self, kernel, grid: int, block: int, smem: int, arrays: int, fixed: tuple):
        self._kernel, self._fixed = kernel, tuple(fixed)
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
        attr = _LaunchAttribute(id=_PROGRAMMATIC_STREAM_SERIALIZATION)
        attr.value[0] = 1
        self._cfg = _LaunchConfig((self._grid, 1, 1), (self._block, 1, 1), self._smem, None, ctypes.pointer(attr), 1)
        self._cfg_addr = ctypes.addressof(self._cfg)
        self._keep = (vals, attr)

    def __call__(self, stream: int, *arrays) -> None:
        """Launch on ``stream`` (a CUDA stream handle: ``Stream.ptr``) with ``arrays`` first."""
        for slot, a in zip(self._slots, arrays):
            slot.value = a.data.ptr
        _launch_kernel()(self._fn, self._grid, 1, 1, self._block, 1, 1, self._smem, stream, self._addr, 0)

    def raw(self, *arrays) -> None:
        """The same launch by CuPy's ``RawKernel`` call, on the current stream."""
        self._kernel((self._grid,), (self._block,), (*arrays, *self._fixed), shared_mem=self._smem)

    def after(self, stream: int, *arrays) -> None:
        """As a call, but the launch may begin before the kernel ahead of it in ``stream`` ends
        (programmatic stream serialization): the kernel itself must wait for that one before it
        touches memory (``griddepcontrol.wait``, ``ntt.cuh`` NTT_GRID_DEPEND). A plain launch where
        the driver has no ``cuLaunchKernelEx``.

        Raises:
            CUDADriverError: the driver refused the launch.
        """
        fn = _launch_kernel_ex()
        if fn is None:
            return self(stream, *arrays)
        for slot, a in zip(self._slots, arrays):
            slot.value = a.data.ptr
        self._cfg.stream = stream
        rc = fn(self._cfg_addr, self._fn, self._addr, None)
        if rc:
            raise _cupy().cuda.driver.CUDADriverError(rc)


@functools.cache
def _launch_kernel():
    """CuPy's ``cuLaunchKernel`` binding (``cupy_backends.cuda.api.driver.launchKernel``)."""
    return _cupy().cuda.driver.launchKernel
