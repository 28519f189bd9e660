"""``cuzk.backend.cuda.pinned``: large page-locked arrays are mappings registered with the driver
once and reused by size; small ones come from CuPy's pool. The CPU tests drive the mapping path
with a recording stand-in for CuPy's runtime (what was registered, with which size and flags,
reused or unregistered); the GPU test registers for real and copies through the memory."""

from __future__ import annotations

import contextlib
import mmap
import threading
import types

import numpy as np
import pytest

from cuzk.backend.cuda import pinned
from cuzk.backend.cuda.pinned import HostBuffers


class _Runtime:
    class CUDARuntimeError(Exception):
        pass

    def __init__(self):
        self.registered: dict[int, int] = {}
        self.log: list = []

    def hostRegister(self, ptr, size, flags):
        assert ptr not in self.registered
        self.registered[ptr] = size
        self.log.append(("register", ptr, size, flags))

    def hostUnregister(self, ptr):
        del self.registered[ptr]
        self.log.append(("unregister", ptr))


@pytest.fixture
def fake():
    pinned.free_all(types.SimpleNamespace(cuda=types.SimpleNamespace(runtime=_Runtime())))
    rt = _Runtime()
    yield types.SimpleNamespace(cuda=types.SimpleNamespace(runtime=rt)), rt
    pinned.free_all(types.SimpleNamespace(cuda=types.SimpleNamespace(runtime=rt)))


def test_large_arrays_are_registered_mappings_reused_by_size(fake):
    cp, rt = fake
    n = pinned.REGISTER_MIN_BYTES // 32 + 5           # (n, 4) uint64: just over the threshold
    a = pinned.empty((n, 4), np.uint64, cp)
    assert a.shape == (n, 4) and a.dtype == np.uint64 and a.flags.writeable and a.flags.c_contiguous
    size = -(-a.nbytes // (2 << 20)) * (2 << 20)      # rounded up to a huge page
    assert rt.log == [("register", a.ctypes.data, size, 1)]
    assert not a.any()                                 # faulted in as zeros before registering
    a[:] = np.arange(n * 4, dtype=np.uint64).reshape(n, 4)
    ptr, view = a.ctypes.data, a[3:7]
    b = pinned.empty((n, 4), np.uint64, cp)            # a is alive: a second region
    assert b.ctypes.data != ptr and len(rt.registered) == 2
    del a
    assert view[0, 0] == 12                            # a view keeps the region
    del view
    c = pinned.empty((size // 4,), np.uint32, cp)     # same rounded size: a's region again
    assert c.ctypes.data == ptr and len(rt.registered) == 2 and c.shape == (size // 4,)
    d = pinned.empty((n + (4 << 20) // 32, 4), np.uint64, cp)   # another size: registered anew
    assert len(rt.registered) == 3
    del b, c, d
    freed = pinned.free_all(cp)
    assert freed == 2 * size + (-(-(n * 32 + (4 << 20)) // (2 << 20)) * (2 << 20))
    assert rt.registered == {} and sum(1 for e in rt.log if e[0] == "unregister") == 3


def test_free_all_leaves_regions_in_use(fake):
    cp, rt = fake
    a = pinned.empty((pinned.REGISTER_MIN_BYTES,), np.uint8, cp)
    assert pinned.free_all(cp) == 0 and a.ctypes.data in rt.registered
    del a
    assert pinned.free_all(cp) == pinned.REGISTER_MIN_BYTES and rt.registered == {}


def test_registration_failure_is_raised(fake):
    cp, rt = fake

    def refuse(ptr, size, flags):
        raise rt.CUDARuntimeError("cudaErrorHostMemoryAlreadyRegistered")

    rt.hostRegister = refuse
    with pytest.raises(rt.CUDARuntimeError):
        pinned.empty((pinned.REGISTER_MIN_BYTES,), np.uint8, cp)
    assert pinned.free_all(cp) == 0


def test_filled_registers_after_the_fill_and_keeps_the_region(fake):
    cp, rt = fake
    n = pinned.REGISTER_MIN_BYTES // 4 + 3
    want = np.random.default_rng().integers(0, 2**32, n, dtype=np.uint32)
    seen = []

    def fill(a):
        seen.append((a.shape, a.dtype, a.ctypes.data in rt.registered))
        a[:] = want

    a = pinned.filled((n,), np.uint32, cp, fill)
    assert seen == [((n,), np.uint32, False)]                 # written before the registration
    size = -(-a.nbytes // (2 << 20)) * (2 << 20)
    assert rt.log == [("register", a.ctypes.data, size, 1)] and np.array_equal(a, want)
    ptr = a.ctypes.data
    del a
    b = pinned.filled((n,), np.uint32, cp, lambda x: x.fill(7))   # the kept region, registered once
    assert b.ctypes.data == ptr and len(rt.log) == 1 and (b == 7).all()
    del b
    assert pinned.free_all(cp) == size


def test_filled_after_a_failed_fill_or_registration(fake):
    cp, rt = fake
    n = pinned.REGISTER_MIN_BYTES // 8 + 1

    def bad(a):
        a[:5] = 1
        raise ValueError("an entry outside the matrix")

    with pytest.raises(ValueError, match="outside"):
        pinned.filled((n,), np.uint64, cp, bad)
    assert rt.log == [] and pinned.free_all(cp) == 0          # never registered, nothing kept

    def refuse(ptr, size, flags):
        raise rt.CUDARuntimeError("cudaErrorHostMemoryAlreadyRegistered")

    rt.hostRegister = refuse
    calls = []
    a = pinned.filled((n,), np.uint64, cp, lambda x: calls.append(x.fill(3)))
    assert len(calls) == 1 and a.shape == (n,) and (a == 3).all()   # filled once, pageable
    del a
    assert pinned.free_all(cp) == 0                            # an unregistered mapping is not kept


@pytest.mark.gpu
def test_registered_memory_copies_both_ways():
    cp = pytest.importorskip("cupy")
    try:
        if cp.cuda.runtime.getDeviceCount() < 1:
            pytest.skip("no CUDA device")
    except cp.cuda.runtime.CUDARuntimeError:
        pytest.skip("no CUDA device")
    n = pinned.REGISTER_MIN_BYTES // 8 + 1000
    host = pinned.empty((n,), np.uint64, cp)
    attrs = cp.cuda.runtime.pointerGetAttributes(host.ctypes.data)
    assert attrs.type == getattr(cp.cuda.runtime, "memoryTypeHost", 1)      # page-locked, known to the driver
    src = np.random.default_rng().integers(0, 2**63, n, dtype=np.uint64)
    host[:] = src
    stream = cp.cuda.Stream(non_blocking=True)
    dev = cp.empty(n, dtype=cp.uint64)
    dev.set(host, stream=stream)
    dev += 1
    stream.synchronize()
    back = pinned.empty((n,), np.uint64, cp)
    dev.get(out=back)
    assert np.array_equal(back, src + 1)
    small = pinned.empty((10,), np.uint64, cp)               # below the threshold: CuPy's pool
    assert cp.cuda.runtime.pointerGetAttributes(small.ctypes.data).type == getattr(cp.cuda.runtime, "memoryTypeHost", 1)
    filled = pinned.filled((n + (2 << 20),), np.uint64, cp, lambda a: np.copyto(a[:n], src) or a[n:].fill(5))
    assert cp.cuda.runtime.pointerGetAttributes(filled.ctypes.data).type == getattr(cp.cuda.runtime, "memoryTypeHost", 1)
    dev = cp.asarray(filled)
    assert np.array_equal(cp.asnumpy(dev[:n]), src) and bool((dev[n:] == 5).all())
    del host, back, filled, dev
    assert pinned.free_all(cp) >= 2 * n * 8


def _fake_backend(made: list, fail_at: int | None = None):
    """A stand-in for ``CUDABackend`` as ``HostBuffers`` uses it: ``host_empty`` records the
    thread that made each buffer (and raises for the ``fail_at``-th)."""
    def host_empty(shape):
        if len(made) == fail_at:
            raise MemoryError("no memory for the buffer")
        made.append(threading.current_thread().name)
        return np.full(shape, len(made), dtype=np.uint64)

    cp = types.SimpleNamespace(cuda=types.SimpleNamespace(Device=lambda i: contextlib.nullcontext()))
    return types.SimpleNamespace(cp=cp, _device_id=0, host_empty=host_empty)


def test_host_buffers_at_once_or_ahead():
    made = []
    now = HostBuffers(_fake_backend(made), 3, (4, 4))
    assert made == ["MainThread"] * 3 and now.take(2)[0, 0] == 3
    now.make_ahead(5)                                      # a no-op when made at once
    assert len(made) == 3
    with pytest.raises(IndexError):
        now.take(3)
    now.close()
    made = []
    ahead = HostBuffers(_fake_backend(made), 3, (4, 4), ahead=True, threads=1)
    assert made == []                                      # nothing before it is asked for
    ahead.make_ahead(1)
    first = ahead.take(0)
    assert first.shape == (4, 4) and first.dtype == np.uint64 and first[0, 0] == 1
    assert ahead.take(1)[0, 0] == 2 and len(made) == 2
    assert ahead.take(2)[0, 0] == 3                        # not queued yet: made when taken
    assert all(name.startswith("cuzk-pin") for name in made) and ahead.take(0) is first
    ahead.make_ahead(9)                                    # capped at count − 1
    ahead.close()
    assert len(made) == 3 and len(ahead.seconds) == 3 and min(ahead.seconds) >= 0


def test_host_buffers_two_threads_queue_one_more():
    made = []
    bufs = HostBuffers(_fake_backend(made), 4, (2, 4), ahead=True, threads=2)
    bufs.make_ahead(0)                                     # 0 and 1 at once
    assert len(bufs._have) == 2
    assert bufs.take(0).shape == (2, 4) and len(bufs._have) == 2
    assert bufs.take(1).shape == (2, 4) and len(bufs._have) == 3   # taking 1 queues 2
    bufs.make_ahead(5)                                     # capped at count − 1
    assert len(bufs._have) == 4 and bufs.take(3).shape == (2, 4)
    bufs.close()
    assert len(made) == 4 and len(bufs.seconds) == 4
    assert all(name.startswith("cuzk-pin") for name in made)


def test_host_buffers_ahead_raise_what_making_raised():
    made = []
    bufs = HostBuffers(_fake_backend(made, fail_at=1), 3, (2, 4), ahead=True, threads=1)
    bufs.make_ahead(2)
    assert bufs.take(0)[0, 0] == 1
    with pytest.raises(MemoryError, match="no memory"):
        bufs.take(1)
    bufs.close()


# /proc/buddyinfo of this development machine (Linux 6.x), 2026-12-03
BUDDYINFO = """Node 0, zone      DMA      0      0      0      0      0      0      0      0      1      1      3
Node 0, zone    DMA32      4      1      2      2      2      2      1      4      4      2    752
Node 0, zone   Normal   4769   2902   4178   6909   5273   2849   1712    887    469    299   1137
"""


def _resident_pages(view: np.ndarray) -> int:
    """Pages of ``view`` (page-aligned) resident now, by mincore(2)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
    pages = -(-view.shape[0] // mmap.PAGESIZE)
    vec = (ctypes.c_ubyte * pages)()
    assert libc.mincore(view.ctypes.data, view.shape[0], vec) == 0, ctypes.get_errno()
    return sum(b & 1 for b in vec)


def test_touch_faults_every_page_in(monkeypatch):
    """``_touch`` leaves every page of a fresh mapping resident and zero; chunks of
    ``_TOUCH_BYTES`` on threads, the last one short."""
    monkeypatch.setattr(pinned, "_TOUCH_BYTES", 1 << 20)
    mm, view, _ = pinned._map(5 * (1 << 20) + (64 << 10))
    assert _resident_pages(view) == 0
    pinned._touch(view)
    assert _resident_pages(view) == -(-view.shape[0] // mmap.PAGESIZE) and not view.any()
    del view
    mm.close()


def test_free_huge_bytes_counts_blocks_of_order_9_and_up():
    # order 9 (2 MiB) and order 10 (4 MiB) blocks: summed by hand from the table above
    want = (1 + 2 + 299) * (2 << 20) + (3 + 752 + 1137) * (4 << 20)
    assert pinned.free_huge_bytes(BUDDYINFO) == want
    assert pinned.free_huge_bytes("") == 0
    with pytest.raises(ValueError, match="buddyinfo"):
        pinned.free_huge_bytes("Node 0 zone Normal 1 2 3")


def test_huge_pages_asked_for_only_where_free(tmp_path, monkeypatch):
    info = tmp_path / "buddyinfo"
    info.write_text(BUDDYINFO)
    monkeypatch.setattr(pinned, "_BUDDYINFO", str(info))
    free = pinned.free_huge_bytes(BUDDYINFO)
    assert pinned._want_huge(free) and not pinned._want_huge(free + (2 << 20))
    monkeypatch.setattr(pinned, "HUGE_PAGES", False)
    assert not pinned._want_huge(2 << 20)
    monkeypatch.setattr(pinned, "HUGE_PAGES", True)
    assert pinned._want_huge(free * 4)
    monkeypatch.setattr(pinned, "HUGE_PAGES", "auto")
    monkeypatch.setattr(pinned, "_BUDDYINFO", str(tmp_path / "absent"))
    assert pinned._want_huge(1 << 40)                       # no buddyinfo (not Linux): ask anyway


def test_make_room_compacts_only_when_on_short_and_not_lately(tmp_path, monkeypatch):
    info, knob = tmp_path / "buddyinfo", tmp_path / "compact_memory"
    info.write_text(BUDDYINFO)
    knob.write_text("")
    monkeypatch.setattr(pinned, "_BUDDYINFO", str(info))
    monkeypatch.setattr(pinned, "_COMPACT_FILE", str(knob))
    monkeypatch.setattr(pinned, "compactions", [])
    monkeypatch.setattr(pinned, "_last", [0.0])
    free = pinned.free_huge_bytes(BUDDYINFO)
    monkeypatch.setattr(pinned, "COMPACT", False)
    assert pinned.make_room(free * 2) == 0.0 and knob.read_text() == ""
    monkeypatch.setattr(pinned, "COMPACT", True)
    pinned.make_room(free)                                  # enough 2 MiB blocks already
    assert knob.read_text() == "" and pinned.compactions == []
    pinned.make_room(free + 1)                              # short: the kernel is asked
    assert knob.read_text() == "1"
    assert [(b, a) for _, b, a in pinned.compactions] == [(free, free)]
    knob.write_text("")
    pinned.make_room(free + 1)                              # again within a minute: not asked
    assert knob.read_text() == "" and len(pinned.compactions) == 1
    monkeypatch.setattr(pinned, "_last", [-1e9])
    monkeypatch.setattr(pinned, "_COMPACT_FILE", str(tmp_path / "no" / "such"))
    assert pinned.make_room(free + 1) >= 0.0 and len(pinned.compactions) == 1   # cannot write: nothing, no raise
