"""Device runtime of the ``cuda`` backend: CuPy, kernel modules, host/device conversions and the
memory pool.

- ``cuda_available``/``_cupy``: CuPy is imported inside these only, so importing this module
  needs no CuPy; ``_cupy`` raises ``BackendUnavailableError`` without CuPy or a device.
- ``_module``/``_kernel``: ``ntt.cu``, ``ntt_radix.cu``, ``spmv.cu``, ``sha_witness.cu`` and ``msm.cu`` (per group) beside this file,
  compiled by CuPy/NVRTC (``RawModule``) once per process and cached on disk by CuPy.
- Host conversions: Fr values ↔ ``(n, 4)`` uint64 canonical limbs (``_host_limbs`` classifies
  the values by bit length in one pass: 0/1, most of a witness, need no conversion, values below
  2^64 go through numpy, only wider ones through ``int.to_bytes``); point encodings ↔ uint32 limbs.
- ``_PoolAllocator`` and ``DeviceRuntime`` (the base of ``CUDABackend``'s parts): the pool's
  limit, the room planners see (``_mem_avail``), live and pool peaks, CuPy's OutOfMemoryError →
  ``GPUMemoryError`` (``_guarded``, ``_guard``), uploads (plain, and staged through pinned
  buffers on a side stream) and downloads.
"""

from __future__ import annotations

import functools
import gc
import hashlib
import os
import weakref
from typing import Sequence

import gmpy2
import numpy as np

from ...curve import Group
from ...field import FQ, FR, is_limb_array, limbs_below_modulus, to_limbs
from ..base import BackendUnavailableError, GPUMemoryError, PendingUpload
from . import pinned
from .computed import computed_scratch_bytes, sha_bits_on_device, wide_on_device
from .pieces import set_rows
from .plan import _coord_words

_R = FR.modulus
_Q = FQ.modulus
_MPZ = gmpy2.mpz
_RZ = _MPZ(_R)
_MONT_R = pow(2, 256, _R)

_SRC_DIR = os.path.dirname(os.path.abspath(__file__))
_SOURCES = ("ff.cuh", "fr.cuh", "fq.cuh", "xyzz.cuh", "msm_affine.cuh", "g1.cuh", "g2.cuh", "ntt.cuh", "ntt.cu", "ntt_radix.cu",
            "msm.cu", "spmv.cu", "sha_witness.cuh", "sha_witness.cu", "poseidon_witness.cuh",
            "poseidon_witness.cu")


def cuda_available() -> bool:
    """True when CuPy imports and sees at least one CUDA device (never raises)."""
    try:
        _cupy()
    except BackendUnavailableError:
        return False
    return True


def require_cuda() -> None:
    """Checks that the cuda backend can run here (CuPy imports and sees a CUDA device).

    Raises:
        BackendUnavailableError: naming what is missing.
    """
    _cupy()


def _cupy():
    try:
        import cupy  # CuPy is optional: imported on use
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


def _encoding_to_limbs(group: Group, raw, xp=np):
    """(n, 96 k) uint8 uncompressed encodings → (n, 24 k) uint32 canonical little-endian limbs in
    device order (x then y; over Fq2 c0 then c1), the point at infinity as zeros. ``xp`` is numpy
    (host arrays) or cupy (device arrays: the same steps run on the GPU).

    Raises:
        ValueError: wrong shape, or a compressed encoding (flag 0x80) in the array.
    """
    k = _coord_words(group)
    raw = xp.ascontiguousarray(raw, dtype=xp.uint8)
    if raw.ndim != 2 or raw.shape[1] != group.uncompressed_size:
        raise ValueError(f"{group.name} bases must have shape (n, {group.uncompressed_size}), got {raw.shape}")
    n = raw.shape[0]
    if n and bool(xp.any(raw[:, 0] & 0x80)):
        raise ValueError(f"{group.name} bases: compressed encoding in an uncompressed array")
    inf = (raw[:, 0] & 0x40) != 0
    body = raw.copy()
    body[:, 0] &= 0x1F
    words = body.reshape(n, 2 * k, 48)[:, :, ::-1]        # each big-endian Fq word, little-endian
    if k == 2:
        words = words[:, [1, 0, 3, 2], :]                 # zcash writes c1 ‖ c0
    le = xp.ascontiguousarray(words).view("<u4").reshape(n, 24 * k)
    le[inf] = 0
    return le.astype(xp.uint32)


def _limbs_to_encoding(group: Group, canon, xp=np):
    """Inverse of ``_encoding_to_limbs``: (n, 24 k) uint32 canonical → (n, 96 k) uint8 uncompressed
    (``xp`` numpy or cupy, as there)."""
    k = _coord_words(group)
    n = canon.shape[0]
    words = xp.ascontiguousarray(canon).view(xp.uint8).reshape(n, 2 * k, 48)
    if k == 2:
        words = words[:, [1, 0, 3, 2], :]
    out = xp.ascontiguousarray(words[:, :, ::-1]).reshape(n, 96 * k)
    inf = ~out.any(axis=1)
    out[:, 0] |= inf.astype(xp.uint8) << 6                # 0x40 on the all-zero rows only
    return out


_UPLOAD_CHUNK_BYTES = 64 << 20
"""Size of each of the two pinned host buffers ``to_device_async`` copies through."""


class _PendingCUDAUpload(PendingUpload):
    """An upload queued on a side stream (``event`` marks its end), or, when ``array`` is None,
    host limbs (or a compact assignment, ``compact``) whose upload was deferred to ``ready``."""

    __slots__ = ("backend", "limbs", "event", "compact", "compact_w")

    def __init__(self, backend: "DeviceRuntime", array, limbs: np.ndarray | None, event=None, compact=None,
                 compact_w: "CompactW | None" = None):
        if compact is not None:
            nbytes = 32 * len(compact)
        else:
            nbytes = int(limbs.nbytes) if limbs is not None else int(array.nbytes)
        super().__init__(array, nbytes)
        self.backend, self.limbs, self.event, self.compact = backend, limbs, event, compact
        self.compact_w = compact_w   # the compact form on the device (``CUDABackend.compact_of``)

    def ready(self):
        """The device array ((n, 4) uint64, Montgomery); the current stream waits (on the
        device) for the upload's event, or uploads the deferred limbs itself; a deferred compact
        assignment is expanded on the device when the room is there now, else on the host.

        Raises:
            GPUMemoryError: a deferred upload finds no room.
        """
        if self.compact is not None:
            bk, cw, self.compact = self.backend, self.compact, None
            now = bk.compact_to_device_async(cw, stream=bk.cp.cuda.get_current_stream())
            self.array, self.compact_w = now.ready(), now.compact_w
        elif self.array is None:
            bk = self.backend
            self.array = bk._guarded("to_device", bk._to_device_limbs, self.limbs)
            self.limbs = None
        elif self.event is not None:
            self.backend.cp.cuda.get_current_stream().wait_event(self.event)
            self.event = None
        return self.array


class HostFr:
    """An Fr array moved to host memory by ``CUDABackend.offload``: ``mont`` is its ``(n, 4)``
    uint64 Montgomery limbs (as on the device: no conversion either way)."""

    __slots__ = ("mont",)

    def __init__(self, mont: np.ndarray):
        self.mont = mont

    def __len__(self) -> int:
        return int(self.mont.shape[0])

    def __getitem__(self, sl: slice) -> "HostFr":
        """Elements ``sl`` as a HostFr over the same host memory (a view, no copy)."""
        if not isinstance(sl, slice):
            raise TypeError("HostFr takes slices only")
        return HostFr(self.mont[sl])


class CompactW:
    """An assignment w kept on the device as its witness file stores it (``CompactAssignment``),
    elements ``start:stop`` of it (slicing gives a view): ``inputs`` ``(ni, 4)`` uint64 Montgomery,
    ``mask`` the packed is-a-bit flags as uint32 words (zero-padded), ``cumw`` uint32 the set flags
    before each word, ``bits`` the packed bit values (uint8), ``wide`` ``(num_wide, 4)`` uint64
    canonical: all device arrays. ``CUDABackend.restore`` expands a span, or a selection's rows, on
    the device (``expand_compact`` of ntt.cu): a 32 GiB PoRep partition's w takes about 87 MB this
    way against 4.2 GB as limbs, so the prover keeps it for A's, B's and L's scalars instead of a
    copy of w (``compact_of``)."""

    __slots__ = ("inputs", "mask", "cumw", "bits", "wide", "ni", "start", "stop", "nbytes")

    def __init__(self, inputs, mask, cumw, bits, wide, num_aux: int):
        self.inputs, self.mask, self.cumw, self.bits, self.wide = inputs, mask, cumw, bits, wide
        self.ni = int(inputs.shape[0])
        self.start, self.stop = 0, self.ni + int(num_aux)
        self.nbytes = int(inputs.nbytes + mask.nbytes + cumw.nbytes + bits.nbytes + wide.nbytes)

    def __len__(self) -> int:
        return self.stop - self.start

    def __getitem__(self, sl: slice) -> "CompactW":
        """Elements ``sl`` (a slice, step 1) as a view over the same device arrays."""
        if not isinstance(sl, slice) or sl.step not in (None, 1):
            raise TypeError("CompactW takes slices of step 1 only")
        lo, hi, _ = sl.indices(len(self))
        view = object.__new__(CompactW)
        for k in CompactW.__slots__:
            setattr(view, k, getattr(self, k))
        view.start, view.stop = self.start + lo, self.start + max(lo, hi)
        return view


class HostSelection:
    """The elements of a ``HostFr`` (or a ``CompactW``) where a mask is set, picked only when a
    slice of them is asked for (``CUDABackend.host_select``, ``restore``): ``src`` the HostFr,
    ``mask`` the host bool array, ``rows`` the uint32 index in ``src`` of each selected element
    (shared by the selections of one mask)."""

    __slots__ = ("src", "mask", "rows")

    def __init__(self, src: HostFr, mask: np.ndarray, rows: np.ndarray):
        self.src, self.mask, self.rows = src, mask, rows

    def __len__(self) -> int:
        return int(self.rows.shape[0])


PINNED_READS = True
"""Small device arrays read back mid-computation (an MSM's scalar and ones counts, bucket counts
and totals, window sums; a decoded piece's error flag) go through page-locked memory
(``DeviceRuntime.read_back``): an asynchronous copy and a wait on the stream. Read at call time."""

RESTORABLE = (HostFr, HostSelection, CompactW)
"""Scalar vectors that wait off the device (or compact on it) and come back a piece at a time
(``CUDABackend.restore``)."""


def _guard(op: str):
    """Method decorator of ``CUDABackend``: CuPy's OutOfMemoryError → ``GPUMemoryError`` naming ``op``."""

    def deco(fn):
        @functools.wraps(fn)
        def wrapper(self, *args, **kwargs):
            return self._guarded(op, fn, self, *args, **kwargs)

        return wrapper

    return deco


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
        self.floor = 0   # at most the lowest live peak of the watchers: below it no peak moves

    def watch(self, backend) -> None:
        """Fold the pool's bytes in use into ``backend._live_peak`` after each allocation."""
        self.watchers.add(backend)
        self.floor = min(self.floor, backend._live_peak)

    def __call__(self, size: int):
        pool = self.pool
        try:
            mem = pool.malloc(size)
        except self.oom:
            if not pool.get_limit():
                raise
            pool.free_all_blocks()
            mem = pool.malloc(size)
        used = pool.used_bytes()
        if used > self.floor and self.watchers:   # open backends: one or two
            peaks = []
            for w in list(self.watchers):   # a WeakSet's walk: skipped below the floor (host µs a call)
                if used > w._live_peak:
                    w._live_peak = used
                peaks.append(w._live_peak)
            self.floor = min(peaks)
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


class DeviceRuntime:
    """Device memory, array checks and transfers of ``CUDABackend`` (a mixin: ``CUDABackend.__init__``
    sets ``cp`` and the pool state; the other parts, ``NTTOps``, ``SpMVOps`` and ``MSMOps``, build
    on it)."""

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

    def _own_chunks(self) -> None:
        """Under a pool limit, release the pool's cached free blocks (``free_all_blocks``) before
        arrays that outlive the work around them are allocated (a group's compact assignments,
        cached tables), so that they get chunks of their own. CuPy serves a small request from a
        larger cached free block by splitting it: a long-lived array carved from a freed 4.2 GB
        w pins that whole chunk, whose free rest can then neither be released nor hold the next
        array of the domain's size, yet counts against the limit (``POOL_FRAGMENT_ARRAYS`` of
        ``cuzk.memory.gpu_plan``). Without a limit nothing is released (the cache is kept)."""
        pool = self._pool()
        if pool.get_limit():
            pool.free_all_blocks()

    def _free_cached(self) -> None:
        """Return the pool's cached blocks to the device (after an out-of-memory)."""
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

    def live_at_start(self, *ops: str) -> list:
        """Record the pool's (live, held) bytes (arrays in use; those plus cached free blocks,
        which count against a limit) each time one of the methods named ``ops`` of this backend
        instance starts (e.g. "compute_h": what a plan's H phase holds then); returns the list
        the pairs are appended to, in call order."""
        pool, seen = self._pool(), []
        for name in ops:
            def wrapped(*a, _f=getattr(self, name), **k):
                seen.append((int(pool.used_bytes()), int(pool.total_bytes())))
                return _f(*a, **k)
            setattr(self, name, wrapped)
        return seen

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

    def compact_to_device_async(self, cw, stream=None, defer: bool = False) -> "_PendingCUDAUpload":
        """``to_device_async`` of an assignment as a witness file stores it
        (``cuzk.backend.CompactAssignment``, values already checked): only the packed bits and
        the wide values cross the bus (about 35 MB of a 32 GiB partition's 4.2 GB), and w is
        expanded on the device (``fr_to_mont`` after it), on ``stream`` as ``to_device_async``.

        When ``defer`` is set, nothing happens until ``ready()``, which does the same then (with
        the room there is at that time): under a device limit the prover stages a partition
        only when its H phase starts, and the host expansion (2.4-3.6 s of one core for a 32 GiB
        partition on the H200 host, benchmarks/results/2026-12-02-h200/stop15) is then skipped
        whenever the device has room for the expansion. When the device has no room for w and
        its compact form, w is expanded on the host and uploaded from there.

        Returns the pending upload of the ``(len(cw), 4)`` uint64 Montgomery array; its
        ``compact_w`` is the compact form left on the device (``CompactW``; None when w was
        expanded on the host).

        Raises:
            GPUMemoryError: the device (or the pool's limit) has no room.
        """
        if defer:
            return _PendingCUDAUpload(self, None, None, compact=cw)
        # w and the compact form beside it (and a prover-computed SHA table's slots while they are made)
        need = 32 * len(cw) + cw.nbytes + computed_scratch_bytes(cw.wide) + (cw.sha.end if cw.sha is not None else 0)
        with self.cp.cuda.Device(self._device_id):
            avail = self._mem_avail(need)
            if avail is not None and avail < need:
                return _PendingCUDAUpload(self, None, cw.limbs())
            return self._guarded("to_device", self._compact_upload, cw, stream)

    def _compact_upload(self, cw, stream) -> "_PendingCUDAUpload":
        cp = self.cp
        stream = self.named_stream("upload") if stream is None else stream
        words = -(-cw.num_aux // 32)
        self._own_chunks()   # the compact form lives through the group's H phases and MSMs
        with stream:  # allocations and copies on the side stream (see _upload_async)
            canon = cp.empty((len(cw.inputs), 4), dtype=cp.uint64)
            canon.set(cw.inputs, stream=stream)
            inputs = cp.empty_like(canon)
            self._launch_ew("fr_to_mont", canon.shape[0], canon, inputs)
            mask = cp.zeros(words, dtype=cp.uint32)
            if cw.mask.size:
                mask.view(cp.uint8)[: cw.mask.size].set(cw.mask, stream=stream)
            cumw = cp.empty(words, dtype=cp.uint32)
            if words:
                _kernel("ntt.cu", "popc_words")((_grid(words, 256),), (256,), (mask, cumw, _u64(words)))
                cumw = cp.cumsum(cumw, dtype=cp.uint32) - cumw   # exclusive: set flags before each word
            bits32 = cp.empty(-(-cw.bits.size // 4), dtype=cp.uint32)   # words: the SHA fill's atomics
            bits = bits32.view(cp.uint8)[: cw.bits.size]
            if cw.bits.size:
                bits.set(cw.bits, stream=stream)
            if cw.sha is not None:   # synthesis_sha: prover: the compressions' bits made here
                sha_bits_on_device(cp, _kernel, cw.sha, mask, cumw, bits32)
            cwd = CompactW(inputs, mask, cumw, bits, wide_on_device(cp, cw.wide, stream), cw.num_aux)
            out = self._expand(cwd, 0, len(cwd))
        return _PendingCUDAUpload(self, out, None, stream.record(), compact_w=cwd)

    def compact_of(self, upload) -> "CompactW | None":
        """``Backend.compact_of``: the ``CompactW`` a ``compact_to_device_async`` upload left on the
        device (the upload lets go of it: the caller's reference decides how long it stays), or
        None (w uploaded as limbs, or expanded on the host)."""
        cwd = getattr(upload, "compact_w", None)
        if cwd is not None:
            upload.compact_w = None
        return cwd

    def _expand(self, cwd: "CompactW", lo: int, hi: int, rows=None):
        """Elements ``lo:hi`` of a ``CompactW`` (or, with ``rows``, its elements at ``lo`` plus those
        uint32 device indices) as a new ``(m, 4)`` uint64 Montgomery device array, on the current
        stream (``expand_compact``)."""
        cp = self.cp
        m = max(0, hi - lo) if rows is None else int(rows.shape[0])
        out = cp.empty((m, 4), dtype=cp.uint64)
        if m:
            _kernel("ntt.cu", "expand_compact")((_grid(m, 256),), (256,), (
                cwd.inputs, _u64(cwd.ni), cwd.mask, cwd.cumw, cwd.bits, cwd.wide,
                rows if rows is not None else np.uint64(0), _u64(cwd.start + lo), out, _u64(m)))
        return out

    def read_back(self, arr) -> np.ndarray:
        """``arr.get()`` (on the current stream) into page-locked memory where ``PINNED_READS``
        (CuPy's pinned pool; ``arr`` made contiguous first): a copy into pageable memory is synchronous
        in the driver, and while the main thread's MSM waited in such reads a helper thread's
        copies of the next key piece waited with it (beside a kernel holding every SM, 2.3 s
        against 0.3 s: benchmarks/stream_overlap, 2026-12-04-h200-stop37/call4). Returns a host
        array of ``arr``'s shape and dtype (CuPy's pinned memory, held while referenced)."""
        if not PINNED_READS:
            return arr.get()
        import cupyx  # part of CuPy (optional): imported on use

        arr = self.cp.ascontiguousarray(arr)
        out = cupyx.empty_pinned(arr.shape, dtype=arr.dtype)
        return arr.get(out=out)

    def read_int(self, arr) -> int:
        """The one element of a device array (shape () or (1,): a count, a total, a flag) as a
        Python int, read through ``read_back``."""
        return int(self.read_back(arr.reshape(1))[0])

    def sm_count(self) -> int:
        """Streaming multiprocessors of the current device (its ``multiProcessorCount``), read once per device."""
        counts = self._sm_counts
        dev = self.cp.cuda.runtime.getDevice()
        if dev not in counts:
            counts[dev] = int(self.cp.cuda.runtime.getDeviceProperties(dev)["multiProcessorCount"])
        return counts[dev]

    def named_stream(self, name: str):
        """A ``side_stream`` kept per backend, device and ``name`` (the asynchronous uploads'
        "upload", the MSMs' "msm-sort" and "msm-buckets"), made on first use: CuPy's pool caches the blocks freed on a stream for that
        stream alone, so a stream made per call would strand its blocks until the pool is emptied."""
        streams = self._named_streams
        key = (name, self.cp.cuda.runtime.getDevice())
        if key not in streams:
            streams[key] = self.side_stream()
        return streams[key]

    def side_stream(self):
        """A new non-blocking CUDA stream (the next key piece's copy, the next scalar
        slice, the next matrix block). At the device's highest priority (made by the driver;
        CuPy 14 has no stream priorities) the streamed MSMs overlapped their pieces' transfers
        little better (benchmarks/stream_overlap, 2026-12-04-h200-stop37/call3), so CuPy's own."""
        return self.cp.cuda.Stream(non_blocking=True)

    def _upload_async(self, limbs: np.ndarray, stream) -> "_PendingCUDAUpload":
        """Queue ``limbs`` ((n, 4) uint64 canonical, host) on ``stream`` (see ``to_device_async``)."""
        import cupyx  # part of CuPy (optional): imported on use

        cp = self.cp
        stream = self.named_stream("upload") if stream is None else stream
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

    def host_buffers(self, count: int, shape: tuple, ahead: bool = False) -> "pinned.HostBuffers":
        """``Backend.host_buffers``: ``count`` page-locked (``host_empty``) uint64 arrays of
        ``shape`` (``HostBuffers``; ``ahead``: made on a background thread as ``make_ahead``
        asks)."""
        return pinned.HostBuffers(self, count, shape, ahead)

    def make_room(self, nbytes: int) -> float:
        """``Backend.make_room``: ``pinned.make_room(nbytes)`` (seconds)."""
        return pinned.make_room(nbytes)

    def host_empty(self, shape: tuple, dtype=np.uint64) -> np.ndarray:
        """An uninitialised host array, page-locked where it can be had (``pinned.empty``: large
        ones mapped and registered, small ones from CuPy's pinned pool; both reused for the next
        partition's arrays): copies to and from the device then run at the bus's DMA rate. Else
        pageable: on the H200 host, pageable copies of a limited prove's scalars ran at 3-6 GB/s
        (benchmarks/results/2026-12-02-h200/stop15)."""
        try:
            return pinned.empty(shape, dtype, self.cp)
        except (self.cp.cuda.runtime.CUDARuntimeError, MemoryError, OSError):
            return np.empty(shape, dtype=dtype)

    def host_filled(self, shape: tuple, dtype, fill) -> np.ndarray:
        """``host_empty``'s array with ``fill(array)`` run on it (it writes every element) before
        a new mapping is registered (``pinned.filled``: its pages faulted in once, by the fill).

        Raises:
            what ``fill`` raised.
        """
        try:
            return pinned.filled(shape, dtype, self.cp, fill)
        except (self.cp.cuda.runtime.CUDARuntimeError, MemoryError, OSError):
            out = np.empty(shape, dtype=dtype)
            fill(out)
            return out

    def offload(self, a, out: np.ndarray | None = None) -> HostFr:
        """The device array's Montgomery limbs copied to host memory (``HostFr``): into ``out``'s
        first rows when given (a uint64 ``(m, 4)`` host array, m ≥ len(a): a buffer kept across
        partitions, ``Prover.prove_groups``), else into ``host_empty``'s page-locked memory where it
        can be had.

        Raises:
            ValueError: ``out`` is not a uint64 (m, 4) array with room for ``a``.
        """
        a = self._check(a)
        self.bus_bytes += int(a.nbytes)
        if out is None:
            host = self.host_empty(a.shape, a.dtype)
        elif out.dtype != np.uint64 or out.ndim != 2 or out.shape[1] != 4 or out.shape[0] < a.shape[0]:
            raise ValueError(f"offload: a buffer of shape {out.shape} ({out.dtype}) for {a.shape[0]} elements")
        else:
            host = out[: a.shape[0]]
        a.get(out=host)
        return HostFr(host)

    @_guard("restore")
    def restore(self, h, lo: int, hi: int):
        """Elements ``lo:hi`` of an offloaded array (``HostFr``) back on the device ((m, 4) uint64,
        Montgomery); of a ``CompactW``: expanded on the device (``_expand``); of a
        ``HostSelection``: of a CompactW, the rows' uint32 indices uploaded and their values
        expanded; of a HostFr, the span of its source holding them uploaded and the selected
        rows picked there (``select``)."""
        if isinstance(h, CompactW):
            return self._expand(h, lo, hi)
        if isinstance(h, HostSelection):
            if hi <= lo:
                return self.cp.empty((0, 4), dtype=self.cp.uint64)
            if isinstance(h.src, CompactW):   # the rows' indices up (4 B each, page-locked), w's values gathered
                rows = self.cp.empty(hi - lo, dtype=self.cp.uint32)
                rows.set(h.rows[lo:hi], stream=self.cp.cuda.get_current_stream())
                self.bus_bytes += int(rows.nbytes)
                return self._expand(h.src, 0, 0, rows)
            r0, r1 = int(h.rows[lo]), int(h.rows[hi - 1]) + 1
            return self.select(self.restore(h.src, r0, r1), h.mask[r0:r1])
        part = h.mont[lo:hi]
        self.bus_bytes += int(part.nbytes)
        out = self.cp.empty(part.shape, dtype=self.cp.uint64)
        out.set(part, stream=self.cp.cuda.get_current_stream())   # from page-locked memory: asynchronous
        return out

    def host_select(self, h: "HostFr | CompactW", mask: np.ndarray) -> HostSelection:
        """``Backend.host_select``: a ``HostSelection`` (the index of the set rows computed once
        per mask array and kept while it lives: 4 bytes per selected element).

        Raises:
            ValueError: the mask's length differs from h's.
        """
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != (len(h),):
            raise ValueError(f"host_select: mask of shape {mask.shape} for {len(h)} elements")
        hit = self._sel_rows.get(id(mask))
        if hit is None or hit[0]() is not mask:
            rows = set_rows(mask, self.host_empty)   # page-locked: each piece's rows go up asynchronously
            try:
                hit = (weakref.ref(mask, lambda _, k=id(mask): self._sel_rows.pop(k, None)), rows)
                self._sel_rows[id(mask)] = hit
            except TypeError:
                hit = (None, rows)
        return HostSelection(h, mask, hit[1])

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
