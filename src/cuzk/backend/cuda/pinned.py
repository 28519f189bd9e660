"""Page-locked host memory of the ``cuda`` backend, made fast.

Large arrays are anonymous memory mappings (transparent huge pages asked for where the kernel
has them free: ``HUGE_PAGES``), their pages faulted in by ``pieces.COPY_THREADS`` threads
writing zeros, then registered with the driver
(``cudaHostRegister``); small ones come from CuPy's pinned pool (``cudaHostAlloc``). Measured on
the H200 host for 4.3 GB (a 32 GiB partition's H scalars, benchmarks/results/2026-12-02-h200/
stop19/pinbench.json): ``cudaHostAlloc`` 3.8 s, during which every other CUDA call of the process
waited, and 14.6 s for four from four threads (the driver serializes them); mapped, touched by 8
threads and registered 0.49 s, with huge pages 0.26 s (of which the registration, the only part
that holds other CUDA calls up, 0.08-0.1 s). Copies run at the same 55 GB/s either way.

Registered regions are kept for reuse when their last array goes (like CuPy's pinned pool: the
next partition's array of the same size costs nothing) until ``free_all``. ``HostBuffers``: a
limited prove's H-scalar buffers, made at once or ahead of need on background threads.
"""

from __future__ import annotations

import mmap
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Callable

import numpy as np

from .pieces import run_threaded

REGISTER_MIN_BYTES = 16 << 20
"""Arrays this large or larger are mapped and registered; smaller ones come from CuPy's pool."""
_ALIGN = 2 << 20   # a huge page: sizes rounded up to it
_TOUCH_BYTES = 64 << 20   # bytes per page-faulting task
_PORTABLE = 1   # cudaHostRegisterPortable: page-locked for every device's context

_lock = threading.Lock()
_free: dict[int, list] = {}   # rounded size → registered (mapping, byte view) pairs not in use


class _Region:
    """One registered mapping handed out as an array (``__array_interface__``): when the last
    array made from it goes, the mapping goes back to ``_free`` (still registered)."""

    def __init__(self, mm: mmap.mmap, view: np.ndarray, nbytes: int):
        self._mm, self._view = mm, view
        self.__array_interface__ = {"shape": (nbytes,), "typestr": "|u1", "version": 3,
                                    "data": (view.ctypes.data, False)}

    def __del__(self):
        with _lock:
            _free.setdefault(self._view.shape[0], []).append((self._mm, self._view))


def _touch(view: np.ndarray) -> None:
    """Fault every page of ``view`` in (zeros), in parallel: the registration then only locks them.
    Writing zeros, not ``madvise(MADV_POPULATE_WRITE)``: on the H200 host (4 GiB, 8 threads) the
    advice was no faster with 4 KiB pages (11.3-11.8 GB/s both) and slower with huge pages (21.6
    against 28-30 GB/s; benchmarks/results/2026-12-04-h200-stop36/call1 popbench), though 1.6x
    faster on the 2-core development machine (benchmarks/results/2026-12-04-local/populate). The
    cold first limited point's 4 KiB-page regions took 0.8-1.4 s each either way (call1, call4)."""
    run_threaded(lambda a: view[a : a + _TOUCH_BYTES].fill(0), range(0, view.shape[0], _TOUCH_BYTES))


HUGE_PAGES = "auto"
"""Ask for transparent huge pages (``MADV_HUGEPAGE``) for a new mapping: True, False, or "auto":
where the buddy allocator has free 2 MiB blocks for all of it (``free_huge_bytes``). With the
kernel's THP ``defrag`` setting "madvise" (the H200 host's), faults in a huge-page region wait for
direct compaction when no free block is left: the first limited point of a run pinned 21.5 GB in
5.6 s against 1.1 s later in the same run (benchmarks/results/2026-12-03-h200/call8). Read at call
time."""
_BUDDYINFO = "/proc/buddyinfo"
_HUGE_ORDER = 9   # 2 MiB = 2^9 pages of 4 KiB


def free_huge_bytes(buddyinfo: str) -> int:
    """Bytes in free blocks of at least 2 MiB over every node and zone, from the text of
    ``/proc/buddyinfo`` (per zone: free block counts of order 0, 1, … ; a block of order k is
    2^k pages of 4 KiB; Documentation/filesystems/proc.rst).

    Raises:
        ValueError: a line that is not ``Node N, zone NAME count…``.
    """
    total = 0
    for line in buddyinfo.splitlines():
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) < 5 or parts[0] != "Node" or not parts[1].endswith(",") or parts[2] != "zone":
            raise ValueError(f"{_BUDDYINFO}: unexpected line {line!r}")
        counts = [int(c) for c in parts[4:]]
        total += sum(c << k for k, c in enumerate(counts) if k >= _HUGE_ORDER) * 4096
    return total


def _want_huge(size: int) -> bool:
    if HUGE_PAGES != "auto":
        return bool(HUGE_PAGES)
    try:
        with open(_BUDDYINFO) as f:
            return free_huge_bytes(f.read()) >= size
    except (OSError, ValueError):
        return True


COMPACT = False
"""``make_room`` may ask the kernel to compact memory (True) or not (False). Off until measured: the
first limited point of a run, pinning while only 3.5 GiB of the host's free memory was in 2 MiB
blocks (no huge pages: ``HUGE_PAGES`` "auto"), paid 2.6 s of ``prepare`` and 2.75 s of waiting for
its H buffers, against 1.05 s and 0 at a later point with 35 GiB of them
(benchmarks/results/2026-12-03-h200/call9). Measured on (call10): the compaction took 0.02 s
and left the free 2 MiB blocks at 3.4 GiB, so it stays off. Read at call time."""
_COMPACT_FILE = "/proc/sys/vm/compact_memory"
_COMPACT_EVERY = 60.0   # seconds: at most one compaction a minute (it walks all of memory)
compactions: list[tuple[float, int, int]] = []
"""(seconds, free 2 MiB block bytes before, after) of each compaction ``make_room`` asked for."""


def make_room(nbytes: int) -> float:
    """Before pinning ``nbytes`` bytes: where ``COMPACT`` is on, the buddy allocator's free 2 MiB
    blocks (``free_huge_bytes``) are fewer than that and the process may write
    ``/proc/sys/vm/compact_memory`` (root), compact all zones (synchronous; at most once every
    ``_COMPACT_EVERY`` seconds) so the new mappings can have huge pages. Kernel interface:
    Documentation/admin-guide/sysctl/vm.rst, ``compact_memory``.

    Returns:
        The seconds spent (0.0 where nothing was done). Never raises: without the files or the
        right to write, nothing is done.
    """
    if not COMPACT or nbytes <= 0:
        return 0.0
    t = time.perf_counter()
    try:
        with open(_BUDDYINFO) as f:
            before = free_huge_bytes(f.read())
        if before >= nbytes or (compactions and time.monotonic() - _last[0] < _COMPACT_EVERY):
            return time.perf_counter() - t
        with open(_COMPACT_FILE, "w") as f:
            f.write("1")
        _last[0] = time.monotonic()
        with open(_BUDDYINFO) as f:
            after = free_huge_bytes(f.read())
    except (OSError, ValueError):
        return time.perf_counter() - t
    compactions.append((time.perf_counter() - t, before, after))
    return compactions[-1][0]


_last = [0.0]   # time.monotonic() of the last compaction


def _map(size: int) -> tuple:
    """(mapping, its uint8 view, whether huge pages were asked for: ``_want_huge``)."""
    mm = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    huge = bool(hasattr(mmap, "MADV_HUGEPAGE") and _want_huge(size))
    if huge:
        mm.madvise(mmap.MADV_HUGEPAGE)
    return mm, np.frombuffer(mm, dtype=np.uint8), huge


regions: list[tuple[float, float, bool]] = []
"""(seconds faulting the pages in, seconds registering, huge pages asked for) of each new region
``empty`` made, in order (the record of where a slow pinning went)."""


def _new_region(size: int, runtime) -> tuple:
    t = time.perf_counter()
    mm, view, huge = _map(size)
    _touch(view)
    t1 = time.perf_counter()
    runtime.hostRegister(view.ctypes.data, size, _PORTABLE)
    regions.append((t1 - t, time.perf_counter() - t1, huge))
    return mm, view


def _sizes(shape: tuple, dtype) -> tuple:
    """(dtype, bytes, bytes rounded up to a huge page)."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    return dtype, nbytes, -(-nbytes // _ALIGN) * _ALIGN


def _kept(size: int):
    with _lock:
        kept = _free.get(size)
        return kept.pop() if kept else None


def _array(got: tuple, size: int, nbytes: int, dtype, shape: tuple) -> np.ndarray:
    return np.asarray(_Region(got[0], got[1], size))[:nbytes].view(dtype).reshape(shape)


def empty(shape: tuple, dtype, cp) -> np.ndarray:
    """An uninitialised page-locked host array of ``shape`` and ``dtype``.

    Args:
        shape, dtype: the array's.
        cp: the CuPy module (its runtime registers the memory; its pinned pool serves small
            arrays, below ``REGISTER_MIN_BYTES``).

    Returns:
        The array: at least ``REGISTER_MIN_BYTES`` bytes, a view of a registered mapping (kept
        alive by the array and its views); smaller, CuPy's ``cupyx.empty_pinned``.

    Raises:
        CUDARuntimeError, MemoryError, OSError: the memory could not be had or locked (callers
        fall back to pageable memory).
    """
    dtype, nbytes, size = _sizes(shape, dtype)
    if nbytes < REGISTER_MIN_BYTES:
        import cupyx  # part of CuPy (optional): imported on use

        return cupyx.empty_pinned(shape, dtype=dtype)
    got = _kept(size)
    if got is None:
        got = _new_region(size, cp.cuda.runtime)
    return _array(got, size, nbytes, dtype, shape)


def filled(shape: tuple, dtype, cp, fill: Callable[[np.ndarray], None]) -> np.ndarray:
    """``empty``'s array with ``fill(array)`` run on it before it is registered: a new mapping's
    pages are faulted in by the fill's own writes (``empty`` writes zeros first, then the
    caller writes again: the matrices' one-time conversion wrote about 6 GB twice).

    Args:
        shape, dtype, cp: as ``empty``.
        fill: writes every element of the array it is given (say in parallel); what it raises
            is raised here (a new mapping is then dropped, never registered or kept).

    Returns:
        The filled array: page-locked as ``empty``'s (small ones from CuPy's pool), or pageable
        where the driver refused to register the new mapping (filled once either way).

    Raises:
        MemoryError, OSError: the mapping could not be had; what ``fill`` raised.
    """
    dtype, nbytes, size = _sizes(shape, dtype)
    got = _kept(size) if nbytes >= REGISTER_MIN_BYTES else None
    if got is not None or nbytes < REGISTER_MIN_BYTES:   # registered already (kept, or CuPy's pool)
        out = _array(got, size, nbytes, dtype, shape) if got is not None else empty(shape, dtype, cp)
        fill(out)
        return out
    mm, view, _ = _map(size)
    out = view[:nbytes].view(dtype).reshape(shape)
    fill(out)   # raising: the mapping goes with its last array, never registered
    try:
        cp.cuda.runtime.hostRegister(view.ctypes.data, size, _PORTABLE)
    except cp.cuda.runtime.CUDARuntimeError:
        return out   # filled, pageable: no second fill
    return _array((mm, view), size, nbytes, dtype, shape)


def free_all(cp) -> int:
    """Unregister and unmap the kept regions no array uses (``CUDABackend.close``); returns bytes
    freed. Errors of the driver are ignored: the mapping goes either way."""
    with _lock:
        kept = [r for rs in _free.values() for r in rs]
        _free.clear()
    total = 0
    for mm, view in kept:
        try:
            cp.cuda.runtime.hostUnregister(view.ctypes.data)
        except cp.cuda.runtime.CUDARuntimeError:
            pass
        total += view.shape[0]
    return total


PIN_THREADS = 2
"""Buffers ``HostBuffers`` makes at once ahead (one thread each). With one, the first limited point
of a run whose host had few free 2 MiB blocks (no huge pages) made each 4.3 GB buffer in 1.1 s
against a 0.6 s partition cycle and waited 2.6-2.75 s for them (benchmarks/results/
2026-12-03-h200/call9, call12); two let one buffer's registration overlap the next one's page
faults. Read when a ``HostBuffers`` is made."""


class HostBuffers:
    """``count`` page-locked host arrays of ``shape`` (uint64) (``CUDABackend.host_buffers``:
    ``host_empty``, mapped and registered, 0.3-0.4 s per 4.3 GB on the H200 host), handed out
    by index (``take``), each reused by the caller for a partition of every group.

    Made at once by default: ``Prover.prove_groups`` makes them after the matrices' conversion
    and before the first H phase, since made beside either in a background thread they slowed it
    (the conversion 10.3 s against 2.0 s, benchmarks/results/2026-12-03-h200/call4; the first
    spmv phase 1.98 s, 2026-12-02-h200/stop20/call1). With ``ahead``, none is made until
    ``make_ahead(j)`` queues buffers 0…j + ``threads`` − 1 on ``threads`` background threads
    (``cuzk-pin``, default ``PIN_THREADS``): the prover asks for j+1 while partition j's NTTs
    run, when the host has nothing else to do. (Asking for the first ones as a group starts
    removed the first wait, 1.07 s, but slowed the first spmv beside them from 0.27 to 1.32 s:
    no gain, benchmarks/results/2026-12-04-h200-stop35/call5.)
    """

    def __init__(self, backend, count: int, shape: tuple, ahead: bool = False,
                 threads: int | None = None):
        self._backend, self._count, self._shape = backend, count, shape
        self.seconds: list[float] = []   # each buffer's making, in the order made
        self._pool = None
        self._threads = max(1, PIN_THREADS if threads is None else int(threads))
        if ahead:
            self._pool = ThreadPoolExecutor(self._threads, thread_name_prefix="cuzk-pin")
            self._have: list = []
        else:
            self._have = [self._make() for _ in range(count)]

    def _make(self) -> np.ndarray:
        t = time.perf_counter()
        with self._backend.cp.cuda.Device(self._backend._device_id):
            out = self._backend.host_empty(self._shape)
        self.seconds.append(time.perf_counter() - t)
        return out

    def make_ahead(self, j: int) -> None:
        """Queue buffers up to ``j`` + threads − 1 (capped at count − 1) on the background
        threads (``ahead``; else nothing to do)."""
        if self._pool is not None:
            while len(self._have) <= min(j + self._threads - 1, self._count - 1):
                self._have.append(self._pool.submit(self._make))

    def take(self, j: int) -> np.ndarray:
        """Buffer ``j`` (< count), waiting for it if it is being made.

        Raises:
            IndexError: j ≥ count. What making it raised (a CUDA error, MemoryError).
        """
        if not 0 <= j < self._count:
            raise IndexError(f"HostBuffers: buffer {j} of {self._count}")
        self.make_ahead(j)
        got = self._have[j]
        if not isinstance(got, np.ndarray):
            got = self._have[j] = got.result()
        return got

    def close(self) -> None:
        """Drop the buffers (their pinned regions are kept for reuse: ``pinned``); queued ones
        not yet begun are cancelled, the one being made is waited for."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
        self._have.clear()
