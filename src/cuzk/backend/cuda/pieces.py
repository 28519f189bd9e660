"""Host side of streaming MSM bases to the device in pieces (``CUDAMSMContext.msm_many`` over bases
that stay in host memory): no CuPy here, so the schedule is CPU-tested with numpy arrays standing
in for device buffers and for pinned staging buffers.

The bases stay as the key file stores them (uncompressed encodings, a read-only view of the
mapped ``.params`` file): each piece is read from the mapping through a few small staging
buffers (pinned on cuda) and each staged chunk's file pages are handed back (``release_pages``),
so host memory holds the staging buffers, never the key (≈ 47 GB at a 32 GiB partition).

Two levels of double buffering:

- ``stage_rows``: rows ``lo:hi`` go into a device buffer chunk by chunk through ``len(staging)``
  host buffers; a staging buffer is refilled only after its previous chunk's copy has left
  (``wait`` on the token ``send`` returned);
- ``feed_pieces``: piece j + 1 is loaded into the other device slot by a helper thread while the
  caller uses piece j; a slot is reloaded only after the caller is done with it (``wait`` on the
  token ``used`` gives when the caller asks for the next piece).
"""

from __future__ import annotations

import contextlib
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Callable

import numpy as np

from ...fileio import read_rows, release_pages

STAGING_BYTES = 512 << 20
"""Bytes of each of the two host staging buffers a streamed query goes through (pinned on cuda):
what host memory holds of the key while it streams. Each chunk costs a round of the copy threads
and a wait on the bus: at 24 GiB a 32 GiB partition's streamed MSMs (h, l, a, b_g2) took 1.64 s
per proof with 512 MiB buffers against 1.76 s with 128 MiB, side by side on the H200
(benchmarks/results/2026-12-03-h200/call5)."""
COPY_THREADS = 8
"""Threads one staged chunk is read by (``os.preadv`` and numpy's plain copies release the GIL).
On the H200 host, filling pinned buffers from the key file in /dev/shm ran at 5.1, 19.5 and 31.8
GB/s by pread with 1, 4 and 8 threads, 4.0, 13.7 and 17.1 GB/s by ``np.copyto`` through the
mapping (page faults included); the streamed queries moved at about 10.7 GB/s with 4 threads
(benchmarks/results/2026-12-02-h200/stop17, call1)."""
STREAM_SWITCH_INTERVAL = 0.0002
"""Seconds of Python's thread switch interval while a query streams (``gil_switch``): each of the
``COPY_THREADS`` readers needs the GIL back after every pread, and at the default 5 ms it may wait
that long behind the thread issuing the MSMs; the streamed queries moved at 10-11 GB/s on the
H200 host against 27-32 GB/s for the reads alone (stop 17, calls 1 and 3)."""


@contextlib.contextmanager
def gil_switch(seconds: float = STREAM_SWITCH_INTERVAL):
    """Python's thread switch interval at most ``seconds`` inside the block, restored after."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(min(old, seconds))
    try:
        yield
    finally:
        sys.setswitchinterval(old)


_COPIER = ThreadPoolExecutor(max_workers=COPY_THREADS, thread_name_prefix="cuzk-copy")


def _copy(dst: np.ndarray, src: np.ndarray) -> None:
    if not read_rows(dst, src):   # a view of a registered mapping: pread, no page faults
        np.copyto(dst, src)


def run_threaded(fn: Callable, items, threads: int = COPY_THREADS) -> list:
    """``[fn(x) for x in items]`` on the copy threads, at most ``threads`` tasks queued at once
    (so a long list holds few chunks in memory); the first error is raised."""
    items = list(items)
    if threads <= 1 or len(items) <= 1:
        return [fn(x) for x in items]
    out, pending = [], []
    for x in items:
        pending.append(_COPIER.submit(fn, x))
        if len(pending) >= threads:
            out.append(pending.pop(0).result())
    out.extend(f.result() for f in pending)
    return out


def copy_rows(dst: np.ndarray, src: np.ndarray, threads: int = COPY_THREADS) -> None:
    """``np.copyto(dst, src)`` over ``threads`` row slices at once (same shape and dtype); slices
    of a ``fileio.map_readonly`` mapping are read from its file (``fileio.read_rows``)."""
    n = src.shape[0]
    if threads <= 1 or n < 2 * threads:
        _copy(dst, src)
        return
    step = -(-n // threads)
    run_threaded(lambda a: _copy(dst[a : a + step], src[a : a + step]), range(0, n, step), threads)


SET_ROWS_CHUNK = 1 << 20
"""Mask entries per task of ``set_rows``."""


def set_rows(mask: np.ndarray, empty: Callable = np.empty, threads: int = COPY_THREADS,
             chunk: int = SET_ROWS_CHUNK) -> np.ndarray:
    """``np.flatnonzero(mask)`` as a uint32 array made by ``empty(shape, dtype)`` (e.g. a
    backend's ``host_empty``: page-locked), in chunks of ``chunk`` entries on ``threads``
    threads: each chunk's set entries counted, then written at the chunk's offset (no int64
    array of the whole). Through one ``np.flatnonzero`` and a copy, A's and B's rows of a 32 GiB
    partition (130 M entries each) cost about 0.8 s of each limited prove's first partition on
    the H200 host (benchmarks/results/2026-12-03-h200/call6).

    Raises:
        ValueError: ``mask`` is not a 1-D bool array, or has 2^32 entries or more.
    """
    if mask.ndim != 1 or mask.dtype != np.bool_:
        raise ValueError(f"set_rows: a 1-D bool mask, not {mask.dtype} of shape {mask.shape}")
    n = mask.shape[0]
    if n >= 1 << 32:
        raise ValueError(f"set_rows: {n} entries do not fit uint32 rows")
    starts = range(0, n, chunk)
    counts = run_threaded(lambda a: int(np.count_nonzero(mask[a : a + chunk])), starts, threads)
    offs = np.concatenate(([0], np.cumsum(counts, dtype=np.int64)))
    rows = empty((int(offs[-1]),), np.uint32)

    def fill(i: int) -> None:
        a = starts[i]
        idx = np.flatnonzero(mask[a : a + chunk])
        idx += a
        rows[offs[i] : offs[i + 1]] = idx

    run_threaded(fill, range(len(starts)), threads)
    return rows


def piece_ranges(n: int, m: int) -> list[tuple[int, int]]:
    """(lo, hi) of the pieces of ``m`` rows (the last one shorter) that cover ``n`` rows.

    Raises:
        ValueError: m < 1 or n < 0.
    """
    if m < 1 or n < 0:
        raise ValueError(f"pieces of {m} rows over {n} rows")
    return [(lo, min(n, lo + m)) for lo in range(0, n, m)]


def staging_rows(row_bytes: int, staging_bytes: int | None = None) -> int:
    """Rows of ``row_bytes`` bytes one staging buffer of ``staging_bytes`` (default
    ``STAGING_BYTES``, read at each call: benchmarks set it) holds (at least one)."""
    return max(1, (STAGING_BYTES if staging_bytes is None else staging_bytes) // max(1, row_bytes))


def stage_rows(src: np.ndarray, lo: int, hi: int, staging: list, send: Callable, wait: Callable,
               pending: list) -> int:
    """Copy rows ``lo:hi`` of ``src`` (a host array; pages of a mapped file are handed back after
    each chunk) to their destination through the staging buffers, chunk by chunk.

    Args:
        src: (n, w) host array (uint8 encodings, or any dtype).
        staging: host buffers of equal row count, each (rows, w) of ``src``'s dtype.
        send: send(buffer view, offset of the chunk from lo) starts the chunk's copy out of the
            buffer; returns a token that ``wait`` blocks on until the buffer may be reused.
        wait: wait(token) blocks until that copy has left its staging buffer (None: nothing).
        pending: the last token of each staging buffer (same length as ``staging``; None when
            free), updated here; pass the same list across calls so a buffer still being copied
            from the previous piece is not overwritten.

    Returns:
        bytes copied.
    """
    rows = staging[0].shape[0]
    done, k = 0, 0
    for a in range(lo, hi, rows):
        b = min(hi, a + rows)
        s = k % len(staging)
        if pending[s] is not None:
            wait(pending[s])
            pending[s] = None
        view = staging[s][: b - a]
        copy_rows(view, src[a:b])
        release_pages(src[a:b])
        pending[s] = send(view, a - lo)
        done += view.nbytes
        k += 1
    return done


def feed_pieces(n: int, m: int, load: Callable, used: Callable, wait: Callable, slots: int = 2,
                name: str = "cuzk-bases"):
    """Yield (slot, lo, hi) per piece of ``m`` rows of ``n`` (``piece_ranges``), in order, each
    after ``load(slot, lo, hi)`` ran for it in one helper thread, which loads piece j + 1 into the
    next slot while the caller holds piece j.

    Args:
        load: load(slot, lo, hi) fills device slot ``slot`` with rows lo:hi (it may return before
            the device has them: the caller orders its own work after the copy, e.g. waits on an
            event load recorded).
        used: used(slot) is called when the caller asks for the piece after the one in ``slot``
            (it is done with it); returns a token.
        wait: wait(token) blocks until the caller's work on that slot has ended; called in the
            helper thread before the slot is loaded again.
        slots: device slots (2: double buffering; fewer when there are fewer pieces).

    A load's error is raised to the caller at that piece; leaving early waits for the load in
    flight.
    """
    ranges = piece_ranges(n, m)
    nb = max(1, min(slots, len(ranges)))
    tokens = [None] * nb

    def run(j):
        b = j % nb
        if tokens[b] is not None:
            wait(tokens[b])
            tokens[b] = None
        lo, hi = ranges[j]
        load(b, lo, hi)
        return b, lo, hi

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix=name) as pool:
        nxt = pool.submit(run, 0) if ranges else None
        try:
            for j in range(len(ranges)):
                b, lo, hi = nxt.result()
                nxt = None
                if j + 1 < len(ranges):
                    if (j + 1) % nb == b:   # one slot: the caller's use must end first
                        yield b, lo, hi
                        tokens[b] = used(b)
                        nxt = pool.submit(run, j + 1)
                        continue
                    nxt = pool.submit(run, j + 1)
                yield b, lo, hi
                tokens[b] = used(b)
        finally:
            if nxt is not None:
                try:
                    nxt.result()
                except BaseException:
                    pass


__all__ = ["COPY_THREADS", "STAGING_BYTES", "STREAM_SWITCH_INTERVAL", "copy_rows", "gil_switch", "run_threaded", "feed_pieces", "piece_ranges", "set_rows", "SET_ROWS_CHUNK", "stage_rows", "staging_rows"]
