"""The ``cuda`` backend: Fr arithmetic, NTTs and G1 MSMs on an NVIDIA GPU through CuPy.

Device arrays are CuPy ``(n, 4)`` uint64 arrays of little-endian limbs in Montgomery form
(``x · 2^256 mod r``), C-contiguous. ``to_device`` checks and uploads canonical values and converts
them to Montgomery form on the GPU; ``to_host`` does the reverse.

What runs where:

- GPU (CUDA C in ``ntt.cu``, ``msm.cu``, ``spmv.cu`` and the headers beside them, compiled by
  CuPy/NVRTC for the device's architecture and cached by CuPy): ``add``, ``sub``, ``mul``,
  ``scale``, ``powers``, ``pad``, ``select``, ``ntt`` (forward/inverse, sizes 2^0..2^27),
  ``coset_ntt``, ``compute_h`` (iNTT → coset NTT → a·b − c → coset iNTT, with n⁻¹, the coset
  powers and 1/Z fused into the NTT passes), ``spmv`` (CSR, a group of lanes per row, the matrix
  and its Montgomery coefficient table cached on the device per matrix object),
  ``first_unsatisfied`` (a·b = c check, one atomicMin), and ``msm_context(G1, …)`` (Pippenger
  with signed windows, counting sort of bucket entries with atomics, XYZZ bucket sums, segmented
  running-sum reduction; scalars equal to 1 summed apart; the last ≈⌈255/c⌉ window sums are
  combined on the host with arkworks; scalars may be host ints or a device array).
- CPU, by explicit delegation to ``CPUBackend`` (not yet ported; results are identical, speed is
  the CPU's): ``msm_context(G2, …)`` (device scalars are copied to the host) and
  ``fixed_base_mul`` (setup).

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

import hashlib
import math
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
_SOURCES = ("ff.cuh", "fr.cuh", "fq.cuh", "g1.cuh", "ntt.cu", "msm.cu", "spmv.cu")

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


def _module(name: str):
    """The compiled CuPy RawModule of ``name`` (``ntt.cu`` or ``msm.cu``), compiled once per process.

    The source is read from this package's directory and compiled with ``-I`` pointing there; a
    digest of all headers is appended as a comment so that CuPy's on-disk cache (keyed by the code
    and options) is invalidated when a header changes.
    """
    mod = _MODULES.get(name)
    if mod is None:
        cp = _cupy()
        digest = hashlib.sha256()
        for f in _SOURCES:
            with open(os.path.join(_SRC_DIR, f), "rb") as fh:
                digest.update(fh.read())
        with open(os.path.join(_SRC_DIR, name)) as fh:
            code = fh.read() + f"\n// cuzk sources sha256 {digest.hexdigest()}\n"
        mod = cp.RawModule(code=code, options=("-std=c++17", f"-I{_SRC_DIR}"))
        _MODULES[name] = mod
    return mod


def _kernel(module: str, name: str):
    return _module(module).get_function(name)


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


_CHUNK0 = 32   # entries per thread at the first level of the chunked bucket path
_CHUNK = 16    # partial sums per thread at later levels


# --- MSM ----------------------------------------------------------------------------------------


class CUDAMSMContext(MSMContext):
    """G1 bases resident in GPU memory (affine, Montgomery Fq, (0, 0) = infinity).

    Built by ``CUDABackend.msm_context(G1, bases)``; ``msm`` takes host int arrays or cuda device
    arrays of Fr scalars. The bases are not re-validated (the interface's contract: already
    checked); only the encoding's shape and flags are read.
    """

    def __init__(self, backend: "CUDABackend", group: Group, bases: np.ndarray | None, device_bases=None):
        if group.name != "G1":
            raise ValueError(f"CUDAMSMContext handles G1 only, got {group.name}")
        self.group = group
        self._be = backend
        cp = backend.cp
        if device_bases is not None:
            self._bases = device_bases
        else:
            raw = np.ascontiguousarray(bases, dtype=np.uint8)
            if raw.ndim != 2 or raw.shape[1] != group.uncompressed_size:
                raise ValueError(f"{group.name} bases must have shape (n, {group.uncompressed_size}), got {raw.shape}")
            n = raw.shape[0]
            if n and np.any(raw[:, 0] & 0x80):
                raise ValueError(f"{group.name} bases: compressed encoding in an uncompressed array")
            inf = (raw[:, 0] & 0x40) != 0
            body = raw.copy()
            body[:, 0] &= 0x1F
            le = np.ascontiguousarray(body.reshape(n, 2, 48)[:, :, ::-1]).view("<u4").reshape(n, 24)
            le[inf] = 0
            canon = cp.asarray(le.astype(np.uint32))
            self._bases = cp.empty_like(canon)
            if n:
                _kernel("msm.cu", "fq_to_mont")((_grid(2 * n, 256),), (256,), (canon, self._bases, _u64(2 * n)))
        self.size = int(self._bases.shape[0])

    @classmethod
    def from_device_affine(cls, backend: "CUDABackend", arr) -> "CUDAMSMContext":
        """Context over an existing device array of affine G1 points ((n, 24) uint32, Montgomery)."""
        return cls(backend, G1, None, device_bases=arr)

    def _scalars_device(self, scalars):
        cp = self._be.cp
        n = self.size
        sc_can = cp.empty((n, 8), dtype=cp.uint32)
        flags = cp.empty(n, dtype=cp.uint8)
        if isinstance(scalars, cp.ndarray):
            src = self._be._check(scalars)
            from_mont = 1
        else:
            limbs = _host_limbs(scalars, f"{self.group.name} msm scalars")
            if limbs.shape[0] != n:
                raise ValueError(f"{self.group.name} msm: {n} bases but {limbs.shape[0]} scalars")
            src = cp.asarray(limbs)
            from_mont = 0
        if src.shape[0] != n:
            raise ValueError(f"{self.group.name} msm: {n} bases but {src.shape[0]} scalars")
        if n:
            _kernel("msm.cu", "msm_prep")((_grid(n, 256),), (256,), (src, _i32(from_mont), sc_can, flags, _u64(n)))
        return sc_can, flags

    def _reduce(self, pts, count: int, per: int):
        """Sum consecutive groups of ``per`` XYZZ points: (count, 48) → (ceil(count/per), 48)."""
        cp = self._be.cp
        groups = -(-count // per)
        out = cp.empty((groups, 48), dtype=cp.uint32)
        _kernel("msm.cu", "xyzz_sum_groups")((_grid(groups, 128),), (128,), (pts, _u64(count), _u32(per), _u64(groups), out))
        return out

    def _bucket_sums(self, vals, offs, B: int):
        """(B, 48) XYZZ bucket sums from the sorted entries ``vals`` and offsets ``offs`` (B + 1).

        One thread per bucket when the largest bucket is at most twice the average (+64); otherwise
        chunks of ``_CHUNK0`` entries per thread, then levels summing ``_CHUNK`` partials per thread
        until each bucket has one (skewed scalars: equal values, a short top window).
        """
        cp = self._be.cp
        buckets = cp.empty((B, 48), dtype=cp.uint32)
        counts = offs[1:] - offs[:-1]
        maxc = int(counts.max()) if B else 0
        total = int(offs[-1]) if B else 0
        if maxc <= 2 * (total // max(1, B)) + 64:
            _kernel("msm.cu", "msm_bucket_acc")((_grid(B, 128),), (128,), (vals, offs, self._bases, _u64(B), buckets))
            return buckets
        src, L, level = None, _CHUNK0, 0
        while True:
            nch = (counts + (L - 1)) // L
            ch_off = cp.zeros(B + 1, dtype=cp.uint32)
            ch_off[1:] = cp.cumsum(nch, dtype=cp.uint32)
            nchunks = int(ch_off[-1])
            chunk_bucket = cp.searchsorted(ch_off[1:], cp.arange(nchunks, dtype=cp.uint32), side="right").astype(cp.uint32)
            out = cp.empty((max(1, nchunks), 48), dtype=cp.uint32)
            if level == 0:
                _kernel("msm.cu", "msm_chunk_acc")(
                    (_grid(nchunks, 128),), (128,),
                    (vals, offs, ch_off, chunk_bucket, _u32(L), _u64(nchunks), self._bases, out),
                )
            else:
                _kernel("msm.cu", "xyzz_chunk_sum")(
                    (_grid(nchunks, 128),), (128,), (src, offs, ch_off, chunk_bucket, _u32(L), _u64(nchunks), out)
                )
            maxc = -(-maxc // L)
            src, offs, counts = out, ch_off, nch
            if maxc <= 1:
                _kernel("msm.cu", "msm_bucket_gather")((_grid(B, 256),), (256,), (src, offs, _u64(B), buckets))
                return buckets
            L, level = _CHUNK, level + 1

    def msm_device(self, scalars, c: int | None = None, profile: dict | None = None):
        """Run the GPU part; returns (window sums (W, 48) uint32 XYZZ Montgomery, ones sum (1, 48) or None, c).

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
        _kernel("msm.cu", "msm_hist")((_grid(n, 256),), (256,), (sc, _u64(n), _i32(c), _i32(W), counts))
        offs = cp.zeros(B + 1, dtype=cp.uint32)
        offs[1:] = cp.cumsum(counts, dtype=cp.uint32)
        cursor = offs[:-1].copy()
        vals = cp.empty(max(1, n * W), dtype=cp.uint32)
        _kernel("msm.cu", "msm_scatter")((_grid(n, 256),), (256,), (sc, flags, _u64(n), _i32(c), _i32(W), cursor, vals))
        del counts, cursor
        mark("sort")
        buckets = self._bucket_sums(vals, offs, B)
        del vals, offs
        mark("buckets")
        T = 1 << max(0, min(int(math.log2(max(1, 65536 // W))), c - 1))
        SL = NB // T
        seg = cp.empty((W * T, 48), dtype=cp.uint32)
        _kernel("msm.cu", "msm_bucket_reduce")((_grid(W * T, 128),), (128,), (buckets, _u32(NB), _u32(W), _u32(SL), seg))
        del buckets
        while T > 1:
            per = min(16, T)
            seg = self._reduce(seg, W * T, per)
            T //= per
        mark("reduce")
        ones = None
        if n and int(cp.count_nonzero(flags & 1)):
            per = 32
            groups = -(-n // per)
            part = cp.empty((groups, 48), dtype=cp.uint32)
            _kernel("msm.cu", "msm_ones")((_grid(groups, 128),), (128,), (flags, self._bases, _u64(n), _u32(per), _u64(groups), part))
            while part.shape[0] > 1:
                part = self._reduce(part, part.shape[0], 16)
            ones = part
        mark("ones")
        return seg, ones, c

    def msm(self, scalars, profile: dict | None = None, c: int | None = None):
        """Σ scalars[i]·bases[i] as a py-arkworks-bls12381 G1 point.

        Args:
            scalars: length ``size`` host int array / int sequence with values in [0, r), or a cuda
                device array ((size, 4) uint64 Montgomery).
            profile: optional dict receiving seconds per phase (synchronizes after each phase).
            c: window width override (tests and tuning; default ``msm_window(size)``).

        Raises:
            ValueError: wrong length or a scalar outside [0, r); RuntimeError: the context is closed.
        """
        if self._bases is None:
            raise RuntimeError(f"{self.group.name} MSM context is closed")
        if self.size == 0:
            _ = self._scalars_device(scalars)
            return self.group.identity()
        wins, ones, c = self.msm_device(scalars, c=c, profile=profile)
        t0 = time.perf_counter()
        pts = wins if ones is None else self._be.cp.concatenate([wins, ones])
        host = self._be._xyzz_to_points(pts)
        acc = self.group.identity()
        for p in reversed(host[: wins.shape[0]]):
            acc = self.group.mul(acc, 1 << c) + p
        if ones is not None:
            acc = acc + host[-1]
        if profile is not None:
            profile["host_combine"] = profile.get("host_combine", 0.0) + time.perf_counter() - t0
        return acc

    def close(self) -> None:
        """Drop the device bases (idempotent)."""
        self._bases = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# --- backend ------------------------------------------------------------------------------------


class CUDABackend(Backend):
    """Backend on a CUDA GPU through CuPy (see the module docstring for what runs where).

    Args:
        threads: CPU worker processes for the operations delegated to ``CPUBackend``.
        device: CUDA device ordinal (default: CuPy's current device).

    Raises:
        BackendUnavailableError: CuPy is missing or sees no CUDA device.
        ValueError: threads < 1.
    """

    name = "cuda"

    def __init__(self, threads: int = 1, device: int | None = None):
        if threads < 1:
            raise ValueError(f"threads must be ≥ 1, got {threads}")
        self.cp = _cupy()
        if device is not None:
            self.cp.cuda.Device(device).use()
        self.threads = int(threads)
        self._cpu = None
        self._tw: dict[int, object] = {}
        self._tables: dict[tuple[int, int, int], tuple] = {}
        self._csr: dict[int, tuple] = {}
        self._coeff_tables: dict[int, tuple] = {}

    # --- helpers ----------------------------------------------------------------------------

    def _cpu_backend(self):
        if self._cpu is None:
            from ..cpu import CPUBackend

            self._cpu = CPUBackend(threads=self.threads)
        return self._cpu

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

    def _xyzz_to_points(self, pts) -> list:
        """(k, 48) uint32 XYZZ Montgomery on the device → list of arkworks G1 points (host)."""
        cp = self.cp
        k = pts.shape[0]
        canon = cp.empty_like(pts)
        _kernel("msm.cu", "fq_from_mont")((_grid(4 * k, 256),), (256,), (pts, canon, _u64(4 * k)))
        vals = _limbs_to_ints(canon.get().view(np.uint64).reshape(4 * k, 6))
        out = []
        for i in range(k):
            X, Y, ZZ, ZZZ = vals[4 * i : 4 * i + 4]
            if ZZ == 0:
                out.append(G1.identity())
                continue
            inv = int(gmpy2.invert(ZZ * ZZZ % _Q, _Q))
            x = X * inv % _Q * ZZZ % _Q
            y = Y * inv % _Q * ZZ % _Q
            out.append(G1.from_uncompressed(x.to_bytes(48, "big") + y.to_bytes(48, "big"), check_subgroup=False))
        return out

    # --- G1 point arrays on the device (tests, benchmarks) -----------------------------------

    def g1_upload_affine(self, bases: np.ndarray):
        """(n, 96) uint8 uncompressed G1 encodings → device affine array ((n, 24) uint32, Montgomery)."""
        return CUDAMSMContext(self, G1, bases)._bases

    def g1_download_affine(self, dev) -> np.ndarray:
        """Device affine array ((n, 24) uint32, Montgomery) → (n, 96) uint8 uncompressed encodings."""
        n = int(dev.shape[0])
        canon = self.cp.empty_like(dev)
        if n:
            _kernel("msm.cu", "fq_from_mont")((_grid(2 * n, 256),), (256,), (dev, canon, _u64(2 * n)))
        le = canon.get().view(np.uint8).reshape(n, 2, 48)
        out = np.ascontiguousarray(le[:, :, ::-1]).reshape(n, 96)
        inf = ~out.any(axis=1)
        out[inf, 0] = 0x40
        return out

    def g1_sum_grid(self, a_dev, b_dev, n: int):
        """Device affine array of n points A[i mod len(A)] + B[i div len(A)] (distinct test bases
        from len(A) + n/len(A) host points; one Fermat inversion per 32 points on the GPU)."""
        na = int(a_dev.shape[0])
        if na * int(b_dev.shape[0]) < n:
            raise ValueError("g1_sum_grid: len(A) * len(B) < n")
        cp = self.cp
        out = cp.empty((n, 24), dtype=cp.uint32)
        if n:
            per = 32
            scratch = cp.empty((n, 48), dtype=cp.uint32)
            prods = cp.empty((n, 12), dtype=cp.uint32)
            groups = -(-n // per)
            _kernel("msm.cu", "g1_gen_points")(
                (_grid(groups, 128),), (128,), (a_dev, _u32(na), b_dev, _u64(n), _u32(per), scratch, prods, out)
            )
        return out

    # --- transfers --------------------------------------------------------------------------

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

    def powers(self, x: int, n: int):
        """Device array [1, x, x², …, x^(n−1)] in Fr (GPU, from two tables of ≈√n host powers)."""
        if n < 0:
            raise ValueError(f"powers: negative length {n}")
        return self._powers(int(x), 1, n)

    def length(self, a) -> int:
        """Number of elements."""
        return int(self._check(a).shape[0])

    def slice(self, a, start: int, stop: int):
        """a[start:stop] as a new device array (numpy slice semantics)."""
        return self._check(a)[start:stop].copy()

    def select(self, a, mask: np.ndarray):
        """The elements of ``a`` where the host bool array ``mask`` is True (gathered on the GPU)."""
        a = self._check(a)
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != (a.shape[0],):
            raise ValueError(f"select: mask of shape {mask.shape} for {a.shape[0]} elements")
        return a[self.cp.asarray(np.flatnonzero(mask))]

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

    def msm_context(self, group: Group, bases: np.ndarray) -> MSMContext:
        """Resident MSM bases: G1 on the GPU (``CUDAMSMContext``); G2 — DELEGATED TO THE CPU
        (``CPUBackend.msm_context``, whose ``msm`` takes host int arrays; device arrays are
        copied to the host first)."""
        if group.name == "G1":
            return CUDAMSMContext(self, group, bases)
        return _HostScalarsMSM(self, self._cpu_backend().msm_context(group, bases))

    def fixed_base_mul(self, group: Group, base, scalars: Sequence[int]) -> np.ndarray:
        """[k·base for k in scalars] — DELEGATED TO THE CPU (``CPUBackend.fixed_base_mul``)."""
        return self._cpu_backend().fixed_base_mul(group, base, scalars)

    def close(self) -> None:
        """Drop cached twiddles and tables, and close the CPU delegate (idempotent)."""
        self._tw.clear()
        self._tables.clear()
        self._csr.clear()
        self._coeff_tables.clear()
        if self._cpu is not None:
            self._cpu.close()
            self._cpu = None


class _HostScalarsMSM(MSMContext):
    """Wraps a CPU MSM context so that it also accepts cuda device arrays of scalars."""

    def __init__(self, be: CUDABackend, inner: MSMContext):
        self._be, self._inner = be, inner
        self.group, self.size = inner.group, inner.size

    def msm(self, scalars, profile: dict | None = None, c: int | None = None):
        if isinstance(scalars, self._be.cp.ndarray):
            scalars = self._be.to_host(scalars)
        return self._inner.msm(scalars)

    def close(self) -> None:
        self._inner.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
