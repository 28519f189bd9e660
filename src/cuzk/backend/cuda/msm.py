"""G1/G2 MSMs of the ``cuda`` backend (``msm.cu``, compiled once per group: the curve formulas of
``xyzz.cuh`` are templates over the coordinate field, Fq in ``g1.cuh`` or Fq2 in ``g2.cuh``).

``CUDAMSMContext``: Pippenger with signed windows, counting sort of bucket entries with atomics,
XYZZ bucket sums with every thread adding the same number of sorted entries, a levelled
running-sum reduction; scalars equal to 1 summed apart; the last ≈⌈255/c⌉ window sums are
combined on the host with arkworks; scalars may be host ints or a device array. An MSM whose
temporaries (``plan.msm_device_bytes``) exceed the room runs in chunks (``plan.msm_chunk_points``)
whose partial sums are added. ``shift`` precomputes 2^(w·c) multiples of resident bases so that
the windows share one bucket set (``plan.shift_device_bytes`` says when they fit). The backend's
point arrays, ``msm_context`` and fixed-base products are ``points.MSMOps``.
"""

from __future__ import annotations

import time

import numpy as np

from ...curve import G1, Group
from ..base import MSMContext
from .pieces import feed_pieces, gil_switch, stage_rows, staging_rows
from . import plan
from .plan import (
    MIN_MSM_CHUNK,
    _CHUNK,
    _CHUNK0,
    _RESERVE_POINTS,
    _UPLOAD_SLICE,
    _chunk_len,
    _coord_words,
    affine_levels,
    msm_chunk_points,
    msm_device_bytes,
    msm_window,
    shift_device_bytes,
    shift_window,
    sorts_by_keys,
    window_by_scalars,
)
from .runtime import (
    RESTORABLE,
    DeviceRuntime,
    HostFr,
    _grid,
    _host_limbs,
    _i32,
    _kernel,
    _limbs_to_encoding,
    _u32,
    _u64,
)

_SEG = 4       # entries per thread at each level of the window reduction
SEG_FIRST = 16
"""Buckets per thread at the window reduction's first level (``msm_seg_reduce``; later levels
take ``_SEG``) when a window has at least ``_SEG_FIRST_FROM`` buckets: the first level makes 2
additions per bucket, each later level 3 per entry it reads, so a longer first level leaves less
to add (SL = 16: about 2.25 additions per bucket in all against 3). H200, G1, side by side
(benchmarks/results/2026-12-05-stop48/call7, SEG_FIRST 4 / 16): over shifted bases at c = 22
(one window of 2^21 buckets) 2^24 99.25 / 98.51 ms (reduction 5.00 / 4.23), 2^25 190.67 / 189.97;
plain 2^24 109.32 / 108.53, 2^27 741.8 / 740.3 (reduction 11.7 / 9.6). 32 was within 0.3 ms of 16.
Read at each MSM."""
_SEG_FIRST_FROM = 1 << 16
_SHIFT_PIECES = 256   # over shifted bases: partial sums one msm_bucket_pieces thread may add (uniform path)


SCATTER_WINDOWS = 1
"""Windows per ``msm_scatter`` launch (0: all W in one) where at least ``SCATTER_BUSY`` of the
scalars are other than 0 and 1: one, so a launch's bucket tails stay in L2 (``msm.cu``; G1 2^27
random 864 against 920 ms, 2^24 122 against 128 ms, G2 2^25 762 against 774 ms on the H200:
benchmarks/results/2026-12-04-h200-stop36/call2). Read at each MSM."""
OVERLAP_SORT = {"G1": 1 << 24, "G2": 0}
"""Per group, the fewest points from which an MSM sorted one window per launch sorts window w + 1
on a side stream while window w's bucket sums run (0: never). The scatter kernel's 32 registers
let one 128-thread block sit beside three G1 bucket-sum blocks on an SM (``msm.cu``); G2's bucket
blocks fill the register file, so there the two would only take turns. The bucket sums then run
window by window, alternating over two streams so that one window's last wave overlaps the next
window's first. On the H200 (benchmarks/results/2026-12-04-h200-stop39/call2, random scalars,
ahead against inline alternated): 2^27 799 against 861 ms, 2^26 412 / 444, 2^24 117.5 / 121.3.
Below 2^24 that run compared the inline path with itself (the threshold was already 2^24 there:
12.3 / 11.8 ms at 2^20 is its noise); from 2^24, the smallest size measured faster. Counting the
later windows (``msm_hist``) on the side stream too, beside window 0's sums, was slower on the H200
(2^27 700.0 against 697.2 ms with all counted first; commit 6cfca9f, since removed:
benchmarks/results/2026-12-06-stop51/call2b). Read at each MSM."""

AFFINE = {"G1": 0, "G2": 0}
"""Per group, the fewest points from which a uniform run's bucket sums start with batch-affine pair
levels (``plan.affine_levels``, ``msm_affine.cuh``) when the device has room for two levels'
points (0: never). Read at each MSM. Off: slower on the H200 though each addition costs 5M + 1S
plus a shared inversion against 8M + 2S (benchmarks/results/2026-12-04-h200-stop40, calls 2 and 3,
G1 random scalars, side by side): 2^27 938-952 against 800 ms, 2^26 496 against 411 ms; one
level at 2^24 (merged windows, profiled) 158 against 106 ms of bucket sums; a 32 GiB proof 1.61-1.67
against 1.45 s. A level's two passes each make two dependent random reads per one to five
products, which 3 blocks an SM do not hide; L2 prefetches 4 slots ahead made it slower still
(2^27 1,072 ms). Kept, tested, for a cheaper inversion or a layout that reads in order."""

SCATTER_BUSY = 0.25
"""Below this fraction of busy scalars all windows are scattered in one launch: every launch walks
the n flags, which cost more than the L2 saves when few entries are written (G1 2^27 with 2 %
random scalars: a 22 ms sort by windows against 7 ms, benchmarks/results/2026-12-04-h200-stop36/
call4 and stop35/call3). The fraction is where a window launch's walk (about 1 ms at 2^27)
equals what it saves: 32 ps per entry written in the random case (56 ms over 1.74e9 entries)."""


class _CanonLimbs:
    """Scalars already converted to (m, 4) uint64 canonical limbs on the host (MSM chunks)."""

    __slots__ = ("limbs",)

    def __init__(self, limbs: np.ndarray):
        self.limbs = limbs


# --- MSM ----------------------------------------------------------------------------------------


class CUDAMSMContext(MSMContext):
    """G1 or G2 bases resident in GPU memory (affine, Montgomery Fq, (0, 0) = infinity): G1 points
    are (n, 24) uint32 (x, y), G2 points (n, 48) uint32 (x.c0, x.c1, y.c0, y.c1).

    Built by ``CUDABackend.msm_context(group, bases)``; ``msm`` takes host int arrays or cuda device
    arrays of Fr scalars. The bases are not re-validated (the interface's contract: already
    checked); only the encoding's shape and flags are read. Both groups run the same kernels
    (``msm.cu`` compiled per group).
    """

    def __init__(self, backend: "DeviceRuntime", group: Group, bases: np.ndarray | None, device_bases=None,
                 resident: bool | None = None):
        k = _coord_words(group)
        self.group = group
        self._g = group.name
        self._aw, self._xw = 24 * k, 48 * k    # uint32 words per affine / XYZZ point
        self._be = backend
        self._closed = False
        self._host = None                      # (n, 96 k) uint8 encodings (a view of the key) when not resident
        self.last_chunks = 0                   # chunks the last msm ran in (1 = whole)
        self._table = None                     # shifted bases (``shift``): (W n, aw), rows 0..n-1 the bases
        self.shift_c = 0                       # the table's window width (0: none)
        if device_bases is not None:
            if device_bases.ndim != 2 or device_bases.shape[1] != self._aw:
                raise ValueError(f"{group.name} device bases must be (n, {self._aw}) uint32")
            self._bases = device_bases
            self.size = int(device_bases.shape[0])
            return
        raw = np.asarray(bases)
        if raw.dtype != np.uint8:
            raw = raw.astype(np.uint8)
        if raw.ndim != 2 or raw.shape[1] != group.uncompressed_size:
            raise ValueError(f"{group.name} bases must have shape (n, {group.uncompressed_size}), got {raw.shape}")
        n = raw.shape[0]
        self.size = int(n)
        if resident is None:   # resident when the bases and one MSM chunk of reasonable size fit
            need = n * self._aw * 4 + min(n, _UPLOAD_SLICE) * self._aw * 4 + msm_device_bytes(min(n, _RESERVE_POINTS), k)
            avail = backend._mem_avail(need)
            resident = avail is None or need <= avail
        if not resident:   # the caller's array as it is (a mapped key file's view): no host copy
            self._host = raw
            self._bases = None
            return
        self._bases = self._upload_encoded(raw)

    def _decode(self, buf, err) -> None:
        """In place on the current stream: (m, aw) uint32 rows holding uncompressed encodings →
        affine Montgomery points (``points_decode``, then ``fq_to_mont``); a compressed encoding
        sets ``err[0]``."""
        m = int(buf.shape[0])
        if m:
            self._k("points_decode")((_grid(m, 128),), (128,), (buf, _u64(m), err))
            words = self._aw // 12 * m          # Fq elements
            self._k("fq_to_mont")((_grid(words, 256),), (256,), (buf, buf, _u64(words)))

    def _check_decoded(self, err) -> None:
        """ValueError when ``_decode`` saw a compressed encoding (waits for the current stream)."""
        if self._be.read_int(err):
            raise ValueError(f"{self.group.name} bases: compressed encoding in an uncompressed array")

    def _upload_encoded(self, raw: np.ndarray):
        """(m, 96 k) uint8 uncompressed encodings (host; a view of a mapped key file is read once,
        chunk by chunk, and its pages handed back) → device affine Montgomery array. The chunks go
        through two pinned staging buffers (``pieces.stage_rows``) straight into the output's
        bytes and are decoded there (``_decode``): host memory holds the staging buffers, never
        the key, and the device nothing beyond the output.

        Raises:
            ValueError: a compressed encoding in the array.
        """
        cp = self._be.cp
        m = raw.shape[0]
        out = cp.empty((m, self._aw), dtype=cp.uint32)
        if m == 0:
            return out
        stream = cp.cuda.get_current_stream()
        err = cp.zeros(1, dtype=cp.uint32)
        self._stage(raw, 0, m, out, stream, self._staging_buffers(m), [None, None])
        self._decode(out, err)
        self._check_decoded(err)             # synchronizes: the staging buffers are free again
        return out

    def _staging_buffers(self, m: int) -> list:
        """Two pinned host buffers of ``pieces.STAGING_BYTES`` (fewer rows when m is smaller),
        from ``host_empty`` (mapped and registered, kept for reuse: ``cudaHostAlloc`` of 512 MiB
        takes about half a second and holds up the process's other CUDA calls meanwhile)."""
        rows = max(1, min(m, staging_rows(self._aw * 4)))
        return [self._be.host_empty((rows, self._aw * 4), np.uint8) for _ in range(2)]

    def _stage(self, host: np.ndarray, lo: int, hi: int, dst, stream, staging: list, pending: list) -> int:
        """Rows lo:hi of the host encodings into device rows ``dst[: hi − lo]`` (their bytes) on
        ``stream`` through the pinned ``staging`` buffers (``pieces.stage_rows``); returns bytes."""
        cp = self._be.cp
        dst8 = dst[: hi - lo].view(cp.uint8)

        def send(view, off):
            dst8[off : off + view.shape[0]].set(view, stream=stream)
            return stream.record()

        return stage_rows(host, lo, hi, staging, send, lambda ev: ev.synchronize(), pending)

    def encoded(self, lo: int, hi: int) -> np.ndarray:
        """Bases ``lo:hi`` as ``(hi − lo, group.uncompressed_size)`` uint8 uncompressed encodings
        (host; converted on the GPU): how a resident key is written to a ``.params`` file."""
        cp = self._be.cp
        if self._bases is None:
            return np.array(self._host[lo:hi])
        dev = self._bases[lo:hi]
        words = 2 * _coord_words(self.group) * int(dev.shape[0])   # Fq elements
        canon = cp.empty_like(dev)
        if words:
            self._k("fq_from_mont")((_grid(words, 256),), (256,), (dev, canon, _u64(words)))
        return _limbs_to_encoding(self.group, canon, cp).get()

    @property
    def resident(self) -> bool:
        """True when the bases live in device memory (else they are uploaded per MSM chunk)."""
        return self._bases is not None

    def _k(self, name: str):
        return _kernel("msm.cu", name, self._g)

    @classmethod
    def from_device_affine(cls, backend: "DeviceRuntime", arr, group: Group = G1) -> "CUDAMSMContext":
        """Context over an existing device array of affine points ((n, 24) uint32 for G1, (n, 48)
        for G2, Montgomery)."""
        return cls(backend, group, None, device_bases=arr)

    def _scalars_device(self, scalars):
        """(canonical words (n, 8) uint32, flags (n,) uint8, busy (1,) uint32) of ``msm_prep``: busy
        counts the scalars that are neither 0 nor 1. Raises ValueError on a wrong length."""
        cp = self._be.cp
        n = self.size
        sc_can = cp.empty((n, 8), dtype=cp.uint32)
        flags = cp.empty(n, dtype=cp.uint8)
        if isinstance(scalars, cp.ndarray):
            src = self._be._check(scalars)
            from_mont = 1
        else:
            limbs = scalars.limbs if isinstance(scalars, _CanonLimbs) else _host_limbs(scalars, f"{self.group.name} msm scalars")
            if limbs.shape[0] != n:
                raise ValueError(f"{self.group.name} msm: {n} bases but {limbs.shape[0]} scalars")
            src = cp.asarray(limbs)
            from_mont = 0
        if src.shape[0] != n:
            raise ValueError(f"{self.group.name} msm: {n} bases but {src.shape[0]} scalars")
        busy = cp.zeros(1, dtype=cp.uint32)
        if n:
            self._k("msm_prep")((_grid(n, 256),), (256,), (src, _i32(from_mont), sc_can, flags, _u64(n), busy))
        return sc_can, flags, busy

    def shift(self, c: int | None = None) -> bool:
        """Precompute shifted bases for later MSMs: a table whose row w·n + i is 2^(w·c)·base i
        (affine, Montgomery) for the W = ⌈255/c⌉ windows of width c (default
        ``plan.shift_window``), so that an MSM's windows share one set of 2^(c−1) buckets (entry
        of scalar i in window w: row w·n + i, ``msm_scatter`` or ``msm_keys``) and a wider window
        pays (fewer bucket additions per point; the reduction is one window's). Precomputed
        multiples of fixed bases are the method of the ZPrize 2023 MSM entries; the table is built on
        the device (``msm_shift_bases``: c doublings per row, one inversion per 32 rows), W − 1
        launches per slice of ``_FB_SLICE`` points. MSMs then use it whenever they run whole
        (``msm``'s ``c`` None or this width); chunked MSMs and ``msm_many``'s pieces use the bases
        alone.

        Only where the memory model says it fits: the table and its work space
        (``plan.shift_device_bytes``) and then a whole MSM over it (``plan.msm_device_bytes``,
        ``shifted``) within the room the backend reports. Memory: W times the bases
        (2^24 G1 points at c = 20: 20.9 GB against 1.6 GB). Gains measured per size: ``plan.SHIFT_C``
        (H100: 15 % at 2^20 to 2^21, 9-11 % at 2^22 to 2^23, 3-4 % at 2^24, 1 % at 2^25). A table
        at another width replaces this one (dropped first, even when the new one does not fit).

        Returns:
            True when the table was built (or already was at this width); False when the bases are
            not resident, the table would not fit, or W·n reaches 2^31 (the sort's entry indices).
        """
        cp = self._be.cp
        n = self.size
        c = c or shift_window(n)
        if self._closed or self._bases is None or n == 0:
            return False
        if self.shift_c == c:
            return True
        W = -(-255 // c)
        try:
            build = shift_device_bytes(n, self.group, c)
        except ValueError:
            return False
        if self._table is not None:   # another width's table: the bases alone first
            self._bases, self._table, self.shift_c = self._bases.copy(), None, 0
        need = max(build, (W - 1) * n * self._aw * 4 + msm_device_bytes(n, self.group, c, shifted=True))
        avail = self._be._mem_avail(need)
        if avail is not None and need > avail:
            return False
        table = cp.empty((W * n, self._aw), dtype=cp.uint32)
        table[:n] = self._bases
        self._bases = table[:n]
        m = min(n, plan._FB_SLICE)
        per = 32
        try:
            scratch = cp.empty((m, self._xw), dtype=cp.uint32)
            prods = cp.empty((m, self._aw // 2), dtype=cp.uint32)
            fn = self._k("msm_shift_bases")
            for w in range(1, W):
                for lo in range(0, n, m):
                    hi = min(n, lo + m)
                    fn((_grid(-(-(hi - lo) // per), 128),), (128,),
                       (table[(w - 1) * n + lo :], _u64(hi - lo), _i32(c), _u32(per), scratch, prods, table[w * n + lo :]))
        except BaseException:
            self._bases = table[:n].copy()   # the bases alone again, the table's memory let go
            raise
        self._table, self.shift_c = table, c
        return True

    def _shifted(self, c: int | None) -> bool:
        """Whether an MSM at width ``c`` (None: the default) runs over the shifted table."""
        return self._table is not None and c in (None, self.shift_c)

    def _window_runs(self, counts, offs, NB: int, W: int, split: bool = False, shifted: bool = False) -> list:
        """The bucket-sum paths by window, as runs (w0, w1, o0, o1, skewed) of consecutive windows
        [w0, w1) whose entries are vals[o0:o1]: a run whose largest bucket is at most twice its
        average (+64) takes ``_uniform_sums``, the others (skewed scalars: equal values; the short
        top window of a wide c) ``_skewed_sums``. Deciding per window, not for the whole MSM, keeps
        a wide window's crowded top window from sending every window down the slower chunked path
        (2^27 at c = 20: 0.976 s whole-MSM chunked against 0.978 s at c = 17, though 13 windows are
        13/15 of the additions: benchmarks/results/2026-12-04-h200/call1). ``split``: every window
        a run of its own (``OVERLAP_SORT``). ``shifted``: W = 1 over shifted bases, whose top
        window crowds its few low buckets (c = 20: 2^14 of 2^19) by design: uniform unless a
        bucket needs more than ``_SHIFT_PIECES`` of the uniform path's partial sums. Reads the
        per-window largest counts and the window edges back (waits for the hist and the offsets).
        """
        if W * NB == 0:
            return []
        most = self._be.read_back(counts.reshape(W, NB).max(axis=1))
        edges = self._be.read_back(offs[::NB]).astype(np.int64)   # W + 1 window edges into vals
        skewed = most > 2 * ((edges[1:] - edges[:-1]) // NB) + 64
        if shifted:
            skewed &= most > _SHIFT_PIECES * _chunk_len(int(edges[-1] - edges[0]), NB)
        runs, w0 = [], 0
        while w0 < W:
            w1 = w0 + 1
            while w1 < W and skewed[w1] == skewed[w0] and not split:
                w1 += 1
            runs.append((w0, w1, int(edges[w0]), int(edges[w1]), bool(skewed[w0])))
            w0 = w1
        return runs

    def _scatter(self, sc, flags, n: int, c: int, w0: int, w1: int, cursor, vals, ahead: bool, shifted: bool = False):
        """``msm_scatter`` of windows [w0, w1). ``ahead``: on the backend's "msm-sort" stream
        (``named_stream``: one per backend and device, so the chunks and pieces of an MSM, each a
        context of its own, reuse its pool arena), after this stream's work so far, one 128-thread
        block per SM, so that it runs beside the bucket sums of an earlier window
        (``OVERLAP_SORT``); returns the event the bucket sums of these windows wait for. Else on
        the current stream, with a block per 256 scalars (returns None). ``shifted``: entries of
        window w are rows w·n + i of the shifted table, all windows into one bucket set."""
        cp = self._be.cp
        args = (sc, flags, _u64(n), _i32(c), _i32(w0), _i32(w1), _u32(0 if shifted else 1 << (c - 1)),
                _u64(n if shifted else 0), cursor, vals)
        if not ahead:
            self._k("msm_scatter")((_grid(n, 256),), (256,), args)
            return None
        side = self._be.named_stream("msm-sort")
        side.wait_event(cp.cuda.get_current_stream().record())
        with side:
            self._k("msm_scatter")((self._be.sm_count(),), (128,), args)
            return side.record()

    def _sort64(self, sc, flags, n: int, c: int, W: int, NB: int):
        """``plan.sorts_by_keys``: the entries over shifted bases (one set of NB buckets) in bucket
        order by a library radix sort of one 64-bit key per (window, scalar) (``msm_keys``;
        ``cupy.ndarray.sort``); returns (entries, offsets (NB + 1)) as ``msm_scatter`` and
        ``msm_hist`` give them (``msm_key_offsets``, ``msm_keys_vals``; the entries' count read
        back)."""
        cp = self._be.cp
        m = n * W
        keys = cp.empty(max(1, m), dtype=cp.uint64)
        self._k("msm_keys")((_grid(n, 256),), (256,), (sc, flags, _u64(n), _i32(c), _i32(W), keys))
        keys[:m].sort()
        offs = cp.empty(NB + 1, dtype=cp.uint32)
        self._k("msm_key_offsets")((_grid(m + 1, 256),), (256,), (keys, _u64(m), _u32(NB), offs))
        total = self._be.read_int(offs[NB:])
        vals = cp.empty(max(1, total), dtype=cp.uint32)
        if total:
            self._k("msm_keys_vals")((_grid(total, 256),), (256,), (keys, _u64(total), vals))
        return vals, offs

    def _bucket_sums(self, vals, offs, NB: int, W: int, runs: list, ready: list | None = None, affine: bool = False,
                     bases=None):
        """(W·NB, xw) XYZZ bucket sums from the sorted entries ``vals`` and offsets ``offs``
        (W·NB + 1), run by run (``_window_runs``). ``ready``: per run, the event of its scatter on
        the sort stream (None: already ordered); the runs then alternate between the current stream
        and the backend's "msm-buckets" stream, each after its event. The caller makes the current
        stream wait for the sort and buckets streams before it uses the sums or frees the entries
        (``msm_device``'s ``finally``: also when a run fails). ``affine``: uniform runs may start
        with batch-affine pair levels (``AFFINE``). ``bases``: the points the entries index (default
        the context's bases; the shifted table)."""
        cp = self._be.cp
        buckets = cp.empty((W * NB, self._xw), dtype=cp.uint32)
        main = cp.cuda.get_current_stream()
        streams = [main]
        if ready is not None:
            streams.append(self._be.named_stream("msm-buckets"))
            streams[1].wait_event(main.record())     # the bases, offsets and scalars of this stream
        for i, (w0, w1, o0, o1, skewed) in enumerate(runs):
            st = streams[i % len(streams)]
            with st:
                if ready is not None and ready[i] is not None:
                    st.wait_event(ready[i])
                of = offs[w0 * NB : w1 * NB + 1]
                if o0:
                    of = of - cp.uint32(o0)                   # the run's entries from vals[o0]
                if skewed:
                    self._skewed_sums(vals[o0:o1], of, (w1 - w0) * NB, buckets[w0 * NB : w1 * NB], bases)
                else:
                    self._uniform_sums(vals[o0:o1], of, (w1 - w0) * NB, buckets[w0 * NB : w1 * NB], affine, bases)
        return buckets

    def _uniform_sums(self, vals, offs, B: int, buckets, affine: bool = False, bases=None) -> None:
        """Bucket sums into ``buckets`` ((B, xw) view): every thread adds L sorted entries
        (``_chunk_len``) and writes one partial sum per bucket it touches, then one thread per
        bucket adds its partial sums. ``vals``: the run's entries, all of them (its length is their
        number); ``offs`` (B + 1) starts at 0. ``affine``: batch-affine pair levels first
        (``_affine_levels``) where they apply; the XYZZ sums then add their points."""
        cp = self._be.cp
        bases = self._bases if bases is None else bases
        pre = self._affine_levels(vals, offs, B, bases) if affine else None
        if pre is not None:
            vals, bases, offs = pre
        total = int(vals.shape[0])
        L = _chunk_len(total, B)
        nchunks = -(-total // L)
        part = cp.empty((B + nchunks, self._xw), dtype=cp.uint32)
        if nchunks:
            self._k("msm_bucket_chunks")(
                (_grid(nchunks, 128),), (128,), (vals, offs, _u32(B), _u32(total), _u32(L), bases, part)
            )
        self._k("msm_bucket_pieces")((_grid(B, 128),), (128,), (part, offs, _u32(B), _u32(L), buckets))

    def _affine_levels(self, vals, offs, B: int, bases):
        """Batch-affine pair levels over a run's sorted entries (``msm_affine_level``): each level
        replaces every pair of a bucket's points by their affine sum, ``plan.affine_levels`` of them.
        Returns (entries, points, offsets) for the XYZZ sums (entry i is point i, unsigned), or
        None when no level applies or the device lacks the room for two levels' points (their
        sizes, the levels' last offsets read back once, are exact)."""
        cp = self._be.cp
        levels = affine_levels(int(vals.shape[0]), B)
        if not levels:
            return None
        counts = offs[1:] - offs[:-1]
        level_offs = []   # per level k: bucket b keeps ⌈count/2^k⌉ points
        for k in range(1, levels + 1):
            oo = cp.zeros(B + 1, dtype=cp.uint32)
            oo[1:] = cp.cumsum((counts + cp.uint32((1 << k) - 1)) >> k, dtype=cp.uint32)
            level_offs.append(oo)
        sizes = [int(x) for x in self._be.read_back(cp.stack([oo[-1] for oo in level_offs]))]
        if not self._affine_room((sizes[0] + (sizes[1] if levels > 1 else 0)) * self._aw * 4 + sizes[-1] * 4):
            return None
        vl, src, oi = vals, bases, offs
        for m, oo in zip(sizes, level_offs):
            out = cp.empty((max(1, m), self._aw), dtype=cp.uint32)
            nth = -(-m // plan.AFFINE_K)
            self._k("msm_affine_level")(
                (_grid(nth, 128),), (128,),
                (vl if vl is not None else _u64(0), src, oi, oo, _u32(B), _u64(nth), _u32(plan.AFFINE_K), out))
            vl, src, oi = None, out, oo
        return cp.arange(sizes[-1], dtype=cp.uint32), src, oi

    def _affine_room(self, need: int) -> bool:
        """Whether ``need`` bytes (two pair levels' points and the entries after them) fit beside
        what the device holds, with 1/8 and 256 MiB to spare: the memory plan
        (``plan.msm_device_bytes``) counts the XYZZ path only, so the levels use room beyond it."""
        avail = self._be._mem_avail(need)
        return avail is None or avail >= need + need // 8 + (256 << 20)

    def _skewed_sums(self, vals, offs, B: int, buckets, bases=None) -> None:
        """Bucket sums into ``buckets`` ((B, xw) view) for buckets far above the average: chunks
        of ``_CHUNK0`` entries of one bucket per thread, then levels summing ``_CHUNK`` partials
        per thread until each bucket has one. ``offs`` (B + 1) starts at 0."""
        cp = self._be.cp
        counts = offs[1:] - offs[:-1]
        maxc = self._be.read_int(counts.max())
        src, L, level = None, _CHUNK0, 0
        while True:
            nch = (counts + (L - 1)) // L
            ch_off = cp.zeros(B + 1, dtype=cp.uint32)
            ch_off[1:] = cp.cumsum(nch, dtype=cp.uint32)
            nchunks = self._be.read_int(ch_off[-1:])
            chunk_bucket = cp.searchsorted(ch_off[1:], cp.arange(nchunks, dtype=cp.uint32), side="right").astype(cp.uint32)
            out = cp.empty((max(1, nchunks), self._xw), dtype=cp.uint32)
            if level == 0:
                self._k("msm_chunk_acc")(
                    (_grid(nchunks, 128),), (128,),
                    (vals, offs, ch_off, chunk_bucket, _u32(L), _u64(nchunks),
                     self._bases if bases is None else bases, out),
                )
            else:
                self._k("xyzz_chunk_sum")(
                    (_grid(nchunks, 128),), (128,), (src, offs, ch_off, chunk_bucket, _u32(L), _u64(nchunks), out)
                )
            maxc = -(-maxc // L)
            src, offs, counts = out, ch_off, nch
            if maxc <= 1:
                self._k("msm_bucket_gather")((_grid(B, 256),), (256,), (src, offs, _u64(B), buckets))
                return
            L, level = _CHUNK, level + 1

    def _ones_sum(self, flags, n: int):
        """(1, xw) XYZZ sum of the bases whose scalar is 1 (``flags`` bit 0), or None when there are
        none: their indices listed (``msm_ones_list``), then summed as one bucket by
        ``_skewed_sums`` (every thread the same number of points)."""
        cp = self._be.cp
        if not n:
            return None
        count = cp.zeros(1, dtype=cp.uint32)
        idx = cp.empty(n, dtype=cp.uint32)
        self._k("msm_ones_list")((_grid(n, 256),), (256,), (flags, _u64(n), count, idx))
        k = self._be.read_int(count)
        if not k:
            return None
        ones = cp.empty((1, self._xw), dtype=cp.uint32)
        self._skewed_sums(idx[:k], cp.asarray([0, k], dtype=cp.uint32), 1, ones)
        return ones

    def _window_sums(self, buckets, NB: int, W: int):
        """(W, xw): per window w, Σ_b (b + 1)·buckets[w·NB + b], by levels of ``msm_seg_reduce``
        (each level one launch, ``_SEG`` times shorter; the first ``SEG_FIRST`` times from
        ``_SEG_FIRST_FROM`` buckets)."""
        cp = self._be.cp
        X, Y, L, e = None, buckets, NB, 1
        while L > 1:
            SL = min(SEG_FIRST if X is None and L >= _SEG_FIRST_FROM else _SEG, L)
            T = L // SL
            Xo = cp.empty((W * T, self._xw), dtype=cp.uint32)
            Yo = cp.empty((W * T, self._xw), dtype=cp.uint32)
            self._k("msm_seg_reduce")(
                (_grid(W * T, 128),), (128,),
                (Y, Y if X is None else X, _i32(X is not None), _u32(L), _u32(W), _u32(SL), _u32(SL.bit_length() - 1),
                 _u32(e), Xo, Yo),
            )
            X, Y, L, e = Xo, Yo, T, 0
        return Y if X is None else X   # NB = 1: Σ (0 + 1)·B_0

    def msm_device(self, scalars, c: int | None = None, profile: dict | None = None, shifted: bool | None = None):
        """Run the GPU part; returns (window sums (W, xw) uint32 XYZZ Montgomery, ones sum (1, xw) or None, c).

        Over the shifted table (``shift``) when there is one and ``c`` is None or its width
        (``shifted`` None), or when ``shifted`` is True: then one window sum (W = 1 above), the
        windows' entries sharing its buckets. ``shifted`` False: the bases alone.

        With a ``profile`` dict, the device is synchronized after each phase and the phase's wall
        seconds are added under its name (prep, hist, sort, buckets, reduce, ones): for benchmarks only.
        """
        cp = self._be.cp
        n = self.size
        clock = [time.perf_counter()]

        def mark(name):
            if profile is not None:
                cp.cuda.Stream.null.synchronize()
                t = time.perf_counter()
                profile[name] = profile.get(name, 0.0) + t - clock[0]
                clock[0] = t

        shifted = self._shifted(c) if shifted is None else shifted and self._table is not None
        sc, flags, busy = self._scalars_device(scalars)
        busy = self._be.read_int(busy)
        if shifted:
            c = self.shift_c
        elif c is None:
            c = msm_window(n, self.group, busy if window_by_scalars(n, self.group) else None)
        W = -(-255 // c)
        NB = 1 << (c - 1)
        WB = 1 if shifted else W   # bucket sets
        B = WB * NB
        mark("prep")
        keyed = sorts_by_keys(n, self.group, shifted)
        if keyed:   # sorted first: the offsets come from the sorted keys
            vals, offs = self._sort64(sc, flags, n, c, W, NB)
            counts, cursor = offs[1:] - offs[:-1], None
        else:
            counts = cp.zeros(B, dtype=cp.uint32)
            self._k("msm_hist")((_grid(n, 256),), (256,), (sc, flags, _u64(n), _i32(c), _i32(W), _u32(0 if shifted else NB), counts))
            mark("hist")
            offs = cp.zeros(B + 1, dtype=cp.uint32)
            offs[1:] = cp.cumsum(counts, dtype=cp.uint32)
            cursor = offs[:-1].copy()
            vals = cp.empty(max(1, n * W), dtype=cp.uint32)
        step = (SCATTER_WINDOWS or W) if busy >= n * SCATTER_BUSY else W
        ahead = 0 < OVERLAP_SORT.get(self._g, 0) <= n and step < W and profile is None and not shifted
        runs = self._window_runs(counts, offs, NB, WB, split=ahead, shifted=shifted)
        del counts
        try:
            events = [] if keyed else [
                self._scatter(sc, flags, n, c, w0, min(W, w0 + step), cursor, vals, ahead and w0 > 0, shifted)
                for w0 in range(0, W, step)]
            mark("sort")
            buckets = self._bucket_sums(vals, offs, NB, WB, runs, [events[r[0] // step] for r in runs] if ahead else None,
                                        affine=0 < AFFINE.get(self._g, 0) <= n, bases=self._table if shifted else None)
        finally:
            if ahead:   # the sums are used, the entries freed, on this stream; also when a run fails
                main = cp.cuda.get_current_stream()
                for name in ("msm-sort", "msm-buckets"):
                    main.wait_event(self._be.named_stream(name).record())
        del vals, offs, cursor   # after the bucket sums: this stream has waited for every scatter
        mark("buckets")
        wins = self._window_sums(buckets, NB, WB)
        del buckets
        mark("reduce")
        ones = self._ones_sum(flags, n)
        mark("ones")
        return wins, ones, c

    def msm(self, scalars, profile: dict | None = None, c: int | None = None):
        """Σ scalars[i]·bases[i] as a py-arkworks-bls12381 point of the context's group.

        When the backend's device memory (its memory-pool limit, or what the device has free) is
        less than the whole MSM needs (``msm_device_bytes``), the points are split into chunks
        whose temporaries fit (``msm_chunk_points``; bases that are not resident are uploaded per
        chunk) and the partial sums are added: the same group element. A chunk that still runs
        out of memory is retried at half the size, down to ``MIN_MSM_CHUNK`` points.

        Args:
            scalars: length ``size`` host int array / int sequence with values in [0, r), or a cuda
                device array ((size, 4) uint64 Montgomery).
            profile: optional dict receiving seconds per phase (synchronizes after each phase).
            c: window width override (tests and tuning; default ``msm_window`` of the chunk size).

        Raises:
            ValueError: wrong length or a scalar outside [0, r); RuntimeError: the context is closed.
            GPUMemoryError: not even the smallest chunk fits (names the bytes and the limit).
        """
        if self._closed:
            raise RuntimeError(f"{self.group.name} MSM context is closed")
        be = self._be
        return be._guarded(f"{self.group.name} msm", self._msm, scalars, profile, c)

    def _msm(self, scalars, profile, c):
        cp = self._be.cp
        n = self.size
        if n == 0:
            _ = self._scalars_device(scalars)
            return self.group.identity()
        on_device = isinstance(scalars, cp.ndarray)
        oom = self._be._oom_type()
        if self._shifted(c):   # whole over the table when its temporaries fit, else the bases alone
            need = msm_device_bytes(n, self.group, self.shift_c, host_scalars=not on_device, shifted=True)
            avail = self._be._mem_avail(need)
            if avail is None or need <= avail:
                try:
                    whole = self._combine(*self.msm_device(scalars, profile=profile, shifted=True), profile)
                    self.last_chunks = 1
                    return whole
                except oom:
                    self._be._free_cached()
            c = None
        upload = self._bases is None
        avail = self._be._mem_avail(msm_device_bytes(n, self.group, c, upload_bases=upload, host_scalars=not on_device))
        m = msm_chunk_points(n, self.group, avail, c, upload_bases=upload, host_scalars=not on_device)
        if m == n and not upload:
            whole = requested = None
            try:
                whole = self._combine(*self.msm_device(scalars, c=c, profile=profile, shifted=False), profile)
            except oom as e:       # the estimate fit, the device did not (other users): chunks
                requested = getattr(e, "_size", None)
            if whole is not None:
                self.last_chunks = 1
                return whole
            self._be._free_cached()
            if n <= MIN_MSM_CHUNK:
                raise self._be._memory_error(f"{self.group.name} msm", requested, f"{n} points ran out of memory")
            m = max(MIN_MSM_CHUNK, -(-n // 2))
        if m == 0:
            lo_m = min(n, MIN_MSM_CHUNK)
            raise self._be._memory_error(
                f"{self.group.name} msm", msm_device_bytes(lo_m, self.group, c, upload, not on_device),
                f"{n} points; one chunk of {lo_m} points does not fit in the {max(0, avail):,} bytes available")
        if on_device:
            sc = self._be._check(scalars)
            if sc.shape[0] != n:
                raise ValueError(f"{self.group.name} msm: {n} bases but {sc.shape[0]} scalars")
        else:
            limbs = _host_limbs(scalars, f"{self.group.name} msm scalars")
            if limbs.shape[0] != n:
                raise ValueError(f"{self.group.name} msm: {n} bases but {limbs.shape[0]} scalars")
        acc = self.group.identity()
        lo, chunks = 0, 0
        while lo < n:
            hi = min(n, lo + m)
            part = bases = sub = None
            requested = None
            try:
                bases = self._upload_encoded(self._host[lo:hi]) if upload else self._bases[lo:hi]
                sub = CUDAMSMContext(self._be, self.group, None, device_bases=bases)
                part = sub._combine(*sub.msm_device(sc[lo:hi] if on_device else _CanonLimbs(limbs[lo:hi]), c=c,
                                                    profile=profile), profile)
            except oom as e:
                requested = getattr(e, "_size", None)
            bases = sub = None
            if part is None:            # out of memory: the chunk's arrays are gone; halve and retry
                self._be._free_cached()
                if m <= MIN_MSM_CHUNK:
                    raise self._be._memory_error(f"{self.group.name} msm", requested,
                                                 f"a chunk of {m} points of {n} ran out of memory")
                m = max(MIN_MSM_CHUNK, m // 2)
                continue
            acc = acc + part
            lo, chunks = hi, chunks + 1
        self.last_chunks = chunks
        return acc

    def msm_many(self, scalars_list, piece: int | None = None, prefetch: bool = False) -> list:
        """MSMs of several scalar vectors over these bases, the bases walked once in pieces of
        ``piece`` points (default: all): each piece serves every vector before the next one, and
        each vector's partial sums are added across pieces (the same points as ``msm``).

        Non-resident bases come from host memory: each piece is copied into one of two pinned
        buffers by a helper thread and sent on a side stream into one of two device buffers
        (converted to Montgomery form there), while the compute stream works on the other piece.
        Scalars: device arrays (sliced), ``HostFr``, ``HostSelection`` or ``CompactW`` (their
        slices uploaded or expanded per piece, ``restore``) or host ints. ``prefetch``: a
        ``HostFr``'s next slice is copied on a side stream while this one's MSM runs (two slices
        on the device at once; the copies off the MSMs' stream: 0.2 s of each 32 GiB partition's
        H MSM on the H200 when waited for, benchmarks/results/2026-12-02-h200/stop18).

        Raises:
            ValueError: a vector of the wrong length or with a scalar outside [0, r).
            GPUMemoryError: the pieces do not fit.
        """
        if self._closed:
            raise RuntimeError(f"{self.group.name} MSM context is closed")
        return self._be._guarded(f"{self.group.name} msm", self._msm_many, list(scalars_list), piece, prefetch)

    def _msm_many(self, lst, piece, prefetch=False):
        cp = self._be.cp
        n = self.size
        m = max(1, min(n, piece or n))
        if n == 0 or (self._bases is not None and m == n
                      and all(isinstance(s, cp.ndarray) or not isinstance(s, RESTORABLE) for s in lst)):
            return [self._msm(s, None, None) for s in lst]
        src = []
        for s in lst:
            if isinstance(s, (*RESTORABLE, cp.ndarray)):
                if len(s) != n:
                    raise ValueError(f"{self.group.name} msm: {n} bases but {len(s)} scalars")
                src.append(s)
            else:
                limbs = _host_limbs(s, f"{self.group.name} msm scalars")
                if limbs.shape[0] != n:
                    raise ValueError(f"{self.group.name} msm: {n} bases but {limbs.shape[0]} scalars")
                src.append(_CanonLimbs(limbs))
        accs = [self.group.identity() for _ in lst]
        pieces = self._resident_pieces(m) if self._bases is not None else self._streamed_pieces(m)
        side = self._be.side_stream() if prefetch else None
        ahead = {}   # (lo, i) → (device slice, its copy's event), queued on the side stream

        def fetch(lo, i):   # a HostFr's slice lo: lo + m on the side stream, before the MSM it follows
            if side is not None and i < len(src) and lo < n and isinstance(src[i], HostFr):
                with side:
                    ahead[lo, i] = (self._be.restore(src[i], lo, min(n, lo + m)), side.record())

        fetch(0, 0)
        for lo, bases in pieces:
            hi = lo + int(bases.shape[0])
            sub = CUDAMSMContext(self._be, self.group, None, device_bases=bases)
            for i, s in enumerate(src):
                got = ahead.pop((lo, i), None)
                fetch(*((lo, i + 1) if i + 1 < len(src) else (hi, 0)))   # the previous slice is free: its MSM was combined
                if got is not None:
                    sc, ev = got
                    cp.cuda.get_current_stream().wait_event(ev)
                elif isinstance(s, RESTORABLE):
                    sc = self._be.restore(s, lo, hi)
                elif isinstance(s, _CanonLimbs):
                    sc = _CanonLimbs(s.limbs[lo:hi])
                else:
                    sc = self._be._check(s)[lo:hi]
                accs[i] = accs[i] + sub._combine(*sub.msm_device(sc), None)
                del sc
        self.last_chunks = -(-n // m)
        return accs

    def _resident_pieces(self, m: int):
        """(lo, device bases lo:lo + m) over the resident bases."""
        for lo in range(0, self.size, m):
            yield lo, self._bases[lo : lo + m]

    def _streamed_pieces(self, m: int):
        """(lo, device bases) per piece of m points of the host encodings, double-buffered
        (``pieces.feed_pieces``): a helper thread copies piece j + 1 (``_stage``: the mapped file
        through two pinned buffers, pages handed back) into the other device buffer on a side
        stream while the caller uses piece j on its stream; each piece is decoded (``_decode``)
        on the caller's stream before the caller gets it. Decoded on the side stream, a piece's
        kernel waited for free SMs behind the caller's MSM and held the next copies with it (a
        stream beside a kernel holding every SM: 0.3 s alone, 2.2 s with its decodes;
        benchmarks/stream_overlap, 2026-12-04-h200-stop37/call4). A device buffer is reloaded
        only after the caller's work on it (an event recorded when the caller asks for the next
        piece).

        Raises:
            ValueError: a compressed encoding in a piece, before the caller gets it (checked on
                the caller's stream right after the decode: the caller's MSM waits for it anyway).
        """
        cp = self._be.cp
        host, aw = self._host, self._aw
        side = self._be.side_stream()
        nb = min(2, max(1, -(-self.size // m)))
        bufs = [cp.empty((m, aw), dtype=cp.uint32) for _ in range(nb)]
        err = cp.zeros(1, dtype=cp.uint32)
        copied, sent, pending, staging = [None] * nb, [0] * nb, [None, None], self._staging_buffers(m)
        dev = self._be._device_id

        def load(b, lo, hi):   # copies only: a decode kernel here waits for the caller's MSM blocks
            with cp.cuda.Device(dev):
                sent[b] = self._stage(host, lo, hi, bufs[b], side, staging, pending)
                copied[b] = side.record()

        def used(b):
            return cp.cuda.get_current_stream().record()

        try:
            with gil_switch():   # the readers get the GIL back at once after each pread
                for b, lo, hi in feed_pieces(self.size, m, load, used, lambda ev: ev.synchronize(), nb):
                    cp.cuda.get_current_stream().wait_event(copied[b])
                    self._decode(bufs[b][: hi - lo], err)   # on the caller's stream, before its work
                    self._check_decoded(err)   # before an MSM meets a garbage point (it would fail off the curve)
                    self._be.bus_bytes += sent[b]   # counted in this thread (restore() counts here too)
                    yield lo, bufs[b][: hi - lo]
        finally:
            side.synchronize()

    def _combine(self, wins, ones, c: int, profile: dict | None):
        """Window sums (and the ones sum) from ``msm_device`` → the MSM's point (host, arkworks)."""
        t0 = time.perf_counter()
        pts = wins if ones is None else self._be.cp.concatenate([wins, ones])
        host = self._be._xyzz_to_points(pts, self.group)
        acc = self.group.identity()
        for p in reversed(host[: wins.shape[0]]):
            acc = self.group.mul(acc, 1 << c) + p
        if ones is not None:
            acc = acc + host[-1]
        if profile is not None:
            profile["host_combine"] = profile.get("host_combine", 0.0) + time.perf_counter() - t0
        return acc

    def close(self) -> None:
        """Drop the device (or host) bases (idempotent)."""
        self._closed = True
        self._bases = self._table = None
        self._host = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
