"""The host side of streaming MSM bases in pieces (``cuzk.backend.cuda.pieces``) without a GPU:
numpy arrays stand in for the device buffers and the pinned staging buffers, and copies that
finish later (a thread pool with delays) for the asynchronous device copies and kernels. A staging
buffer or a device slot reused too early would corrupt the data these tests compare."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from cuzk.backend.cuda import pieces
from cuzk.backend.cuda.pieces import feed_pieces, piece_ranges, set_rows, stage_rows, staging_rows


def _mapped(tmp_path, rows, width, seed=0):
    data = np.random.default_rng(seed).integers(0, 256, size=(rows, width), dtype=np.uint8)
    path = tmp_path / "key.bin"
    data.tofile(path)
    return np.memmap(path, dtype=np.uint8, mode="r", shape=(rows, width)), data


def test_piece_ranges():
    assert piece_ranges(10, 4) == [(0, 4), (4, 8), (8, 10)]
    assert piece_ranges(3, 8) == [(0, 3)] and piece_ranges(0, 5) == []
    for n, m in ((1, 1), (97, 10), (100, 10)):
        r = piece_ranges(n, m)
        assert r[0][0] == 0 and r[-1][1] == n and all(b - a <= m for a, b in r)
        assert all(r[i][1] == r[i + 1][0] for i in range(len(r) - 1))
    with pytest.raises(ValueError):
        piece_ranges(5, 0)
    assert staging_rows(96, 96 * 7 + 5) == 7 and staging_rows(1 << 30, 1) == 1


def test_stage_rows_from_a_mapped_file_with_late_copies(tmp_path, monkeypatch):
    src, data = _mapped(tmp_path, 300, 4096)   # a row a page: every chunk is whole pages
    released = []
    real = pieces.release_pages
    monkeypatch.setattr(pieces, "release_pages", lambda a: released.append(real(a)) or released[-1])
    staging = [np.empty((37, 4096), np.uint8) for _ in range(2)]
    dst = np.zeros((300, 4096), np.uint8)
    sends = []
    with ThreadPoolExecutor(max_workers=4) as pool:
        def send(view, off, base):
            sends.append(view.shape[0])

            def late():   # the "device copy" reads the staging buffer a little later
                time.sleep(0.002)
                dst[base + off : base + off + view.shape[0]] = view
            return pool.submit(late)
        pending = [None, None]
        total = 0
        for lo, hi in ((0, 120), (120, 300)):   # two pieces share the staging buffers (pending kept)
            total += stage_rows(src, lo, hi, staging, lambda v, o, lo=lo: send(v, o, lo), lambda f: f.result(), pending)
        for f in pending:
            f.result()
    assert total == data.nbytes
    assert (dst == data).all()   # a buffer refilled before its copy left would have corrupted dst
    assert max(sends) == 37 and sum(sends) == 300
    assert sum(released) == data.nbytes   # the mapped file's pages handed back chunk by chunk


def test_feed_pieces_reloads_a_slot_only_after_its_use(tmp_path):
    src, data = _mapped(tmp_path, 500, 48, seed=1)
    for m, slots in ((64, 2), (64, 1), (500, 2), (1000, 2), (7, 2)):
        dev = [np.zeros((m, 48), np.uint8) for _ in range(2)]
        staging = [np.empty((16, 48), np.uint8) for _ in range(2)]
        pending = [None, None]
        loads, seen, bad = [], [], []

        def load(b, lo, hi):
            loads.append(threading.current_thread().name)
            stage_rows(src, lo, hi, staging, lambda v, o, b=b: dev[b][o : o + v.shape[0]].__setitem__(slice(None), v),
                       lambda t: None, pending)

        with ThreadPoolExecutor(max_workers=2) as work:
            cur = {}

            def used(b):   # the caller's "kernel" reads the slot a little after it asked for more
                lo, hi = cur[b]

                def late():
                    time.sleep(0.003)
                    if not (dev[b][: hi - lo] == data[lo:hi]).all():
                        bad.append((lo, hi))
                return work.submit(late)

            for b, lo, hi in feed_pieces(500, m, load, used, lambda f: f.result(), slots):
                cur[b] = (lo, hi)
                assert (dev[b][: hi - lo] == data[lo:hi]).all()
                seen.append((lo, hi))
        assert seen == piece_ranges(500, m) and not bad, (m, slots)
        assert all(n.startswith("cuzk-bases") for n in loads)


def test_feed_pieces_raises_a_load_error_and_handles_empty():
    def load(b, lo, hi):
        if lo >= 20:
            raise OSError("read failed")

    got = []
    with pytest.raises(OSError):
        for b, lo, hi in feed_pieces(50, 10, load, lambda b: None, lambda t: None):
            got.append(lo)
    assert got == [0, 10]
    assert list(feed_pieces(0, 10, load, lambda b: None, lambda t: None)) == []


@pytest.mark.parametrize("rows,threads", [(1, 4), (7, 4), (1000, 4), (1000, 1), (1001, 3)])
def test_copy_rows_equals_copyto(rows, threads):
    """The threaded chunk copy writes exactly the source rows, every row once, for row counts
    that do and do not split evenly (and below two rows a thread: one plain copy)."""
    rng = np.random.default_rng(rows * 7 + threads)
    src = rng.integers(0, 255, size=(rows, 24), dtype=np.uint8)
    dst = np.zeros_like(src)
    pieces.copy_rows(dst, src, threads)
    assert np.array_equal(dst, src)


def test_copy_rows_reads_a_registered_mapping_by_pread(tmp_path, monkeypatch):
    """Slices of a ``fileio.map_readonly`` mapping are read from the file (``read_rows``), never
    through the mapping's pages; other arrays are copied; a file cut short after mapping is an
    OSError, not a short copy."""
    from cuzk import fileio

    data = np.random.default_rng(3).integers(0, 256, size=(500, 96), dtype=np.uint8)
    path = tmp_path / "key.bin"
    data.tofile(path)
    src = np.frombuffer(fileio.map_readonly(path), dtype=np.uint8).reshape(500, 96)
    preads = []
    real = fileio.read_rows
    monkeypatch.setattr(pieces, "read_rows", lambda d, s: preads.append(real(d, s)) or preads[-1])
    copies = []
    monkeypatch.setattr(pieces.np, "copyto", lambda d, s: copies.append(1) or np.ndarray.__setitem__(d, Ellipsis, s))
    dst = np.zeros((123, 96), np.uint8)
    pieces.copy_rows(dst, src[77:200], 4)
    assert np.array_equal(dst, data[77:200]) and preads == [True] * 4 and not copies
    other = np.memmap(path, dtype=np.uint8, mode="r", shape=(500, 96))   # not registered: copied
    preads.clear()
    pieces.copy_rows(dst, other[1:124], 4)
    assert np.array_equal(dst, data[1:124]) and preads == [False] * 4 and len(copies) == 4
    assert fileio.read_rows(np.zeros((5, 48), np.uint8), src[0:5, :48]) is False   # not contiguous
    with open(path, "r+b") as f:
        f.truncate(96 * 300)
    with pytest.raises(OSError, match="ended"):
        fileio.read_rows(np.zeros((10, 96), np.uint8), src[295:305])


def test_gil_switch_sets_and_restores_the_interval():
    import sys

    old = sys.getswitchinterval()
    with pieces.gil_switch(0.0001):
        assert sys.getswitchinterval() == pytest.approx(0.0001, rel=0.05)
        with pieces.gil_switch(0.5):   # never longer than it is
            assert sys.getswitchinterval() == pytest.approx(0.0001, rel=0.05)
    assert sys.getswitchinterval() == old
    with pytest.raises(RuntimeError), pieces.gil_switch():
        raise RuntimeError("restored on the way out")
    assert sys.getswitchinterval() == old


@pytest.mark.parametrize("dtype", ["<u4", "<u2", "<i4", "<i8"])
def test_fill_checked_converts_and_bounds_in_threads(tmp_path, monkeypatch, dtype):
    """``spmv.fill_checked`` (the matrices' one-time conversion to pinned uint32 for the lean and
    host H phases): chunks on several threads, read by pread from a ``map_readonly`` mapping or
    copied from a plain array, equal numpy's conversion; an entry at the bound or negative is
    refused wherever it lies; nothing but ``[0, bound)`` reaches the destination's dtype."""
    from cuzk import fileio
    from cuzk.backend.cuda import spmv

    monkeypatch.setattr(spmv, "_FILL_CHUNK", 1000)
    rng = np.random.default_rng(7)
    vals = rng.integers(0, 5000, size=12_345).astype(dtype)
    path = tmp_path / "m.bin"
    vals.tofile(path)
    mapped = np.frombuffer(fileio.map_readonly(path), dtype=dtype)
    preads = []
    real = spmv.read_rows
    monkeypatch.setattr(spmv, "read_rows", lambda d, s: preads.append(real(d, s)) or preads[-1])
    for src, by_pread in ((mapped, True), (vals.copy(), False)):
        preads.clear()
        dst = np.zeros(len(vals), dtype=np.uint32)
        spmv.fill_checked(dst, src, 5000, threads=3)
        assert np.array_equal(dst, vals.astype(np.uint32)) and all(p is by_pread for p in preads) and len(preads) == 13
    for at, bad in ((0, 5000), (12_000, 5001), (7_777, -1)):
        if bad < 0 and dtype.startswith("<u"):
            continue
        worse = vals.copy()
        worse[at] = bad
        with pytest.raises(ValueError, match="outside the matrix"):
            spmv.fill_checked(np.zeros(len(vals), np.uint32), worse, 5000, threads=4)
    if dtype.startswith("<i"):   # the most negative entry; a bound above the signed range (two passes then)
        info = np.iinfo(dtype)
        for bound in (5000, min(int(info.max) + 1, 1 << 32), 1 << 32):
            for bad in (int(info.min), -2):
                worse = vals.copy()
                worse[4321] = bad
                with pytest.raises(ValueError, match="outside the matrix"):
                    spmv.fill_checked(np.zeros(len(vals), np.uint32), worse, bound, threads=2)
    with pytest.raises(ValueError):
        spmv.fill_checked(np.zeros(5, np.uint32), vals, 5000)


def test_fill_checked_finds_a_decreasing_entry_in_a_chunk_or_at_an_edge(monkeypatch):
    """``fill_checked(..., nondecreasing=True)`` (row offsets): a non-decreasing array passes
    (equal neighbours allowed) and equals the source; one entry below its predecessor is found
    inside a chunk, at a chunk's first entry (the edge between two threads' chunks) and last."""
    from cuzk.backend.cuda import spmv

    monkeypatch.setattr(spmv, "_FILL_CHUNK", 100)
    ip = np.cumsum(np.random.default_rng(3).integers(0, 3, size=1_001)).astype(np.int64)
    dst = np.zeros(len(ip), dtype=np.int64)
    spmv.fill_checked(dst, ip, None, threads=3, nondecreasing=True)
    assert np.array_equal(dst, ip)
    for at in (57, 300, 1_000):   # inside a chunk, a chunk's first entry, the last one
        worse = ip.copy()
        worse[at] = worse[at - 1] - 1
        with pytest.raises(ValueError, match="non-decreasing"):
            spmv.fill_checked(np.zeros(len(ip), np.int64), worse, None, threads=3, nondecreasing=True)
        spmv.fill_checked(np.zeros(len(ip), np.int64), worse, None, threads=3)   # not asked: copied


def test_narrow_row_offsets_are_bounded_before_they_wrap(monkeypatch):
    """Row offsets narrowed to uint32 (``csr_widths``, ``_host_csr32``): a negative offset at the
    first entry of a thread's chunk is not below its predecessor once wrapped, so the order check
    alone lets it through; the bound [0, nnz] ``_host_csr32`` passes refuses it. ``csr_widths``:
    uint32 offsets below 2^32 entries, uint16 ids up to 2^16 coefficients."""
    from cuzk.backend.cuda import spmv

    monkeypatch.setattr(spmv, "_FILL_CHUNK", 100)
    ip = np.cumsum(np.random.default_rng(5).integers(0, 3, size=1_001)).astype(np.int64)
    nnz = int(ip[-1])
    worse = ip.copy()
    worse[300:320] = -5                        # a chunk's first entries, non-decreasing among themselves
    dst = np.zeros(len(ip), np.uint32)
    spmv.fill_checked(dst, worse, None, threads=3, nondecreasing=True)   # wrapped: the order check passes
    assert int(dst[300]) == (1 << 32) - 5
    with pytest.raises(ValueError, match="outside the matrix"):
        spmv.fill_checked(np.zeros(len(ip), np.uint32), worse, nnz + 1, threads=3, nondecreasing=True)
    ok = np.zeros(len(ip), np.uint32)
    spmv.fill_checked(ok, ip, nnz + 1, threads=3, nondecreasing=True)
    assert np.array_equal(ok, ip.astype(np.uint32))
    assert spmv.csr_widths((1 << 32) - 1, 1 << 16) == (np.uint32, np.uint16)
    assert spmv.csr_widths(1 << 32, (1 << 16) + 1) == (np.int64, np.uint32)
    assert set(spmv._SPMV_KERNELS) == {(np.dtype(a).name, np.dtype(b).name)
                                       for a in (np.int64, np.uint32) for b in (np.uint32, np.uint16)}


def test_run_threaded_keeps_order_and_raises():
    assert pieces.run_threaded(lambda x: x * x, range(50), threads=4) == [x * x for x in range(50)]
    assert pieces.run_threaded(lambda x: x + 1, [1], threads=8) == [2]

    def boom(x):
        if x == 7:
            raise OSError("read failed")
        return x
    with pytest.raises(OSError, match="read failed"):
        pieces.run_threaded(boom, range(20), threads=3)


@pytest.mark.parametrize("n,chunk,density", [(0, 8, 0.5), (1, 8, 1.0), (37, 8, 0.0), (37, 8, 1.0), (1000, 64, 0.3),
                                             (1000, 7, 0.9), (4096, 4096, 0.5), (100_003, 1 << 12, 0.02)])
def test_set_rows_equals_flatnonzero(n, chunk, density):
    """set_rows over chunks on threads gives np.flatnonzero's rows (uint32), whatever the chunking."""
    rng = np.random.default_rng(n + chunk)
    mask = rng.random(n) < density
    made = []

    def empty(shape, dtype):
        made.append((shape, dtype))
        return np.full(shape, 0xFFFFFFFF, dtype=dtype)   # every row must be written

    rows = set_rows(mask, empty, threads=3, chunk=chunk)
    assert made == [((int(mask.sum()),), np.uint32)]
    assert rows.dtype == np.uint32
    np.testing.assert_array_equal(rows, np.flatnonzero(mask))


def test_set_rows_refuses_non_masks():
    with pytest.raises(ValueError, match="1-D bool"):
        set_rows(np.zeros(4, dtype=np.uint8))
    with pytest.raises(ValueError, match="1-D bool"):
        set_rows(np.zeros((2, 2), dtype=bool))
