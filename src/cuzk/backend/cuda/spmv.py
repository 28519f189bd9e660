"""Sparse products of the ``cuda`` backend (``spmv.cu``): ``spmv`` (CSR, a group of lanes per row;
the matrix and its Montgomery coefficient table cached on the device per matrix object),
``spmv_t`` (the transpose, for setup) and ``first_unsatisfied`` (a·b = c check, one atomicMin).
"""

from __future__ import annotations

import threading
import weakref

import numpy as np

from ..base import CSRMatrix
from ...fileio import read_rows, release_pages
from .pieces import COPY_THREADS, feed_pieces, run_threaded
from .plan import csr_width_bytes
from .runtime import DeviceRuntime, HostFr, _grid, _guard, _i32, _kernel, _u64

_SPMV_T_ROW = 4096   # most entries one lane group sums in ``spmv_t`` (longer columns are split)
_UPLOAD_ROWS = 1 << 25  # entries per host-to-device slice of an index array (≤ 256 MB as int64)


def row_blocks(mats, rows: int, nnz: int):
    """(r0, r1) row blocks of matrices with equal rows: at most ``rows`` rows and ``nnz`` entries
    of each matrix per block, one row at least (host CSR arrays, possibly mapped)."""
    total = mats[0].shape[0]
    r0 = 0
    while r0 < total:
        r1 = min(total, r0 + max(1, rows))
        for m in mats:
            ip = m.indptr
            r1 = min(r1, max(r0 + 1, int(np.searchsorted(ip, int(ip[r0]) + nnz, side="right")) - 1))
        yield r0, r1
        r0 = r1


_SPMV_KERNELS = {("int64", "uint32"): "spmv_csr", ("int64", "uint16"): "spmv_csr_i64_u16",
                 ("uint32", "uint32"): "spmv_csr_u32_u32", ("uint32", "uint16"): "spmv_csr_u32_u16"}
"""``spmv.cu``'s kernel by (row offsets, coefficient ids) dtype."""


def csr_widths(nnz: int, ncoeffs: int) -> tuple:
    """(row offsets dtype, coefficient ids dtype) of a matrix's streamed host arrays
    (``SpMVOps._host_csr32``) in ``plan.csr_width_bytes``' widths: uint32 or int64 offsets,
    uint16 or uint32 ids."""
    ob, ib = csr_width_bytes(nnz, ncoeffs)
    return (np.uint32 if ob == 4 else np.int64), (np.uint16 if ib == 2 else np.uint32)


def _index_arrays(m: CSRMatrix) -> tuple:
    """(array, bound) of a CSR matrix's index arrays: its columns below its column count, its
    coefficient ids below its table's length."""
    return (m.indices, m.shape[1]), (m.coeff_ids, len(m.coeffs))


def _checked_u32(arr: np.ndarray, lo: int, hi: int, bound: int) -> np.ndarray:
    """``arr[lo:hi]`` (a host array, possibly mapped) as uint32 (a view when it is stored so: the
    caller hands the pages back, ``release_pages``, once it has copied them), each entry checked
    to lie in [0, bound).

    Raises:
        ValueError: an entry outside it.
    """
    piece = np.asarray(arr[lo:hi])
    if not _in_bounds(piece, bound):
        raise ValueError(_OUTSIDE)
    return piece.astype(np.uint32, copy=False)


_OUTSIDE = "spmv: a column index or coefficient id is outside the matrix"
_DECREASING = "spmv: indptr is not a non-decreasing sequence from 0 to nnz"


def _in_bounds(piece: np.ndarray, bound: int) -> bool:
    """Every entry of ``piece`` (integers) in [0, bound) (an empty piece: True). Signed entries with
    bound ≤ 2^(bits − 1) in one pass: the largest read as unsigned (a negative one is then
    ≥ 2^(bits − 1) ≥ bound)."""
    if not len(piece):
        return True
    if piece.dtype.kind == "i":
        if bound > 1 << (8 * piece.dtype.itemsize - 1):
            return int(piece.min()) >= 0 and int(piece.max()) < bound
        piece = piece.view(piece.dtype.str.replace("i", "u"))
    return int(piece.max()) < bound


_FILL_CHUNK = 1 << 18   # entries per task of ``fill_checked``: 2 MB of int64, checked and converted from cache


_SCRATCH = threading.local()


def _scratch(n: int, dtype) -> np.ndarray:
    """A 1-D array of n ``dtype`` entries (n ≤ ``_FILL_CHUNK``, ≤ 8-byte entries) in this thread's
    scratch buffer (``_FILL_CHUNK`` × 8 bytes, made once per copy thread and kept): a fresh
    32 MB array per chunk is a new mapping faulted in and unmapped again, and page faults and
    unmaps of one process's threads serialize in the kernel."""
    buf = getattr(_SCRATCH, "buf", None)
    if buf is None:
        buf = _SCRATCH.buf = np.empty(_FILL_CHUNK * 8, dtype=np.uint8)
    return buf[: n * np.dtype(dtype).itemsize].view(dtype)


def fill_checked(dst: np.ndarray, arr: np.ndarray, bound: int | None, threads: int = COPY_THREADS,
                 nondecreasing: bool = False) -> None:
    """``dst[:] = arr`` (dst a 1-D array of another integer dtype, e.g. pinned uint32) in chunks on
    ``threads`` threads, each chunk read from the file when ``arr`` is a view of a
    ``fileio.map_readonly`` mapping (``fileio.read_rows``: no page faults), else copied with its
    pages handed back; with ``bound``, every entry checked to lie in [0, bound) before it is
    converted; with ``nondecreasing``, each entry checked to be ≥ the one before it (row offsets;
    chunk by chunk on the threads, then across the chunks' edges). The matrices' one-time
    conversion for the "lean" and "host" H phases (``SpMVOps._host_csr32``) took about 15 s of a
    32 GiB prove job single-threaded through page faults on the H200 host
    (benchmarks/results/2026-12-02-h200/stop17, the first partition's spmv).

    Raises:
        ValueError: an entry outside [0, bound), or one below the entry before it
            (``nondecreasing``); shapes differ.
    """
    if dst.shape != arr.shape or dst.ndim != 1:
        raise ValueError(f"fill_checked: {arr.shape} into {dst.shape}")

    def one(a: int) -> str | None:
        src = arr[a : a + _FILL_CHUNK]
        tmp = _scratch(src.shape[0], src.dtype)
        if not read_rows(tmp, src):
            tmp[...] = src
            release_pages(src)
        if bound is not None and not _in_bounds(tmp, bound):
            return _OUTSIDE
        if nondecreasing and bool((tmp[1:] < tmp[:-1]).any()):
            return _DECREASING
        dst[a : a + len(tmp)] = tmp
        return None

    starts = range(0, arr.shape[0], _FILL_CHUNK)
    bad = next((e for e in run_threaded(one, starts, threads) if e is not None), None)
    if bad is None and nondecreasing and len(starts) > 1:
        edges = np.asarray(starts[1:])
        if bool((dst[edges] < dst[edges - 1]).any()):
            bad = _DECREASING
    if bad is not None:
        raise ValueError(bad)


def column_filter(ip, idx, ids, c0: int, c1: int, xp=np):
    """The entries of a CSR block (``ip`` row offsets from 0, column ``idx`` and coefficient id
    ``ids`` arrays) whose column is in [c0, c1), as a CSR block over those columns (shifted by
    −c0): (row offsets int64, columns uint32, ids). ``xp``: numpy or cupy."""
    keep = (idx >= c0) & (idx < c1)
    kc = xp.zeros(idx.shape[0] + 1, dtype=xp.int64)
    xp.cumsum(keep, dtype=xp.int64, out=kc[1:])
    return kc[ip], (idx[keep] - c0).astype(xp.uint32), ids[keep]


def transpose_split(indptr, idx, ids, cols: int, K: int, xp=np):
    """Mᵀ of a CSR block (``indptr`` int64 from 0, ``idx`` columns < cols, ``ids``), as CSR rows
    of at most K entries: each column c becomes max(1, ⌈count/K⌉) virtual rows (a column's
    entries sorted by column, stably: M's row order), so that no thread of ``spmv_csr`` walks a
    whole long column (the ONE variable sits in millions of rows).

    Returns:
        (vptr int64 (V + 1), rows uint32 (nnz), ids (nnz), vstart int64 (cols + 1)): virtual row v
        holds entries vptr[v]:vptr[v + 1] of the transposed order; column c's virtual rows are
        vstart[c]:vstart[c + 1] (V = vstart[-1]; V == cols: vptr is the columns' own offsets).
    """
    nnz = idx.shape[0]
    order = xp.argsort(idx, kind="stable") if xp is np else xp.argsort(idx)
    col_sorted = idx[order]
    t_rows = (xp.searchsorted(indptr, order, side="right") - 1).astype(xp.uint32)
    t_ids = ids[order]
    del order
    counts = xp.bincount(col_sorted, minlength=cols).astype(xp.int64)
    del col_sorted
    nv = xp.maximum(1, (counts + K - 1) // K)
    vstart = xp.zeros(cols + 1, dtype=xp.int64)
    xp.cumsum(nv, out=vstart[1:])
    cstart = xp.zeros(cols + 1, dtype=xp.int64)
    xp.cumsum(counts, out=cstart[1:])
    V = int(vstart[-1])
    if V == cols:
        return cstart, t_rows, t_ids, vstart
    v = xp.arange(V, dtype=xp.int64)
    col_of_v = xp.searchsorted(vstart, v, side="right") - 1
    vptr = xp.empty(V + 1, dtype=xp.int64)
    vptr[:V] = xp.minimum(cstart[col_of_v] + (v - vstart[col_of_v]) * K, cstart[col_of_v + 1])
    vptr[V] = nnz
    return vptr, t_rows, t_ids, vstart


class SpMVOps(DeviceRuntime):
    """Sparse products of ``CUDABackend`` (a mixin), with the device CSR cache (``_csr``,
    ``_coeff_tables``)."""

    @_guard("first_unsatisfied")
    def first_unsatisfied(self, a, b, c) -> int | None:
        """Index of the first i with a[i]·b[i] ≠ c[i], or None (one kernel, 8 bytes read back)."""
        a, b = self._pair(a, b)
        a, c = self._pair(a, c)
        n = a.shape[0]
        if n == 0:
            return None
        first = self.cp.full(1, np.iinfo(np.uint64).max, dtype=self.cp.uint64)
        _kernel("spmv.cu", "fr_first_unsat")((_grid(n, 256),), (256,), (a, b, c, first, _u64(n)))
        row = int(first.get()[0])
        return None if row == np.iinfo(np.uint64).max else row

    # --- sparse -------------------------------------------------------------------------------

    def _upload_index(self, arr, dtype):
        """A host index array on the device as ``dtype``, converted and copied slice by slice; a
        mapped array's pages are handed back after each slice (``read_pce(mapped=True)``), so a
        32 GiB matrix passes through host memory one slice at a time."""
        cp = self.cp
        n = len(arr)
        out = cp.empty(max(n, 1), dtype=dtype)
        for a in range(0, n, _UPLOAD_ROWS):
            piece = arr[a : a + _UPLOAD_ROWS]
            out[a : a + len(piece)] = cp.asarray(np.asarray(piece, dtype=dtype))
            release_pages(piece)
        return out

    def _csr_hit(self, m: CSRMatrix):
        """``m``'s cached device CSR arrays (``_csr_device``), or None."""
        hit = self._csr.get(id(m))
        return hit[1] if hit is not None and hit[0]() is m else None

    def _csr_device(self, m: CSRMatrix):
        """(indptr int64, cols uint32, coeff ids uint32, coefficient table (Montgomery), log2 G)
        of ``m`` on the device: uploaded on first use (slice by slice, checked there) and cached
        while ``m`` lives (keyed by the matrix object; the coefficient table is shared by
        matrices with the same ``coeffs`` array, as the R1CS's A, B and C are)."""
        hit = self._csr_hit(m)
        if hit is not None:
            return hit
        self._own_chunks()   # kept for the whole job
        key = id(m)
        cp = self.cp
        rows, cols = m.shape
        if len(m.indptr) != rows + 1:
            raise ValueError(f"spmv: indptr has {len(m.indptr)} entries for {rows} rows")
        nnz = m.nnz
        if cols >= 1 << 32 or len(m.coeffs) >= 1 << 32:
            raise ValueError("spmv: the cuda backend handles fewer than 2^32 columns and coefficients")
        indptr = self._upload_index(m.indptr, cp.int64)
        if int(indptr[0]) != 0 or int(indptr[-1]) != nnz or (rows and bool(cp.any(indptr[1:] < indptr[:-1]))):
            raise ValueError(_DECREASING)
        dev_arrays = []
        for arr, bound, what in ((m.indices, cols, "a column index is outside the matrix"),
                                 (m.coeff_ids, len(m.coeffs), "a coefficient id is outside the coefficient table")):
            arr = np.asarray(arr)
            # up to 4 bytes a negative entry wraps to ≥ 2^31 and is caught on the device; wider
            # ones could wrap into range, so they are checked here (owned arrays: no file pages)
            if nnz and arr.dtype.itemsize > 4 and (int(arr.min()) < 0 or int(arr.max()) >= bound):
                raise ValueError(f"spmv: {what}")
            d = self._upload_index(arr, cp.uint32)
            if nnz and int(d[:nnz].max()) >= bound:
                raise ValueError(f"spmv: {what}")
            dev_arrays.append(d)
        idx, ids = dev_arrays
        ck = id(m.coeffs)
        chit = self._coeff_tables.get(ck)
        if chit is not None and chit[0]() is m.coeffs:
            table = chit[1]
        else:
            table = self.to_device(m.coeffs) if len(m.coeffs) else cp.zeros((1, 4), dtype=cp.uint64)
            try:
                self._coeff_tables[ck] = (weakref.ref(m.coeffs, lambda _, k=ck: self._coeff_tables.pop(k, None)), table)
            except TypeError:  # not weak-referenceable: not cached
                pass
        dev = (indptr, idx, ids, table, self._log_lanes(nnz, rows))
        try:
            self._csr[key] = (weakref.ref(m, lambda _, k=key: self._csr.pop(k, None)), dev)
        except TypeError:
            pass
        return dev

    @_guard("spmv")
    def spmv_blocks(self, mats, w, rows: int, nnz: int, pad_to: int | None = None):
        """``Backend.spmv_blocks`` on the GPU: per row block (at most ``rows`` rows and ``nnz``
        entries of each matrix, one row at least) each matrix's slices of the (possibly mapped)
        host CSR arrays are uploaded (their pages handed back), multiplied (``spmv_csr``), the
        three products checked (``fr_first_unsat``) and copied into host arrays (zeros up to
        ``pad_to``); nothing is cached on the device but the coefficient tables; on the host, the
        matrices' row offsets, uint32 columns and ids (``_host_csr32``, at most 8 bytes per
        non-zero and per row).

        Raises:
            ValueError: len(w) differs from the columns, the row counts differ, or a column index
                or coefficient id outside the matrix.
        """
        w, total = self._block_operands(mats, w)
        outs = []
        for _ in mats:   # page-locked where it can be had: the download and compute_h_host's uploads at DMA rate
            out = self.host_empty((max(total, pad_to or 0), 4))
            out[total:] = 0
            outs.append(out)
        tables = [self._coeff_table(m) for m in mats]
        bad = None
        for r0, r1, arrays in self._streamed_blocks(mats, list(row_blocks(mats, rows, nnz))):
            ys = [self._spmv_launch(ip, idx, ids, table, self._log_lanes(int(idx.shape[0]), r1 - r0), w, r1 - r0)
                  for (ip, idx, ids), table in zip(arrays, tables)]
            del arrays
            if bad is None and len(ys) == 3:
                row = self.first_unsatisfied(*ys)
                bad = None if row is None else r0 + row
            for y, out in zip(ys, outs):
                y.get(out=out[r0:r1])
                self.bus_bytes += int(y.nbytes)
            del ys
        return [HostFr(o) for o in outs], bad

    @_guard("spmv")
    def spmv_ab(self, mats, w, rows: int, nnz: int, pad_to: int):
        """``Backend.spmv_ab`` on the GPU: per row block (as ``spmv_blocks``: slices of the host
        uint32 CSR arrays uploaded, none cached) A's and B's products written into a and b on the
        device, C's product into a block buffer and checked against them (``fr_first_unsat``,
        one result per block read back at the end).

        Raises:
            ValueError: len(w) differs from the columns, the row counts differ, pad_to < rows,
                or a column index or coefficient id outside the matrix.
        """
        cp = self.cp
        w, total = self._block_operands(mats, w)
        if pad_to < total:
            raise ValueError(f"spmv_ab: {total} rows do not fit in {pad_to}")
        tables = [self._coeff_table(m) for m in mats]
        ab = []
        for _ in range(2):
            y = cp.empty((pad_to, 4), dtype=cp.uint64)
            y[total:] = 0
            ab.append(y)
        blocks = list(row_blocks(mats, rows, nnz))
        firsts = cp.full(len(blocks), np.iinfo(np.uint64).max, dtype=cp.uint64)
        for j, (r0, r1, arrays) in enumerate(self._streamed_blocks(mats, blocks)):
            for i, ((ip, idx, ids), table) in enumerate(zip(arrays, tables)):
                y = self._spmv_launch(ip, idx, ids, table, self._log_lanes(int(idx.shape[0]), r1 - r0), w, r1 - r0,
                                      out=ab[i][r0:r1] if i < 2 else None)
            del arrays
            _kernel("spmv.cu", "fr_first_unsat")((_grid(r1 - r0, 256),), (256,),
                                                 (ab[0][r0:r1], ab[1][r0:r1], y, firsts[j : j + 1], _u64(r1 - r0)))
            del y
        bad = None
        for (r0, _), f in zip(blocks, firsts.get()):
            if int(f) != np.iinfo(np.uint64).max:
                bad = r0 + int(f)
                break
        return ab[0], ab[1], bad

    def _block_operands(self, mats, w) -> tuple:
        """(w checked, the rows) of ``spmv_blocks``/``spmv_ab``: matrices of equal rows over w.

        Raises:
            ValueError: a matrix's rows differ from the first's, or its columns from len(w).
        """
        w = self._check(w)
        total = mats[0].shape[0]
        for m in mats:
            if m.shape[0] != total or m.shape[1] != w.shape[0]:
                raise ValueError(f"spmv: matrix of shape {m.shape} for {total} rows and {w.shape[0]} values")
        return w, total

    def _block_arrays(self, m: CSRMatrix, r0: int, r1: int):
        """Rows r0:r1 of the host CSR ``m`` on the device: (row offsets int64 from 0, columns
        uint32, coefficient ids uint32), each checked against the matrix's bounds; the mapped
        pages handed back.

        Raises:
            ValueError: a column index or coefficient id outside the matrix.
        """
        cp = self.cp
        e0, e1 = int(m.indptr[r0]), int(m.indptr[r1])
        ip = np.asarray(m.indptr[r0 : r1 + 1], dtype=np.int64) - e0
        parts = [cp.asarray(_checked_u32(arr, e0, e1, bound)) for arr, bound in _index_arrays(m)]
        for arr, _ in _index_arrays(m):
            release_pages(arr[e0:e1])
        self.bus_bytes += ip.nbytes + 8 * (e1 - e0)
        return cp.asarray(ip), parts[0], parts[1]

    def _streamed_blocks(self, mats, blocks: list):
        """Per row block (r0, r1) of ``blocks``: (r0, r1, [(row offsets from 0, columns uint32,
        coefficient ids) per matrix, in ``_host_csr32``'s widths]) on the device, sliced from the
        matrices' pinned arrays (``_host_csr32``, converted and checked once). Block j + 1's slices are
        copied on a side stream into the other of two buffer sets (``pieces.feed_pieces``) while
        the caller's kernels use block j; a set is refilled only after the caller's work on it
        (an event recorded when the caller asks for the next block). Copied one after the other
        on the caller's stream, the 32 GiB partition's 8.9 GB of blocks took 0.27 s against
        0.16 s at the bus's 55 GB/s (H200, benchmarks/results/2026-12-02-h200/stop19/call5).
        Device bytes: two sets of the largest block's index arrays (``spmv_block_bytes``).

        Raises:
            ValueError: a column index or coefficient id outside a matrix (``_host_csr32``).
        """
        cp = self.cp
        host32 = [self._host_csr32(m) for m in mats]
        spans = [[(int(hip[r0]), int(hip[r1])) for hip, _, _ in host32] for r0, r1 in blocks]
        most_rows = max((r1 - r0 for r0, r1 in blocks), default=0)
        most = [max((s[i][1] - s[i][0] for s in spans), default=0) for i in range(len(mats))]
        nb = min(2, len(blocks))
        bufs = [[(cp.empty(most_rows + 1, dtype=hip.dtype), cp.empty(max(e, 1), dtype=cp.uint32),
                  cp.empty(max(e, 1), dtype=ids.dtype)) for e, (hip, _, ids) in zip(most, host32)] for _ in range(nb)]
        side, dev, copied = self.side_stream(), self._device_id, [None] * nb

        def load(b, j, _):
            (r0, r1), span = blocks[j], spans[j]
            with cp.cuda.Device(dev):
                for (hip, cols, ids), (dip, didx, dids), (e0, e1) in zip(host32, bufs[b], span):
                    dip[: r1 - r0 + 1].set(hip[r0 : r1 + 1], stream=side)
                    if e1 > e0:
                        didx[: e1 - e0].set(cols[e0:e1], stream=side)
                        dids[: e1 - e0].set(ids[e0:e1], stream=side)
                copied[b] = side.record()

        def used(b):
            return cp.cuda.get_current_stream().record()

        try:
            for b, j, _ in feed_pieces(len(blocks), 1, load, used, lambda ev: ev.synchronize(), nb, name="cuzk-csr"):
                cp.cuda.get_current_stream().wait_event(copied[b])
                (r0, r1), arrays = blocks[j], []
                for (dip, didx, dids), (e0, e1) in zip(bufs[b], spans[j]):
                    ip = dip[: r1 - r0 + 1]
                    ip -= e0
                    arrays.append((ip, didx[: e1 - e0], dids[: e1 - e0]))
                    self.bus_bytes += dip.itemsize * (r1 - r0 + 1) + (4 + dids.itemsize) * (e1 - e0)
                yield r0, r1, arrays
        finally:
            side.synchronize()

    def prepare_blocks(self, m: CSRMatrix) -> None:
        """``Backend.prepare_blocks``: ``_host_csr32(m)`` now."""
        self._host_csr32(m)

    def _host_csr32(self, m: CSRMatrix) -> tuple:
        """``m``'s row offsets (checked non-decreasing from 0 to nnz), column indices (uint32) and
        coefficient ids in host memory (``host_empty``: page-locked where it can be had), in the
        widths of ``csr_widths`` (row offsets uint32 and ids uint16 where they fit), each index
        checked against the matrix's bounds as it is converted, once per matrix object (cached
        while it lives): ``spmv_blocks`` and ``spmv_ab`` upload every block of every matrix again
        for each partition, and converting and checking the mapped int64 arrays each time took
        4-8 s of a 32 GiB partition's H phase on the H200 host
        (benchmarks/results/2026-12-02-h200/stop15/call2). PoRep: 4 bytes per row, 6 per non-zero
        (a 32 GiB partition's blocks 5.9 GB instead of 8.9 GB at 8 and 8).

        Raises:
            ValueError: a row offset outside [0, nnz] or decreasing, a column index or
                coefficient id outside the matrix.
        """
        hit = self._csr32.get(id(m))
        if hit is not None and hit[0]() is m:
            return hit[1]
        if len(m.indptr) != m.shape[0] + 1:
            raise ValueError(f"spmv: indptr has {len(m.indptr)} entries for {m.shape[0]} rows")
        ipt, idt = csr_widths(m.nnz, len(m.coeffs))
        # filled before they are registered: each page written once (``host_filled``); offsets
        # bounded by nnz before they are narrowed (a wrapped negative one would pass the order check)
        ip = self.host_filled((m.shape[0] + 1,), ipt,
                              lambda dst: fill_checked(dst, np.asarray(m.indptr), m.nnz + 1, nondecreasing=True))
        if int(ip[0]) != 0 or int(ip[-1]) != m.nnz:
            raise ValueError(_DECREASING)
        out = [ip]
        for (arr, bound), dt in zip(_index_arrays(m), (np.uint32, idt)):
            out.append(self.host_filled((arr.shape[0],), dt,
                                        lambda dst, arr=arr, bound=bound: fill_checked(dst, np.asarray(arr), bound)))
        self._csr32[id(m)] = (weakref.ref(m, lambda _, k=id(m): self._csr32.pop(k, None)), tuple(out))
        return tuple(out)

    def _coeff_table(self, m: CSRMatrix):
        """``m``'s Montgomery coefficient table on the device (cached one if any, not cached)."""
        hit = self._coeff_tables.get(id(m.coeffs))
        if hit is not None and hit[0]() is m.coeffs:
            return hit[1]
        return self.to_device(m.coeffs) if len(m.coeffs) else self.cp.zeros((1, 4), dtype=self.cp.uint64)

    @_guard("spmv")
    def prepare_spmv(self, m: CSRMatrix) -> None:
        """Upload and cache ``m``'s device CSR arrays now (``Backend.prepare_spmv``): taken while
        the pool holds no freed transient chunk they would be carved out of."""
        if self._csr_hit(m) is None:
            self._csr_device(m)
            self._pool().free_all_blocks()   # the upload slices' chunks

    def drop_cached(self, m: CSRMatrix) -> None:
        """Forget ``m``'s device CSR arrays (they are uploaded again on next use)."""
        self._csr.pop(id(m), None)

    @_guard("spmv")
    def spmv(self, m: CSRMatrix, w):
        """y = M·w over Fr on the GPU (``spmv.cu``: CSR, 2^G lanes per row with G from the mean row
        length; the matrix's index arrays and its Montgomery coefficient table are uploaded once
        and cached on the device while ``m`` lives).

        Args:
            m: CSR matrix with shape (rows, cols).
            w: device array of length cols.

        Returns:
            Device array of length rows (empty rows give 0).

        Raises:
            ValueError: len(w) != cols, or a malformed matrix.
        """
        w = self._check(w)
        rows, cols = m.shape
        if w.shape[0] != cols:
            raise ValueError(f"spmv: matrix has {cols} columns but the vector has {w.shape[0]} entries")
        return self._spmv_launch(*self._csr_device(m), w, rows)

    def _spmv_launch(self, indptr, idx, ids, table, log_g: int, w, rows: int, out=None):
        """``spmv_csr`` (or its variant for the arrays' widths, ``_SPMV_KERNELS``) over device CSR
        arrays (indptr int64 or uint32, cols uint32, coefficient ids uint32 or uint16), into
        ``out`` (a C-contiguous (rows, 4) device array) or a new array."""
        y = self.cp.empty((rows, 4), dtype=self.cp.uint64) if out is None else out
        if rows:
            rows_per_block = 256 >> log_g
            _kernel("spmv.cu", _SPMV_KERNELS[np.dtype(indptr.dtype).name, np.dtype(ids.dtype).name])(
                (_grid(rows, rows_per_block),), (256,), (indptr, idx, ids, table, w, y, _u64(rows), _i32(log_g))
            )
        return y

    @staticmethod
    def _log_lanes(nnz: int, rows: int) -> int:
        """log2 of the lanes per row of ``spmv_csr``: the smallest group ≥ half the mean row length
        (at most 32)."""
        avg = nnz / max(1, rows)
        log_g = 0
        while log_g < 5 and (1 << log_g) * 2 < avg:
            log_g += 1
        return log_g

    @_guard("spmv_t")
    def spmv_t(self, m: CSRMatrix, x):
        """y = Mᵀ·x over Fr on the GPU (the setup's QAP evaluation at τ).

        Mᵀ is built on the device from ``m``'s cached device CSR: row ids by a search in indptr,
        a sort of the entries by column (CuPy's radix sort), counts per column. A column with more
        than ``_SPMV_T_ROW`` entries (the ONE variable sits in millions of rows) is split into
        virtual rows of at most that many entries, and a second ``spmv_csr`` (coefficient 1) adds
        the partial sums, so no thread walks a whole column. The transposed arrays are freed on
        return (≈ 24 bytes per non-zero while they live).

        Args:
            m: CSR matrix of shape (rows, cols).
            x: device array of length rows.

        Returns:
            Device array of length cols.

        Raises:
            ValueError: len(x) != rows, or a malformed matrix.
        """
        cp = self.cp
        x = self._check(x)
        rows, cols = m.shape
        if x.shape[0] != rows:
            raise ValueError(f"spmv_t: matrix has {rows} rows but the vector has {x.shape[0]} entries")
        nnz = m.nnz
        if nnz == 0:
            return cp.zeros((cols, 4), dtype=cp.uint64)
        indptr, idx, ids, table, _ = self._csr_device(m)
        return self._spmv_t_device(indptr, idx, ids, table, x, cols)

    def _spmv_t_device(self, indptr, idx, ids, table, x, cols: int):
        """Mᵀ·x of a device CSR block (``transpose_split``: columns of more than ``_SPMV_T_ROW``
        entries in virtual rows, whose partial sums a second ``spmv_csr`` with coefficient 1
        adds); a new device array of ``cols``."""
        cp = self.cp
        nnz = int(idx.shape[0])
        if nnz == 0:
            return cp.zeros((cols, 4), dtype=cp.uint64)
        vptr, t_rows, t_ids, vstart = transpose_split(indptr, idx, ids, cols, _SPMV_T_ROW, cp)
        V = int(vstart[-1])
        if V == cols:
            return self._spmv_launch(vptr, t_rows, t_ids, table, self._log_lanes(nnz, cols), x, cols)
        partial = self._spmv_launch(vptr, t_rows, t_ids, table, self._log_lanes(nnz, V), x, V)
        del vptr, t_rows, t_ids
        one = self._const(1)
        return self._spmv_launch(vstart, cp.arange(V, dtype=cp.uint32), cp.zeros(V, dtype=cp.uint32), one,
                                 self._log_lanes(V, cols), partial, cols)

    @_guard("spmv_t")
    def spmv_t_blocks(self, m: CSRMatrix, x, rows: int, nnz: int, cols: int):
        """``Backend.spmv_t_blocks`` on the GPU: Mᵀ·x into host memory, ``cols`` columns at a
        time (a device array of them accumulates), each over row blocks of at most ``rows``
        rows and ``nnz`` entries whose slices of the (possibly mapped) host CSR arrays are
        uploaded for it (``_block_arrays``), filtered to the columns (``column_filter``) and
        transposed (``_spmv_t_device``); x's rows of the block restored from the host when x is
        offloaded. Nothing is cached but the coefficient table; the matrix is read once per
        column slice.

        Returns:
            ``HostFr`` of length cols of ``m``.

        Raises:
            ValueError: len(x) != rows of ``m``, or a malformed matrix.
        """
        cp = self.cp
        R, C = m.shape
        host_x = isinstance(x, HostFr)
        if not host_x:
            x = self._check(x)
        if len(x) != R:
            raise ValueError(f"spmv_t: matrix has {R} rows but the vector has {len(x)} entries")
        out = np.zeros((C, 4), dtype=np.uint64)
        table = self._coeff_table(m)
        width = max(1, cols)
        for c0 in range(0, C, width):
            c1 = min(C, c0 + width)
            y = cp.zeros((c1 - c0, 4), dtype=cp.uint64)
            for r0, r1 in row_blocks([m], rows, nnz):
                ip, idx, ids = self._block_arrays(m, r0, r1)
                if idx.shape[0] and (c0, c1) != (0, C):
                    ip, idx, ids = column_filter(ip, idx, ids, c0, c1, cp)
                if idx.shape[0]:
                    xb = self.restore(x, r0, r1) if host_x else x[r0:r1]
                    part = self._spmv_t_device(ip, idx, ids, table, xb, c1 - c0)
                    del ip, idx, ids, xb
                    self._launch_ew("fr_add", c1 - c0, y, part, y)
                    del part
            y.get(out=out[c0:c1])
            self.bus_bytes += int(y.nbytes)
            del y
        return HostFr(out)
