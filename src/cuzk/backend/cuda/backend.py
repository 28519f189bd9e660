"""The ``cuda`` backend: Fr arithmetic, NTTs, G1/G2 MSMs and fixed-base products on an NVIDIA GPU
through CuPy.

Device arrays are CuPy ``(n, 4)`` uint64 arrays of little-endian limbs in Montgomery form
(``x · 2^256 mod r``), C-contiguous. ``to_device`` checks and uploads canonical values and converts
them to Montgomery form on the GPU; ``to_host`` does the reverse.

What runs where: everything on the GPU (CUDA C in ``ntt.cu``, ``msm.cu``, ``spmv.cu`` and the
headers beside them, compiled by CuPy/NVRTC for the device's architecture and cached by CuPy):
``add``, ``sub``, ``mul``, ``scale``, ``powers``, ``pad``, ``select``, ``ntt`` (forward/inverse,
sizes 2^0..2^27), ``coset_ntt``, ``compute_h`` (iNTT → coset NTT → a·b − c → coset iNTT, with n⁻¹,
the coset powers and 1/Z fused into the NTT passes), ``spmv`` (CSR, a group of lanes per row, the
matrix and its Montgomery coefficient table cached on the device per matrix object),
``first_unsatisfied`` (a·b = c check, one atomicMin), ``msm_context(G1 or G2, …)`` (Pippenger with
signed windows, counting sort of bucket entries with atomics, XYZZ bucket sums with every thread
adding the same number of sorted entries, a levelled running-sum reduction; scalars equal to 1
summed apart; the last ≈⌈255/c⌉ window sums are combined on the host with arkworks; scalars may
be host ints or a device array) and ``fixed_base_mul`` (setup: 8-bit window tables of the base).
``msm.cu`` is compiled once per group: the curve formulas (``xyzz.cuh``) are templates over the
coordinate field, Fq (``g1.cuh``) or Fq2 (``g2.cuh``).

Device memory: ``CUDABackend(mem_limit=bytes)`` (``get_backend(..., gpu_mem_limit=...)``) caps CuPy's
default memory pool (``set_limit``; ``close`` restores the earlier limit). MSM contexts keep their
bases resident only when the bases plus an MSM chunk fit (else the host keeps them and each chunk
uploads its slice); an MSM whose temporaries (``msm_device_bytes``: n, window width, bucket and
partial-sum buffers) exceed what is free under the limit runs in chunks (``msm_chunk_points``)
whose partial sums are added, and halves its chunk on an out-of-memory. An NTT that does not fit
whole (``ntt_device_bytes``) runs split (four-step, in blocks: ``ntt_memory_plan``); ``compute_h``
picks the first of fused (4 arrays of n besides a, b, c), staged (2, evaluations waiting on the
host) or split (the result plus blocks) that fits (``compute_h_memory_plan``); same values. CuPy's
``OutOfMemoryError`` surfaces as ``cuzk.backend.GPUMemoryError`` (operation, bytes, limit) after
the pool's cached blocks are freed. ``gpu_peak_bytes`` is the most bytes of live arrays at any
allocation; ``gpu_pool_peak_bytes`` the pool's high-water mark (cached free blocks included).

Host → device conversion (``to_device``, host MSM scalars) classifies the values by bit length in
one pass: 0/1 (most of a witness) need no conversion, values below 2^64 go through numpy, only wider
ones through ``int.to_bytes``.

Kernel design notes (see the ``.cu`` files): Montgomery multiplication is CIOS over 32-bit limbs
with PTX ``mad.lo.cc``/``madc.hi.cc`` carry chains (2n² 32×32-bit products, n = 8 for Fr, 12 for
Fq, one IMAD.WIDE.U32.X each on sm_90), the running sum in two arrays by the parity of a product's
position (``ff.cuh``).
The NTT is decimation in frequency in shared memory, up to 10 radix-2 stages per launch on blocks
of 1024 elements (3 launches at 2^20..2^26), natural order in and out (the last pass writes to the
bit-reversed index); twiddles ``ω^j`` for each size are computed once on the GPU and cached.
"""

from __future__ import annotations

import functools
import hashlib
import os
import time
import weakref
from typing import Sequence

import gmpy2
import numpy as np

from ...curve import G1, Group
from ...field import FQ, FR, is_limb_array, limbs_below_modulus, to_limbs
from ..base import Backend, BackendUnavailableError, CSRMatrix, GPUMemoryError, MSMContext, PendingUpload, fixed_base_point

_R = FR.modulus
_Q = FQ.modulus
_MPZ = gmpy2.mpz
_RZ = _MPZ(_R)
_MONT_R = pow(2, 256, _R)

MAX_LOG_NTT = 27
"""Largest NTT size handled, as log2 (2^27 is the Filecoin 32 GiB sector domain)."""

_SRC_DIR = os.path.dirname(os.path.abspath(__file__))
_SOURCES = ("ff.cuh", "fr.cuh", "fq.cuh", "xyzz.cuh", "g1.cuh", "g2.cuh", "ntt.cu", "msm.cu", "spmv.cu")

# NTT pass flags (must match ntt.cu)
_NTT_PRE, _NTT_PRE_LO, _NTT_LAST, _NTT_INV, _NTT_POST, _NTT_POST_LO = 1, 2, 4, 8, 16, 32
_NTT_BLOCK_LOG = 10  # elements per shared-memory block: 2^10 (32 KiB)
_NTT_MAX_T = 8       # stages per non-final pass (leaves runs of ≥ 4 contiguous elements)
_SPMV_T_ROW = 4096   # most entries one lane group sums in ``spmv_t`` (longer columns are split)


def cuda_available() -> bool:
    """True when CuPy imports and sees at least one CUDA device (never raises)."""
    try:
        import cupy  # noqa: F401

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


def _cupy():
    try:
        import cupy
    except Exception as e:  # ImportError, or a CUDA library that fails to load
        raise BackendUnavailableError(f"backend 'cuda' is not available: CuPy cannot be imported ({e})") from None
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:
        raise BackendUnavailableError(f"backend 'cuda' is not available: no CUDA device ({e})") from None
    if count < 1:
        raise BackendUnavailableError("backend 'cuda' is not available: CuPy sees no CUDA device")
    return cupy


# --- kernel modules -----------------------------------------------------------------------------

_MODULES: dict = {}

_MSM_OPTIONS = {"G1": (), "G2": ("-DMSM_G2",)}
"""Extra compiler options of ``msm.cu`` per group: the file is compiled once per group (the curve
code is templated over the coordinate field, F = Fq for G1 and Fq2 for G2, ``MSM_G2`` picks it)."""


def _module(name: str, group: str | None = None):
    """The compiled CuPy RawModule of ``name`` (``ntt.cu``, ``spmv.cu``, or ``msm.cu`` for
    ``group`` "G1" or "G2"), compiled once per process.

    The source is read from this package's directory and compiled with ``-I`` pointing there; a
    digest of all headers is appended as a comment so that CuPy's on-disk cache (keyed by the code
    and options) is invalidated when a header changes.
    """
    key = (name, group)
    mod = _MODULES.get(key)
    if mod is None:
        cp = _cupy()
        digest = hashlib.sha256()
        for f in _SOURCES:
            with open(os.path.join(_SRC_DIR, f), "rb") as fh:
                digest.update(fh.read())
        with open(os.path.join(_SRC_DIR, name)) as fh:
            code = fh.read() + f"\n// cuzk sources sha256 {digest.hexdigest()}\n"
        extra = _MSM_OPTIONS[group or "G1"] if name == "msm.cu" else ()
        mod = cp.RawModule(code=code, options=("-std=c++17", f"-I{_SRC_DIR}", *extra))
        _MODULES[key] = mod
    return mod


def _kernel(module: str, name: str, group: str | None = None):
    return _module(module, group).get_function(name)


def _grid(n: int, block: int) -> int:
    return max(1, min((n + block - 1) // block, 1 << 20))


def _u64(x: int):
    return np.uint64(x)


def _i32(x: int):
    return np.int32(x)


def _u32(x: int):
    return np.uint32(x)


# --- host helpers -------------------------------------------------------------------------------


def _host_ints(values, what: str) -> list[int]:
    """Ints (sequence, int array, numpy integer array) → list of Python ints checked in [0, r)."""
    if isinstance(values, np.ndarray):
        if values.ndim != 1:
            raise ValueError(f"{what}: expected a 1-D sequence, got shape {values.shape}")
        if values.dtype != object and values.dtype.kind not in "iu":
            raise TypeError(f"{what}: expected integers, got dtype {values.dtype}")
        vals = values.tolist()
    else:
        vals = list(values)
    out = []
    for i, v in enumerate(vals):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer, type(_MPZ(0)))):
            raise TypeError(f"{what}: Fr element must be an integer, got {type(v).__name__} at index {i}")
        v = int(v)
        if not 0 <= v < _R:
            raise ValueError(f"{what}: value at index {i} is not in [0, r)")
        out.append(v)
    return out


def _fr_limbs(ints: Sequence[int]) -> np.ndarray:
    if not len(ints):
        return np.zeros((0, 4), dtype=np.uint64)
    return to_limbs(ints, 4)


_FAST_TYPES = frozenset((int, type(_MPZ(0))))
_bit_length = gmpy2.bit_length


def _host_limbs(values, what: str) -> np.ndarray:
    """Ints (sequence, int array, numpy integer array) → ``(n, 4)`` uint64 canonical limbs, each
    value checked in [0, r); the same results and errors as ``_fr_limbs(_host_ints(values))``.

    Fast path for Python ints and mpz (a witness: mostly 0/1): one pass of ``gmpy2.bit_length``
    classifies the values; 0 and 1 are their own bit length (no conversion), values below 2^64
    go through ``np.fromiter``, and only the wider ones through ``to_bytes``. Anything else
    (bools, floats, numpy scalars, out-of-range values) takes the checked element-by-element path,
    which raises the precise error.
    """
    if is_limb_array(values):   # already limbs (a witness read by read_witness_limbs)
        ok = limbs_below_modulus(values)
        if not ok.all():
            raise ValueError(f"{what}: value at index {int(np.flatnonzero(~ok)[0])} is not in [0, r)")
        return np.ascontiguousarray(values)
    if isinstance(values, np.ndarray):
        if values.ndim != 1:
            raise ValueError(f"{what}: expected a 1-D sequence, got shape {values.shape}")
        if values.dtype.kind in "iu":
            if values.size and values.dtype.kind == "i" and int(values.min()) < 0:
                return _fr_limbs(_host_ints(values, what))  # raises, naming the index
            out = np.zeros((values.shape[0], 4), dtype=np.uint64)
            out[:, 0] = values.astype(np.uint64)
            return out
        if values.dtype != object:
            raise TypeError(f"{what}: expected integers, got dtype {values.dtype}")
        obj = values
        vals = values.tolist()
    else:
        vals = list(values)
        obj = None
    n = len(vals)
    out = np.zeros((n, 4), dtype=np.uint64)
    if n == 0:
        return out
    if not set(map(type, vals)) <= _FAST_TYPES or min(vals) < 0:
        return _fr_limbs(_host_ints(vals, what))
    bl = np.fromiter(map(_bit_length, vals), dtype=np.int32, count=n)
    if int(bl.max()) > 255:
        return _fr_limbs(_host_ints(vals, what))
    if obj is None:
        obj = np.empty(n, dtype=object)
        obj[:] = vals
    out[:, 0] = np.where(bl <= 1, bl, 0).astype(np.uint64)
    mid = np.flatnonzero((bl > 1) & (bl < 64))
    if len(mid):
        out[mid, 0] = np.fromiter(map(int, obj[mid].tolist()), dtype=np.uint64, count=len(mid))
    big = np.flatnonzero(bl >= 64)
    if len(big):
        bigv = obj[big].tolist()
        if int(bl[big].max()) == 255 and max(bigv) >= _R:
            return _fr_limbs(_host_ints(vals, what))
        raw = b"".join([v.to_bytes(32, "little") for v in bigv])
        out[big] = np.frombuffer(raw, dtype="<u8").reshape(len(big), 4)
    return out


_BITS_MPZ = np.empty(2, dtype=object)
_BITS_MPZ[0], _BITS_MPZ[1] = _MPZ(0), _MPZ(1)  # element-wise: a slice assignment would store ints


def _limbs_to_mpz(arr: np.ndarray) -> np.ndarray:
    """``(n, 4)`` uint64 canonical limbs → 1-D int array of mpz (as ``from_limbs``); 0 and 1 are
    filled in vectorized (shared mpz objects), only the other values are converted one by one."""
    arr = np.ascontiguousarray(arr, dtype="<u8")
    n = arr.shape[0]
    if n == 0:
        return np.empty(0, dtype=object)
    lo = arr[:, 0]
    rest = (lo > 1) | arr[:, 1:].any(axis=1)
    out = _BITS_MPZ[np.where(rest, 0, lo).astype(np.intp)]
    idx = np.flatnonzero(rest)
    if len(idx):
        raw = arr[idx].tobytes()
        frm = _MPZ.from_bytes
        out[idx] = [frm(raw[i : i + 32], "little") for i in range(0, len(raw), 32)]
    return out


def _limbs_to_ints(arr: np.ndarray) -> list[int]:
    raw = np.ascontiguousarray(arr).tobytes()
    w = arr.shape[1] * arr.dtype.itemsize
    return [int.from_bytes(raw[i : i + w], "little") for i in range(0, len(raw), w)]


def _ntt_plan(k: int) -> list[tuple[int, int, int]]:
    """Passes (s_hi, t, c) of a 2^k NTT: stages s_hi..s_hi−t+1 on blocks of 2^(t+c) elements."""
    if k <= _NTT_BLOCK_LOG:
        return [(k - 1, k, 0)]
    rest = k - _NTT_BLOCK_LOG
    npass = -(-rest // _NTT_MAX_T)
    ts = [rest // npass + (1 if i < rest % npass else 0) for i in range(npass)]
    plan, s_hi = [], k - 1
    for t in ts:
        plan.append((s_hi, t, _NTT_BLOCK_LOG - t))
        s_hi -= t
    plan.append((_NTT_BLOCK_LOG - 1, _NTT_BLOCK_LOG, 0))
    return plan


def msm_window(n: int) -> int:
    """Pippenger window width c for an n-point MSM: about log2(n) − 4, between 2 and 17.

    17 divides 255 (15 windows cover the 254-bit scalars plus the signed-digit carry exactly), so the
    top window is as full as the others; wider windows leave a top window of a few bits whose few
    buckets receive n/2^bits points each (handled by the chunked path, but wasted work).
    """
    return max(2, min(17, max(n, 1).bit_length() - 1 - 4))


_CHUNK0 = 32   # entries per thread at the first level of the chunked (skewed) bucket path
_CHUNK = 16    # partial sums per thread at later levels
_SEG = 4       # entries per thread at each level of the window reduction
_FB_C, _FB_WINDOWS = 8, 32    # fixed-base table: 8-bit windows, 32 of them cover 256 bits
_FB_SLICE = 1 << 22           # fixed-base scalars per launch (bounds the work space: 1.2 GiB for G2)
_MIN_CHUNK_THREADS = 1 << 18  # the uniform bucket path halves its run length L until it has this many threads


def _coord_words(group: Group) -> int:
    """Fq elements per coordinate: 1 for G1, 2 for G2 (other groups are refused)."""
    if group.name not in ("G1", "G2"):
        raise ValueError(f"the cuda backend handles G1 and G2, got {group.name}")
    return group.coord_words


def _encoding_to_limbs(group: Group, raw: np.ndarray) -> np.ndarray:
    """(n, 96 k) uint8 uncompressed encodings → (n, 24 k) uint32 canonical little-endian limbs in
    device order (x then y; over Fq2 c0 then c1), the point at infinity as zeros."""
    k = _coord_words(group)
    raw = np.ascontiguousarray(raw, dtype=np.uint8)
    if raw.ndim != 2 or raw.shape[1] != group.uncompressed_size:
        raise ValueError(f"{group.name} bases must have shape (n, {group.uncompressed_size}), got {raw.shape}")
    n = raw.shape[0]
    if n and np.any(raw[:, 0] & 0x80):
        raise ValueError(f"{group.name} bases: compressed encoding in an uncompressed array")
    inf = (raw[:, 0] & 0x40) != 0
    body = raw.copy()
    body[:, 0] &= 0x1F
    words = body.reshape(n, 2 * k, 48)[:, :, ::-1]        # each big-endian Fq word, little-endian
    if k == 2:
        words = words[:, [1, 0, 3, 2], :]                 # zcash writes c1 ‖ c0
    le = np.ascontiguousarray(words).view("<u4").reshape(n, 24 * k)
    le[inf] = 0
    return le.astype(np.uint32)


def _limbs_to_encoding(group: Group, canon: np.ndarray) -> np.ndarray:
    """Inverse of ``_encoding_to_limbs``: (n, 24 k) uint32 canonical → (n, 96 k) uint8 uncompressed."""
    k = _coord_words(group)
    n = canon.shape[0]
    words = np.ascontiguousarray(canon).view(np.uint8).reshape(n, 2 * k, 48)
    if k == 2:
        words = words[:, [1, 0, 3, 2], :]
    out = np.ascontiguousarray(words[:, :, ::-1]).reshape(n, 96 * k)
    inf = ~out.any(axis=1)
    out[inf, 0] = 0x40
    return out


def _f2_mul(a, b):
    return ((a[0] * b[0] - a[1] * b[1]) % _Q, (a[0] * b[1] + a[1] * b[0]) % _Q)


def _f2_inv(a):
    t = int(gmpy2.invert((a[0] * a[0] + a[1] * a[1]) % _Q, _Q))
    return (a[0] * t % _Q, -a[1] * t % _Q)


def _chunk_len(total: int, B: int) -> int:
    """Entries per thread of the uniform bucket path: the largest power of two ≤ the mean bucket
    size (≥ 8), halved while fewer than ``_MIN_CHUNK_THREADS`` threads would run."""
    L = 1 << max(3, (max(1, total // max(1, B))).bit_length() - 1)
    while L > 8 and total // L < _MIN_CHUNK_THREADS:
        L //= 2
    return L


# --- device-memory planning (pure arithmetic: no CuPy, tested on the CPU) ----------------------

MIN_MSM_CHUNK = 1 << 10
"""Fewest points per MSM chunk; an MSM whose chunk of this size does not fit raises GPUMemoryError."""
_POOL_SLACK = 1 << 20     # small arrays, CuPy's 512-byte rounding, cumsum/searchsorted scratch
_UPLOAD_SLICE = 1 << 20   # points per host → device slice when bases are uploaded and converted
_RESERVE_POINTS = 1 << 16 # a context keeps its bases resident only if an MSM chunk this large still fits


def _words_of(group) -> int:
    return group if isinstance(group, int) else _coord_words(group)


def msm_device_bytes(n: int, group, c: int | None = None, upload_bases: bool = False, host_scalars: bool = True) -> int:
    """Peak device bytes that ``CUDAMSMContext.msm_device`` allocates for an n-point MSM, besides
    the resident bases and the caller's scalar array (an upper estimate).

    Args:
        n: points in the MSM (or in one chunk).
        group: G1/G2 (or its Fq words per coordinate: 1 or 2).
        c: window width (default ``msm_window(n)``).
        upload_bases: the chunk's bases are uploaded for it (bases not resident): adds them.
        host_scalars: the scalars come from the host (their canonical limbs are uploaded).

    The phases: scalar preparation (canonical words, flags, uploaded limbs), the bucket sort
    (n·W entries, offsets), the bucket sums (B XYZZ buckets plus partial sums: the uniform path's
    B + n·W/L or the skewed path's first two levels, whichever is larger), the window reduction
    (≤ 7/4·B points) and the sum of bit-valued scalars; plus 1/8 and ``_POOL_SLACK``.
    """
    if n <= 0:
        return 0
    k = _words_of(group)
    c = c or msm_window(n)
    W = -(-255 // c)
    NB = 1 << (c - 1)
    B = W * NB
    xb, ab = 192 * k, 96 * k               # bytes per XYZZ / affine point
    total = n * W                           # bucket entries
    scal = n * 33 + (n * 32 if host_scalars else 0)
    sort = total * 4 + 5 * (B + 1) * 4
    L = _chunk_len(total, B)
    uniform = (B + -(-total // L)) * xb
    c0 = -(-total // _CHUNK0) + B
    skewed = (c0 + -(-c0 // _CHUNK) + B) * xb + c0 * 24 + 4 * (B + 1) * 4
    buckets = B * xb + max(uniform, skewed)
    window = B * xb * 7 // 4
    ones = 2 * -(-n // 32) * xb + W * xb
    bases = 2 * n * ab if upload_bases else 0
    peak = bases + scal + max(sort + buckets, window, ones)
    return peak + peak // 8 + _POOL_SLACK


def prove_device_bytes(stats: dict, density_a: int | None = None, density_b: int | None = None,
                       staged: bool = False) -> dict:
    """Device bytes one Groth16 proof of a partition needs on the cuda backend with its key
    resident (the memory model of the GPU ``prove`` step; an upper estimate, no memory limit).

    Args:
        stats: the shape's numbers (``shape.stats()`` or ``R1CS.stats()``): inputs, aux,
            constraints, domain, nnz_a, nnz_b, nnz_c.
        density_a, density_b: variables in the A and B queries (default: every variable).
        staged: the next assignment is uploaded while this proof runs (``prove_batch``).

    Returns:
        dict of bytes: "bases" (H, L, A, B_G1 affine G1 at 96 B; B_G2 at 192 B), "pce" (the
        A, B, C index arrays and row offsets kept on the device), "witness" (w, 32 B per
        variable), "h_phase" (a, b, c, their padded copies and ``compute_h``'s fused schedule),
        "msm_phase" (the largest MSM's temporaries beside the H, A, B and L scalars), "staged"
        (a second w when ``staged``), and "peak" = bases + pce + witness + staged +
        max(h_phase, msm_phase).
    """
    nv = stats["inputs"] + stats["aux"]
    rows, n = stats["constraints"], stats["domain"]
    da = nv if density_a is None else density_a
    db = nv if density_b is None else density_b
    bases = ((n - 1) + stats["aux"] + da + db) * 96 + db * 192
    nnz = stats["nnz_a"] + stats["nnz_b"] + stats["nnz_c"]
    pce = nnz * 8 + 3 * (rows + 1) * 8
    witness = nv * _FR_BYTES
    h_phase = 3 * rows * _FR_BYTES + 3 * n * _FR_BYTES + compute_h_device_bytes(n, "fused")
    # the H, A, B and L scalar arrays all live through the MSMs (the prover selects them first)
    msm_phase = (n - 1 + da + db + stats["aux"]) * _FR_BYTES + max(
        msm_device_bytes(n - 1, G1, host_scalars=False), msm_device_bytes(db, 2, host_scalars=False))
    out = {"bases": bases, "pce": pce, "witness": witness, "staged": witness if staged else 0,
           "h_phase": h_phase, "msm_phase": msm_phase}
    out["peak"] = bases + pce + witness + out["staged"] + max(h_phase, msm_phase)
    return out


def msm_chunk_points(n: int, group, avail: int | None, c: int | None = None, upload_bases: bool = False,
                     host_scalars: bool = True) -> int:
    """Points per chunk so that one chunk's temporaries (``msm_device_bytes``) fit in ``avail``
    bytes: n when the whole MSM fits (or ``avail`` is None), else the largest size found by
    bisection within each range of equal window width, then evened out over the chunks it needs
    (⌈n / chunks⌉); 0 when not even ``min(n, MIN_MSM_CHUNK)`` points fit.
    """
    if n <= 0 or avail is None:
        return max(n, 0)

    def need(m):
        return msm_device_bytes(m, group, c, upload_bases, host_scalars)

    if need(n) <= avail:
        return n
    lo_bound = min(n, MIN_MSM_CHUNK)
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


_FR_BYTES = 32              # one Fr element on the device: (4,) uint64, Montgomery
_STAGE_CHUNK = 1 << 20      # elements per host → device slice when compute_h streams staged evaluations
_SPLIT_MAX_CHUNK = 1 << 22  # elements per column/row block of a split NTT (larger blocks gain little)
NTT_SCHEDULES = ("whole", "split")
"""NTT schedules, most device memory first: one transform on the device (output plus a pass buffer),
or the split (four-step) transform in column/row blocks (output plus a few blocks)."""
H_SCHEDULES = ("fused", "staged", "split")
"""``compute_h`` schedules, most device memory first: a, b, c evaluated side by side on the device;
one at a time with finished evaluations staged on the host; split NTTs with everything staged."""


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


def ntt_device_bytes(n: int, chunk: int = 0, twiddles: bool = True) -> int:
    """Peak device bytes an NTT (``ntt``/``coset_ntt``) of n = 2^k elements allocates besides its
    input (an upper estimate).

    Args:
        n: transform length.
        chunk: 0 for the whole transform on the device: the output, plus a buffer for the passes
            before the last when there are several (k > 10); else the split transform with blocks
            of ``chunk`` elements: the output plus two blocks (a gathered block and its transform).
        twiddles: the size's twiddles (n/2 elements) are not cached yet and count (unsplit only).
    """
    if n <= 1:
        return n * _FR_BYTES
    if chunk:
        return (n + 2 * chunk) * _FR_BYTES + _ntt_fixed_bytes(n, True, twiddles)
    bufs = 2 if len(_ntt_plan(n.bit_length() - 1)) > 1 else 1
    return bufs * n * _FR_BYTES + _ntt_fixed_bytes(n, False, twiddles)


def compute_h_device_bytes(n: int, schedule: str = "fused", chunk: int = 0, twiddles: bool = True) -> int:
    """Peak device bytes ``CUDABackend.compute_h`` allocates for n = 2^k evaluations besides its
    inputs a, b, c (which the caller holds throughout): an upper estimate.

    Args:
        n: domain size (length of a, b, c).
        schedule: one of ``H_SCHEDULES``:
            "fused": 4 arrays of n (two evaluations kept while the third is computed in two
            buffers; then a·b − c into the spare one, whose inverse NTT ends in a freed one);
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
        arrays = 4 * n
    else:
        arrays = 2 * n + 2 * _stage_step(n)
    return arrays * _FR_BYTES + _ntt_fixed_bytes(n, False, twiddles)


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


# --- MSM ----------------------------------------------------------------------------------------


class CUDAMSMContext(MSMContext):
    """G1 or G2 bases resident in GPU memory (affine, Montgomery Fq, (0, 0) = infinity): G1 points
    are (n, 24) uint32 (x, y), G2 points (n, 48) uint32 (x.c0, x.c1, y.c0, y.c1).

    Built by ``CUDABackend.msm_context(group, bases)``; ``msm`` takes host int arrays or cuda device
    arrays of Fr scalars. The bases are not re-validated (the interface's contract: already
    checked); only the encoding's shape and flags are read. Both groups run the same kernels
    (``msm.cu`` compiled per group).
    """

    def __init__(self, backend: "CUDABackend", group: Group, bases: np.ndarray | None, device_bases=None,
                 resident: bool | None = None):
        k = _coord_words(group)
        self.group = group
        self._g = group.name
        self._aw, self._xw = 24 * k, 48 * k    # uint32 words per affine / XYZZ point
        self._be = backend
        self._closed = False
        self._host = None                      # (n, aw) uint32 canonical limbs when not resident
        self.last_chunks = 0                   # chunks the last msm ran in (1 = whole)
        if device_bases is not None:
            if device_bases.ndim != 2 or device_bases.shape[1] != self._aw:
                raise ValueError(f"{group.name} device bases must be (n, {self._aw}) uint32")
            self._bases = device_bases
            self.size = int(device_bases.shape[0])
            return
        canon = _encoding_to_limbs(group, bases)
        n = canon.shape[0]
        self.size = int(n)
        if resident is None:   # resident when the bases and one MSM chunk of reasonable size fit
            need = n * self._aw * 4 + min(n, _UPLOAD_SLICE) * self._aw * 4 + msm_device_bytes(min(n, _RESERVE_POINTS), k)
            avail = backend._mem_avail(need)
            resident = avail is None or need <= avail
        if not resident:
            self._host = canon
            self._bases = None
            return
        self._bases = self._upload(canon)

    def _upload(self, canon: np.ndarray):
        """(m, aw) uint32 canonical limbs (host) → device affine Montgomery array, converted in
        slices of ``_UPLOAD_SLICE`` points (one slice of canonical limbs on the device at a time)."""
        cp = self._be.cp
        m = canon.shape[0]
        out = cp.empty((m, self._aw), dtype=cp.uint32)
        words = self._aw // 12                 # Fq elements per point
        for lo in range(0, m, _UPLOAD_SLICE):
            hi = min(m, lo + _UPLOAD_SLICE)
            part = cp.asarray(canon[lo:hi])
            self._k("fq_to_mont")((_grid(words * (hi - lo), 256),), (256,), (part, out[lo:hi], _u64(words * (hi - lo))))
            del part
        return out

    @property
    def resident(self) -> bool:
        """True when the bases live in device memory (else they are uploaded per MSM chunk)."""
        return self._bases is not None

    def _k(self, name: str):
        return _kernel("msm.cu", name, self._g)

    @classmethod
    def from_device_affine(cls, backend: "CUDABackend", arr, group: Group = G1) -> "CUDAMSMContext":
        """Context over an existing device array of affine points ((n, 24) uint32 for G1, (n, 48)
        for G2, Montgomery)."""
        return cls(backend, group, None, device_bases=arr)

    def _scalars_device(self, scalars):
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
        if n:
            self._k("msm_prep")((_grid(n, 256),), (256,), (src, _i32(from_mont), sc_can, flags, _u64(n)))
        return sc_can, flags

    def _reduce(self, pts, count: int, per: int):
        """Sum consecutive groups of ``per`` XYZZ points: (count, xw) → (ceil(count/per), xw)."""
        cp = self._be.cp
        groups = -(-count // per)
        out = cp.empty((groups, self._xw), dtype=cp.uint32)
        self._k("xyzz_sum_groups")((_grid(groups, 128),), (128,), (pts, _u64(count), _u32(per), _u64(groups), out))
        return out

    def _bucket_sums(self, vals, offs, B: int):
        """(B, xw) XYZZ bucket sums from the sorted entries ``vals`` and offsets ``offs`` (B + 1).

        When the largest bucket is at most twice the average (+64): every thread adds L sorted
        entries (``_chunk_len``) and writes one partial sum per bucket it touches, then one thread
        per bucket adds its partial sums. Otherwise (skewed scalars: equal values, a short top
        window) chunks of ``_CHUNK0`` entries of one bucket per thread, then levels summing
        ``_CHUNK`` partials per thread until each bucket has one.
        """
        cp = self._be.cp
        buckets = cp.empty((B, self._xw), dtype=cp.uint32)
        counts = offs[1:] - offs[:-1]
        maxc = int(counts.max()) if B else 0
        total = int(offs[-1]) if B else 0
        if maxc <= 2 * (total // max(1, B)) + 64:
            L = _chunk_len(total, B)
            nchunks = -(-total // L)
            part = cp.empty((B + nchunks, self._xw), dtype=cp.uint32)
            if nchunks:
                self._k("msm_bucket_chunks")(
                    (_grid(nchunks, 128),), (128,), (vals, offs, _u32(B), _u32(total), _u32(L), self._bases, part)
                )
            self._k("msm_bucket_pieces")((_grid(B, 128),), (128,), (part, offs, _u32(B), _u32(L), buckets))
            return buckets
        src, L, level = None, _CHUNK0, 0
        while True:
            nch = (counts + (L - 1)) // L
            ch_off = cp.zeros(B + 1, dtype=cp.uint32)
            ch_off[1:] = cp.cumsum(nch, dtype=cp.uint32)
            nchunks = int(ch_off[-1])
            chunk_bucket = cp.searchsorted(ch_off[1:], cp.arange(nchunks, dtype=cp.uint32), side="right").astype(cp.uint32)
            out = cp.empty((max(1, nchunks), self._xw), dtype=cp.uint32)
            if level == 0:
                self._k("msm_chunk_acc")(
                    (_grid(nchunks, 128),), (128,),
                    (vals, offs, ch_off, chunk_bucket, _u32(L), _u64(nchunks), self._bases, out),
                )
            else:
                self._k("xyzz_chunk_sum")(
                    (_grid(nchunks, 128),), (128,), (src, offs, ch_off, chunk_bucket, _u32(L), _u64(nchunks), out)
                )
            maxc = -(-maxc // L)
            src, offs, counts = out, ch_off, nch
            if maxc <= 1:
                self._k("msm_bucket_gather")((_grid(B, 256),), (256,), (src, offs, _u64(B), buckets))
                return buckets
            L, level = _CHUNK, level + 1

    def _window_sums(self, buckets, NB: int, W: int):
        """(W, xw): per window w, Σ_b (b + 1)·buckets[w·NB + b], by levels of ``msm_seg_reduce``
        (each level one launch, ``_SEG`` times shorter)."""
        cp = self._be.cp
        X, Y, L, e = None, buckets, NB, 1
        while L > 1:
            SL = min(_SEG, L)
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

    def msm_device(self, scalars, c: int | None = None, profile: dict | None = None):
        """Run the GPU part; returns (window sums (W, xw) uint32 XYZZ Montgomery, ones sum (1, xw) or None, c).

        With a ``profile`` dict, the device is synchronized after each phase and the phase's wall
        seconds are added under its name (prep, sort, buckets, reduce, ones): for benchmarks only.
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

        c = c or msm_window(n)
        W = -(-255 // c)
        NB = 1 << (c - 1)
        B = W * NB
        sc, flags = self._scalars_device(scalars)
        mark("prep")
        counts = cp.zeros(B, dtype=cp.uint32)
        self._k("msm_hist")((_grid(n, 256),), (256,), (sc, _u64(n), _i32(c), _i32(W), counts))
        offs = cp.zeros(B + 1, dtype=cp.uint32)
        offs[1:] = cp.cumsum(counts, dtype=cp.uint32)
        cursor = offs[:-1].copy()
        vals = cp.empty(max(1, n * W), dtype=cp.uint32)
        self._k("msm_scatter")((_grid(n, 256),), (256,), (sc, flags, _u64(n), _i32(c), _i32(W), cursor, vals))
        del counts, cursor
        mark("sort")
        buckets = self._bucket_sums(vals, offs, B)
        del vals, offs
        mark("buckets")
        wins = self._window_sums(buckets, NB, W)
        del buckets
        mark("reduce")
        ones = None
        if n and int(cp.count_nonzero(flags & 1)):
            per = 32
            groups = -(-n // per)
            part = cp.empty((groups, self._xw), dtype=cp.uint32)
            self._k("msm_ones")((_grid(groups, 128),), (128,), (flags, self._bases, _u64(n), _u32(per), _u64(groups), part))
            while part.shape[0] > 1:
                part = self._reduce(part, part.shape[0], 16)
            ones = part
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
        upload = self._bases is None
        avail = self._be._mem_avail(msm_device_bytes(n, self.group, c, upload_bases=upload, host_scalars=not on_device))
        m = msm_chunk_points(n, self.group, avail, c, upload_bases=upload, host_scalars=not on_device)
        oom = self._be._oom_type()
        if m == n and not upload:
            whole = requested = None
            try:
                whole = self._combine(*self.msm_device(scalars, c=c, profile=profile), profile)
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
                bases = self._upload(self._host[lo:hi]) if upload else self._bases[lo:hi]
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
        self._bases = None
        self._host = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


_UPLOAD_CHUNK_BYTES = 64 << 20
"""Size of each of the two pinned host buffers ``to_device_async`` copies through."""


class _PendingCUDAUpload(PendingUpload):
    """An upload queued on a side stream (``event`` marks its end), or, when ``array`` is None,
    host limbs whose upload was deferred to ``ready``."""

    __slots__ = ("backend", "limbs", "event")

    def __init__(self, backend: "CUDABackend", array, limbs: np.ndarray | None, event=None):
        nbytes = int(limbs.nbytes) if limbs is not None else int(array.nbytes)
        super().__init__(array, nbytes)
        self.backend, self.limbs, self.event = backend, limbs, event

    def ready(self):
        """The device array ((n, 4) uint64, Montgomery); the current stream waits (on the
        device) for the upload's event, or uploads the deferred limbs itself.

        Raises:
            GPUMemoryError: a deferred upload finds no room.
        """
        if self.array is None:
            bk = self.backend
            self.array = bk._guarded("to_device", bk._to_device_limbs, self.limbs)
            self.limbs = None
        elif self.event is not None:
            self.backend.cp.cuda.get_current_stream().wait_event(self.event)
            self.event = None
        return self.array


class _CanonLimbs:
    """Scalars already converted to (m, 4) uint64 canonical limbs on the host (MSM chunks)."""

    __slots__ = ("limbs",)

    def __init__(self, limbs: np.ndarray):
        self.limbs = limbs


def _guard(op: str):
    """Method decorator of ``CUDABackend``: CuPy's OutOfMemoryError → ``GPUMemoryError`` naming ``op``."""

    def deco(fn):
        @functools.wraps(fn)
        def wrapper(self, *args, **kwargs):
            return self._guarded(op, fn, self, *args, **kwargs)

        return wrapper

    return deco


# --- backend ------------------------------------------------------------------------------------


class _PoolAllocator:
    """CuPy allocator over the default memory pool, installed by the first ``CUDABackend`` in
    place of the pool's own ``malloc`` (never over a caller's allocator).

    - Live peak: after every allocation it folds the pool's bytes in use (live arrays, not cached
      free blocks) into the peak of each open backend (``CUDABackend.gpu_peak_bytes``). The
      pool's held bytes (``total_bytes``) overstate the need: at the 32 GiB partition they
      reached 138.9 GiB against a model of about 110 GiB.
    - Under a pool limit (``get_limit`` > 0) an OutOfMemoryError is retried once after
      ``free_all_blocks``: CuPy counts cached free blocks (of every stream's arena) against the
      limit and raises without freeing them. (Free blocks inside chunks that still hold a live
      array cannot be freed at all: the planners count them as used, see
      ``CUDABackend._mem_avail``.)
    """

    def __init__(self, cupy):
        self.cupy = cupy
        self.pool = cupy.get_default_memory_pool()
        self.oom = cupy.cuda.memory.OutOfMemoryError
        self.watchers = weakref.WeakSet()

    def __call__(self, size: int):
        pool = self.pool
        try:
            mem = pool.malloc(size)
        except self.oom:
            if not pool.get_limit():
                raise
            pool.free_all_blocks()
            mem = pool.malloc(size)
        if self.watchers:   # open backends: one or two
            used = pool.used_bytes()
            for w in list(self.watchers):
                if used > w._live_peak:
                    w._live_peak = used
        return mem

    @classmethod
    def install(cls, cupy) -> "_PoolAllocator | None":
        """The allocator in force if it is one of ours, else install one when CuPy's allocator
        is the default pool's ``malloc``; None when a caller set an allocator of its own."""
        current = cupy.cuda.get_allocator()
        if isinstance(current, cls):
            return current
        if current != cupy.get_default_memory_pool().malloc:
            return None
        alloc = cls(cupy)
        cupy.cuda.set_allocator(alloc)
        return alloc


class CUDABackend(Backend):
    """Backend on a CUDA GPU through CuPy (see the module docstring for what runs where).

    Args:
        threads: accepted for interface compatibility (nothing is delegated to CPU workers).
        device: CUDA device ordinal (default: CuPy's current device).
        mem_limit: bytes CuPy's memory pool may hold on the device (None: no limit); see
            ``set_mem_limit``. MSMs run in chunks, NTTs and ``compute_h`` in lower-memory
            schedules to stay under it.

    Raises:
        BackendUnavailableError: CuPy is missing or sees no CUDA device.
        ValueError: threads < 1.
    """

    name = "cuda"

    def __init__(self, threads: int = 1, device: int | None = None, mem_limit: int | None = None):
        if threads < 1:
            raise ValueError(f"threads must be ≥ 1, got {threads}")
        self.cp = _cupy()
        if device is not None:
            self.cp.cuda.Device(device).use()
        self.threads = int(threads)
        self._device_id = int(self.cp.cuda.runtime.getDevice())  # other threads start on device 0
        self._tw: dict[int, object] = {}
        self._tables: dict[tuple[int, int, int], tuple] = {}
        self._csr: dict[int, tuple] = {}
        self._coeff_tables: dict[int, tuple] = {}
        self._fb_tables: dict[tuple, object] = {}
        self.mem_limit: int | None = None
        self._prev_limit: int | None = None
        self._peak = 0
        self._live_peak = int(self._pool().used_bytes())
        self._alloc = _PoolAllocator.install(self.cp)
        self._live_tracked = self._alloc is not None
        if self._alloc is not None:
            self._alloc.watchers.add(self)
        if mem_limit is not None:
            self.set_mem_limit(mem_limit)

    # --- device memory ----------------------------------------------------------------------

    def _pool(self):
        return self.cp.get_default_memory_pool()

    def set_mem_limit(self, nbytes: int | None) -> None:
        """Cap CuPy's default memory pool (this device) at ``nbytes`` (None: back to the limit
        that was in force before this backend set one; ``close`` does the same). Cached free
        blocks are released first, since they count toward the limit; on an out-of-memory under
        the limit the allocator (``_PoolAllocator``) frees cached blocks and retries once.

        Raises:
            ValueError: nbytes < 1.
        """
        pool = self._pool()
        if nbytes is None:
            if self._prev_limit is not None:
                pool.set_limit(size=self._prev_limit)
                self._prev_limit = None
            self.mem_limit = None
            return
        nbytes = int(nbytes)
        if nbytes < 1:
            raise ValueError(f"gpu memory limit must be ≥ 1 byte, got {nbytes}")
        if self._prev_limit is None:
            self._prev_limit = int(pool.get_limit())
        pool.free_all_blocks()
        pool.set_limit(size=nbytes)
        self.mem_limit = nbytes

    def _mem_avail(self, want: int | None = None) -> int | None:
        """Bytes a new allocation may still take: the pool's limit (this backend's or
        CUPY_GPU_MEMORY_LIMIT) minus the bytes the pool holds, and at most the device's free
        memory plus the pool's cached blocks; None when neither can be read. Under a limit the
        held bytes count, not the bytes in use: a free block split off a chunk that still has a
        live array in it (a cached twiddle table carved from a freed buffer) cannot be released
        yet counts against CuPy's limit (seen on the H200: 3.8 MB held beyond the arrays in use
        made a split NTT planned at the limit fail). The pool's releasable cached blocks are
        freed first when the room is below ``want`` bytes (what the caller would use; None:
        always), so a roomy limit keeps its cache.
        """
        pool = self._pool()
        cands = []
        limit = int(pool.get_limit())
        if limit:
            held = int(pool.total_bytes())
            if held > int(pool.used_bytes()) and (want is None or limit - held < want):
                pool.free_all_blocks()
                held = int(pool.total_bytes())
            cands.append(limit - held)
        try:
            cands.append(int(self.cp.cuda.runtime.memGetInfo()[0]) + int(pool.free_bytes()))
        except Exception:
            pass
        return min(cands) if cands else None

    def _free_cached(self) -> None:
        """Return the pool's cached blocks to the device (after an out-of-memory)."""
        import gc

        gc.collect()
        self._pool().free_all_blocks()

    def _oom_type(self):
        return self.cp.cuda.memory.OutOfMemoryError

    def _memory_error(self, op: str, requested: int | None, detail: str = ""):
        """A GPUMemoryError for ``op`` after freeing the pool's cached blocks (to raise)."""

        self._free_cached()
        limit = int(self._pool().get_limit()) or None
        used = int(self._pool().used_bytes())
        extra = f"{used:,} bytes still in use" + (f"; {detail}" if detail else "")
        return GPUMemoryError(op, requested, limit, extra)

    def _guarded(self, op: str, fn, *args, **kwargs):
        """Call fn; CuPy's OutOfMemoryError becomes GPUMemoryError (cached blocks freed first,
        after the failed call's arrays are released). Records the pool's bytes afterwards."""
        requested = None
        try:
            out = fn(*args, **kwargs)
        except self._oom_type() as e:
            requested = getattr(e, "_size", None)
            failed = str(e)
        else:
            self._note_peak()
            return out
        raise self._memory_error(op, requested, f"CuPy: {failed}")

    def _note_peak(self) -> None:
        try:
            self._peak = max(self._peak, int(self._pool().total_bytes()))
        except Exception:
            pass

    @property
    def gpu_peak_bytes(self) -> int:
        """Most bytes of live CuPy arrays on the device (the memory pool's bytes in use) at any
        allocation since this backend was made, by any thread (``_PoolAllocator``). Where a
        caller's own CuPy allocator is in force this cannot be tracked and the pool's high-water
        mark (``gpu_pool_peak_bytes``) stands in. Device memory outside the pool (the CUDA
        context, compiled modules) is not counted."""
        return self._live_peak if self._live_tracked else self.gpu_pool_peak_bytes

    @property
    def gpu_pool_peak_bytes(self) -> int:
        """Most bytes CuPy's pool held (live arrays plus cached free blocks) after any guarded
        operation of this backend (MSMs, NTTs, sparse products, transfers): what the device
        lent the process, at least ``gpu_peak_bytes`` while the pool was not trimmed."""
        self._note_peak()
        return self._peak

    # --- helpers ----------------------------------------------------------------------------

    def _check(self, a):
        cp = self.cp
        if not (isinstance(a, cp.ndarray) and a.dtype == cp.uint64 and a.ndim == 2 and a.shape[1] == 4):
            raise TypeError("cuda device arrays are (n, 4) uint64 CuPy arrays (use to_device)")
        if not a.flags.c_contiguous:
            a = self.cp.ascontiguousarray(a)
        return a

    def _pair(self, a, b):
        a, b = self._check(a), self._check(b)
        if a.shape != b.shape:
            raise ValueError(f"length mismatch: {a.shape[0]} vs {b.shape[0]}")
        return a, b

    def _upload_mont_host(self, ints: Sequence[int]):
        """Small host tables: Montgomery conversion on the host, then upload."""
        return self.cp.asarray(_fr_limbs([v * _MONT_R % _R for v in ints]))

    def _const(self, k: int):
        return self._upload_mont_host([k % _R])

    def _launch_ew(self, name: str, n: int, *args):
        if n:
            _kernel("ntt.cu", name)((_grid(n, 256),), (256,), (*args, _u64(n)))

    def _xyzz_to_points(self, pts, group: Group = G1) -> list:
        """(m, 48 k) uint32 XYZZ Montgomery on the device → list of arkworks points of ``group``
        (host; one inversion per point; the on-curve check of ``from_uncompressed`` runs)."""
        cp = self.cp
        k = _coord_words(group)
        m = pts.shape[0]
        canon = cp.empty_like(pts)
        _kernel("msm.cu", "fq_from_mont", group.name)((_grid(4 * k * m, 256),), (256,), (pts, canon, _u64(4 * k * m)))
        vals = _limbs_to_ints(canon.get().view(np.uint64).reshape(4 * k * m, 6))
        out = []
        for i in range(m):
            v = vals[4 * k * i : 4 * k * (i + 1)]
            if k == 1:
                X, Y, ZZ, ZZZ = v
                if ZZ == 0:
                    out.append(group.identity())
                    continue
                inv = int(gmpy2.invert(ZZ * ZZZ % _Q, _Q))
                x = X * inv % _Q * ZZZ % _Q
                y = Y * inv % _Q * ZZ % _Q
                enc = x.to_bytes(48, "big") + y.to_bytes(48, "big")
            else:
                X, Y, ZZ, ZZZ = (tuple(v[2 * j : 2 * j + 2]) for j in range(4))
                if ZZ == (0, 0):
                    out.append(group.identity())
                    continue
                inv = _f2_inv(_f2_mul(ZZ, ZZZ))
                x = _f2_mul(X, _f2_mul(inv, ZZZ))
                y = _f2_mul(Y, _f2_mul(inv, ZZ))
                enc = b"".join(t.to_bytes(48, "big") for t in (x[1], x[0], y[1], y[0]))
            out.append(group.from_uncompressed(enc, check_subgroup=False))
        return out

    # --- point arrays on the device (tests, benchmarks, setup) --------------------------------

    def points_upload_affine(self, group: Group, bases: np.ndarray):
        """(n, 96 k) uint8 uncompressed encodings → device affine array ((n, 24 k) uint32,
        Montgomery; k = 1 for G1, 2 for G2)."""
        return CUDAMSMContext(self, group, bases, resident=True)._bases

    def points_download_affine(self, group: Group, dev) -> np.ndarray:
        """Device affine array ((n, 24 k) uint32, Montgomery) → (n, 96 k) uint8 uncompressed encodings."""
        k = _coord_words(group)
        n = int(dev.shape[0])
        canon = self.cp.empty_like(dev)
        if n:
            _kernel("msm.cu", "fq_from_mont", group.name)((_grid(2 * k * n, 256),), (256,), (dev, canon, _u64(2 * k * n)))
        return _limbs_to_encoding(group, canon.get())

    def points_sum_grid(self, group: Group, a_dev, b_dev, n: int):
        """Device affine array of n points A[i mod len(A)] + B[i div len(A)] (distinct test bases
        from len(A) + n/len(A) host points; one Fermat inversion per 32 points on the GPU)."""
        k = _coord_words(group)
        na = int(a_dev.shape[0])
        if na * int(b_dev.shape[0]) < n:
            raise ValueError("points_sum_grid: len(A) * len(B) < n")
        cp = self.cp
        out = cp.empty((n, 24 * k), dtype=cp.uint32)
        if n:
            per = 32
            scratch = cp.empty((n, 48 * k), dtype=cp.uint32)
            prods = cp.empty((n, 12 * k), dtype=cp.uint32)
            groups = -(-n // per)
            _kernel("msm.cu", "gen_points", group.name)(
                (_grid(groups, 128),), (128,), (a_dev, _u32(na), b_dev, _u64(n), _u32(per), scratch, prods, out)
            )
        return out

    def _fixed_base_table(self, group: Group, base_bytes: bytes):
        """Device table of d·2^(8w)·P for windows w < 32 and digits 1 ≤ d < 256 (affine, 8160
        points, built on the host with arkworks; cached per base)."""
        key = (group.name, base_bytes)
        tab = self._fb_tables.get(key)
        if tab is None:
            p = group.from_uncompressed(base_bytes, check_subgroup=False)
            pts = []
            for _ in range(_FB_WINDOWS):
                acc = p
                for _d in range(1, 1 << _FB_C):
                    pts.append(acc)
                    acc = acc + p
                p = acc  # 2^c · p
            tab = self.points_upload_affine(group, group.to_array(pts))
            if len(self._fb_tables) > 8:
                self._fb_tables.clear()
            self._fb_tables[key] = tab
        return tab

    # --- transfers --------------------------------------------------------------------------

    @_guard("to_device")
    def to_device(self, values):
        """Int array / int sequence (canonical) → device array ((n, 4) uint64, Montgomery).

        Raises:
            ValueError: not 1-D, or a value outside [0, r) (its index is named).
            TypeError: non-integer elements or dtype.
        """
        return self._to_device_limbs(_host_limbs(values, "to_device"))

    def _to_device_limbs(self, limbs: np.ndarray):
        """(n, 4) uint64 canonical host limbs → device array (Montgomery) on the current stream."""
        canon = self.cp.asarray(limbs)
        out = self.cp.empty_like(canon)
        self._launch_ew("fr_to_mont", canon.shape[0], canon, out)
        return out

    def to_device_async(self, values, stream=None, defer: bool = False) -> "_PendingCUDAUpload":
        """``to_device`` that returns once the copy is queued: callable from a background thread
        while the compute stream works on something else.

        In the calling thread: the values are checked and converted to ``(n, 4)`` uint64 limbs
        on the host, then copied in ``_UPLOAD_CHUNK_BYTES`` pieces through two pinned host
        buffers (each refilled once its previous copy has finished) on ``stream`` (default: this
        backend's non-blocking side stream, so the legacy default stream's work is not waited
        for), where the Montgomery conversion is queued too. An event recorded after it is what
        ``ready()`` makes the caller's current stream wait on (on the device; the host does not
        block). Host memory beyond the limbs: two pinned chunks.

        The array comes from the side stream's pool arena: drop it only after the compute
        stream's work on it has finished (``Prover.prove`` has, once it returns), since the
        side stream may reuse the memory at once.

        When what is free now (under the pool's limit, and on the device) does not hold the
        array twice (canonical and Montgomery form), or ``defer`` is set, the upload is deferred
        to ``ready()`` (a plain ``to_device`` on the compute stream) rather than compete with the
        running proof.

        Raises:
            ValueError: not 1-D, or a value outside [0, r) (its index is named).
            TypeError: non-integer elements or dtype.
            GPUMemoryError: the device (or the pool's limit) has no room for the array.
        """
        limbs = _host_limbs(values, "to_device")
        if defer:
            return _PendingCUDAUpload(self, None, limbs)
        with self.cp.cuda.Device(self._device_id):
            avail = self._mem_avail(2 * limbs.nbytes)
            if avail is not None and avail < 2 * limbs.nbytes:
                return _PendingCUDAUpload(self, None, limbs)
            return self._guarded("to_device", self._upload_async, limbs, stream)

    def _side_stream(self):
        """The non-blocking CUDA stream of this backend's asynchronous uploads (made on first use)."""
        st = getattr(self, "_upload_stream", None)
        if st is None:
            st = self._upload_stream = self.cp.cuda.Stream(non_blocking=True)
        return st

    def _upload_async(self, limbs: np.ndarray, stream) -> "_PendingCUDAUpload":
        """Queue ``limbs`` ((n, 4) uint64 canonical, host) on ``stream`` (see ``to_device_async``)."""
        import cupyx

        cp = self.cp
        stream = self._side_stream() if stream is None else stream
        n = limbs.shape[0]
        rows = max(1, _UPLOAD_CHUNK_BYTES // 32)
        with stream:  # allocations belong to the stream that writes them (CuPy's per-stream arenas)
            canon = cp.empty((n, 4), dtype=cp.uint64)
            out = cp.empty_like(canon)
        bufs = [cupyx.empty_pinned((min(rows, n), 4), dtype=np.uint64) for _ in range(min(2, -(-n // rows)))]
        copied = [None] * len(bufs)
        for j, lo in enumerate(range(0, n, rows)):
            hi = min(n, lo + rows)
            b = j % len(bufs)
            if copied[b] is not None:
                copied[b].synchronize()  # the buffer's previous chunk is on the device
            bufs[b][: hi - lo] = limbs[lo:hi]
            canon[lo:hi].set(bufs[b][: hi - lo], stream=stream)
            copied[b] = stream.record()
        with stream:
            self._launch_ew("fr_to_mont", n, canon, out)
        done = stream.record()
        for ev in copied:  # the pinned buffers are released on return
            if ev is not None:
                ev.synchronize()
        return _PendingCUDAUpload(self, out, None, done)

    @_guard("to_host")
    def to_host(self, arr) -> np.ndarray:
        """Device array → int array (canonical, 1-D object array of gmpy2.mpz)."""
        a = self._check(arr)
        n = a.shape[0]
        canon = self.cp.empty_like(a)
        self._launch_ew("fr_from_mont", n, a, canon)
        return _limbs_to_mpz(canon.get())

    def synchronize(self) -> None:
        """Wait for the kernels queued on the current CUDA stream (phase timings)."""
        self.cp.cuda.get_current_stream().synchronize()

    # --- elementwise ------------------------------------------------------------------------

    @_guard("elementwise op")
    def _binary(self, name, a, b):
        a, b = self._pair(a, b)
        out = self.cp.empty_like(a)
        self._launch_ew(name, a.shape[0], a, b, out)
        return out

    def add(self, a, b):
        """Elementwise a + b in Fr (GPU)."""
        return self._binary("fr_add", a, b)

    def sub(self, a, b):
        """Elementwise a − b in Fr (GPU)."""
        return self._binary("fr_sub", a, b)

    def mul(self, a, b):
        """Elementwise a · b in Fr (GPU)."""
        return self._binary("fr_mul", a, b)

    @_guard("scale")
    def scale(self, a, k: int):
        """Elementwise k · a in Fr for an integer k of any sign or size (GPU)."""
        a = self._check(a)
        out = self.cp.empty_like(a)
        self._launch_ew("fr_scale", a.shape[0], a, self._const(int(k)), out)
        return out

    def _factor_tables(self, x: int, c: int, k: int):
        """Tables giving f(i) = c·x^i for i < 2^k as hi[i >> m]·lo[i & (2^m−1)] (device, cached).

        Returns (hi, lo or None, m); with x = 1, lo is None and m = k (hi = [c]).
        """
        key = (x % _R, c % _R, k)
        t = self._tables.get(key)
        if t is None:
            x, c = key[0], key[1]
            if x == 1:
                t = (self._const(c), None, k)
            else:
                m = (k + 1) // 2
                lo = [1] * (1 << m)
                for i in range(1, len(lo)):
                    lo[i] = lo[i - 1] * x % _R
                step = pow(x, 1 << m, _R)
                hi = [c] * (1 << (k - m))
                for i in range(1, len(hi)):
                    hi[i] = hi[i - 1] * step % _R
                t = (self._upload_mont_host(hi), self._upload_mont_host(lo), m)
            if len(self._tables) > 64:
                self._tables.clear()
            self._tables[key] = t
        return t

    def _powers(self, x: int, c: int, n: int):
        """Device array [c·x^i for i < n]."""
        out = self.cp.empty((n, 4), dtype=self.cp.uint64)
        if n == 0:
            return out
        k = max(1, (n - 1).bit_length())
        hi, lo, m = self._factor_tables(x, c, k)
        if lo is None:
            lo, m = self._const(1), 0
        self._launch_ew("fr_powers2", n, hi, lo, _i32(m), out)
        return out

    @_guard("powers")
    def powers(self, x: int, n: int):
        """Device array [1, x, x², …, x^(n−1)] in Fr (GPU, from two tables of ≈√n host powers)."""
        if n < 0:
            raise ValueError(f"powers: negative length {n}")
        return self._powers(int(x), 1, n)

    def length(self, a) -> int:
        """Number of elements."""
        return int(self._check(a).shape[0])

    @_guard("concat")
    def concat(self, parts):
        """The device arrays one after the other (a new device array)."""
        parts = [self._check(p) for p in parts]
        return self.cp.concatenate(parts) if parts else self.cp.empty((0, 4), dtype=self.cp.uint64)

    @_guard("slice")
    def slice(self, a, start: int, stop: int):
        """a[start:stop] as a new device array (numpy slice semantics)."""
        return self._check(a)[start:stop].copy()

    @_guard("select")
    def select(self, a, mask: np.ndarray):
        """The elements of ``a`` where the host bool array ``mask`` is True (gathered on the GPU)."""
        a = self._check(a)
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != (a.shape[0],):
            raise ValueError(f"select: mask of shape {mask.shape} for {a.shape[0]} elements")
        return a[self.cp.asarray(np.flatnonzero(mask))]

    @_guard("pad")
    def pad(self, a, n: int):
        """``a`` followed by zeros up to length n (a new device array; ValueError if n < len(a))."""
        a = self._check(a)
        m = a.shape[0]
        if n < m:
            raise ValueError(f"pad: length {n} is shorter than the array ({m})")
        out = self.cp.empty((n, 4), dtype=self.cp.uint64)
        out[:m] = a
        out[m:] = 0
        return out

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

    # --- NTT --------------------------------------------------------------------------------

    def _twiddles(self, k: int):
        """[ω^j for j < 2^(k−1)], ω = FR.root_of_unity(2^k), on the device (cached per size)."""
        tw = self._tw.get(k)
        if tw is None:
            tw = self._powers(FR.root_of_unity(1 << k), 1, max(1, 1 << (k - 1)))
            self._tw[k] = tw
        return tw

    @staticmethod
    def _check_ntt_size(n: int) -> int:
        if n < 1 or n & (n - 1) or n.bit_length() - 1 > MAX_LOG_NTT:
            raise ValueError(f"ntt: length n={n} is not a power of two in [1, 2^{MAX_LOG_NTT}]")
        return n.bit_length() - 1

    def _ntt(self, a, inverse: bool, pre=None, post=None, out=None, tmp=None, rows: int = 1):
        """NTT with optional input factors ``pre`` (at input index) and output factors ``post``
        (at output index), each a ``_factor_tables`` triple. ``inverse`` reverses the output order
        ((n − j) mod n) without scaling: pass n⁻¹ in ``post``.

        Args:
            a: (rows·n, 4) device array, n = 2^k.
            out: the result's (rows·n, 4) array, not overlapping ``a`` (new when None).
            tmp: buffer of the passes before the last (any number of them run in place); may be
                ``a`` itself when its contents may be overwritten (new when None and needed).
            rows: ``a`` holds that many transforms of length n, done side by side by the same
                launches (``ntt.cu``: no stage reaches across a row); ``pre`` and ``post`` index the
                whole array and one row, so the split NTT applies its factors itself.

        Returns ``out``.
        """
        cp = self.cp
        a = self._check(a)
        n = a.shape[0] // rows
        k = self._check_ntt_size(n)
        if out is None:
            out = cp.empty_like(a)
        if k == 0:  # copies, times the factors at index 0: hi[0] (lo[0] = 1)
            out[...] = a
            for f in (pre, post):
                if f is not None:
                    out[...] = self.mul(out, f[0][:1])
            return out
        tw = self._twiddles(k)
        plan = _ntt_plan(k)
        if tmp is None and len(plan) > 1:
            tmp = cp.empty_like(a)
        fn = _kernel("ntt.cu", "ntt_pass")
        src = a
        for i, (s_hi, t, c) in enumerate(plan):
            first, last = i == 0, i == len(plan) - 1
            dst = out if last else tmp
            flags = 0
            pre_hi = pre_lo = post_hi = post_lo = tw
            pre_m = post_m = 0
            if first and pre is not None:
                flags |= _NTT_PRE
                pre_hi, pre_m = pre[0], pre[2]
                if pre[1] is not None:
                    flags |= _NTT_PRE_LO
                    pre_lo = pre[1]
            if last:
                flags |= _NTT_LAST
                if inverse:
                    flags |= _NTT_INV
                if post is not None:
                    flags |= _NTT_POST
                    post_hi, post_m = post[0], post[2]
                    if post[1] is not None:
                        flags |= _NTT_POST_LO
                        post_lo = post[1]
            E = 1 << (t + c)
            fn(
                (rows * n // E,),
                (min(256, E // 2),),
                (src, dst, tw, _i32(k), _i32(k), _i32(s_hi), _i32(t), _i32(c), _i32(flags),
                 pre_hi, pre_lo, _i32(pre_m), post_hi, post_lo, _i32(post_m)),
                shared_mem=E * 32,
            )
            src = dst
        return out

    # --- NTT under a device-memory limit: split (four-step) transforms, staged compute_h ----------

    last_ntt_schedule: tuple[str, int] | None = None
    """(schedule, block) of the latest ``ntt``/``coset_ntt``: ("whole", 0) or ("split", block)."""
    last_h_schedule: tuple[str, int] | None = None
    """(schedule, block) of the latest ``compute_h``: ("fused" | "staged", 0) or ("split", block)."""

    def _grid_mul(self, x, f, lc: int, row0: int, p: int, q: int, s: int, k: int) -> None:
        """In place: x[r·2^lc + col] ·= f(e), e = ((row0 + r)·(p·col + q) + s·col) mod 2^k, for f a
        ``_factor_tables`` triple of size 2^k (kernel ``fr_mul_pow_grid``)."""
        hi, lo, m = f
        n = x.shape[0]
        if n:
            _kernel("ntt.cu", "fr_mul_pow_grid")(
                (_grid(n, 256),), (256,),
                (x, hi, hi if lo is None else lo, _i32(m), _i32(lo is not None), _i32(lc),
                 _u64(row0), _u64(p), _u64(q), _u64(s), _i32(k), _u64(n)),
            )

    def _gather_cols(self, src, nrows: int, ncols: int, c0: int, w: int, buf, up=None):
        """Columns c0 … c0+w−1 of ``src`` viewed as an (nrows, ncols) matrix, as rows: returns
        ``buf[:w·nrows]`` with element r·nrows + j = src[j·ncols + c0 + r].

        src: a device array, or a host (n, 4) uint64 array (Montgomery limbs), whose block is
        copied on the host, uploaded into ``up[:w·nrows]`` and transposed on the device.
        """
        m = w * nrows
        if not isinstance(src, self.cp.ndarray):
            block = up[:m].reshape(nrows, w, 4)
            block.set(np.ascontiguousarray(src.reshape(nrows, ncols, 4)[:, c0 : c0 + w]))
        else:
            block = src.reshape(nrows, ncols, 4)[:, c0 : c0 + w]
        dst = buf[:m]
        dst.reshape(w, nrows, 4)[...] = block.transpose(1, 0, 2)
        return dst

    def _split_ntt(self, src, out, inverse: bool, chunk: int, pre=None, post=None, bufs=None):
        """``_ntt(src, inverse, pre, post)`` (the same values: exact field arithmetic) written to
        ``out``, as the four-step transform in blocks of ``chunk`` elements, so that besides ``out``
        the device holds two blocks (``ntt_device_bytes(n, chunk)``).

        Algorithm (Cooley–Tukey's factorization as in Bailey, "FFTs in external or hierarchical
        memory", 1990): with n = n1·n2 (``ntt_split``), j = j1 + n1·j2 and o = k2 + n2·k1,
        X[o] = Σ_j1 ω_n1^(j1·k1) · ω^(j1·k2) · Σ_j2 x[j]·ω_n2^(j2·k2). Step 1, per block of w
        columns j1 of x viewed as (n2, n1): gather them as rows, multiply by ``pre`` at j, n2-point
        NTTs (one ``_ntt`` with rows = w), twiddles ω^(j1·k2); written to rows j1 of ``out`` viewed
        as (n1, n2). Step 2, per block of h columns k2 of ``out``: gather, n1-point NTTs, ``post``
        at o, written back to the same columns, where X[k2 + n2·k1] (row k1, column k2) is in
        natural order. The inverse runs on ω⁻¹ throughout: the row transforms' INV order reversal
        (n_i-point transforms on ω_(n_i)⁻¹) and twiddles ω^(−j1·k2).

        Args:
            src: device array, or host (n, 4) uint64 array of Montgomery limbs; left unchanged.
            out: (n, 4) device array, n = 2^k with k ≥ 2, not overlapping ``src``.
            chunk: block size in elements, a power of two ≥ n1.
            pre, post: ``_factor_tables`` triples of size 2^k (factors at input / output index).
            bufs: two device arrays of ≥ ``chunk`` elements to use as blocks (new when None).

        Returns ``out``.
        """
        cp = self.cp
        n = out.shape[0]
        k = n.bit_length() - 1
        n1, n2 = ntt_split(n)
        k1, k2 = n1.bit_length() - 1, n2.bit_length() - 1
        if bufs is None:
            bufs = tuple(cp.empty((chunk, 4), dtype=cp.uint64) for _ in range(2))
        g, g2 = bufs
        root = FR.root_of_unity(n)
        twid = self._factor_tables(pow(root, -1, _R) if inverse else root, 1, k)
        out3 = out.reshape(n1, n2, 4)
        w = min(n1, chunk // n2)
        for c0 in range(0, n1, w):
            blk = self._gather_cols(src, n2, n1, c0, w, g, g2)
            if pre is not None:
                self._grid_mul(blk, pre, k2, c0, 0, 1, n1, k)      # e = j1 + n1·j2
            dst = out3[c0 : c0 + w].reshape(w * n2, 4)
            self._ntt(blk, inverse, out=dst, tmp=blk, rows=w)
            self._grid_mul(dst, twid, k2, c0, 1, 0, 0, k)          # e = j1·k2
        h = min(n2, chunk // n1)
        for c0 in range(0, n2, h):
            blk = self._gather_cols(out, n1, n2, c0, h, g)
            res = self._ntt(blk, inverse, out=g2[: h * n1], tmp=blk, rows=h)
            if post is not None:
                self._grid_mul(res, post, k1, c0, 0, 1, n2, k)     # e = k2 + n2·k1
            out3[:, c0 : c0 + h] = res.reshape(h, n1, 4).transpose(1, 0, 2)
        return out

    def _planned(self, op: str, plan, smallest, need, run):
        """``run(plan)``; on CuPy's OutOfMemoryError (an estimate too low, fragmentation, another
        process) once more with ``smallest`` after freeing the pool's cached blocks. ``plan`` None
        (nothing fits): GPUMemoryError for ``op`` naming ``need(smallest)`` bytes."""
        if plan is None:
            blocks = f" in blocks of {smallest[1]:,} elements" if smallest[1] else ""
            raise self._memory_error(op, need(smallest), f"not even the {smallest[0]} schedule{blocks} fits")
        attempts = [plan] if plan == smallest or smallest[1] == 0 else [plan, smallest]
        pool = self._pool()
        limit = int(pool.get_limit())
        if limit and int(pool.total_bytes()) + need(plan) > limit:
            pool.free_all_blocks()  # CuPy counts cached blocks against the limit without freeing them
        for i, p in enumerate(attempts):
            try:
                return run(p)
            except self._oom_type():
                if i == len(attempts) - 1:
                    raise
            self._free_cached()  # outside the except block: the failed attempt's arrays are gone

    def _ntt_limited(self, op: str, a, inverse: bool, pre=None, post=None):
        """``_ntt`` of a whole (n, 4) array, or ``_split_ntt`` into a new array when the whole
        transform does not fit (``ntt_memory_plan``); records ``last_ntt_schedule``."""
        n = a.shape[0]
        twiddles = (n.bit_length() - 1) not in self._tw
        smallest = ("split", ntt_split(n)[0]) if n >= 4 else ("whole", 0)

        def run(p):
            self.last_ntt_schedule = p
            if p[0] == "whole":
                return self._ntt(a, inverse, pre, post)
            return self._split_ntt(a, self.cp.empty_like(a), inverse, p[1], pre, post)

        plan = ntt_memory_plan(n, self._mem_avail(ntt_device_bytes(n, 0, twiddles)), twiddles)
        return self._planned(op, plan, smallest, lambda p: ntt_device_bytes(n, p[1], twiddles), run)

    @_guard("ntt")
    def ntt(self, a, inverse: bool = False):
        """Radix-2 NTT of a device array of length n = 2^k, 0 ≤ k ≤ 27, natural order in and out.

        Same transform as ``CPUBackend.ntt`` (ω = FR.root_of_unity(n); the inverse scales by n⁻¹).
        Under a memory limit that the whole transform (output and pass buffer: ``ntt_device_bytes``)
        exceeds, the split transform runs in blocks (same values).

        Raises:
            ValueError: n is not a power of two or exceeds 2^27.
            TypeError: ``a`` is not a cuda device array.
            GPUMemoryError: not even the output plus the smallest blocks fit.
        """
        a = self._check(a)
        n = a.shape[0]
        k = self._check_ntt_size(n)
        post = self._factor_tables(1, pow(n, -1, _R), k) if inverse else None
        return self._ntt_limited("ntt", a, inverse, post=post)

    @_guard("coset_ntt")
    def coset_ntt(self, a, inverse: bool = False):
        """Evaluate on / interpolate from the coset g·H (g = 7); the g^(±i) and n⁻¹ factors are
        applied inside the first (forward) or last (inverse) NTT pass (split in blocks under a
        memory limit, as ``ntt``)."""
        a = self._check(a)
        n = a.shape[0]
        k = self._check_ntt_size(n)
        g = FR.generator
        if not inverse:
            return self._ntt_limited("coset_ntt", a, False, pre=self._factor_tables(g, 1, k))
        return self._ntt_limited("coset_ntt", a, True, post=self._factor_tables(pow(g, -1, _R), pow(n, -1, _R), k))

    def _h_eval(self, x, to_coset, b1, b2):
        """Coset evaluations of the interpolant of x into b1 (b2 left free): an inverse NTT into b2
        (b1 its pass buffer) whose last pass multiplies by n⁻¹·g^i, then the forward NTT in place
        in b2, its last pass into b1. Two arrays of n besides x."""
        self._ntt(x, True, post=to_coset, out=b2, tmp=b1)
        self._ntt(b2, False, out=b1, tmp=b2)
        return b1, b2

    def _h_fused(self, xs, to_coset, from_coset):
        """All on the device, 4 arrays of n at the peak: each input's evaluations in turn (its
        spare buffer serves the next input), a·b − c into the last spare, whose inverse NTT ends
        in c's evaluation buffer."""
        ev, spare = [], self.cp.empty_like(xs[0])
        for x in xs:
            e, spare = self._h_eval(x, to_coset, spare, self.cp.empty_like(x))
            ev.append(e)
        self._launch_ew("fr_mul_sub", spare.shape[0], ev[0], ev[1], ev[2], spare)
        out = ev.pop()
        del ev
        return self._ntt(spare, True, post=from_coset, out=out, tmp=spare)

    def _h_staged(self, xs, to_coset, from_coset):
        """2 arrays of n on the device: a's and b's evaluations wait on the host (numpy) while the
        next input reuses the two buffers; c's stay, and a·b − c is formed from uploaded slices
        (``_stage_step``) into the spare buffer."""
        cp = self.cp
        p, q = cp.empty_like(xs[0]), cp.empty_like(xs[0])
        staged = []
        for x in xs[:2]:
            self._h_eval(x, to_coset, p, q)
            staged.append(p.get())
        self._h_eval(xs[2], to_coset, p, q)
        m = p.shape[0]
        step = _stage_step(m)
        ua, ub = cp.empty((step, 4), dtype=cp.uint64), cp.empty((step, 4), dtype=cp.uint64)
        for i in range(0, m, step):
            j = min(m, i + step)
            ua[: j - i].set(staged[0][i:j])
            ub[: j - i].set(staged[1][i:j])
            self._launch_ew("fr_mul_sub", j - i, ua, ub, p[i:j], q[i:j])
        del ua, ub, staged
        return self._ntt(q, True, post=from_coset, out=p, tmp=q)

    def _h_split(self, xs, to_coset, from_coset, chunk: int):
        """1 array of n on the device (the result) plus three blocks of ``chunk`` elements: each
        NTT split (``_split_ntt``) from a device input or a host copy of the previous step's output;
        the three evaluations on the host; a·b − c formed from uploaded slices into the result
        array, copied to the host, and its coset inverse NTT split back into the result array."""
        cp = self.cp
        out = cp.empty_like(xs[0])
        g1, g2, g3 = (cp.empty((chunk, 4), dtype=cp.uint64) for _ in range(3))
        hosts = []
        for x in xs:
            self._split_ntt(x, out, True, chunk, post=to_coset, bufs=(g1, g2))
            host = out.get()
            self._split_ntt(host, out, False, chunk, bufs=(g1, g2))
            out.get(out=host)
            hosts.append(host)
        m = out.shape[0]
        for i in range(0, m, chunk):
            j = min(m, i + chunk)
            for buf, host in zip((g1, g2, g3), hosts):
                buf[: j - i].set(host[i:j])
            self._launch_ew("fr_mul_sub", j - i, g1, g2, g3, out[i:j])
        num = hosts.pop()
        out.get(out=num)
        del hosts, g3
        return self._split_ntt(num, out, True, chunk, post=from_coset, bufs=(g1, g2))

    @_guard("compute_h")
    def compute_h(self, a, b, c, n: int):
        """Groth16 quotient as ``Backend.compute_h`` (same result): per input one inverse NTT
        whose last pass multiplies by n⁻¹·g^i (so the next forward NTT evaluates on the coset), one
        forward NTT; then a·b − c in one kernel; then the coset inverse NTT with n⁻¹·Z(g)⁻¹·g^(−i)
        applied in its last pass. Returns the first n − 1 coefficients (a view of an array of
        len(a) elements).

        a, b, c are left unchanged (the caller keeps them, so they count as used device memory).
        The schedule is the first of ``H_SCHEDULES`` whose ``compute_h_device_bytes`` fits in what
        the memory pool may still allocate (``compute_h_memory_plan``): "fused" (4 arrays of n),
        "staged" (2, with a's and b's evaluations waiting on the host) or "split" (the result plus
        blocks: four-step NTTs, everything staged on the host); all give the same values. On an
        out-of-memory the smallest split schedule is tried once more. ``last_h_schedule`` records
        the one used.

        Raises:
            ValueError: lengths differ, or are not a power of two ≤ 2^27.
            GPUMemoryError: not even the smallest split schedule fits.
        """
        a, b, c = self._check(a), self._check(b), self._check(c)
        m = a.shape[0]
        if b.shape[0] != m or c.shape[0] != m:
            raise ValueError(f"compute_h: lengths differ ({a.shape[0]}, {b.shape[0]}, {c.shape[0]})")
        k = self._check_ntt_size(m)
        g = FR.generator
        minv = pow(m, -1, _R)
        zinv = pow(pow(g, n, _R) - 1, -1, _R)
        to_coset = self._factor_tables(g, minv, k)
        from_coset = self._factor_tables(pow(g, -1, _R), minv * zinv % _R, k)
        twiddles = k not in self._tw
        smallest = ("split", ntt_split(m)[0]) if m >= 4 else ("staged", 0)
        xs = (a, b, c)

        def run(p):
            self.last_h_schedule = p
            if p[0] == "fused":
                return self._h_fused(xs, to_coset, from_coset)
            if p[0] == "staged":
                return self._h_staged(xs, to_coset, from_coset)
            return self._h_split(xs, to_coset, from_coset, p[1])

        plan = compute_h_memory_plan(m, self._mem_avail(compute_h_device_bytes(m, "fused", 0, twiddles)), twiddles)
        need = lambda p: compute_h_device_bytes(m, p[0], p[1], twiddles)  # noqa: E731
        h = self._planned("compute_h", plan, smallest, need, run)
        return h[0 : n - 1]

    # --- sparse -------------------------------------------------------------------------------

    def _csr_device(self, m: CSRMatrix):
        """(indptr int64, cols uint32, coeff ids uint32, coefficient table (Montgomery), log2 G)
        of ``m`` on the device: uploaded on first use and cached while ``m`` lives (keyed by the
        matrix object; the coefficient table is shared by matrices with the same ``coeffs``
        array, as the R1CS's A, B and C are)."""
        key = id(m)
        hit = self._csr.get(key)
        if hit is not None and hit[0]() is m:
            return hit[1]
        cp = self.cp
        rows, cols = m.shape
        indptr = np.asarray(m.indptr, dtype=np.int64)
        if indptr.shape != (rows + 1,):
            raise ValueError(f"spmv: indptr has {len(indptr)} entries for {rows} rows")
        nnz = m.nnz
        if int(indptr[0]) != 0 or int(indptr[-1]) != nnz or (rows and np.any(np.diff(indptr) < 0)):
            raise ValueError("spmv: indptr is not a non-decreasing sequence from 0 to nnz")
        if cols >= 1 << 32 or len(m.coeffs) >= 1 << 32:
            raise ValueError("spmv: the cuda backend handles fewer than 2^32 columns and coefficients")
        ids = np.asarray(m.coeff_ids)
        idx = np.asarray(m.indices)
        if nnz and (int(idx.min()) < 0 or int(idx.max()) >= cols):
            raise ValueError("spmv: a column index is outside the matrix")
        if nnz and (int(ids.min()) < 0 or int(ids.max()) >= len(m.coeffs)):
            raise ValueError("spmv: a coefficient id is outside the coefficient table")
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
        log_g = self._log_lanes(nnz, rows)
        dev = (
            cp.asarray(indptr),
            cp.asarray(idx.astype(np.uint32)) if nnz else cp.zeros(1, dtype=cp.uint32),
            cp.asarray(ids.astype(np.uint32)) if nnz else cp.zeros(1, dtype=cp.uint32),
            table,
            log_g,
        )
        try:
            self._csr[key] = (weakref.ref(m, lambda _, k=key: self._csr.pop(k, None)), dev)
        except TypeError:
            pass
        return dev

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

    def _spmv_launch(self, indptr, idx, ids, table, log_g: int, w, rows: int):
        """``spmv_csr`` over device CSR arrays (indptr int64, cols and coefficient ids uint32)."""
        y = self.cp.empty((rows, 4), dtype=self.cp.uint64)
        if rows:
            rows_per_block = 256 >> log_g
            _kernel("spmv.cu", "spmv_csr")(
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
        order = cp.argsort(idx)
        col_sorted = idx[order]
        t_idx = (cp.searchsorted(indptr, order, side="right") - 1).astype(cp.uint32)  # row of each entry
        t_ids = ids[order]
        del order
        counts = cp.bincount(col_sorted, minlength=cols).astype(cp.int64)
        del col_sorted
        # virtual rows: column c gives max(1, ceil(count / K)) rows of ≤ K entries
        K = _SPMV_T_ROW
        nv = cp.maximum(1, (counts + K - 1) // K)
        vstart = cp.zeros(cols + 1, dtype=cp.int64)
        cp.cumsum(nv, out=vstart[1:])
        cstart = cp.zeros(cols + 1, dtype=cp.int64)
        cp.cumsum(counts, out=cstart[1:])
        V = int(vstart[-1])
        if V == cols:
            return self._spmv_launch(cstart, t_idx, t_ids, table, self._log_lanes(nnz, cols), x, cols)
        v = cp.arange(V, dtype=cp.int64)
        col_of_v = cp.searchsorted(vstart, v, side="right") - 1
        vptr = cp.empty(V + 1, dtype=cp.int64)
        vptr[:V] = cp.minimum(cstart[col_of_v] + (v - vstart[col_of_v]) * K, cstart[col_of_v + 1])
        vptr[V] = nnz
        del v, col_of_v
        partial = self._spmv_launch(vptr, t_idx, t_ids, table, self._log_lanes(nnz, V), x, V)
        del vptr, t_idx, t_ids
        one = self._const(1)
        return self._spmv_launch(vstart, cp.arange(V, dtype=cp.uint32), cp.zeros(V, dtype=cp.uint32), one,
                                 self._log_lanes(V, cols), partial, cols)

    # --- curve ------------------------------------------------------------------------------

    @_guard("msm_context")
    def msm_context(self, group: Group, bases: np.ndarray) -> MSMContext:
        """Resident MSM bases on the GPU (``CUDAMSMContext``) for G1 and G2."""
        return CUDAMSMContext(self, group, bases)

    @_guard("fixed_base_mul")
    def fixed_base_mul(self, group: Group, base, scalars) -> np.ndarray:
        """[k·base for k in scalars] as a ``(n, group.uncompressed_size)`` uint8 array of
        uncompressed encodings (the same bytes as ``CPUBackend.fixed_base_mul``), on the GPU.

        Each product is at most 32 mixed additions from a table of d·2^(8w)·base (8-bit windows,
        8160 affine points, ``_fixed_base_table``); each GPU thread converts 32 consecutive
        results to affine with one inversion. Scalars go up in slices of ``_FB_SLICE``.

        Args:
            scalars: host ints in [0, r) (list, int array, numpy integer array) or a cuda device
                array.

        Raises:
            ValueError: a scalar outside [0, r), or a malformed base encoding.
        """
        n = int(scalars.shape[0]) if isinstance(scalars, self.cp.ndarray) else len(scalars)
        out = np.empty((n, group.uncompressed_size), dtype=np.uint8)   # filled per slice: one copy on the host
        for lo, m, aff in self._fixed_base_slices(group, base, scalars):
            if aff is None:     # k · infinity
                out[lo : lo + m] = 0
                out[lo : lo + m, 0] = 0x40
            else:
                out[lo : lo + m] = self.points_download_affine(group, aff)
        return out

    @_guard("fixed_base_context")
    def fixed_base_context(self, group: Group, base, scalars) -> MSMContext:
        """Resident MSM bases [k·base for k in scalars] computed into device memory (affine,
        Montgomery; never copied to the host): a setup's query proved with at once.

        Args:
            scalars: host ints in [0, r) or a cuda device array.

        Raises:
            ValueError: a scalar outside [0, r), or a malformed base encoding.
            GPUMemoryError: the products do not fit.
        """
        k = _coord_words(group)
        n = int(scalars.shape[0]) if isinstance(scalars, self.cp.ndarray) else len(scalars)
        dev = self.cp.empty((n, 24 * k), dtype=self.cp.uint32)
        for lo, m, aff in self._fixed_base_slices(group, base, scalars, into=dev):
            if aff is None:
                dev[lo : lo + m] = 0    # (0, 0) is infinity in the device layout
        return CUDAMSMContext.from_device_affine(self, dev, group)

    def _fixed_base_slices(self, group: Group, base, scalars, into=None):
        """Yield (lo, m, device affine (m, 24 k) uint32 products) per slice of the scalars; the
        products are written to ``into[lo:lo + m]`` when given. For the point at infinity as
        base, yields (0, n, None)."""
        k = _coord_words(group)
        _, base_bytes = fixed_base_point(group, base)   # checks the encoding
        cp = self.cp
        if isinstance(scalars, cp.ndarray):
            sc_dev = self._check(scalars)
            n = int(sc_dev.shape[0])
            limbs = None
        else:
            limbs = _host_limbs(scalars, f"{group.name} fixed_base_mul scalars")
            n = limbs.shape[0]
        if n == 0:
            return
        if not any(base_bytes[1:]) and base_bytes[0] & 0x40:   # k · infinity
            yield 0, n, None
            return
        tab = self._fixed_base_table(group, base_bytes)
        fn = _kernel("msm.cu", "fixed_base_mul", group.name)
        per = 32
        step = fixed_base_slice(k, self._mem_avail())
        for lo in range(0, n, step):
            m = min(step, n - lo)
            if limbs is None:   # Montgomery device scalars → canonical limbs for the kernel
                sc = cp.empty((m, 4), dtype=cp.uint64)
                self._launch_ew("fr_from_mont", m, sc_dev[lo : lo + m], sc)
            else:
                sc = cp.asarray(limbs[lo : lo + m])
            scratch = cp.empty((m, 48 * k), dtype=cp.uint32)
            prods = cp.empty((m, 12 * k), dtype=cp.uint32)
            aff = into[lo : lo + m] if into is not None else cp.empty((m, 24 * k), dtype=cp.uint32)
            groups = -(-m // per)
            fn((_grid(groups, 128),), (128,),
               (sc, _u64(m), _i32(_FB_C), _i32(_FB_WINDOWS), tab, _u32(per), scratch, prods, aff))
            del scratch, prods, sc
            yield lo, m, aff

    def close(self) -> None:
        """Drop cached twiddles and tables and restore the pool's earlier limit (idempotent);
        ``gpu_peak_bytes`` stops following allocations."""
        if self._prev_limit is not None:
            self.set_mem_limit(None)
        if self._alloc is not None:
            self._alloc.watchers.discard(self)
        self._tw.clear()
        self._tables.clear()
        self._csr.clear()
        self._coeff_tables.clear()
        self._fb_tables.clear()
