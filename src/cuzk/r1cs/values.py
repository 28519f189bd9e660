"""The witness value store of a constraint system: a byte per variable (the value, below 255),
the other values as canonical limbs beside (the witness file's form), and the conversions to
gmpy2 integers that the gadgets read values as."""

from __future__ import annotations

import gmpy2
import numpy as np

from ..field import FR, ComputedRows, LimbRuns, from_limbs, limbs_below_modulus, to_limbs

R = FR.modulus
_MPZ = gmpy2.mpz
_U64_LIMIT = 1 << 64
_U32_SLOTS = (1 << 32) - 1


WIDE = 255
"""A slot's code for a value kept in the limb rows (every value ≥ 255)."""
_NONE = np.empty(0, dtype=np.int64)
_NO_LIMBS = np.empty((0, FR.limbs), dtype=np.uint64)

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


def _chunks(order, n: int, chunk: int):
    """(first position, slot numbers or None) per ``chunk`` positions of range(n): None in the
    slots' own order (``order`` None); else slices of ``order``, one array, or consecutive pieces
    (a list of 1-D arrays, ``OrderTracker.aux_pieces``) cut and joined at chunk boundaries."""
    if order is None or isinstance(order, np.ndarray):
        for lo in range(0, n, chunk):
            yield lo, None if order is None else order[lo:lo + chunk]
        return
    lo, parts, have = 0, [], 0
    for piece in order:
        at = 0
        while at < piece.shape[0]:
            take = min(chunk - have, piece.shape[0] - at)
            parts.append(piece[at:at + take])
            have, at = have + take, at + take
            if have == chunk:
                yield lo, parts[0] if len(parts) == 1 else np.concatenate(parts)
                lo, parts, have = lo + chunk, [], 0
    if have:
        yield lo, parts[0] if len(parts) == 1 else np.concatenate(parts)


class _Placer:
    """:meth:`ValueStore.compact`'s notes of where, in a given order, each computed run's rows
    begin among the wide values (``LimbRuns`` placed runs): value c of row i at wide position p
    gives the row's offset p − c, which every value of the row must agree on (each hash's values
    together and in order, as rust-fil-proofs' order keeps them)."""

    def __init__(self, runs):
        self.runs = [(q, r) for q, r in enumerate(runs) if isinstance(r[3], ComputedRows)]
        self.starts = np.array([r[0] for _, r in self.runs], dtype=np.int64)
        self.ends = self.starts + np.array([r[1] for _, r in self.runs], dtype=np.int64)
        self.offsets = [np.full(r[4].shape[0], -1, dtype=np.int64) for _, r in self.runs]
        self.values = int(sum(r[1] for _, r in self.runs))
        self.seen, self.ok = 0, True

    def take(self, slots: np.ndarray, pos: np.ndarray) -> np.ndarray:
        """Which of these wide values (slot numbers, wide positions) are a computed run's; their
        rows' offsets noted."""
        j = np.searchsorted(self.starts, slots, side="right") - 1
        hit = (j >= 0) & (slots < self.ends[np.maximum(j, 0)])
        for k in np.unique(j[hit]).tolist():
            sel = hit & (j == k)
            w = self.runs[k][1][3].shape[1]
            off = slots[sel] - self.starts[k]
            i, base = off // w, pos[sel] - off % w
            o = self.offsets[k]
            fresh = o[i] < 0
            o[i[fresh]] = base[fresh]
            self.ok &= bool((o[i] == base).all())
        return hit

    def placed(self):
        """The placed runs ``(limbs, rows, offsets)``, or None where a row's values were apart."""
        if not (self.ok and all((o >= 0).all() for o in self.offsets)):
            return None
        return [(r[3], r[4], o) for (_, r), o in zip(self.runs, self.offsets)]


class ValueStore:
    """Growable store: a uint8 slot per variable holding the value when it is below 255 (nearly
    every PoRep value: bits), else :data:`WIDE`; the other values as canonical little-endian
    ``(m, 4)`` uint64 limbs beside (the witness file's form), in slot order, with their slots,
    or as runs of a gadget's distinct results and their index (:meth:`append_limbs` with rows).
    About 1 byte per bit-valued variable (130 MB for a 32 GiB PoRep partition, where a uint64
    slot per value wrote 1.2 GB of fresh pages: seconds of page faults), 37 per wide value, and
    1 per value of a run plus its distinct rows.

    Args:
        capacity: slots allocated up front. A good guess of the final count (a circuit's aux
            count) saves the doubling copies; untouched pages of the limb rows cost nothing.
    """

    def __init__(self, capacity: int = 1024):
        self.n = 0
        self._s = np.empty(capacity, dtype=np.uint8)
        # slots of the wide values: uint32 (every shape's aux count is far below 2^32: a 32 GiB
        # WindowPoSt partition writes 127 M of them, 0.5 GB of fresh pages less than int64)
        self._ws = np.empty(capacity, dtype=np.uint32)
        self._wl = np.empty((capacity, FR.limbs), dtype=np.uint64)  # their limbs; pages cost once written
        self._nw = 0
        # wide values kept as a gadget's distinct results and their index (append_limbs with
        # rows): (first slot, count, limb rows written before it, limbs (m, w, 4), rows)
        self._runs: list[tuple[int, int, int, np.ndarray, np.ndarray]] = []

    def _reserve(self, n: int, m: int) -> tuple[int, int]:
        """Room for n more slots, m of them wide; returns (first slot, first wide row). The
        caller writes them, then advances ``n`` and ``_nw``."""
        lo, nw = self.n, self._nw
        if lo + n > _U32_SLOTS and self._ws.dtype != np.int64:
            self._ws = self._ws.astype(np.int64)   # past 2^32 slots (no shape comes near)
        self._s = _grown(self._s, lo, lo + n)
        if m:
            self._ws = _grown(self._ws, nw, nw + m)
            self._wl = _grown(self._wl, nw, nw + m)
        return lo, nw

    def _put(self, codes: np.ndarray, wide_at: np.ndarray, wide: np.ndarray) -> None:
        """Slots ``codes`` (uint8, :data:`WIDE` at the positions ``wide_at``) and the limb rows
        ``wide`` of those positions."""
        n, m = codes.shape[0], wide_at.shape[0]
        if m != wide.shape[0]:
            raise AssertionError("value store: limb rows and wide values disagree")
        lo, nw = self._reserve(n, m)
        self._s[lo:lo + n] = codes
        self._ws[nw:nw + m] = lo + wide_at
        self._wl[nw:nw + m] = wide
        self._nw += m
        self.n = lo + n

    def append(self, vals: np.ndarray) -> None:
        """vals: 1-D unsigned integer array (uint8 … uint64), or object array of canonical ints
        (< r)."""
        fits = np.asarray(vals < WIDE, dtype=bool)
        if vals.dtype.kind == "u":
            if fits.all():   # the gadgets' common case: bits
                self._put(vals, _NONE, _NO_LIMBS)
                return
            codes = np.where(fits, vals, WIDE)
            at = np.flatnonzero(~fits)
            wide = np.zeros((at.shape[0], FR.limbs), dtype=np.uint64)
            wide[:, 0] = vals[at]
        else:
            codes = np.full(vals.shape[0], WIDE, dtype=np.uint8)
            codes[fits] = vals[fits].astype(np.uint64)
            at = np.flatnonzero(~fits)
            wide = to_limbs(vals[at], FR.limbs) if at.shape[0] else _NO_LIMBS
        self._put(codes, at, wide)

    def append_limbs(self, limbs: np.ndarray, rows: np.ndarray | None = None, n: int | None = None) -> None:
        """limbs: ``(n, 4)`` uint64 canonical little-endian limbs; with ``rows`` (1-D int, n / w
        of them), the values are ``limbs[rows]`` of an ``(m, w, 4)`` limbs, w per row (a gadget's
        distinct results). When all of those are wide the store keeps both arrays as they are (a
        run, expanded only where read: no ``limbs[rows]`` copy), so they must not change afterwards.

        With rows, ``limbs`` may be :class:`cuzk.field.ComputedRows` (made where read); its
        values are then all kept as wide, whatever they are (a hash's op values are below 255
        with odds near 2^-250; a wide 0 or 1 is still the same assignment).

        Raises:
            ValueError: a value not below r (each row of limbs checked once), rows out of range
                or not n / w of them (n given).
        """
        computed = isinstance(limbs, ComputedRows)
        if not (limbs.below_modulus() if computed else limbs_below_modulus(limbs.reshape(-1, FR.limbs)).all()):
            raise ValueError("alloc_aux_limbs: a value is not below r")
        if rows is not None:
            rows = np.asarray(rows)
            w = int(np.prod(limbs.shape[1:-1], dtype=np.int64))
            if (rows.ndim != 1 or (n is not None and rows.shape[0] * w != n)
                    or (rows.size and not (0 <= rows.min() and rows.max() < limbs.shape[0]))):
                raise ValueError(f"alloc_aux_limbs: rows must be {n // max(w, 1) if n is not None else 'm'} "
                                 f"indices below {limbs.shape[0]}")
        if (computed and rows is not None) or limbs[..., 1:].any(axis=-1).all():   # every value ≥ 2^64: all wide
            self._put_wide(limbs, rows)
            return
        if rows is not None:
            limbs = limbs[rows].reshape(-1, FR.limbs)
        fits = ~limbs[:, 1:].any(axis=1) & (limbs[:, 0] < WIDE)
        at = np.flatnonzero(~fits)
        self._put(np.where(fits, limbs[:, 0], WIDE), at, limbs if at.shape[0] == limbs.shape[0] else limbs[at])

    def _put_wide(self, limbs: np.ndarray, rows: np.ndarray | None) -> None:
        """Values that are all limb rows (``append_limbs``'s arguments), written straight into the
        store: the slots' codes, their slot numbers and the rows, without the n-long temporaries of
        :meth:`_put`. With ``rows`` the arrays are kept as they are (a run): nothing n-long but
        the codes is written (a 32 GiB WindowPoSt partition's 127 M values: 4 GB of fresh pages,
        of few distinct rows when the partition is padded)."""
        n = limbs.shape[0] if rows is None else rows.shape[0] * limbs.shape[1]
        if rows is not None:
            lo, _ = self._reserve(n, 0)
            self._s[lo:lo + n] = WIDE
            self._runs.append((lo, n, self._nw, limbs, rows))
            self.n = lo + n
            return
        lo, nw = self._reserve(n, n)
        self._s[lo:lo + n] = WIDE
        ws = self._ws[nw:nw + n]
        for a in range(0, n, COMPACT_CHUNK):   # slot numbers lo.., in chunks: no n-long arange
            b = min(n, a + COMPACT_CHUNK)
            ws[a:b] = np.arange(lo + a, lo + b, dtype=ws.dtype)
        self._wl[nw:nw + n] = limbs
        self._nw += n
        self.n = lo + n

    def _rows(self, idx: np.ndarray) -> np.ndarray:
        """Limb rows of the wide values at slots idx."""
        idx = np.asarray(idx)
        ws = self._ws[: self._nw]
        if not self._runs:
            return self._wl[ws.searchsorted(idx.astype(ws.dtype, copy=False))]   # no copy of ws
        starts = np.array([r[0] for r in self._runs], dtype=np.int64)
        ends = starts + np.array([r[1] for r in self._runs], dtype=np.int64)
        j = np.searchsorted(starts, idx, side="right") - 1
        lazy = (j >= 0) & (idx < ends[np.maximum(j, 0)])
        out = np.empty((idx.shape[0], FR.limbs), dtype=np.uint64)
        dense = np.flatnonzero(~lazy)
        if dense.shape[0]:
            out[dense] = self._wl[ws.searchsorted(idx[dense].astype(ws.dtype, copy=False))]
        at = np.flatnonzero(lazy)
        at = at[np.argsort(j[at], kind="stable")]   # grouped by run
        runs, first = np.unique(j[at], return_index=True)
        for q, a, b in zip(runs.tolist(), first.tolist(), first[1:].tolist() + [at.shape[0]]):
            lo, _, _, limbs, rows = self._runs[q]
            sel = at[a:b]
            off = idx[sel] - lo
            r, col = rows[off // limbs.shape[1]], off % limbs.shape[1]
            out[sel] = limbs.at(r, col) if isinstance(limbs, ComputedRows) else limbs[r, col]
        return out

    def _wide_runs(self) -> LimbRuns:
        """Every wide value in slot order (the rows kept whole and the runs) without a copy."""
        pieces, d = [], 0   # limb rows placed so far
        for _, _, nw, limbs, rows in self._runs:
            if nw > d:   # the limb rows written between the previous run and this one
                pieces.append((self._wl[d:nw], None))
                d = nw
            pieces.append((limbs, rows))
        if self._nw > d:
            pieces.append((self._wl[d:self._nw], None))
        return LimbRuns(pieces)

    def slots(self) -> np.ndarray:
        """The ``(n,)`` uint8 slot codes (a view): a value below 255 itself, else :data:`WIDE`."""
        return self._s[: self.n]

    def gather(self, idx: np.ndarray) -> np.ndarray:
        """1-D idx → uint64 array if no value there is ≥ 2^64, else an int array (mpz)."""
        s = self._s[idx]
        w = s == WIDE
        out = s.astype(np.uint64)
        if not w.any():
            return out
        rows = self._rows(idx[w])
        if not rows[:, 1:].any():
            out[w] = rows[:, 0]
            return out
        out = u64_to_int_array(out)
        out[w] = from_limbs(rows)
        return out

    def gather_limbs(self, idx: np.ndarray) -> np.ndarray:
        """1-D idx → ``(len(idx), 4)`` uint64 canonical limbs (no Python int per value)."""
        s = self._s[idx]
        w = s == WIDE
        out = np.zeros((idx.shape[0], FR.limbs), dtype=np.uint64)
        out[:, 0] = s
        out[w] = self._rows(idx[w])
        return out

    def compact(self, chunk: int | None = None, order: np.ndarray | None = None, lazy: bool = False
                ) -> tuple[np.ndarray, np.ndarray, int, np.ndarray | LimbRuns]:
        """The values as a witness file stores them, with no Python int per value: (mask
        ``(ceil(n / 8),)`` uint8, bit j set when value j is 0 or 1; bits ``(ceil(nb / 8),)`` uint8,
        those values in order; nb; wide ``(n − nb, 4)`` uint64 canonical limbs of the others, in
        order), both packed as ``numpy.packbits(bitorder="little")``. The order is the slots',
        or ``order``: a permutation of range(n), value ``order[p]`` at position p (upstream's
        variable order, ``cuzk.r1cs.order``), as one array or as consecutive pieces (a list of
        1-D arrays whose concatenation it is: ``OrderTracker.aux_pieces``).

        ``chunk`` slots (a multiple of 8; default :data:`COMPACT_CHUNK`) at a time: the
        temporaries stay small. One gather of the slots per chunk fills all three: the count of
        bit values, which sizes ``wide``, is that of the slots in any order (a permutation), so
        it is counted first over the slots as stored. When every other value is a limb row and
        the order is the slots' (PoSt), the wide values are the limb rows, returned without a copy;
        where some are kept as runs (:meth:`append_limbs` with rows), ``lazy`` returns them as a
        :class:`cuzk.field.LimbRuns` (for a writer that streams them) instead of expanding them.
        In another ``order`` with ``lazy``, computed runs (``ComputedRows``) stay uncomputed as
        placed runs, each call's values at its offset (they must lie together and in order there,
        else every value is computed and stored).
        """
        chunk = COMPACT_CHUNK if chunk is None else chunk
        if chunk <= 0 or chunk % 8:
            raise ValueError(f"compact: chunk must be a positive multiple of 8, not {chunk}")
        n, slot = self.n, self._s[: self.n]
        nb = sum(int(np.count_nonzero(slot[lo:lo + chunk] <= 1)) for lo in range(0, n, chunk))
        direct = order is None and n - nb == self._nw + sum(r[1] for r in self._runs)   # no value 2..254 in a slot
        place = _Placer(self._runs) if lazy and not direct and any(isinstance(r[3], ComputedRows) for r in self._runs) else None
        if place is not None:   # computed runs placed by their rows' offsets; the other values stored
            wide = np.zeros((n - nb - place.values, FR.limbs), dtype=np.uint64)
        elif not direct:
            wide = np.zeros((n - nb, FR.limbs), dtype=np.uint64)
        elif not self._runs:
            wide = self._wl[: self._nw]
        else:
            wide = self._wide_runs() if lazy else np.asarray(self._wide_runs())
        mask = np.empty((n + 7) // 8, dtype=np.uint8)
        bits = np.empty((nb + 7) // 8, dtype=np.uint8)
        carry = np.empty(0, dtype=np.uint8)   # bit values not yet packed (fewer than 8)
        nbytes = row = wrow = 0
        for lo, idx in _chunks(order, n, chunk):
            s = slot[lo:lo + chunk] if idx is None else slot[idx]
            is_bit = s <= 1
            mask[lo // 8:(lo + len(s) + 7) // 8] = np.packbits(is_bit, bitorder="little")
            v = np.concatenate([carry, s[is_bit]])
            full = len(v) & ~7
            bits[nbytes:nbytes + full // 8] = np.packbits(v[:full], bitorder="little")
            nbytes += full // 8
            carry = v[full:]
            if direct:
                continue
            keep = ~is_bit
            codes = s[keep]
            w = codes == WIDE
            if place is not None:
                at = np.flatnonzero(w)
                slots = (lo + np.flatnonzero(keep) if idx is None else idx[keep])[at]
                out = place.take(slots, row + at)   # the computed ones' offsets noted; the others'
                codes = np.delete(codes, at[out])
                w = np.delete(w, at[out])
                part = wide[row - place.seen:row - place.seen + len(codes)]
                part[~w, 0] = codes[~w]
                part[w] = self._rows(slots[~out])
                row += len(codes) + int(np.count_nonzero(out))
                place.seen += int(np.count_nonzero(out))
                continue
            part = wide[row:row + len(codes)]
            part[~w, 0] = codes[~w]
            nw = int(np.count_nonzero(w))
            if idx is None and not self._runs:
                part[w] = self._wl[wrow:wrow + nw]   # the limb rows are in slot order
            else:
                part[w] = self._rows((lo + np.flatnonzero(keep) if idx is None else idx[keep])[w])
            row += len(codes)
            wrow += nw
        if len(carry):
            bits[nbytes] = np.packbits(carry, bitorder="little")[0]
        if place is not None:
            placed = place.placed()
            if placed is None:   # a call's values not together in this order: every value stored
                return self.compact(chunk, order)
            wide = LimbRuns([(wide, None)], placed=placed)
        return mask, bits, nb, wide

    def all_ints(self, chunk: int = 1 << 20, order: np.ndarray | None = None) -> np.ndarray:
        """Every value, (n,) object array of mpz (in ``order`` if given, as :meth:`compact`);
        converted in chunks of ``chunk`` values so the temporaries stay small (and their memory
        is reused)."""
        out = np.empty(self.n, dtype=object)
        for lo in range(0, self.n, chunk):
            hi = min(lo + chunk, self.n)
            v = self.gather(np.arange(lo, hi) if order is None else order[lo:hi])
            out[lo:hi] = v if v.dtype == object else u64_to_int_array(v)
        return out
