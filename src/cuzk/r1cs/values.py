"""The witness value store of a constraint system: a uint64 slot per variable, values ≥ 2^64 as
canonical limbs beside (the witness file's form), and the conversions to gmpy2 integers that the
gadgets read values as."""

from __future__ import annotations

import gmpy2
import numpy as np

from ..field import FR, from_limbs, to_limbs

R = FR.modulus
_MPZ = gmpy2.mpz
_U64_LIMIT = 1 << 64


COMPACT_CHUNK = 1 << 22
"""Values per pass of :meth:`ValueStore.compact` (a multiple of 8)."""

_SMALL_MPZ = np.array([_MPZ(i) for i in range(256)], dtype=object)  # shared: mpz is immutable


def u64_to_int_array(u: np.ndarray) -> np.ndarray:
    """1-D uint64 array → object array of mpz, same length.

    Values below 256 (nearly every witness value: bits) point at shared mpz objects of a table
    (a take, no object created per value: ~10x faster and 4x less memory than an mpz per value);
    the rest get their own mpz.
    """
    small = u < _SMALL_MPZ.shape[0]
    out = _SMALL_MPZ.take(np.where(small, u, 0).astype(np.intp))
    big = np.flatnonzero(~small)
    if big.shape[0]:
        out[big] = np.fromiter(map(_MPZ, u[big].tolist()), dtype=object, count=big.shape[0])
    return out


def _grown(arr: np.ndarray, used: int, need: int) -> np.ndarray:
    """arr if it holds need rows, else a copy of its first ``used`` rows in an array of
    max(need, 2·len) rows (doubling: amortized O(1) per row). np.empty: rows past ``used`` are
    written before they are read, and untouched pages of a fresh allocation cost nothing."""
    cap = arr.shape[0]
    if need <= cap:
        return arr
    out = np.empty((max(need, 2 * cap),) + arr.shape[1:], dtype=arr.dtype)
    out[:used] = arr[:used]
    return out


_R_LIMBS = to_limbs([R], FR.limbs)[0]


def below_r(limbs: np.ndarray) -> np.ndarray:
    """``(n, 4)`` uint64 little-endian limbs → ``(n,)`` bool: the value is below r (canonical Fr),
    compared limb by limb from the top, vectorized."""
    lt = np.zeros(limbs.shape[0], dtype=bool)
    eq = np.ones(limbs.shape[0], dtype=bool)
    for i in range(FR.limbs - 1, -1, -1):
        lt |= eq & (limbs[:, i] < _R_LIMBS[i])
        eq &= limbs[:, i] == _R_LIMBS[i]
    return lt


class ValueStore:
    """Growable store: a uint64 slot per variable; values ≥ 2^64 live in a side ``(m, 4)`` uint64
    limb array (canonical, little-endian: the witness file's form, so writing it converts
    nothing) and their slot holds the row there (a bool flag array marks them). 41 bytes per
    wide value, where a gmpy2 integer per value took about 90.

    Args:
        capacity: slots allocated up front. A good guess of the final count (a circuit's aux
            count) saves the doubling copies, whose fresh pages can cost more than computing
            the values (page faults).
    """

    def __init__(self, capacity: int = 1024):
        self.n = 0
        self._u = np.empty(capacity, dtype=np.uint64)
        self._big = np.empty(capacity, dtype=bool)
        self._bigl = np.empty((capacity, FR.limbs), dtype=np.uint64)  # pages cost once written
        self._nbig = 0

    def _slots(self, n: int) -> tuple[int, int]:
        lo, hi = self.n, self.n + n
        self._u = _grown(self._u, lo, hi)
        self._big = _grown(self._big, lo, hi)
        return lo, hi

    def _append_wide(self, seg: np.ndarray, fits: np.ndarray, wide: np.ndarray) -> None:
        """Slots of seg (uint64, filled where fits) plus the limb rows of the others."""
        lo, hi = self._slots(seg.shape[0])
        bigpos = np.flatnonzero(~fits)
        nb, start = bigpos.shape[0], self._nbig
        if nb != wide.shape[0]:
            raise AssertionError("value store: limb rows and wide values disagree")
        seg[bigpos] = np.arange(start, start + nb, dtype=np.uint64)
        self._bigl = _grown(self._bigl, start, start + nb)
        self._bigl[start:start + nb] = wide
        self._nbig += nb
        self._u[lo:hi] = seg
        self._big[lo:hi] = ~fits
        self.n = hi

    def append(self, vals: np.ndarray) -> None:
        """vals: 1-D uint64 array, or object array of canonical ints (< r)."""
        n = vals.shape[0]
        if vals.dtype == np.uint64:
            lo, hi = self._slots(n)
            self._u[lo:hi] = vals
            self._big[lo:hi] = False
            self.n = hi
            return
        fits = np.asarray(vals < _U64_LIMIT, dtype=bool)
        seg = np.zeros(n, dtype=np.uint64)
        seg[fits] = vals[fits].astype(np.uint64)
        big = vals[~fits]
        self._append_wide(seg, fits, to_limbs(big, FR.limbs) if big.shape[0] else np.empty((0, FR.limbs), np.uint64))

    def append_limbs(self, limbs: np.ndarray) -> None:
        """limbs: ``(n, 4)`` uint64 canonical little-endian limbs (checked < r by the caller)."""
        fits = ~limbs[:, 1:].any(axis=1)
        seg = np.where(fits, limbs[:, 0], np.uint64(0))
        self._append_wide(seg, fits, limbs if not fits.any() else limbs[~fits])

    def _ints(self, u: np.ndarray, flags: np.ndarray) -> np.ndarray:
        """Slots u (uint64) with big-value flags → object array of mpz."""
        out = u64_to_int_array(u)
        if flags.any():
            out[flags] = from_limbs(self._bigl[u[flags].astype(np.intp)])
        return out

    def gather(self, idx: np.ndarray) -> np.ndarray:
        """1-D idx → uint64 array if no value there is ≥ 2^64, else an int array (mpz)."""
        u = self._u[idx]
        flags = self._big[idx]
        if not flags.any():
            return u
        return self._ints(u, flags)

    def gather_limbs(self, idx: np.ndarray) -> np.ndarray:
        """1-D idx → ``(len(idx), 4)`` uint64 canonical limbs (no Python int per value)."""
        u = self._u[idx]
        flags = self._big[idx]
        out = np.zeros((idx.shape[0], FR.limbs), dtype=np.uint64)
        out[~flags, 0] = u[~flags]
        out[flags] = self._bigl[u[flags].astype(np.intp)]
        return out

    def compact(self, chunk: int | None = None) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
        """The values as a witness file stores them, with no Python int per value: (mask
        ``(ceil(n / 8),)`` uint8, bit j set when value j is 0 or 1; bits ``(ceil(nb / 8),)`` uint8,
        those values in order; nb; wide ``(n − nb, 4)`` uint64 canonical limbs of the others, in
        order), both packed as ``numpy.packbits(bitorder="little")``.

        ``chunk`` values (a multiple of 8; default :data:`COMPACT_CHUNK`) per pass: the temporaries stay small and reuse the
        heap, where whole-store temporaries (about 1.4 GB at 32 GiB) cost seconds of page faults
        on fresh memory. A second pass fills ``wide`` only when some wide value fits in 64 bits
        (PoRep); a PoSt store's wide values are its limb rows, returned without a copy.
        """
        chunk = COMPACT_CHUNK if chunk is None else chunk
        if chunk <= 0 or chunk % 8:
            raise ValueError(f"compact: chunk must be a positive multiple of 8, not {chunk}")
        n = self.n
        mask = np.empty((n + 7) // 8, dtype=np.uint8)
        bits = np.empty((n + 7) // 8, dtype=np.uint8)
        carry = np.empty(0, dtype=bool)   # bit values not yet packed (fewer than 8)
        nbytes = small_wide = 0
        for lo in range(0, n, chunk):
            hi = min(lo + chunk, n)
            u, big = self._u[lo:hi], self._big[lo:hi]
            is_bit = np.less_equal(u, 1)
            is_bit &= ~big
            mask[lo // 8:(lo + len(u) + 7) // 8] = np.packbits(is_bit, bitorder="little")
            v = np.concatenate([carry, np.equal(u, 1)[is_bit]])
            full = len(v) & ~7
            bits[nbytes:nbytes + full // 8] = np.packbits(v[:full], bitorder="little")
            nbytes += full // 8
            carry = v[full:]
            small_wide += int(np.count_nonzero(~is_bit)) - int(np.count_nonzero(big))
        nb = nbytes * 8 + len(carry)
        if len(carry):
            bits[nbytes] = np.packbits(carry, bitorder="little")[0]
        bits = bits[:(nb + 7) // 8]
        if not small_wide:
            return mask, bits, nb, self._bigl[: self._nbig]  # a PoSt witness: no copy
        wide = np.zeros((n - nb, FR.limbs), dtype=np.uint64)
        row = 0
        for lo in range(0, n, chunk):
            hi = min(lo + chunk, n)
            u, big = self._u[lo:hi], self._big[lo:hi]
            rest = ~np.unpackbits(mask[lo // 8:(lo + len(u) + 7) // 8], count=len(u), bitorder="little").view(bool)
            ur, br = u[rest], big[rest]
            part = wide[row:row + len(ur)]
            part[~br, 0] = ur[~br]
            part[br] = self._bigl[ur[br].astype(np.intp)]
            row += len(ur)
        return mask, bits, nb, wide

    def all_ints(self, chunk: int = 1 << 20) -> np.ndarray:
        """Every value, (n,) object array of mpz; converted in chunks of ``chunk`` values so the
        temporaries stay small (and their memory is reused)."""
        out = np.empty(self.n, dtype=object)
        for lo in range(0, self.n, chunk):
            hi = min(lo + chunk, self.n)
            out[lo:hi] = self._ints(self._u[lo:hi], self._big[lo:hi])
        return out
