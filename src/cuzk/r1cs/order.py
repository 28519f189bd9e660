"""Upstream's variable and constraint order for a vectorized constraint system.

bellperson numbers aux variables in the order ``alloc`` is called and rows in the order
``enforce`` is called, one gadget instance after another: a loop ``for i in 0..k { body(i) }``
runs body's statements for instance 0, then for instance 1. Our gadgets run each statement once
for all k instances (block order). The two orders differ only by that interchange, so upstream's
order follows from the call sequence once each loop is marked:

* ``with cs.instances(n):`` marks a loop of n instances; every ``alloc_aux``/``enforce`` call
  inside it covers all n instances, instance-major (element e of a call of m elements belongs
  to instance ``e // (m / n)``), unless the call gives ``lanes``: the instance of each element.
* Closing the loop orders its elements by instance, each instance's elements in call order
  (a stable sort: the loop interchange undone). The loop then counts as one call of its parent
  loop (inner instance i belongs to parent instance ``i // (n / n_parent)``).
* The outermost loop (the whole circuit, one instance) yields the final order.

Only the relative order of allocations among themselves and of constraints among themselves
matters (columns and rows are numbered separately), so a gadget may allocate and enforce in any
interleaving as long as each sequence, per instance, is upstream's.

:class:`OrderTracker` records the calls as ranges (no array per call) and closes a loop whose
calls all use the default lanes as a block transpose (no sort), so the outer loops of a large
circuit cost one pass over its columns and rows. :func:`permute_csr` applies the result to a
finalized matrix.
"""

from __future__ import annotations

import numpy as np

from ..errors import CuzkError


class OrderError(CuzkError, ValueError):
    """A call inside ``cs.instances(n)`` does not split evenly into n instances, or lanes do not
    fit it: the gadget's loop marking is wrong (a programming error, raised before any output)."""


def _index_dtype(n: int):
    return np.int32 if n < (1 << 31) else np.int64


class _Loop:
    __slots__ = ("n", "cols", "rows", "what")

    def __init__(self, n: int, what: str):
        self.n, self.what = n, what
        self.cols: list = []   # entries: (start, m, lanes) ranges, or (array, None) closed loops
        self.rows: list = []


def _close(entries: list, n: int, what: str, kind: str) -> np.ndarray | None:
    """A loop's elements in upstream order (instance-major, call order within an instance)."""
    if not entries:
        return None
    explicit = any(e[-1] is not None for e in entries)
    if n > 1 and not explicit:
        return _transpose(entries, n, what, kind)
    arrays, lanes = [], []
    for e in entries:
        if isinstance(e[0], np.ndarray):
            a = e[0]
        else:
            start, m = e[0], e[1]
            a = np.arange(start, start + m, dtype=_index_dtype(start + m))
        if e[-1] is not None:
            if e[-1].shape != a.shape or (a.shape[0] and (e[-1].min() < 0 or e[-1].max() >= n)):
                raise OrderError(f"{what}: lanes of a {kind} call do not fit it ({e[-1].shape} for {a.shape[0]} "
                                 f"elements, {n} instances)")
        elif a.shape[0] % n:
            raise OrderError(f"{what}: a {kind} call of {a.shape[0]} elements does not split into {n} instances")
        arrays.append(a)
        lanes.append(e[-1])
    if not explicit:   # n == 1
        return np.concatenate(arrays) if len(arrays) > 1 else arrays[0]
    idx = np.concatenate(arrays)
    lane = np.concatenate([ln if ln is not None else np.arange(a.shape[0]) // (a.shape[0] // n)
                           for a, ln in zip(arrays, lanes)])
    return idx[np.argsort(lane, kind="stable")]


class Replay:
    """A block's allocation calls (:meth:`OrderTracker.replay`'s groups) recorded once from
    variable 0: the entries they leave in the enclosing loop (ranges, and their own loops
    closed), so a gadget that allocates the same block many times (a SHA-256 compression's bits,
    a few hundred times per PoRep partition) closes its inner loops (a sort each) once, not per
    block.

    Raises:
        OrderError: as :meth:`OrderTracker.replay`.
    """

    __slots__ = ("entries", "size")

    def __init__(self, groups):
        rec = OrderTracker(rows=False)
        rec.replay(0, groups)
        self.entries = rec.stack[0].cols
        self.size = rec._count["alloc"]


def _transpose(entries: list, n: int, what: str, kind: str) -> np.ndarray:
    """``_close`` of a loop of n > 1 instances whose calls all use the default lanes: a block
    transpose, instance i's row holding each call's i-th slice in call order. Written as one
    ``(n, W)`` array without an array per range call: a range ``(start, m)`` of slice width
    w = m / n holds ``start + i·w + j`` at row i, column ``off + j``, so every row is
    ``base + i·step`` over templates built once (a PoRep partition's challenge loop: 200 k calls,
    most of them ranges); the closed inner loops (arrays) are then copied into their columns.

    Raises:
        OrderError: a call does not split into n instances.
    """
    is_arr = [isinstance(e[0], np.ndarray) for e in entries]
    sizes = np.fromiter((e[0].shape[0] if a else e[1] for e, a in zip(entries, is_arr)), dtype=np.int64,
                        count=len(entries))
    if (sizes % n).any():
        m = int(sizes[np.flatnonzero(sizes % n)[0]])
        raise OrderError(f"{what}: a {kind} call of {m} elements does not split into {n} instances")
    widths = sizes // n
    offs = np.zeros(len(entries) + 1, dtype=np.int64)
    np.cumsum(widths, out=offs[1:])
    starts = np.fromiter((0 if a else e[0] for e, a in zip(entries, is_arr)), dtype=np.int64, count=len(entries))
    top = int((starts + sizes).max())
    dtype = np.result_type(_index_dtype(top), *{e[0].dtype for e, a in zip(entries, is_arr) if a})
    width = int(offs[-1])
    # columns of an array call get templates too (overwritten below): the templates stay dense
    base = (np.repeat(starts - offs[:-1], widths) + np.arange(width, dtype=np.int64)).astype(dtype)
    step = np.repeat(np.where(is_arr, 0, widths), widths).astype(dtype)
    out = np.multiply.outer(np.arange(n, dtype=dtype), step)   # no Python loop over the n rows
    out += base
    for k in np.flatnonzero(is_arr):
        out[:, offs[k]:offs[k + 1]] = entries[k][0].reshape(n, -1)
    return out.reshape(-1)


class OrderTracker:
    """The loop stack of one constraint system (see the module docstring).

    Args:
        rows: track constraints too (shape mode); columns are always tracked.
    """

    def __init__(self, rows: bool = True):
        self.track_rows = rows
        self.stack = [_Loop(1, "circuit")]
        # aux variables / rows recorded so far, and whether each call began where the last ended:
        # then the recorded calls tile range(count), and every close permutes its elements, so
        # the result is a permutation (checked in O(calls), not by a pass over its elements)
        self._count = {"alloc": 0, "enforce": 0}
        self._tiled = {"alloc": True, "enforce": True}

    def _record(self, kind: str, start: int, m: int) -> None:
        self._tiled[kind] &= start == self._count[kind]
        self._count[kind] = start + m

    def push(self, n: int, what: str) -> None:
        """Open a loop of n instances (n ≥ 1)."""
        if n < 1:
            raise OrderError(f"{what}: a loop needs at least one instance, got {n}")
        self.stack.append(_Loop(int(n), what))

    def pop(self) -> None:
        """Close the innermost loop: its elements become one call of the enclosing loop.

        Raises:
            OrderError: the loop's calls do not split into its instances.
        """
        lp = self.stack.pop()
        parent = self.stack[-1]
        for kind, entries, out in (("alloc", lp.cols, parent.cols), ("enforce", lp.rows, parent.rows)):
            arr = _close(entries, lp.n, lp.what, kind)
            if arr is not None:
                out.append((arr, None))

    def alloc(self, start: int, m: int, lanes=None) -> None:
        """Record aux variables start .. start + m − 1 (one call)."""
        if m:
            self._record("alloc", start, m)
            self.stack[-1].cols.append((start, m, None if lanes is None else np.asarray(lanes).reshape(-1)))

    def replay(self, start: int, groups) -> None:
        """Record a block of aux variables start, start + 1, … allocated at once for what a
        gadget's calls would have allocated one by one: ``groups`` in order, each
        ``(n, what, calls)``: a loop of n instances (None: no loop of its own) holding the
        consecutive calls ``(m, lanes)`` (as :meth:`alloc`).

        ``groups`` may also be a :class:`Replay` of them (closed once, shifted to ``start``).

        Raises:
            OrderError: a loop's calls do not split into its instances.
        """
        if isinstance(groups, Replay):
            self._record("alloc", start, groups.size)
            dtype = _index_dtype(start + groups.size)
            self.stack[-1].cols.extend(
                (np.add(e[0], start, dtype=dtype), None) if isinstance(e[0], np.ndarray) else (start + e[0],) + e[1:]
                for e in groups.entries)
            return
        for n, what, calls in groups:
            if n is not None:
                self.push(n, what)
            for m, lanes in calls:
                self.alloc(start, m, lanes)
                start += m
            if n is not None:
                self.pop()

    def enforce(self, start: int, m: int, lanes=None) -> None:
        """Record rows start .. start + m − 1 (one call)."""
        if m and self.track_rows:
            self._record("enforce", start, m)
            self.stack[-1].rows.append((start, m, None if lanes is None else np.asarray(lanes).reshape(-1)))

    def _top(self, kind: str, total: int) -> list[np.ndarray]:
        """The outermost loop's elements of ``kind`` ("alloc" or "enforce") as consecutive
        pieces, joined the order: its calls, ranges made arrays, in call order (its one instance).

        Raises:
            OrderError: a loop is still open, or the order is not a permutation of total.
        """
        if len(self.stack) != 1:
            raise OrderError(f"loop {self.stack[-1].what!r} is still open")
        entries = self.stack[0].cols if kind == "alloc" else self.stack[0].rows
        if any(e[-1] is not None for e in entries):   # lanes of the one instance, checked there
            pieces = [_close(entries, 1, "circuit", kind)]
        else:
            pieces = [e[0] if isinstance(e[0], np.ndarray) else np.arange(e[0], e[0] + e[1], dtype=_index_dtype(e[0] + e[1]))
                      for e in entries]
        if sum(x.shape[0] for x in pieces) != total or not self._tiled[kind] or self._count[kind] != total:
            raise OrderError(f"the recorded {kind} order is not a permutation of {total} elements")
        return pieces

    def result(self, num_aux: int, num_rows: int | None = None) -> tuple[np.ndarray, np.ndarray | None]:
        """(aux order, row order): position p of upstream's numbering holds our index
        ``order[p]``; row order is None when rows are not tracked or num_rows is None.

        Raises:
            OrderError: a loop is still open, or the order is not a permutation (a call made
                outside the tracker's knowledge).
        """
        out = []
        for kind, total in (("alloc", num_aux), ("enforce", num_rows)):
            if kind == "enforce" and (total is None or not self.track_rows):
                out.append(None)
                continue
            pieces = self._top(kind, total)
            out.append(pieces[0] if len(pieces) == 1 else np.concatenate(pieces) if pieces else np.empty(0, dtype=np.int64))
        return out[0], out[1]

    def aux_pieces(self, num_aux: int) -> list[np.ndarray]:
        """The aux order of :meth:`result` as consecutive pieces (1-D arrays), not joined: at
        32 GiB the join copies 520 MB into fresh pages, for ``ValueStore.compact`` to read once.

        Raises:
            OrderError: as :meth:`result`.
        """
        return self._top("alloc", num_aux)


def inverse(order: np.ndarray) -> np.ndarray:
    """inv with ``inv[order[p]] = p``."""
    inv = np.empty(order.shape[0], dtype=_index_dtype(order.shape[0]))
    inv[order] = np.arange(order.shape[0], dtype=inv.dtype)
    return inv


def permute_csr(indptr: np.ndarray, indices: np.ndarray, cids: np.ndarray, row_order: np.ndarray,
                col_new: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows gathered in ``row_order`` (new row p = old row ``row_order[p]``) and columns renamed
    (old column j → ``col_new[j]``), each row's columns sorted increasing again.

    Args:
        indptr: ``(rows + 1,)`` int64; indices ``(nnz,)`` int; cids ``(nnz,)`` int32.
        row_order: ``(rows,)`` a permutation; col_new: ``(cols,)`` a permutation.

    Returns:
        (indptr, indices int64, cids) of the permuted matrix.
    """
    counts = np.diff(indptr)[row_order]
    new_ptr = np.zeros(row_order.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts, out=new_ptr[1:])
    nnz = int(new_ptr[-1])
    shift = np.repeat(indptr[:-1][row_order] - new_ptr[:-1], counts)
    pos = shift + np.arange(nnz, dtype=np.int64)
    cols = col_new[indices[pos]].astype(np.int64)
    ids = cids[pos]
    if nnz > 1:
        rowid = np.repeat(np.arange(row_order.shape[0], dtype=np.int64), counts)
        bad_pair = (np.diff(cols) <= 0) & (rowid[1:] == rowid[:-1])
        if bad_pair.any():  # sort only the rows whose renamed columns are out of order
            bad_rows = np.unique(rowid[1:][bad_pair])
            sel = np.flatnonzero(np.isin(rowid, bad_rows))
            o = np.lexsort((cols[sel], rowid[sel]))
            cols[sel] = cols[sel][o]
            ids[sel] = ids[sel][o]
    return new_ptr, cols, ids
