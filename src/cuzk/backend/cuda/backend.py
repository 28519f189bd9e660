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
whose partial sums are added, and halves its chunk on an out-of-memory. CuPy's
``OutOfMemoryError`` surfaces as ``cuzk.backend.GPUMemoryError`` (operation, bytes, limit) after
the pool's cached blocks are freed. ``gpu_peak_bytes`` is the pool's high-water mark.

Host → device conversion (``to_device``, host MSM scalars) classifies the values by bit length in
one pass: 0/1 (most of a witness) need no conversion, values below 2^64 go through numpy, only wider
ones through ``int.to_bytes``.

Kernel design notes (see the ``.cu`` files): Montgomery multiplication is CIOS over 32-bit limbs
with PTX ``mad.lo.cc``/``madc.hi.cc`` carry chains (≈4n²+n multiply-adds, n = 8 for Fr, 12 for Fq).
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
from ...field import FQ, FR, to_limbs
from .. import BackendUnavailableError
from ..base import Backend, CSRMatrix, MSMContext

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
            avail = backend._mem_avail()
            need = n * self._aw * 4 + min(n, _UPLOAD_SLICE) * self._aw * 4 + msm_device_bytes(min(n, _RESERVE_POINTS), k)
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
        avail = self._be._mem_avail()
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


class CUDABackend(Backend):
    """Backend on a CUDA GPU through CuPy (see the module docstring for what runs where).

    Args:
        threads: accepted for interface compatibility (nothing is delegated to CPU workers).
        device: CUDA device ordinal (default: CuPy's current device).
        mem_limit: bytes CuPy's memory pool may hold on the device (None: no limit); see
            ``set_mem_limit``. MSMs run in chunks to stay under it.

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
        self._tw: dict[int, object] = {}
        self._tables: dict[tuple[int, int, int], tuple] = {}
        self._csr: dict[int, tuple] = {}
        self._coeff_tables: dict[int, tuple] = {}
        self._fb_tables: dict[tuple, object] = {}
        self.mem_limit: int | None = None
        self._prev_limit: int | None = None
        self._peak = 0
        if mem_limit is not None:
            self.set_mem_limit(mem_limit)

    # --- device memory ----------------------------------------------------------------------

    def _pool(self):
        return self.cp.get_default_memory_pool()

    def set_mem_limit(self, nbytes: int | None) -> None:
        """Cap CuPy's default memory pool (this device) at ``nbytes`` (None: back to the limit
        that was in force before this backend set one; ``close`` does the same). Cached free
        blocks are released first, since they count toward the limit.

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

    def _mem_avail(self) -> int | None:
        """Bytes a new allocation may still take: the pool's limit (this backend's or
        CUPY_GPU_MEMORY_LIMIT) minus the bytes in use, and at most the device's free memory plus
        the pool's cached blocks; None when neither can be read."""
        pool = self._pool()
        used = int(pool.used_bytes())
        cands = []
        limit = int(pool.get_limit())
        if limit:
            cands.append(limit - used)
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
        from .. import GPUMemoryError

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
        """Most bytes CuPy's pool held after any guarded operation of this backend (MSMs, NTTs,
        sparse products, transfers): its cached blocks included, so at least each operation's
        peak while the pool was not trimmed at its limit."""
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

    def g1_upload_affine(self, bases: np.ndarray):
        """``points_upload_affine(G1, bases)``."""
        return self.points_upload_affine(G1, bases)

    def g1_download_affine(self, dev) -> np.ndarray:
        """``points_download_affine(G1, dev)``."""
        return self.points_download_affine(G1, dev)

    def g1_sum_grid(self, a_dev, b_dev, n: int):
        """``points_sum_grid(G1, a_dev, b_dev, n)``."""
        return self.points_sum_grid(G1, a_dev, b_dev, n)

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
        canon = self.cp.asarray(_host_limbs(values, "to_device"))
        out = self.cp.empty_like(canon)
        self._launch_ew("fr_to_mont", canon.shape[0], canon, out)
        return out

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

    def _ntt(self, a, inverse: bool, pre=None, post=None):
        """NTT with optional input factors ``pre`` (at input index) and output factors ``post``
        (at output index), each a ``_factor_tables`` triple. ``inverse`` reverses the output order
        ((n − j) mod n) without scaling: pass n⁻¹ in ``post``."""
        cp = self.cp
        a = self._check(a)
        n = a.shape[0]
        k = self._check_ntt_size(n)
        if k == 0:
            out = a.copy()
            if pre is not None:  # factor at index 0 is hi[0] (lo[0] = 1)
                out = self.mul(out, pre[0][:1])
            if post is not None:
                out = self.mul(out, post[0][:1])
            return out
        tw = self._twiddles(k)
        plan = _ntt_plan(k)
        out = cp.empty_like(a)
        tmp = cp.empty_like(a) if len(plan) > 1 else None
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
                (n // E,),
                (min(256, E // 2),),
                (src, dst, tw, _i32(k), _i32(k), _i32(s_hi), _i32(t), _i32(c), _i32(flags),
                 pre_hi, pre_lo, _i32(pre_m), post_hi, post_lo, _i32(post_m)),
                shared_mem=E * 32,
            )
            src = dst
        return out

    @_guard("ntt")
    def ntt(self, a, inverse: bool = False):
        """Radix-2 NTT of a device array of length n = 2^k, 0 ≤ k ≤ 27, natural order in and out.

        Same transform as ``CPUBackend.ntt`` (ω = FR.root_of_unity(n); the inverse scales by n⁻¹).

        Raises:
            ValueError: n is not a power of two or exceeds 2^27.
            TypeError: ``a`` is not a cuda device array.
        """
        a = self._check(a)
        n = a.shape[0]
        k = self._check_ntt_size(n)
        if not inverse:
            return self._ntt(a, False)
        return self._ntt(a, True, post=self._factor_tables(1, pow(n, -1, _R), k))

    @_guard("coset_ntt")
    def coset_ntt(self, a, inverse: bool = False):
        """Evaluate on / interpolate from the coset g·H (g = 7); the g^(±i) and n⁻¹ factors are
        applied inside the first (forward) or last (inverse) NTT pass."""
        a = self._check(a)
        n = a.shape[0]
        k = self._check_ntt_size(n)
        g = FR.generator
        if not inverse:
            return self._ntt(a, False, pre=self._factor_tables(g, 1, k))
        return self._ntt(a, True, post=self._factor_tables(pow(g, -1, _R), pow(n, -1, _R), k))

    @_guard("compute_h")
    def compute_h(self, a, b, c, n: int):
        """Groth16 quotient as ``Backend.compute_h`` (same result), fused: per input one inverse NTT
        whose last pass multiplies by n⁻¹·g^i (so the next forward NTT evaluates on the coset), one
        forward NTT; then a·b − c in one kernel; then the coset inverse NTT with n⁻¹·Z(g)⁻¹·g^(−i)
        applied in its last pass. Returns the first n − 1 coefficients."""
        a, b, c = self._check(a), self._check(b), self._check(c)
        m = a.shape[0]
        if b.shape[0] != m or c.shape[0] != m:
            raise ValueError(f"compute_h: lengths differ ({a.shape[0]}, {b.shape[0]}, {c.shape[0]})")
        k = self._check_ntt_size(m)
        g = FR.generator
        minv = pow(m, -1, _R)
        to_coset = self._factor_tables(g, minv, k)
        ev = []
        for x in (a, b, c):
            ev.append(self._ntt(self._ntt(x, True, post=to_coset), False))
        h = self.cp.empty_like(a)
        self._launch_ew("fr_mul_sub", m, ev[0], ev[1], ev[2], h)
        del ev
        zinv = pow(pow(g, n, _R) - 1, -1, _R)
        h = self._ntt(h, True, post=self._factor_tables(pow(g, -1, _R), minv * zinv % _R, k))
        return h[0 : n - 1].copy()

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
        avg = nnz / max(1, rows)
        log_g = 0
        while log_g < 5 and (1 << log_g) * 2 < avg:
            log_g += 1
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
        indptr, idx, ids, table, log_g = self._csr_device(m)
        y = self.cp.empty((rows, 4), dtype=self.cp.uint64)
        if rows:
            rows_per_block = 256 >> log_g
            _kernel("spmv.cu", "spmv_csr")(
                (_grid(rows, rows_per_block),), (256,), (indptr, idx, ids, table, w, y, _u64(rows), _i32(log_g))
            )
        return y

    # --- curve ------------------------------------------------------------------------------

    @_guard("msm_context")
    def msm_context(self, group: Group, bases: np.ndarray) -> MSMContext:
        """Resident MSM bases on the GPU (``CUDAMSMContext``) for G1 and G2."""
        return CUDAMSMContext(self, group, bases)

    @_guard("fixed_base_mul")
    def fixed_base_mul(self, group: Group, base, scalars: Sequence[int]) -> np.ndarray:
        """[k·base for k in scalars] as a ``(n, group.uncompressed_size)`` uint8 array of
        uncompressed encodings (the same bytes as ``CPUBackend.fixed_base_mul``), on the GPU.

        Each product is at most 32 mixed additions from a table of d·2^(8w)·base (8-bit windows,
        8160 affine points, ``_fixed_base_table``); each GPU thread converts 32 consecutive
        results to affine with one inversion. Scalars go up in slices of ``_FB_SLICE``.

        Raises:
            ValueError: a scalar outside [0, r), or a malformed base encoding.
        """
        k = _coord_words(group)
        if isinstance(base, (bytes, bytearray, memoryview, np.ndarray)):
            base_bytes = base.tobytes() if isinstance(base, np.ndarray) else bytes(base)
            group.from_uncompressed(base_bytes, check_subgroup=False)   # checks the encoding
        else:
            base_bytes = group.to_uncompressed(base)
        limbs = _host_limbs(scalars, f"{group.name} fixed_base_mul scalars")
        n = limbs.shape[0]
        out = np.empty((n, group.uncompressed_size), dtype=np.uint8)
        if n == 0:
            return out
        if not any(base_bytes[1:]) and base_bytes[0] & 0x40:   # k · infinity
            out[:] = 0
            out[:, 0] = 0x40
            return out
        cp = self.cp
        tab = self._fixed_base_table(group, base_bytes)
        fn = _kernel("msm.cu", "fixed_base_mul", group.name)
        per = 32
        step = fixed_base_slice(k, self._mem_avail())
        for lo in range(0, n, step):
            m = min(step, n - lo)
            sc = cp.asarray(limbs[lo : lo + m])
            scratch = cp.empty((m, 48 * k), dtype=cp.uint32)
            prods = cp.empty((m, 12 * k), dtype=cp.uint32)
            aff = cp.empty((m, 24 * k), dtype=cp.uint32)
            groups = -(-m // per)
            fn((_grid(groups, 128),), (128,),
               (sc, _u64(m), _i32(_FB_C), _i32(_FB_WINDOWS), tab, _u32(per), scratch, prods, aff))
            del scratch, prods
            out[lo : lo + m] = self.points_download_affine(group, aff)
        return out

    def close(self) -> None:
        """Drop cached twiddles and tables and restore the pool's earlier limit (idempotent)."""
        if self._prev_limit is not None:
            self.set_mem_limit(None)
        self._tw.clear()
        self._tables.clear()
        self._csr.clear()
        self._coeff_tables.clear()
        self._fb_tables.clear()
