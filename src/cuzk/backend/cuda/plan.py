"""Device-memory planning of the ``cuda`` backend: pure arithmetic, no CuPy (tested on the CPU).

For each kernel family the peak device bytes it allocates (``msm_device_bytes``,
``ntt_device_bytes``, ``compute_h_device_bytes``) and the plan that fits a given room: the MSM's
window width (``msm_window``) and chunk size (``msm_chunk_points``), the fixed-base slice
(``fixed_base_slice``), the NTT's schedule (``ntt_memory_plan``: whole or split in blocks,
``ntt_split``) and ``compute_h``'s (``compute_h_memory_plan`` over ``H_SCHEDULES``). Sizes are
elements or points, results bytes. Imports only the standard library: ``cuzk.memory.device``
and CPU CI use it on machines without CuPy.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only
    from ...curve import Group

# NTT pass plan (must match ntt.cu)
_NTT_BLOCK_LOG = 10  # elements per shared-memory block: 2^10 (32 KiB)
_NTT_MAX_T = 8       # stages per non-final pass (leaves runs of ≥ 4 contiguous elements)
_NTT_MIN_BLOCK_LOG = 7   # the smallest block of any variant (ntt.NTT_VARIANTS): 2^7 elements


def _ntt_plan(k: int, block_log: int = _NTT_BLOCK_LOG, max_t: int = _NTT_MAX_T) -> list[tuple[int, int, int]]:
    """Passes (s_hi, t, c) of a 2^k NTT: stages s_hi..s_hi−t+1 on blocks of 2^(t+c) elements
    (2^block_log, or 2^k when smaller), at most ``max_t`` stages per pass before the last."""
    if k <= block_log:
        return [(k - 1, k, 0)]
    rest = k - block_log
    npass = -(-rest // max_t)
    ts = [rest // npass + (1 if i < rest % npass else 0) for i in range(npass)]
    plan, s_hi = [], k - 1
    for t in ts:
        plan.append((s_hi, t, block_log - t))
        s_hi -= t
    plan.append((block_log - 1, block_log, 0))
    return plan


_WIDE_C, _WIDE_FROM = 20, 1 << 25   # G1 at 2^25 and up: c = 20 (measured: msm_window's docstring)


def msm_window(n: int, group=None, busy: int | None = None) -> int:
    """Pippenger window width c for an n-point MSM: about log2(n) − 4, between 2 and 17; a G1
    MSM with 2^25 or more scalars other than 0 and 1 (the H query of a 32 GiB partition: 2^27
    random ones) takes c = 20. Mostly-bit scalars (the L and A queries: 0 and 1 never reach the
    buckets) keep the narrow rule: at c = 20 the 32 GiB partition's L and A MSMs took 0.135 and
    0.133 s against 0.089 and 0.094 s at c = 17 (call3 against 2026-12-03-h200/call14).

    17 divides 255 (15 windows cover the 254-bit scalars plus the signed-digit carry exactly), so the
    top window is as full as the others. c = 20 needs 13 windows, the top one of 14 bits whose few
    buckets are crowded: it alone takes the chunked path (``CUDAMSMContext._bucket_sums``). On the
    H200 (benchmarks/results/2026-12-04-h200/call2, G1, median of 3, c = 16…22): c = 20 is 918 against
    978 ms at 2^27 and 471 against 492 ms at 2^26, a tie at 2^25 (249 ms) and slower below
    (2^24: 137 against 128 ms); for G2 c = 17 was fastest at 2^22 and 2^24 (c = 20: 408 against
    396 ms), so G2 keeps the narrow rule. c = 21 and 22 were slower at every size. With the sort
    ahead on a side stream (``msm.OVERLAP_SORT``; benchmarks/results/2026-12-04-h200-stop39/call6,
    c = 17…22): c = 20 also wins at 2^25 (216.8 against 229.3 ms), c = 17 still at 2^24 (116.4
    against 120.9 ms); at 2^26 and 2^27 c = 20 (411, 798 ms), c = 22 next (459, 846 ms).

    Args:
        n: points in the MSM (or one chunk of it).
        group: G1/G2 (or its Fq words per coordinate, 1 or 2); None counts as G1.
        busy: how many scalars are neither 0 nor 1 (None: taken as n, an upper bound).
    """
    if (n if busy is None else busy) >= _WIDE_FROM and (group is None or _words_of(group) == 1):
        return _WIDE_C
    return max(2, min(17, max(n, 1).bit_length() - 1 - 4))


def window_by_scalars(n: int, group=None) -> bool:
    """Whether an n-point MSM's width depends on how many of its scalars are 0 or 1
    (:func:`msm_window`'s ``busy``): a G1 MSM of 2^25 points or more."""
    return msm_window(n, group) != msm_window(n, group, busy=0)


_CHUNK0 = 32   # entries per thread at the first level of the chunked (skewed) bucket path
_CHUNK = 16    # partial sums per thread at later levels
_FB_SLICE = 1 << 22           # fixed-base scalars per launch (bounds the work space: 1.2 GiB for G2)
_MIN_CHUNK_THREADS = 1 << 18  # the uniform bucket path halves its run length L until it has this many threads


def _coord_words(group: Group) -> int:
    """Fq elements per coordinate: 1 for G1, 2 for G2 (other groups are refused)."""
    if group.name not in ("G1", "G2"):
        raise ValueError(f"the cuda backend handles G1 and G2, got {group.name}")
    return group.coord_words


def _chunk_len(total: int, B: int) -> int:
    """Entries per thread of the uniform bucket path: the largest power of two ≤ the mean bucket
    size (≥ 8), halved while fewer than ``_MIN_CHUNK_THREADS`` threads would run."""
    L = 1 << max(3, (max(1, total // max(1, B))).bit_length() - 1)
    while L > 8 and total // L < _MIN_CHUNK_THREADS:
        L //= 2
    return L


AFFINE_K = 256
"""Output slots per thread of a batch-affine pair level (``msm_affine.cuh``): they share one
Fermat inversion (384 squarings and 229 products in Fq), about 2.4 products a slot at 256."""
AFFINE_MIN_THREADS = 1 << 15   # a level with fewer threads than this leaves the device half idle
AFFINE_MIN_MEAN = 8            # buckets averaging fewer entries go straight to the XYZZ sums


def affine_levels(total: int, B: int, K: int | None = None, min_threads: int | None = None,
                  min_mean: int | None = None) -> int:
    """Batch-affine pair levels to run over ``total`` bucket entries in B buckets before the XYZZ
    bucket sums: each level halves the entries (≈ total/2 + B/2 slots, an upper estimate), and
    runs while the buckets still average ``min_mean`` entries and the level would give at least
    ``min_threads`` threads K slots each. 0 when none would. The defaults are this module's
    ``AFFINE_K``, ``AFFINE_MIN_THREADS`` and ``AFFINE_MIN_MEAN``, read at each call (benchmarks
    vary them).
    """
    K = K or AFFINE_K
    min_threads = AFFINE_MIN_THREADS if min_threads is None else min_threads
    min_mean = AFFINE_MIN_MEAN if min_mean is None else min_mean
    levels, m = 0, total
    while B and m >= min_mean * B and (m // 2) // K >= min_threads:
        m = (m + B) // 2
        levels += 1
    return levels


# --- device-memory planning (pure arithmetic: no CuPy, tested on the CPU) ----------------------

MIN_MSM_CHUNK = 1 << 10
"""Fewest points per MSM chunk; an MSM whose chunk of this size does not fit raises GPUMemoryError."""
_POOL_SLACK = 1 << 20     # small arrays, CuPy's 512-byte rounding, cumsum/searchsorted scratch
_UPLOAD_SLICE = 1 << 20   # points per host → device slice when bases are uploaded and converted
_RESERVE_POINTS = 1 << 16 # a context keeps its bases resident only if an MSM chunk this large still fits


def _words_of(group) -> int:
    return group if isinstance(group, int) else _coord_words(group)


def _skewed_bytes(total: int, B: int, xb: int) -> int:
    """Device bytes of ``CUDAMSMContext._skewed_sums`` over ``total`` entries in B buckets (its
    first two levels of partial sums and their chunk tables; XYZZ points of xb bytes)."""
    c0 = -(-total // _CHUNK0) + B
    return (c0 + -(-c0 // _CHUNK) + B) * xb + c0 * 24 + 4 * (B + 1) * 4


def msm_device_bytes(n: int, group, c: int | None = None, upload_bases: bool = False, host_scalars: bool = True,
                     shifted: bool = False) -> int:
    """Peak device bytes that ``CUDAMSMContext.msm_device`` allocates for an n-point MSM, besides
    the resident bases and the caller's scalar array (an upper estimate).

    Args:
        n: points in the MSM (or in one chunk).
        group: G1/G2 (or its Fq words per coordinate: 1 or 2).
        c: window width (default ``msm_window(n)``).
        upload_bases: the chunk's bases are uploaded for it (bases not resident): adds them.
        host_scalars: the scalars come from the host (their canonical limbs are uploaded).
        shifted: over shifted bases (``shift_device_bytes``): one set of 2^(c-1) buckets shared
            by the windows, so B = 2^(c-1); c is then the table's width (default ``shift_window``).

    The phases: scalar preparation (canonical words, flags, uploaded limbs), the bucket sort
    (n·W entries, offsets), the bucket sums (B XYZZ buckets plus partial sums: the uniform path's
    B + n·W/L or the skewed path's first two levels, whichever is larger), the window reduction
    (≤ 7/4·B points) and the sum of the bases whose scalar is 1 (their index list and the skewed
    path's levels over it as one bucket); plus 1/8 and ``_POOL_SLACK``.
    """
    if n <= 0:
        return 0
    if c is None and window_by_scalars(n, group):   # either width
        return max(msm_device_bytes(n, group, msm_window(n, group, b), upload_bases, host_scalars) for b in (None, 0))
    k = _words_of(group)
    c = c or (shift_window(n) if shifted else msm_window(n, group))
    W = -(-255 // c)
    NB = 1 << (c - 1)
    B = NB if shifted else W * NB
    xb, ab = 192 * k, 96 * k               # bytes per XYZZ / affine point
    total = n * W                           # bucket entries
    scal = n * 33 + (n * 32 if host_scalars else 0)
    # entries (+ a run's offsets rebased, ``_bucket_sums``); by 64-bit keys also the keys and the
    # radix sort's second buffer of them (``SORT64_FROM``)
    sort = total * (20 if sorts_by_keys(n, group, shifted) else 4) + 6 * (B + 1) * 4
    L = _chunk_len(total, B)
    uniform = (B + -(-total // L)) * xb
    buckets = B * xb + max(uniform, _skewed_bytes(total, B, xb))
    window = B * xb * 7 // 4
    ones = n * 4 + _skewed_bytes(n, 1, xb) + W * xb   # the ones' index list, summed as one bucket
    bases = 2 * n * ab if upload_bases else 0
    peak = bases + scal + max(sort + buckets, window, ones)
    return peak + peak // 8 + _POOL_SLACK


SHIFT_C = {20: 17, 21: 20, 24: 22}
"""Window width of an MSM over shifted bases (``CUDAMSMContext.shift``) by the fewest log2 points
from which it applies (the largest key ≤ log2 n; smaller MSMs take ``msm_window``'s width). The
windows share one bucket set, so the reduction no longer grows with their number and a wider
window pays. Widths whose top window is a few bits (c = 21, 23: 2 or 3 bits) crowd a few buckets
with one entry per point and are not used. H100, G1, the same bases and scalars, ms (plain at
``msm_window``'s width / shifted at the width chosen): 2^20 11.43 / 9.67 (c = 17), 2^21 19.60 /
16.64 (20), 2^22 32.97 / 29.22 (20), 2^23 60.73 / 55.18 (20), 2^24 109.84 / 106.17 (22), 2^25
206.08 / 204.12 (22) (benchmarks/results/2026-12-05-stop47, calls 1 and 2). From 2^24 the sort,
whose bucket tails no longer stay in L2 and which cannot run ahead of the bucket sums (one bucket
set), eats most of the gain: 18.6 ms at 2^24 against 10.6 plain (less sorted by keys from 2^24:
``SORT64_FROM``)."""


SORT64_FROM = {"G1": 1 << 24, "G2": 0}
"""Per group, the fewest points from which an MSM over shifted bases sorts its entries by a
library radix sort of one 64-bit key per entry (bucket, sign, table row: ``msm_keys``, CuPy's
``ndarray.sort``; the offsets read off the sorted keys, ``msm_key_offsets``, the entries made from
them, ``msm_keys_vals``; 20 bytes of device memory per entry at the sort's peak) instead of the
counting sort (``msm_hist``, ``msm_scatter``, 4 bytes), whose one global atomic per entry into
2^(c−1) bucket tails no longer stays in L2 from c = 22; each bucket's entries then also come in
table-row order, which the bucket sums read faster. 0: never. H100, G1, side by side
(benchmarks/results/2026-12-05-stop48/call6, ``benchmarks/msm_shift/sort.py``): 2^24 at c = 22
100.34 against 105.85 ms, 2^25 192.80 against 203.98; in call 5 (the histogram still run) the sort
took 15.9 against 20.9 ms and the bucket sums 79.1 against 83.7 at 2^24, and both sorts were equal
at 2^22 and 2^23 (c = 20). G2 not measured. Read at each MSM."""


def sorts_by_keys(n: int, group, shifted: bool) -> bool:
    """Whether an n-point MSM sorts by 64-bit keys (``SORT64_FROM``): over shifted bases only."""
    from_n = SORT64_FROM.get(getattr(group, "name", "G1" if _words_of(group) == 1 else "G2"), 0)
    return shifted and 0 < from_n <= n


def shift_window(n: int) -> int:
    """``SHIFT_C``'s width for an n-point MSM over shifted bases (G1 or G2)."""
    log = max(n, 1).bit_length() - 1
    keys = [k for k in SHIFT_C if k <= log]
    return SHIFT_C[max(keys)] if keys else msm_window(n)


def shift_device_bytes(n: int, group, c: int) -> int:
    """Device bytes that shifting n resident bases to width c adds (``CUDAMSMContext.shift``): the
    table's W − 1 further copies of the bases (W = ⌈255/c⌉ windows, copy w holds 2^(w c) times each
    base) held from then on, plus, while it is built, one more copy (the bases moved into the
    table) and the work space of one slice of ``_FB_SLICE`` points (XYZZ results and running
    products); plus 1/8 and ``_POOL_SLACK``. The table's rows are 31-bit entry indices in the sort:
    raises ValueError when W·n ≥ 2^31."""
    k = _words_of(group)
    W = -(-255 // c)
    if W * n >= 1 << 31:
        raise ValueError(f"shifted bases: {W} windows of {n} points exceed the sort's 2^31 entry indices")
    ab, xb, fb = 96 * k, 192 * k, 48 * k
    m = min(n, _FB_SLICE)
    peak = W * n * ab + m * (xb + fb)
    return peak + peak // 8 + _POOL_SLACK


def msm_chunk_points(n: int, group, avail: int | None, c: int | None = None, upload_bases: bool = False,
                     host_scalars: bool = True) -> int:
    """Points per chunk so that one chunk's temporaries (``msm_device_bytes``) fit in ``avail``
    bytes: n when the whole MSM fits (or ``avail`` is None), else the largest size found by
    bisection within each range of equal window width, then evened out over the chunks it needs
    (⌈n / chunks⌉); 0 when not even ``min(n, MIN_MSM_CHUNK)`` points fit.
    """
    if n <= 0 or avail is None:
        return max(n, 0)
    return largest_fitting(n, lambda m: msm_device_bytes(m, group, c, upload_bases, host_scalars), avail)


def largest_fitting(n: int, need, avail: int, lo_bound: int = MIN_MSM_CHUNK) -> int:
    """The most points m ≤ n with ``need(m) ≤ avail`` bytes, for a ``need`` that grows with m within
    each range of equal MSM window width (it may drop where the width changes): n when it fits,
    else the largest size found by bisection within each such range [2^(b−1), 2^b), then evened
    out over the chunks it needs (⌈n / chunks⌉); 0 when not even ``min(n, lo_bound)`` fits."""
    if need(n) <= avail:
        return n
    lo_bound = min(n, lo_bound)
    if need(lo_bound) > avail:
        return 0
    best = lo_bound
    for b in range(lo_bound.bit_length(), n.bit_length() + 1):
        lo, hi = max(lo_bound, 1 << (b - 1)), min(n, (1 << b) - 1)
        if lo > hi or hi <= best:
            continue
        if need(lo) > avail:
            continue
        if need(hi) <= avail:
            best = max(best, hi)
            continue
        while hi - lo > 1:          # need(lo) fits, need(hi) does not
            mid = (lo + hi) // 2
            if need(mid) <= avail:
                lo = mid
            else:
                hi = mid
        best = max(best, lo)
    chunks = -(-n // best)
    even = -(-n // chunks)
    return even if even >= lo_bound and need(even) <= avail else best


def fixed_base_slice(k: int, avail: int | None) -> int:
    """Scalars per launch of ``fixed_base_mul`` (k Fq words per coordinate): ``_FB_SLICE``, or
    fewer (≥ 1024) so that the slice's scalars, work space, products and affine results (and the
    download copy) fit in ``avail`` bytes."""
    per_point = 32 + (48 + 12 + 24 + 24) * 4 * k
    if avail is None:
        return _FB_SLICE
    return max(1024, min(_FB_SLICE, (avail - _POOL_SLACK) // per_point))


def csr_width_bytes(nnz: int, ncoeffs: int) -> tuple[int, int]:
    """(bytes per row offset, bytes per coefficient id) of a matrix's streamed arrays (the "lean"
    and "host" H phases': ``SpMVOps._host_csr32``): 4-byte offsets below 2^32 entries (else 8),
    2-byte ids for tables of at most 2^16 coefficients (else 4). PoRep's tables hold about 1,500."""
    return (4 if nnz < 1 << 32 else 8), (2 if ncoeffs <= 1 << 16 else 4)


_FR_BYTES = 32              # one Fr element on the device: (4,) uint64, Montgomery
_STAGE_CHUNK = 1 << 20      # elements per host → device slice when compute_h streams staged evaluations
_SPLIT_MAX_CHUNK = 1 << 22  # elements per column/row block of a split NTT (larger blocks gain little)
H_SPLIT_HOST_PASSES = 15
"""Arrays of n elements the split ``compute_h`` moves over the bus when a, b, c are on the host
(``NTTOps._h_split``): per input its upload and the inverse NTT's download (6); for a and b the
forward NTT's upload and download (4); a·b's two uploads and its download (3); the last NTT's
upload (1); c's coefficients' upload to be subtracted (1)."""
NTT_SCHEDULES = ("whole", "split")
"""NTT schedules, most device memory first: one transform on the device (output plus a pass buffer),
or the split (four-step) transform in column/row blocks (output plus a few blocks)."""
H_SCHEDULES = ("fused", "staged", "split")
"""``compute_h`` schedules, most device memory first: a, b, c evaluated side by side on the device;
one at a time with finished evaluations staged on the host; split NTTs with everything staged."""

H_STAGED_HOST_PASSES = 4
"""Arrays of n elements the staged ``compute_h`` moves over the bus: a's and b's evaluations down,
and back up in slices for a·b − c."""


def compute_h_bus_arrays(schedule: str, inputs_on_host: bool = False) -> int:
    """Arrays of n elements (n × 32 bytes each) ``compute_h`` moves over the bus by schedule
    (``H_SCHEDULES``): "fused" none, "staged" ``H_STAGED_HOST_PASSES`` plus the three inputs'
    uploads when a, b, c start on the host (``compute_h_host``), "split"
    ``H_SPLIT_HOST_PASSES`` less those uploads when they start on the device.
    Measured on the H200 (benchmarks/results/2026-12-02-h200/stop15): at n = 2^27 the split
    schedule with device inputs took 16-21 s a partition against 0.44 s fused, so a plan that
    saves key transfers by splitting the H phase is a bad trade; counted, the planner sees it.

    Raises:
        ValueError: unknown schedule.
    """
    if schedule not in H_SCHEDULES:
        raise ValueError(f"compute_h schedule must be one of {H_SCHEDULES}, got {schedule!r}")
    if schedule == "fused":
        return 0
    if schedule == "staged":
        return H_STAGED_HOST_PASSES + (3 if inputs_on_host else 0)
    return H_SPLIT_HOST_PASSES - (0 if inputs_on_host else 3)


def _stage_step(n: int) -> int:
    """Elements per slice of the staged compute_h's a·b − c: ``_STAGE_CHUNK``, at most n/8."""
    return max(1, min(_STAGE_CHUNK, n // 8))


def ntt_split(n: int) -> tuple[int, int]:
    """(n1, n2) with n = n1·n2, n1 = 2^⌈k/2⌉ ≥ n2 = 2^⌊k/2⌋, of a split NTT of n = 2^k elements: n1
    transforms of length n2 over the columns of x viewed as an (n2, n1) row-major matrix, then n2
    of length n1 over the rows of the (n1, n2) result."""
    k = max(n, 1).bit_length() - 1
    return 1 << (k - k // 2), 1 << (k // 2)


def _ntt_fixed_bytes(n: int, split: bool, twiddles: bool) -> int:
    """Twiddles, factor tables and pool slack of an NTT of size n (bytes): the full-size twiddles
    (n/2 elements, cached per size; counted when ``twiddles``) unsplit, or the two factors' when
    split; up to four factor tables of 2^⌈k/2⌉ + 2^⌊k/2⌋ elements (coset powers, n⁻¹, twiddles)."""
    n1, n2 = ntt_split(n)
    if split:
        tw = (n1 + n2) // 2
    else:
        tw = n // 2 if twiddles else 0
    return (tw + 4 * (n1 + n2)) * _FR_BYTES + _POOL_SLACK


@functools.lru_cache(maxsize=256)   # pure; read at every small NTT (its host time is its launches)
def ntt_device_bytes(n: int, chunk: int = 0, twiddles: bool = True) -> int:
    """Peak device bytes an NTT (``ntt``/``coset_ntt``) of n = 2^k elements allocates besides its
    input (an upper estimate).

    Args:
        n: transform length.
        chunk: 0 for the whole transform on the device: the output, plus a buffer for the passes
            before the last when there are several (k > 10); else the split transform with blocks
            of ``chunk`` elements: the output plus two blocks (a gathered block and its transform).
        twiddles: the size's twiddles (n/2 elements) are not cached yet and count (unsplit only).

    The pass buffer is counted from 2^8 up (``_NTT_MIN_BLOCK_LOG``): every variant of
    ``ntt.NTT_VARIANTS`` runs its passes through one such buffer, with the same twiddle table and
    no other device arrays, so this stays an upper estimate whichever ``NTT_VARIANT`` runs.
    """
    if n <= 1:
        return n * _FR_BYTES
    if chunk:
        return (n + 2 * chunk) * _FR_BYTES + _ntt_fixed_bytes(n, True, twiddles)
    bufs = 2 if n.bit_length() - 1 > _NTT_MIN_BLOCK_LOG else 1
    return bufs * n * _FR_BYTES + _ntt_fixed_bytes(n, False, twiddles)


def compute_h_device_bytes(n: int, schedule: str = "fused", chunk: int = 0, twiddles: bool = True) -> int:
    """Peak device bytes ``CUDABackend.compute_h`` allocates for n = 2^k evaluations besides its
    inputs a, b, c (which the caller holds throughout): an upper estimate.

    Args:
        n: domain size (length of a, b, c).
        schedule: one of ``H_SCHEDULES``:
            "fused": 3 arrays of n (a's evaluations kept while b's are computed in two
            buffers; their product in a's, c's coefficients through b's into the third, the
            product's inverse NTT through a's into it);
            "staged": 2 arrays of n (the two buffers of one input's NTTs: a's and b's evaluations
            wait on the host) plus two slices (``_stage_step``: ≤ n/8) to stream them back;
            "split": 1 array of n (the result) plus three blocks of ``chunk`` elements (split NTTs
            in blocks, every intermediate array on the host; a·b − c from three uploaded slices).
        chunk: block size of the split schedule (elements; ignored by the others).
        twiddles: the size's twiddles (n/2 elements) are not cached yet (fused and staged).

    Raises:
        ValueError: unknown schedule, or "split" without a chunk.
    """
    if schedule not in H_SCHEDULES:
        raise ValueError(f"compute_h schedule must be one of {H_SCHEDULES}, got {schedule!r}")
    if n <= 0:
        return 0
    if schedule == "split":
        if chunk <= 0:
            raise ValueError("the split compute_h schedule needs a block size")
        return (n + 3 * chunk) * _FR_BYTES + _ntt_fixed_bytes(n, True, twiddles)
    if schedule == "fused":
        arrays = 3 * n
    else:
        arrays = 2 * n + 2 * _stage_step(n)
    return arrays * _FR_BYTES + _ntt_fixed_bytes(n, False, twiddles)


def compute_h_ab_device_bytes(n: int, stage_c: bool = False, twiddles: bool = True) -> int:
    """Peak device bytes of ``CUDABackend.compute_h_ab`` for n = 2^k evaluations, its inputs a and b
    included (it consumes them): a, b, c and a spare array (``stage_c``: three arrays, c waiting
    on the host), the NTT's factor tables and, when not cached yet, the size's twiddles."""
    if n <= 0:
        return 0
    return (3 if stage_c else 4) * n * _FR_BYTES + _ntt_fixed_bytes(n, False, twiddles)


def _split_chunk(n: int, avail: int, need) -> int:
    """Largest power-of-two block (elements) in [n1, min(n, _SPLIT_MAX_CHUNK)] with need(block) ≤
    avail; 0 when not even n1 (one row of the split NTT's second step) fits or n < 4."""
    n1, n2 = ntt_split(n)
    if n2 < 2:
        return 0
    c = max(n1, min(n, _SPLIT_MAX_CHUNK))
    while c >= n1:
        if need(c) <= avail:
            return c
        c //= 2
    return 0


def ntt_memory_plan(n: int, avail: int | None, twiddles: bool = True) -> tuple[str, int] | None:
    """How an NTT of n elements runs with ``avail`` free device bytes (None: unknown, no limit):
    ("whole", 0) when ``ntt_device_bytes(n)`` fits, else ("split", block) with the largest block
    that fits (``ntt_split``), else None (nothing fits: the caller raises GPUMemoryError)."""
    if avail is None or ntt_device_bytes(n, 0, twiddles) <= avail:
        return ("whole", 0)
    c = _split_chunk(n, avail, lambda c: ntt_device_bytes(n, c, twiddles))
    return ("split", c) if c else None


def compute_h_memory_plan(n: int, avail: int | None, twiddles: bool = True) -> tuple[str, int] | None:
    """The first of ``H_SCHEDULES`` whose ``compute_h_device_bytes`` fits in ``avail`` bytes
    (None: unknown, no limit → "fused"), as (schedule, block) with the split schedule's largest
    block that fits (0 for the others); None when not even the split one fits."""
    if avail is None:
        return ("fused", 0)
    for sched in ("fused", "staged"):
        if compute_h_device_bytes(n, sched, 0, twiddles) <= avail:
            return (sched, 0)
    c = _split_chunk(n, avail, lambda c: compute_h_device_bytes(n, "split", c, twiddles))
    return ("split", c) if c else None


def compact_device_bytes(file_bytes: int, num_aux: int) -> int:
    """Device bytes of an assignment kept as its witness file stores it (cuda ``CompactW``), from
    the file's section bytes (``witness_compact_bytes``): those, the is-a-bit mask padded to 32-bit
    words (at most 3 bytes more) and the rank table (4 bytes per word of the mask)."""
    return int(file_bytes) + 3 + 4 * (-(-int(num_aux) // 32))
