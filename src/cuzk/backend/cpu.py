"""The ``cpu`` backend: numpy object arrays of gmpy2.mpz for Fr, py-arkworks-bls12381 for curves.

Device arrays are 1-D int arrays (object dtype, ``gmpy2.mpz``, canonical values in [0, r)).
Field operations are vectorized numpy expressions over them; MSMs and the setup's fixed-base
multiplications run in-process for ``threads == 1`` and in ``threads`` spawned worker processes
otherwise (``cuzk.backend.workers``).
"""

from __future__ import annotations

from typing import Sequence

import gmpy2
import numpy as np

from ..curve import Group
from ..field import FR
from . import workers
from .base import Backend, CSRMatrix, MSMContext

_MPZ = gmpy2.mpz
_MPZ_TYPE = type(_MPZ(0))
_R = FR.modulus
_RZ = _MPZ(_R)
_ZERO = _MPZ(0)
_ONE = _MPZ(1)

MAX_LOG_NTT = 27
"""Largest NTT size handled, as log2 (2^27 is the Filecoin 32 GiB sector domain)."""


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
    """Ints (list, int array, numpy integer array) → 1-D mpz object array, checked in [0, r)."""
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


def _powers(x: int, n: int) -> np.ndarray:
    # Doubling: out[m:2m] = out[:m]·x^m, log2(n) vectorized steps instead of n Python steps.
    out = np.empty(n, dtype=object)
    if n == 0:
        return out
    out[0] = _ONE
    xm, m = _MPZ(x) % _RZ, 1
    while m < n:
        k = min(m, n - m)
        out[m : m + k] = np.mod(out[:k] * xm, _RZ)
        xm = xm * xm % _RZ
        m *= 2
    return out


def _bitrev(n: int) -> np.ndarray:
    k = n.bit_length() - 1
    idx = np.arange(n, dtype=np.int64)
    rev = np.zeros(n, dtype=np.int64)
    for b in range(k):
        rev |= ((idx >> b) & 1) << (k - 1 - b)
    return rev


class CPUMSMContext(MSMContext):
    """Resident MSM bases on the CPU: ark points in-process, or shards in worker processes.

    Built by ``CPUBackend.msm_context``. With a pool, worker i holds bases[lo_i:hi_i] as ark
    points for the context's lifetime; ``msm`` sends each worker only its scalars (32-byte LE)
    and adds the returned partial sums. Usable as a context manager; ``close`` stops the workers.
    """

    def __init__(self, group: Group, bases: np.ndarray, threads: int):
        bases = np.ascontiguousarray(bases, dtype=np.uint8)
        if bases.ndim != 2 or bases.shape[1] != group.uncompressed_size:
            raise ValueError(
                f"{group.name} bases must have shape (n, {group.uncompressed_size}), got {bases.shape}"
            )
        self.group = group
        self.size = int(bases.shape[0])
        self._points: list | None = None
        self._pool: workers.WorkerPool | None = None
        self._ranges: list[tuple[int, int]] = []
        nworkers = min(threads, self.size)
        if nworkers <= 1:
            self._points = group.from_array(bases, check_subgroup=False)
            return
        self._ranges = workers.split(self.size, nworkers)
        self._pool = workers.WorkerPool(nworkers)
        try:
            self._pool.run("load", [(group.name, bases[lo:hi].tobytes()) for lo, hi in self._ranges])
        except BaseException:
            self._pool.close()
            raise

    def msm(self, scalars) -> object:
        """Σ scalars[i]·bases[i] as a point of ``group`` (py-arkworks-bls12381 object).

        Args:
            scalars: length ``size`` int array (or int sequence) with values in [0, r).

        Raises:
            ValueError: wrong length or a scalar outside [0, r).
            RuntimeError: the context is closed; ``workers.WorkerError`` if a worker failed.
        """
        if self._points is None and self._pool is None:
            raise RuntimeError(f"{self.group.name} MSM context is closed")
        sc = _as_scalars(scalars, f"{self.group.name} msm scalars")
        if len(sc) != self.size:
            raise ValueError(f"{self.group.name} msm: {self.size} bases but {len(sc)} scalars")
        buf = workers.scalars_to_bytes(sc)
        if self._pool is None:
            return workers.msm_shard(self.group, self._points, buf)
        w = workers.SCALAR_BYTES
        parts = self._pool.run("msm", [(None, buf[lo * w : hi * w]) for lo, hi in self._ranges])
        return self.group.sum(self.group.from_uncompressed(data, check_subgroup=False) for _, data in parts)

    def close(self) -> None:
        """Drop the bases and stop the workers (idempotent)."""
        self._points = None
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class CPUBackend(Backend):
    """Backend on the host CPU (see the module docstring).

    Args:
        threads: worker processes for MSMs and fixed-base multiplication (1 = in-process).
            Field operations and NTTs always run in the calling process.

    Raises:
        ValueError: threads < 1.
    """

    name = "cpu"

    def __init__(self, threads: int = 1):
        if threads < 1:
            raise ValueError(f"threads must be ≥ 1, got {threads}")
        self.threads = int(threads)
        # Twiddles of the largest NTT size seen, (N, [ω_N^0 … ω_N^(N/2−1)]); smaller sizes stride it.
        self._twiddles: tuple[int, np.ndarray] = (1, np.empty(0, dtype=object))
        self._pool: workers.WorkerPool | None = None

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
        """[1, x, x², …, x^(n−1)] mod r as a device array of length n ≥ 0."""
        if n < 0:
            raise ValueError(f"powers: negative length {n}")
        return _powers(x, n)

    def length(self, a) -> int:
        """Number of elements."""
        return len(self._check(a))

    def slice(self, a, start: int, stop: int) -> np.ndarray:
        """a[start:stop] as a new device array (numpy slice semantics)."""
        return self._check(a)[start:stop].copy()

    # --- NTT ---------------------------------------------------------------------------------

    def _roots(self, n: int) -> np.ndarray:
        """[ω_n^0 … ω_n^(n/2−1)] for ω_n = FR.root_of_unity(n), as a strided view of the cache."""
        big, tw = self._twiddles
        if n > big:
            big, tw = n, _powers(FR.root_of_unity(n), n // 2)
            self._twiddles = (big, tw)  # one assignment: readers see a consistent pair
        # ω_n = ω_N^(N/n), and FR.root_of_unity is g^((r−1)/n), so these agree exactly.
        return tw[:: big // n]

    def ntt(self, a, inverse: bool = False) -> np.ndarray:
        """Radix-2 NTT of a device array of length n = 2^k, 0 ≤ k ≤ 27, natural order in and out.

        Forward: out[j] = Σ_i a[i]·ω^(ij) with ω = FR.root_of_unity(n) (generator 7, as
        bellperson/blstrs); inverse: out[j] = n⁻¹·Σ_i a[i]·ω^(−ij).

        Algorithm: iterative Cooley–Tukey decimation in time (bit-reversal permutation, then
        log2(n) butterfly stages, each one numpy expression over an (n/2m, 2m) view). Sums are
        left unreduced inside the stages (mpz grows one bit per stage) and only the twiddle
        products are reduced; one final reduction. The inverse reuses the forward twiddles:
        Σ a[i]·ω^(−ij) is the forward output at index (n − j) mod n.

        Raises:
            ValueError: n is not a power of two or exceeds 2^27 (n is named).
            TypeError: ``a`` is not a device array.
        """
        a = self._check(a)
        n = len(a)
        if n < 1 or n & (n - 1) or n.bit_length() - 1 > MAX_LOG_NTT:
            raise ValueError(f"ntt: length n={n} is not a power of two in [1, 2^{MAX_LOG_NTT}]")
        if n == 1:
            return np.mod(a, _RZ)
        w = self._roots(n)
        x = a[_bitrev(n)]
        m = 1
        while m < n:
            v = x.reshape(n // (2 * m), 2 * m)
            e, o = v[:, :m], v[:, m:]
            t = o if m == 1 else np.mod(o * w[:: n // (2 * m)], _RZ)
            x = np.concatenate((e + t, e - t), axis=1).reshape(n)
            m *= 2
        if not inverse:
            return np.mod(x, _RZ)
        x = x[(-np.arange(n, dtype=np.int64)) % n]
        return np.mod(x * _MPZ(pow(n, -1, _R)), _RZ)

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

    def msm_context(self, group: Group, bases: np.ndarray) -> CPUMSMContext:
        """Keep ``bases`` resident for repeated MSMs.

        Args:
            group: G1 or G2.
            bases: ``(n, group.uncompressed_size)`` uint8 array of already validated points
                (loaded without the subgroup check).

        Returns:
            A ``CPUMSMContext``: in-process for threads == 1 (or n < 2), otherwise min(threads, n)
            spawned workers each holding a contiguous shard.

        Raises:
            ValueError: wrong shape; ``cuzk.curve.CurveError`` for a malformed/off-curve point.
        """
        return CPUMSMContext(group, bases, self.threads)

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
        """
        if isinstance(base, (bytes, bytearray, memoryview, np.ndarray)):
            base_bytes = base.tobytes() if isinstance(base, np.ndarray) else bytes(base)
            base_pt = group.from_uncompressed(base_bytes, check_subgroup=False)
        else:
            base_pt = base
            base_bytes = group.to_uncompressed(base)
        sc = _as_scalars(scalars, f"{group.name} fixed_base_mul scalars")
        n, size = len(sc), group.uncompressed_size
        buf = workers.scalars_to_bytes(sc)
        nworkers = min(self.threads, n)
        if nworkers <= 1:
            data = workers.fixed_base_mul_bytes(group, base_pt, buf)
            return np.frombuffer(data, dtype=np.uint8).reshape(n, size).copy()
        if self._pool is None or self._pool.closed:
            self._pool = workers.WorkerPool(self.threads)
        ranges = workers.split(n, nworkers)
        w = workers.SCALAR_BYTES
        parts = self._pool.run(
            "fixed_base", [((group.name, base_bytes), buf[lo * w : hi * w]) for lo, hi in ranges]
        )
        out = np.empty((n, size), dtype=np.uint8)
        for (lo, hi), (_, data) in zip(ranges, parts):
            out[lo:hi] = np.frombuffer(data, dtype=np.uint8).reshape(hi - lo, size)
        return out

    def close(self) -> None:
        """Stop the fixed-base worker pool and drop cached twiddles (idempotent).

        MSM contexts own their workers and are closed separately.
        """
        if self._pool is not None:
            self._pool.close()
            self._pool = None
        self._twiddles = (1, np.empty(0, dtype=object))
