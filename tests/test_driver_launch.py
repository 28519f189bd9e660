"""``cuzk.backend.cuda.launch.DriverLaunch``'s argument block, on the CPU: the parameter array
``cuLaunchKernel`` reads (one pointer per kernel parameter, each to a value of the parameter's
width) read back through ctypes, the per-call array pointers written into it, and arguments of
other types refused. The launch itself is replaced by a recorder; the GPU tests
(``test_ntt_variants_gpu.py``) launch it for real."""

from __future__ import annotations

import ctypes
from types import SimpleNamespace

import numpy as np
import pytest

from cuzk.backend.cuda import launch


def fake_array(ptr: int):
    """An object with CuPy's ``data.ptr`` (a device address)."""
    return SimpleNamespace(data=SimpleNamespace(ptr=ptr))


TYPES = [ctypes.c_void_p] * 3 + [ctypes.c_int32, ctypes.c_uint32, ctypes.c_uint64, ctypes.c_int64]


def read_params(addr: int, types) -> list[int]:
    """The values behind the parameter array at ``addr``: entry i points to a value of types[i]."""
    ptrs = (ctypes.c_void_p * len(types)).from_address(addr)
    return [t.from_address(p).value or 0 for t, p in zip(types, ptrs)]


@pytest.fixture
def launches(monkeypatch):
    """The launches made, each as its arguments with the parameter values read at launch time."""
    calls = []
    monkeypatch.setattr(launch, "_launch_kernel", lambda: lambda *a: calls.append((*a, read_params(a[9], TYPES))))
    return calls


def test_argument_block_and_launch(launches):
    """Two calls of one launch: fixed values of each width in place, each call's array pointers
    and stream in its own launch."""
    kernel = SimpleNamespace(kernel=SimpleNamespace(ptr=0xABC0))
    table = fake_array(0x7000_0000_1000)
    fixed = (table, np.int32(-5), np.uint32(7), np.uint64(2**63 + 3), np.int64(-(2**40)))
    dl = launch.DriverLaunch(kernel, 96, 128, 8192, 2, fixed)
    dl(0x55, fake_array(0x7000_0000_2000), fake_array(0x7000_0000_3000))
    dl(0x66, fake_array(0x7000_0000_4000), fake_array(0x7000_0000_5000))
    assert len(launches) == 2
    for call, stream, src, dst in zip(launches, (0x55, 0x66), (0x7000_0000_2000, 0x7000_0000_4000),
                                      (0x7000_0000_3000, 0x7000_0000_5000)):
        fn, gx, gy, gz, bx, by, bz, smem, st, _, extra, values = call
        assert (fn, gx, gy, gz, bx, by, bz, smem, st, extra) == (0xABC0, 96, 1, 1, 128, 1, 1, 8192, stream, 0)
        assert values == [src, dst, 0x7000_0000_1000, -5, 7, 2**63 + 3, -(2**40)]


@pytest.mark.parametrize("bad", [5, 2.0, "x", np.float32(1)])
def test_other_argument_types_refused(bad):
    """A Python int (its width unknown), a float, a string, a float scalar: TypeError."""
    kernel = SimpleNamespace(kernel=SimpleNamespace(ptr=1))
    with pytest.raises(TypeError, match="DriverLaunch"):
        launch.DriverLaunch(kernel, 1, 1, 0, 1, (np.int32(1), bad))


def test_after_passes_the_programmatic_launch_attribute(monkeypatch):
    """``after``: ``cuLaunchKernelEx`` gets a ``CUlaunchConfig`` (read back here through cuda.h's
    layout: 3 + 3 uint, uint, 8-byte-aligned stream and attribute pointer, uint count) with the
    grid, block, shared memory and stream, one attribute of id 6 (programmatic stream
    serialization) and value 1, and the same parameter array as a plain launch; without the
    driver entry point it launches plainly; a refused launch raises the driver's error."""
    got = []

    def ex(cfg, fn, params, extra):
        words = (ctypes.c_uint * 7).from_address(cfg)
        stream, attrs = (ctypes.c_void_p * 2).from_address(cfg + 32)
        count = ctypes.c_uint.from_address(cfg + 48).value
        attr_id, value = ctypes.c_int.from_address(attrs).value, ctypes.c_int.from_address(attrs + 8).value
        got.append((list(words), stream, count, attr_id, value, fn, read_params(params, TYPES[:3]), extra))
        return 0

    monkeypatch.setattr(launch, "_launch_kernel_ex", lambda: ex)
    kernel = SimpleNamespace(kernel=SimpleNamespace(ptr=0xF00))
    dl = launch.DriverLaunch(kernel, 40, 256, 16384, 2, (fake_array(0x9000),))
    dl.after(0x77, fake_array(0xA000), fake_array(0xB000))
    assert got == [([40, 1, 1, 256, 1, 1, 16384], 0x77, 1, 6, 1, 0xF00, [0xA000, 0xB000, 0x9000], None)]

    plain = []
    monkeypatch.setattr(launch, "_launch_kernel_ex", lambda: None)
    monkeypatch.setattr(launch, "_launch_kernel", lambda: lambda *a: plain.append(a[:9]))
    dl.after(0x78, fake_array(0xC000), fake_array(0xD000))
    assert plain == [(0xF00, 40, 1, 1, 256, 1, 1, 16384, 0x78)]

    class DriverError(Exception):
        pass

    monkeypatch.setattr(launch, "_launch_kernel_ex", lambda: lambda *a: 1)
    monkeypatch.setattr(launch, "_cupy", lambda: SimpleNamespace(cuda=SimpleNamespace(driver=SimpleNamespace(CUDADriverError=DriverError))))
    with pytest.raises(DriverError):
        dl.after(0x79, fake_array(0xC000), fake_array(0xD000))


def test_raw_makes_the_same_launch_by_cupy():
    """``raw``: CuPy's RawKernel call with the same grid, block, shared memory and arguments, the
    call's arrays first and the fixed ones (as given, CuPy converts them) after."""
    calls = []

    class Kernel:
        kernel = SimpleNamespace(ptr=0x10)

        def __call__(self, grid, block, args, shared_mem=0):
            calls.append((grid, block, args, shared_mem))

    table, a, b = fake_array(0x1000), fake_array(0x2000), fake_array(0x3000)
    fixed = (table, np.int32(3))
    launch.DriverLaunch(Kernel(), 12, 64, 2048, 2, fixed).raw(a, b)
    assert calls == [((12,), (64,), (a, b, table, np.int32(3)), 2048)]
