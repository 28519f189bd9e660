"""The ``cpu`` backend: numpy object arrays of gmpy2.mpz for Fr, py-arkworks-bls12381 for curves.

Device arrays are 1-D int arrays (object dtype, ``gmpy2.mpz``, canonical values in [0, r)).
Field operations are vectorized numpy expressions over them. MSMs, the setup's fixed-base
multiplications and ``compute_h``'s NTT chains run in-process for ``threads == 1``, otherwise in
the backend's one pool of ``threads`` spawned worker processes (``cuzk.backend.workers``),
started on first use and shared by all its MSM contexts. ``msm_context(..., local=True)`` keeps
bases in this process instead, for callers that run arkworks' Pippenger (which releases the
GIL) on their own threads; ``cyclic_convolution`` is a fixed-kernel convolution by one GMP
product (Kronecker substitution).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import os
import sys
import threading
import weakref
from typing import Sequence

import gmpy2
import numpy as np

from ..curve import Group
from ..field import FR, from_limbs, is_limb_array, lagrange_at, limbs_below_modulus
from . import workers
from .base import Backend, CSRMatrix, MSMContext, fixed_base_point

_MPZ = gmpy2.mpz
_MPZ_TYPE = type(_MPZ(0))
_R = FR.modulus
_RZ = _MPZ(_R)
_ZERO = _MPZ(0)

MAX_LOG_NTT = workers.MAX_LOG_NTT
"""Largest NTT size handled, as log2 (2^27 is the Filecoin 32 GiB sector domain)."""

KRONECKER_MAX_LOG = 24
"""Largest log2(n) for which ``compute_h`` multiplies polynomials as GMP integers: the product of
two 2^k-coefficient polynomials is ~2^(k+10) bits, and GMP integers stop at 2^37 bits."""

MIN_POOL_NTT = 1024
"""Smallest n for which ``compute_h`` sends its NTT chains to the worker pool (below, the
pipe round trip and byte conversion cost more than the parallelism gains)."""


def _to_mpz(v):
    if type(v) is _MPZ_TYPE:
        return v
    if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
        return _MPZ(int(v))
    raise TypeError(f"Fr element must be an integer, got {type(v).__name__}")


_to_mpz_array = np.frompyfunc(_to_mpz, 1, 1)


def _check_range(a: np.ndarray, what: str) -> None:
    if len(a) and (min(a) < 0 or max(a) >= _R):
        bad = int(np.flatnonzero((a < 0) | (a >= _RZ))[0])
        raise ValueError(f"{what}: value at index {bad} is not in [0, r)")


def _as_scalars(values, what: str) -> np.ndarray:
    """Ints (list, int array, numpy integer array) or an ``(n, 4)`` uint64 canonical limb array →
    1-D mpz object array, checked in [0, r)."""
    if is_limb_array(values):
        if not limbs_below_modulus(values).all():
            bad = int(np.flatnonzero(~limbs_below_modulus(values))[0])
            raise ValueError(f"{what}: value at index {bad} is not in [0, r)")
        return from_limbs(values) if len(values) else np.empty(0, dtype=object)
    arr = values if isinstance(values, np.ndarray) else np.asarray(list(values), dtype=object)
    if arr.ndim != 1:
        raise ValueError(f"{what}: expected a 1-D sequence, got shape {arr.shape}")
    if arr.dtype != object and arr.dtype.kind not in "iu":
        raise TypeError(f"{what}: expected integers, got dtype {arr.dtype}")
    out = np.empty(len(arr), dtype=object)
    if len(arr):
        out[:] = _to_mpz_array(arr.astype(object))
    _check_range(out, what)
    return out


def _poly_mul(a: bytes, b: bytes) -> np.ndarray:
    """Coefficients of (Σ a_i x^i)·(Σ b_j x^j), unreduced, as an int array of length na + nb − 1.

    a, b: the coefficients as concatenated 32-byte little-endian values (``scalars_to_bytes``,
    the workers' transport form), so any values in [0, 2^256); empty gives empty.

    Kronecker substitution: c_k = Σ a_i·b_(k−i) < min(na, nb)·2^512, so S = ceil((512 +
    bitlen(min(na, nb)))/8) bytes per coefficient leave no carry between slots, and
    A(2^(8S))·B(2^(8S)) = Σ c_k·2^(8Sk) is one GMP multiplication (FFT-based: ~0.33 s for two
    2^17-coefficient polynomials on the dev box, against ~0.45 s for one NTT of 2^17).

    Raises:
        ValueError: a length is not a multiple of 32.
    """
    raw, slot, m = _kronecker(a, b)
    frm = _MPZ.from_bytes
    return np.fromiter((frm(raw[i : i + slot], "little") for i in range(0, m * slot, slot)), dtype=object, count=m)


def _kronecker(a: bytes, b: bytes) -> tuple[bytes, int, int]:
    """The product of ``_poly_mul`` as (little-endian bytes of m slots of ``slot`` bytes, slot, m)."""
    w = workers.SCALAR_BYTES
    if len(a) % w or len(b) % w:
        raise ValueError(f"coefficient buffers of {len(a)} and {len(b)} bytes are not whole 32-byte values")
    na, nb = len(a) // w, len(b) // w
    if na == 0 or nb == 0:
        return b"", 1, 0
    slot = -(-(512 + min(na, nb).bit_length()) // 8)
    m = na + nb - 1
    return (_pack(a, slot) * _pack(b, slot)).to_bytes(m * slot, "little"), slot, m


class CyclicConvolution:
    """x ↦ x ⊛ k, the cyclic convolution of length n with one fixed kernel k over Fr:
    (x ⊛ k)[m] = Σ_j x_j·k_((m−j) mod n) mod r. Built by ``CPUBackend.cyclic_convolution``.

    Kronecker substitution with the kernel packed once: x and k become integers with value j
    at byte slot·j, and x ⊛ k (before the reduction mod r) is their product modulo
    2^(8·slot·n) − 1, which wraps the linear product's upper half onto its lower half (slot sums
    stay below n·2^512, so no carry crosses a slot); only the n sums are reduced. That product
    is one call of GMP's ``mpn_mulmod_bnm1`` where it can be used (``_mulmod_bnm1``: at 2^16
    values 0.06 s against 0.15 s for the full product), else the full gmpy2 product, folded
    with two big-integer operations. It replaces an inverse NTT, a twist and a forward NTT
    wherever a fixed linear map on evaluations is a convolution (snarkjs' even-domain →
    odd-coset evaluation is one: ``formats.zkey_prover``).
    """

    def __init__(self, kernel: bytes):
        w = workers.SCALAR_BYTES
        if len(kernel) % w or not kernel:
            raise ValueError(f"convolution kernel of {len(kernel)} bytes is not a positive number of 32-byte values")
        self.n = n = len(kernel) // w
        slot = -(-(512 + n.bit_length()) // 8)
        self._bnm1 = _mulmod_bnm1()
        if self._bnm1 is not None:
            while (n * slot) % 8:  # whole 64-bit limbs (already so for n a multiple of 8)
                slot += 1
            self._k = _slots(kernel, slot).reshape(-1).view(np.uint64)
        else:
            self._k = _pack(kernel, slot)
        self.slot = slot

    def __call__(self, x) -> np.ndarray:
        """x ⊛ k for a device array (or 32-byte LE bytes) of n values below 2^256; canonical output.

        Raises:
            ValueError: x does not have n values.
        """
        data = x if isinstance(x, (bytes, bytearray)) else workers.scalars_to_bytes(x)
        n, slot = self.n, self.slot
        if len(data) != workers.SCALAR_BYTES * n:
            raise ValueError(f"cyclic convolution of length {n}: got {len(data) // workers.SCALAR_BYTES} values")
        if self._bnm1 is not None:
            rn = n * slot // 8
            xl = _slots(bytes(data), slot).reshape(-1).view(np.uint64)
            out = np.empty(rn, dtype=np.uint64)
            scratch = np.empty(2 * rn + 8, dtype=np.uint64)  # GMP needs at most 2·rn + 4 limbs
            # The result is exact: its value is below 2^(8·slot·n) − 1 (the top bits of every
            # slot are 0), and it is 0 only when x is (GMP writes the zero class as 0 then).
            self._bnm1(out.ctypes.data, rn, xl.ctypes.data, rn, self._k.ctypes.data, rn, scratch.ctypes.data)
            raw = out.tobytes()
        else:
            prod = _pack(bytes(data), slot) * self._k
            bits = 8 * slot * n
            raw = (gmpy2.f_mod_2exp(prod, bits) + gmpy2.f_div_2exp(prod, bits)).to_bytes(n * slot, "little")
        frm, r = _MPZ.from_bytes, _RZ
        return np.fromiter((frm(raw[i : i + slot], "little") % r for i in range(0, n * slot, slot)),
                           dtype=object, count=n)


def _slots(data: bytes, slot: int) -> np.ndarray:
    """32-byte LE values → (count, slot) uint8 array, value i in row i, zero-padded (Kronecker slots)."""
    w = workers.SCALAR_BYTES
    buf = np.zeros((len(data) // w, slot), dtype=np.uint8)
    buf[:, :w] = np.frombuffer(data, dtype=np.uint8).reshape(-1, w)
    return buf


def _pack(data: bytes, slot: int):
    """32-byte LE values → one mpz with the i-th value at byte slot·i (Kronecker packing)."""
    return _MPZ.from_bytes(_slots(data, slot), "little")  # reads the buffer, no bytes copy


@functools.lru_cache(maxsize=1)
def _mulmod_bnm1():
    """GMP's ``mpn_mulmod_bnm1(rp, rn, ap, an, bp, bn, tp)`` through ctypes, or None.

    It computes {ap, an}·{bp, bn} mod (2^64)^rn − 1 into rn limbs at rp (scratch tp of 2·rn + 4
    limbs; 0 < bn ≤ an ≤ rn): the cyclic product that GMP's own large multiplications are
    built on (mpn/generic/mulmod_bnm1.c, same signature since GMP 5.0), so about half the cost
    of the full product. It is internal, not public API: it is taken from the libgmp that gmpy2
    loaded (else the system's), only on a little-endian machine with 64-bit limbs, and checked
    against gmpy2 on two sizes (the basecase and a recursive one) before use. ctypes releases
    the GIL during the call. None (callers fall back to gmpy2) when any of that fails.
    """
    if sys.byteorder != "little":
        return None
    paths = []
    try:
        with open("/proc/self/maps") as f:  # the copy gmpy2 uses (a wheel bundles its own)
            for line in f:
                name = os.path.basename(line.split()[-1])
                if name.startswith(("libgmp.so", "libgmp-")) and line.split()[-1] not in paths:
                    paths.append(line.split()[-1])
    except (OSError, IndexError):
        pass
    if not paths:
        paths = [p for p in (ctypes.util.find_library("gmp"),) if p]
    for path in paths:
        try:
            lib = ctypes.CDLL(path)
            if ctypes.c_int.in_dll(lib, "__gmp_bits_per_limb").value != 64:
                continue
            fn = lib.__gmpn_mulmod_bnm1
        except (OSError, AttributeError, ValueError):
            continue
        fn.restype = None
        fn.argtypes = [ctypes.c_void_p, ctypes.c_long, ctypes.c_void_p, ctypes.c_long,
                       ctypes.c_void_p, ctypes.c_long, ctypes.c_void_p]
        if all(_check_bnm1(fn, rn) for rn in (3, 2048)):
            return fn
    return None


def _check_bnm1(fn, rn: int) -> bool:
    """Does ``fn`` compute a·b mod 2^(64·rn) − 1 for random a, b of rn limbs?"""
    a, b = (np.frombuffer(os.urandom(8 * rn), dtype=np.uint64) for _ in range(2))
    out, scratch = np.zeros(rn, dtype=np.uint64), np.zeros(2 * rn + 8, dtype=np.uint64)
    fn(out.ctypes.data, rn, a.ctypes.data, rn, b.ctypes.data, rn, scratch.ctypes.data)
    ia, ib, got = (_MPZ.from_bytes(v.tobytes(), "little") for v in (a, b, out))
    return got == ia * ib % ((_MPZ(1) << (64 * rn)) - 1)


class CPUMSMContext(MSMContext):
    """Resident MSM bases on the CPU: ark points in-process, or shards in the backend's workers.

    Built by ``CPUBackend.msm_context``. With threads > 1 (and n ≥ 2), worker i < min(threads, n)
    of the backend's one pool holds bases[lo_i:hi_i] as ark points under this context's key
    until ``close`` drops them; ``msm`` sends each of those workers only its scalars (32-byte LE)
    and adds the returned partial sums. A context garbage-collected without ``close`` has its
    shards dropped at the pool's next exchange. Usable as a context manager.

    With ``local=True`` the bases stay in this process whatever ``threads`` is, and are decoded
    on first use (``load`` decodes them now): arkworks' Pippenger releases the GIL, so ``msm``
    calls on local contexts from several threads run in parallel (``formats.ZKeyProver`` does
    this), with no worker processes to start and no bases to ship through pipes.
    """

    def __init__(self, group: Group, bases: np.ndarray, backend: "CPUBackend", local: bool = False):
        bases = np.ascontiguousarray(bases, dtype=np.uint8)
        if bases.ndim != 2 or bases.shape[1] != group.uncompressed_size:
            raise ValueError(
                f"{group.name} bases must have shape (n, {group.uncompressed_size}), got {bases.shape}"
            )
        self.group = group
        self.size = int(bases.shape[0])
        self._points: list | None = None
        self._bases: np.ndarray | None = None
        self._have: np.ndarray | None = None  # rows of _bases decoded into _points
        self._lock = threading.Lock()
        self._closed = False
        self._pool: workers.WorkerPool | None = None
        self._key: int | None = None
        self._ranges: list[tuple[int, int]] = []
        self._finalizer = None
        nshards = 1 if local else min(backend.threads, self.size)
        if nshards <= 1:
            if local:
                self._bases = bases if self.size else None
                self._points = None if self.size else []
            else:
                self._points = workers.decode_points(group, bases)
            return
        pool = backend._worker_pool()
        key = pool.new_key()
        ranges = workers.split(self.size, nshards)
        try:
            pool.run("load", [((key, group.name), bases[lo:hi].tobytes()) for lo, hi in ranges])
        except BaseException:
            pool.discard(key)  # some workers may hold their shard already
            raise
        self._pool, self._key, self._ranges = pool, key, ranges
        self._finalizer = weakref.finalize(self, pool.discard, key)
        self._finalizer.atexit = False  # at exit the pool goes anyway

    def encoded(self, lo: int, hi: int) -> np.ndarray:
        """Bases ``lo:hi`` as given (a local context keeps its encodings; others decoded them:
        NotImplementedError, as ``MSMContext.encoded``)."""
        if self._bases is None:
            return super().encoded(lo, hi)
        return np.array(self._bases[lo:hi])

    def load(self, need: np.ndarray | None = None) -> list | None:
        """Decode a local context's bases (idempotent, thread-safe): all of them, or only the rows
        where the bool mask ``need`` is True (``msm`` decodes just the rows whose scalar is not
        0, so bases that a witness never uses cost nothing). Returns the list of ark points
        (None at rows not decoded yet), or None for a context sharded over workers.

        Raises:
            RuntimeError: the context is closed.
            cuzk.curve.CurveError: a malformed or off-curve base (its index named).
        """
        if self._closed:
            raise RuntimeError(f"{self.group.name} MSM context is closed")
        if self._key is not None:
            return None
        with self._lock:
            if self._bases is None:  # everything decoded (or closed meanwhile)
                if self._points is None:
                    raise RuntimeError(f"{self.group.name} MSM context is closed")
                return self._points
            if self._points is None:
                self._points, self._have = [None] * self.size, np.zeros(self.size, dtype=bool)
            todo = ~self._have if need is None else np.asarray(need, dtype=bool) & ~self._have
            idx = np.flatnonzero(todo)
            if len(idx) == self.size:
                self._points = workers.decode_points(self.group, self._bases)
            elif len(idx):
                pts = self._points
                for i, p in zip(idx.tolist(), workers.decode_points(self.group, self._bases[idx], idx)):
                    pts[i] = p
            self._have[idx] = True
            if len(idx) and self._have.all():
                self._bases = self._have = None
            return self._points

    def msm(self, scalars) -> object:
        """Σ scalars[i]·bases[i] as a point of ``group`` (py-arkworks-bls12381 object).

        Args:
            scalars: length ``size`` int array (or int sequence) with values in [0, r).

        Raises:
            ValueError: wrong length or a scalar outside [0, r).
            RuntimeError: the context is closed, or its backend's workers were stopped
                (``CPUBackend.close``, or a worker died).
            workers.WorkerError: a worker failed or died during this call.
            cuzk.curve.CurveError: a local context's base does not decode (first use).
        """
        self._check_open()
        sc = _as_scalars(scalars, f"{self.group.name} msm scalars")
        if len(sc) != self.size:
            raise ValueError(f"{self.group.name} msm: {self.size} bases but {len(sc)} scalars")
        return self._msm_bytes(workers.scalars_to_bytes(sc))

    def msm_bytes(self, data: bytes) -> object:
        """``msm`` with the scalars already in transport form: ``size`` concatenated 32-byte
        little-endian values, each below r (arkworks refuses others: ValueError).

        Raises:
            ValueError: ``len(data) != 32·size``, or a scalar not below r.
            RuntimeError, workers.WorkerError, CurveError: as ``msm``.
        """
        self._check_open()
        if len(data) != workers.SCALAR_BYTES * self.size:
            raise ValueError(f"{self.group.name} msm: {self.size} bases but {len(data)} bytes of scalars")
        return self._msm_bytes(bytes(data))

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError(f"{self.group.name} MSM context is closed")
        if self._pool is not None and self._pool.closed:
            raise RuntimeError(f"{self.group.name} MSM context lost its workers (backend closed or a worker died)")

    def _msm_bytes(self, buf: bytes):
        if self._pool is None:
            need = np.frombuffer(buf, dtype=np.uint8).reshape(-1, workers.SCALAR_BYTES).any(axis=1)
            return workers.msm_shard(self.group, self.load(need), buf)
        w = workers.SCALAR_BYTES
        parts = self._pool.run("msm", [(self._key, buf[lo * w : hi * w]) for lo, hi in self._ranges])
        return self.group.sum(self.group.from_uncompressed(data, check_subgroup=False) for _, data in parts)

    def close(self) -> None:
        """Drop the bases, from the workers too (idempotent; the workers keep running)."""
        self._closed = True
        self._points = self._bases = self._have = None
        if self._key is None:
            return
        pool, key, nshards = self._pool, self._key, len(self._ranges)
        self._pool, self._key = None, None
        self._finalizer.detach()
        if not pool.closed:
            try:
                pool.run("drop", [([key], b"")] * nshards)
            except workers.WorkerError:
                pass  # the pool died, and the shards with it


class CPUBackend(Backend):
    """Backend on the host CPU (see the module docstring).

    Args:
        threads: size of the one worker pool (started on first use) that runs MSMs, fixed-base
            multiplication and compute_h's NTT chains; 1 = everything in-process, no workers.
            A Groth16 ``Prover`` therefore uses ``threads`` worker processes in all, whatever
            its number of MSM contexts. Elementwise ops, spmv and ``ntt`` run in this process.

    Raises:
        ValueError: threads < 1.
    """

    name = "cpu"

    def __init__(self, threads: int = 1):
        if threads < 1:
            raise ValueError(f"threads must be ≥ 1, got {threads}")
        self.threads = int(threads)
        self._twiddles = workers.Twiddles()
        self._pool: workers.WorkerPool | None = None
        self._pool_lock = threading.Lock()

    # --- transfers ---------------------------------------------------------------------------

    def to_device(self, values) -> np.ndarray:
        """Int array / int sequence → device array (a new 1-D mpz object array, not reduced).

        Raises:
            ValueError: not 1-D, or a value outside [0, r) (its index is named).
            TypeError: non-integer elements or dtype.
        """
        return _as_scalars(values, "to_device")

    def to_host(self, arr) -> np.ndarray:
        """Device array → int array (a copy)."""
        return self._check(arr).copy()

    @staticmethod
    def _check(a) -> np.ndarray:
        if not (isinstance(a, np.ndarray) and a.dtype == object and a.ndim == 1):
            raise TypeError("cpu device arrays are 1-D numpy object arrays (use to_device)")
        return a

    def _pair(self, a, b) -> tuple[np.ndarray, np.ndarray]:
        a, b = self._check(a), self._check(b)
        if a.shape != b.shape:
            raise ValueError(f"length mismatch: {len(a)} vs {len(b)}")
        return a, b

    # --- elementwise -------------------------------------------------------------------------

    def add(self, a, b) -> np.ndarray:
        """Elementwise a + b mod r (equal lengths, else ValueError)."""
        a, b = self._pair(a, b)
        return np.mod(a + b, _RZ)

    def sub(self, a, b) -> np.ndarray:
        """Elementwise a − b mod r (equal lengths, else ValueError)."""
        a, b = self._pair(a, b)
        return np.mod(a - b, _RZ)

    def mul(self, a, b) -> np.ndarray:
        """Elementwise a · b mod r (equal lengths, else ValueError)."""
        a, b = self._pair(a, b)
        return np.mod(a * b, _RZ)

    def scale(self, a, k: int) -> np.ndarray:
        """Elementwise k · a mod r for an integer k (any sign or size)."""
        return np.mod(self._check(a) * (_MPZ(k) % _RZ), _RZ)

    def powers(self, x: int, n: int) -> np.ndarray:
        """[1, x, x², …, x^(n−1)] mod r as a device array of length n ≥ 0 (ValueError if n < 0)."""
        return FR.powers(x, n)

    def lagrange_basis(self, tau: int, n: int) -> np.ndarray:
        """[L_j(τ) for j < n] by one batch inversion (``cuzk.field.lagrange_at``): cheaper on the
        CPU than the inverse NTT of τ's powers. ValueError if τ lies in the domain."""
        return lagrange_at(tau, n)

    def concat(self, parts) -> np.ndarray:
        """The device arrays one after the other (a new int array)."""
        return np.concatenate([self._check(p) for p in parts]) if len(parts) else np.empty(0, dtype=object)

    def length(self, a) -> int:
        """Number of elements."""
        return len(self._check(a))

    def slice(self, a, start: int, stop: int) -> np.ndarray:
        """a[start:stop] as a new device array (numpy slice semantics)."""
        return self._check(a)[start:stop].copy()

    def pad(self, a, n: int) -> np.ndarray:
        """``a`` followed by zeros (mpz) up to length n (ValueError if n < len(a))."""
        a = self._check(a)
        if n < len(a):
            raise ValueError(f"pad: length {n} is shorter than the array ({len(a)})")
        return np.concatenate([a, np.full(n - len(a), _ZERO, dtype=object)])

    def select(self, a, mask: np.ndarray) -> np.ndarray:
        """a[mask] for a host bool array ``mask`` of a's length (ValueError otherwise)."""
        a = self._check(a)
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != a.shape:
            raise ValueError(f"select: mask of shape {mask.shape} for {len(a)} elements")
        return a[mask]

    def first_unsatisfied(self, a, b, c) -> int | None:
        """The first i with a[i]·b[i] ≠ c[i] mod r, or None (ValueError if lengths differ)."""
        a, b = self._pair(a, b)
        a, c = self._pair(a, c)
        bad = np.flatnonzero(np.mod(a * b - c, _RZ) != 0)
        return int(bad[0]) if len(bad) else None

    # --- NTT ---------------------------------------------------------------------------------

    def ntt(self, a, inverse: bool = False) -> np.ndarray:
        """Radix-2 NTT of a device array of length n = 2^k, 0 ≤ k ≤ 27, natural order in and out.

        Forward: out[j] = Σ_i a[i]·ω^(ij) with ω = FR.root_of_unity(n) (generator 7, as
        bellperson/blstrs); inverse: out[j] = n⁻¹·Σ_i a[i]·ω^(−ij). Runs in this process
        (``workers.ntt``: iterative Cooley–Tukey, decimation in time); the twiddles of the
        largest size seen are cached and strided for smaller sizes.

        Raises:
            ValueError: n is not a power of two or exceeds 2^27 (n is named).
            TypeError: ``a`` is not a device array.
        """
        return workers.ntt(self._check(a), inverse, self._twiddles)

    def compute_h(self, a, b, c, n: int) -> np.ndarray:
        """Groth16 quotient scalars, element for element equal to ``Backend.compute_h``.

        The base class returns the first n − 1 coefficients of Q = ((A·B − C) mod (x^n − g^n))
        / (g^n − 1), with A, B, C the polynomials of degree < n interpolating a, b, c on H and
        g = 7 (Q is what the coset iNTT of (A·B − C)/Z on g·H interpolates). With P = A·B =
        P_lo + x^n·P_hi, P mod (x^n − g^n) = P_lo + g^n·P_hi, so

            h_k = (P_lo[k] + g^n·P_hi[k] − C[k]) / (g^n − 1),   k < n − 1,

        and when a·b = c on H (a satisfied system, checked here: n products) C = P_lo + P_hi,
        so h = P_hi and C is not needed. This computes h from two (three if a·b ≠ c) inverse
        NTTs and one Kronecker multiplication (``_poly_mul``) instead of seven NTTs. Above
        n = 2^KRONECKER_MAX_LOG (GMP's integer size limit, memory) it takes NTTs: iNTT then
        coset NTT of a and b, the coset iNTT of their product, less C's coefficients (the iNTT
        of c: the coset iNTT of C's coset evaluations is C, of degree < n), /Z(g); six NTTs where
        the base class takes seven (as the cuda backend: ``cuda.ntt.h_factors``).

        With threads > 1 and n ≥ MIN_POOL_NTT the independent per-input NTT chains run in the
        worker pool in parallel (32-byte LE values through the pipes; each worker caches its
        twiddles); with fewer workers than chains the parent runs the rest meanwhile.

        Args:
            a, b, c: device arrays of length n (values in [0, 2^256); canonical ones qualify).
            n: the domain size, a power of two in [1, 2^27].

        Returns:
            Device array of length n − 1.

        Raises:
            ValueError: a length differs from n, or n is not a power of two in [1, 2^27].
            workers.WorkerError: a worker failed or died.
        """
        arrs = [self._check(x) for x in (a, b, c)]
        workers.check_ntt_size(n)
        if any(len(x) != n for x in arrs):
            raise ValueError(f"compute_h: expected length n={n}, got {[len(x) for x in arrs]}")
        gn = pow(FR.generator, n, _R)
        zinv = _MPZ(pow(gn - 1, -1, _R))
        if n.bit_length() - 1 > KRONECKER_MAX_LOG:   # c: its coefficients, not its coset evaluations
            A, B, C = map(workers.fr_from_bytes, self._ntt_chains(arrs, [("intt", "coset_ntt")] * 2 + [("intt",)]))
            h = workers.ntt_chain(np.mod(A * B, _RZ), ("coset_intt",), self._twiddles)
            return np.mod((h[: n - 1] - C[: n - 1]) * zinv, _RZ)
        satisfied = not (np.mod(arrs[0] * arrs[1] - arrs[2], _RZ) != 0).any()
        todo = arrs[:2] if satisfied else arrs
        coeffs = self._ntt_chains(todo, [("intt",)] * len(todo))
        p = _poly_mul(coeffs[0], coeffs[1])  # 2n − 1 coefficients: P_lo = p[:n], P_hi = p[n:]
        if satisfied:
            return np.mod(p[n:], _RZ)
        c_lo = workers.fr_from_bytes(coeffs[2])[: n - 1]
        return np.mod(np.mod(p[n:] * _MPZ(gn) + p[: n - 1] - c_lo, _RZ) * zinv, _RZ)

    def cyclic_convolution(self, kernel) -> CyclicConvolution:
        """A reusable x ↦ x ⊛ kernel (``CyclicConvolution``; in this process, GIL held).

        Args:
            kernel: device array of n values in [0, r) (n ≥ 1), or their 32-byte LE bytes.
        """
        data = kernel if isinstance(kernel, (bytes, bytearray)) else workers.scalars_to_bytes(self._check(kernel))
        return CyclicConvolution(bytes(data))

    def _ntt_chains(self, arrays: list, steps: list[tuple]) -> list[bytes]:
        """``workers.ntt_chain(x, s)`` for each array x and its steps s (``steps[i]`` for
        ``arrays[i]``), as 32-byte LE bytes (the transport form, which ``_poly_mul`` packs
        directly), in the worker pool when it pays.

        Up to pool-size arrays go to the workers (one each); the rest run here while they work.
        """

        def here(xs, sts):
            return [workers.scalars_to_bytes(workers.ntt_chain(x, st, self._twiddles)) for x, st in zip(xs, sts)]

        if self.threads == 1 or len(arrays[0]) < MIN_POOL_NTT:
            return here(arrays, steps)
        pool = self._worker_pool()
        k = pool.size
        remote, local = arrays[:k], arrays[k:]
        replies, local_out = pool.run_overlapped(
            "ntt", [(st, workers.scalars_to_bytes(x)) for x, st in zip(remote, steps)], lambda: here(local, steps[k:])
        )
        return [data for _, data in replies] + local_out

    # --- sparse ------------------------------------------------------------------------------

    def spmv(self, m: CSRMatrix, w) -> np.ndarray:
        """y = M·w mod r: y[row] = Σ coeffs[coeff_ids[k]]·w[indices[k]] over the row's entries.

        Vectorized: gather coefficients and witness values, multiply, ``np.add.reduceat`` over
        the non-empty rows (reduceat would repeat a neighbour's entry for an empty row), one
        reduction per row. Empty rows give 0.

        Args:
            m: CSR matrix with shape (rows, cols).
            w: device array of length cols.

        Returns:
            Device array of length rows.

        Raises:
            ValueError: len(w) != cols or len(indptr) != rows + 1.
        """
        w = self._check(w)
        rows, cols = m.shape
        if len(w) != cols:
            raise ValueError(f"spmv: matrix has {cols} columns but the vector has {len(w)} entries")
        indptr = np.asarray(m.indptr, dtype=np.int64)
        if len(indptr) != rows + 1:
            raise ValueError(f"spmv: indptr has {len(indptr)} entries for {rows} rows")
        y = np.full(rows, _ZERO, dtype=object)
        if m.nnz == 0:
            return y
        prod = m.coeffs[m.coeff_ids] * w[m.indices]
        nonempty = np.diff(indptr) > 0
        y[nonempty] = np.mod(np.add.reduceat(prod, indptr[:-1][nonempty]), _RZ)
        return y

    # --- curve -------------------------------------------------------------------------------

    def msm_context(self, group: Group, bases: np.ndarray, local: bool = False, resident: bool | None = None) -> CPUMSMContext:
        """Keep ``bases`` resident for repeated MSMs.

        Args:
            group: G1 or G2.
            bases: ``(n, group.uncompressed_size)`` uint8 array of already validated points
                (loaded without the subgroup check).
            local: keep the bases in this process whatever ``threads`` is, decoded on first use,
                for callers that run ``msm`` from their own threads (see ``CPUMSMContext``).
            resident: ignored (the host is where the CPU keeps its bases).

        Returns:
            A ``CPUMSMContext``: in-process for threads == 1 (or n < 2, or local), otherwise
            sharded over the first min(threads, n) workers of the backend's pool (no new
            processes).

        Raises:
            ValueError: wrong shape.
            cuzk.curve.CurveError: a malformed/off-curve point (in-process), or
                workers.WorkerError carrying it (sharded).
        """
        return CPUMSMContext(group, bases, self, local)

    def fixed_base_mul(self, group: Group, base, scalars: Sequence[int]) -> np.ndarray:
        """[k·base for k in scalars] as a ``(n, group.uncompressed_size)`` uint8 array (setup).

        Args:
            group: G1 or G2.
            base: a point of ``group`` (ark object) or its uncompressed encoding (bytes/uint8).
            scalars: ints in [0, r) (list, int array or numpy integer array); 0 gives the point
                at infinity (0x40 then zeros).

        Algorithm: fixed-base window table (``workers.fixed_base_mul_bytes``), split into
        contiguous chunks over the backend's worker pool when threads > 1.

        Raises:
            ValueError: a scalar outside [0, r), or a malformed base encoding.
            workers.WorkerError: a worker failed or died.
        """
        base_pt, base_bytes = fixed_base_point(group, base)
        sc = _as_scalars(scalars, f"{group.name} fixed_base_mul scalars")
        n, size = len(sc), group.uncompressed_size
        buf = workers.scalars_to_bytes(sc)
        nworkers = min(self.threads, n)
        if nworkers <= 1:
            data = workers.fixed_base_mul_bytes(group, base_pt, buf)
            return np.frombuffer(data, dtype=np.uint8).reshape(n, size).copy()
        ranges = workers.split(n, nworkers)
        w = workers.SCALAR_BYTES
        parts = self._worker_pool().run(
            "fixed_base", [((group.name, base_bytes), buf[lo * w : hi * w]) for lo, hi in ranges]
        )
        out = np.empty((n, size), dtype=np.uint8)
        for (lo, hi), (_, data) in zip(ranges, parts):
            out[lo:hi] = np.frombuffer(data, dtype=np.uint8).reshape(hi - lo, size)
        return out

    def _worker_pool(self) -> workers.WorkerPool:
        """The backend's one pool of ``threads`` workers, started on first use (and anew after
        ``close`` or a worker's death)."""
        with self._pool_lock:
            if self._pool is None or self._pool.closed:
                self._pool = workers.WorkerPool(self.threads)
            return self._pool

    def close(self) -> None:
        """Stop the worker pool and drop cached twiddles (idempotent).

        MSM contexts sharded over the pool become unusable (their ``msm`` raises RuntimeError);
        later calls start a new pool.
        """
        with self._pool_lock:
            if self._pool is not None:
                self._pool.close()
                self._pool = None
        self._twiddles.clear()
