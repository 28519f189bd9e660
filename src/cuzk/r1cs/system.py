"""Vectorized rank-1 constraint system: blocks of k constraints and k variables at once.

Variable references ("refs") are int64 numpy arrays. Aux variable j is ``j`` (≥ 0); input i is
``-(i + 1)``, so the constant ``ONE`` (input 0) is ``-1``. The final column numbering of the
finalized system is input i → i, aux j → num_inputs + j.

A constraint block ``enforce(a, b, c)`` adds k rows ``⟨a_i, w⟩ · ⟨b_i, w⟩ = ⟨c_i, w⟩``; each of a, b,
c is an :class:`LC` built with :func:`lc` (or a bare ref array, or ``None`` for zero). Nothing in
this module loops in Python per constraint or per variable: loops run per block or per term
column at most.

Modes: *shape* records the matrices (per enforce call, a row-sorted, duplicate-free compressed
block; coefficients as int32 ids into a per-system table), *witness* stores values
(:class:`cuzk.r1cs.values.ValueStore`). A system may do both. Gadgets enforce through
:meth:`ConstraintSystem.enforce_lazy` where building the linear combinations costs: a
witness-only system then only counts the rows.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Sequence

import gmpy2
import numpy as np

from ..backend.base import CompactAssignment
from ..errors import CuzkError
from ..field.sparse import CSRMatrix
from ..field import FR, ComputedRows, to_limbs
from .order import OrderTracker, inverse, permute_csr
from .values import ValueStore, u64_to_int_array

R = FR.modulus
_MPZ = gmpy2.mpz
_MPZ_TYPE = type(_MPZ(0))
_INPUT_KEY_BASE = -(1 << 62)  # sort key of input i is _INPUT_KEY_BASE + i: below every aux
_KEY_MAX = np.iinfo(np.int64).max
_to_mpz = np.frompyfunc(_MPZ, 1, 1)

INPUT_GADGET = "input"  # gadget name of the appended rows ``input_i * 0 = 0``


class Unsatisfied(CuzkError, ValueError):
    """A constraint does not hold for an assignment.

    Attributes:
        row: index of the first failing constraint (row of A, B, C).
        gadget: name of the gadget that enforced it.
    """

    def __init__(self, row: int, gadget: str, detail: str = ""):
        self.row = int(row)
        self.gadget = gadget
        msg = f"constraint {self.row} (gadget {gadget!r}) is not satisfied"
        super().__init__(msg + (f": {detail}" if detail else ""))


# --------------------------------------------------------------------------------------------
# linear combinations
# --------------------------------------------------------------------------------------------


def _is_int_scalar(x: Any) -> bool:
    return isinstance(x, (int, np.integer, _MPZ_TYPE)) and not isinstance(x, (bool, np.bool_))


class LC:
    """A block of k linear combinations: a sum of term blocks sharing the same k.

    Each term block is ``(refs, kind, coeffs)``: refs a ``(k, m)`` int64 array; ``kind`` one of
    ``"scalar"`` (coeffs an int for all k·m terms), ``"row"`` (a tuple of m ints, the same for
    every row) or ``"array"`` (a ``(k, m)`` int64/uint64/object array). Coefficients are reduced
    mod r lazily. Supports ``+``, ``-`` (binary and unary) and multiplication by an int scalar.
    ``LC.zero()`` (k unknown, no terms) is the neutral element; ``0 + lc`` works so ``sum()`` can
    be used.

    Raises:
        ValueError: adding blocks whose k differ.
    """

    __slots__ = ("terms", "k")

    def __init__(self, terms: Sequence[tuple] = (), k: int | None = None):
        self.terms = list(terms)
        self.k = k

    @staticmethod
    def zero() -> "LC":
        """The empty linear combination (zero for every row)."""
        return LC()

    @property
    def nterms(self) -> int:
        """Number of term columns m summed over the blocks (terms per row before merging)."""
        return sum(t[0].shape[1] for t in self.terms)

    def __add__(self, other):
        if other is None or (_is_int_scalar(other) and other == 0):
            return self
        if not isinstance(other, LC):
            return NotImplemented
        if self.k is not None and other.k is not None and self.k != other.k:
            raise ValueError(f"cannot add linear-combination blocks with k={self.k} and k={other.k}")
        return LC(self.terms + other.terms, self.k if self.k is not None else other.k)

    def __radd__(self, other):
        return self.__add__(other)

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        if other is None:
            return self
        if not isinstance(other, LC):
            return NotImplemented
        return self + (-other)

    def __mul__(self, s):
        if not _is_int_scalar(s):
            return NotImplemented
        s = int(s) % R
        if s == 1:
            return self
        terms = []
        for refs, kind, co in self.terms:
            if kind == "scalar":
                terms.append((refs, kind, co * s % R))
            elif kind == "row":
                terms.append((refs, kind, tuple(c * s % R for c in co)))
            else:
                terms.append((refs, kind, np.mod(_to_mpz(co) * s, R)))
        return LC(terms, self.k)

    __rmul__ = __mul__

    def __repr__(self) -> str:
        return f"LC(k={self.k}, blocks={len(self.terms)}, terms/row={self.nterms})"


def lc(refs, coeffs=1) -> LC:
    """A linear-combination block from refs and coefficients.

    Args:
        refs: int array of variable refs, shape ``(k,)`` (one term per row) or ``(k, m)`` (m terms
            per row; more dimensions are flattened to ``(k, m)``).
        coeffs: an int (all terms), a length-m sequence (the same for every row), or an int array
            of refs' shape (``(k,)`` for 1-D refs, ``(k, m)``), dtype int64/uint64/object.
            Negative values mean r − |c|; zero coefficients are dropped at enforce time.

    Returns:
        An :class:`LC` with ``k = refs.shape[0]``.

    Raises:
        TypeError: refs or coeffs are not integers.
        ValueError: refs is a scalar, or the coefficient shape does not fit refs.
    """
    refs = np.asarray(refs)
    if refs.dtype.kind not in "iu":
        raise TypeError(f"refs must be an integer array, got dtype {refs.dtype}")
    if refs.ndim == 0:
        raise ValueError("refs must have at least one dimension (k,)")
    refs = refs.astype(np.int64, copy=False)
    k = refs.shape[0]
    r2 = refs.reshape(k, -1)
    m = r2.shape[1]
    if _is_int_scalar(coeffs):
        return LC([(r2, "scalar", int(coeffs) % R)], k)
    c = coeffs if isinstance(coeffs, np.ndarray) else _int_list_array(coeffs)
    if c.dtype == bool:
        c = c.astype(np.int64)
    if c.dtype.kind not in "iuO":
        raise TypeError(f"coefficients must be integers, got dtype {c.dtype}")
    if refs.ndim == 1:
        if c.size == 1:
            return LC([(r2, "scalar", int(c.reshape(-1)[0]) % R)], k)
        if c.shape == (k,):
            return LC([(r2, "array", c.reshape(k, 1))], k)
        raise ValueError(f"coefficients of shape {c.shape} do not fit refs of shape {refs.shape}")
    if c.ndim == 1 and c.shape[0] == m:
        return LC([(r2, "row", tuple(int(x) % R for x in c))], k)
    if c.shape == refs.shape or c.shape == (k, m):
        return LC([(r2, "array", c.reshape(k, m))], k)
    try:
        cb = np.broadcast_to(c, refs.shape)
    except ValueError:
        raise ValueError(f"coefficients of shape {c.shape} do not fit refs of shape {refs.shape}") from None
    return LC([(r2, "array", cb.reshape(k, m))], k)


def _as_lc(x) -> LC:
    if x is None:
        return LC()
    if isinstance(x, LC):
        return x
    return lc(x)


def _sort_key(refs: np.ndarray) -> np.ndarray:
    """int64 key, same shape as refs, monotone in the final column number."""
    if refs.size == 0 or refs.min() >= 0:
        return refs
    key = refs.copy()
    neg = refs < 0
    key[neg] = (-refs[neg] - 1) + _INPUT_KEY_BASE
    return key


def _int_list_array(values) -> np.ndarray:
    """Python ints / nested lists → int64/uint64 array, or object array for big or mixed values
    (numpy alone would turn [2**64 - 1, 1] into float64).

    Raises:
        TypeError: an element is not an integer.
    """
    try:
        arr = np.asarray(values)
    except OverflowError:
        arr = None
    if arr is not None and arr.dtype.kind in "iub":
        return arr
    if arr is not None and arr.dtype.kind not in "fO":
        raise TypeError(f"expected integers, got dtype {arr.dtype}")
    arr = np.array(values, dtype=object)
    if not all(_is_int_scalar(x) for x in arr.reshape(-1)):
        raise TypeError("expected integers")
    return arr


def _normalize_values(values, shape: tuple[int, ...]) -> np.ndarray:
    """values (int array, numpy int array, cupy array, list, scalar) → 1-D canonical values of
    prod(shape) elements: an unsigned integer array, or object array of mpz reduced mod r."""
    if type(values) is np.ndarray and values.dtype.kind == "u" and values.shape == shape:
        # the gadgets' common case (bits, words): skip the general checks (and any conversion:
        # the store takes every unsigned dtype)
        return values.reshape(-1)
    if hasattr(values, "get") and not isinstance(values, np.ndarray):  # CuPy
        values = values.get()
    arr = values if isinstance(values, np.ndarray) else _int_list_array(values)
    if arr.dtype == bool:
        arr = arr.astype(np.uint64)
    kind = arr.dtype.kind
    if kind not in "iuO":
        raise TypeError(f"values must be integers, got dtype {arr.dtype}")
    try:
        flat = np.broadcast_to(arr, shape).reshape(-1)
    except ValueError:
        raise ValueError(f"values of shape {arr.shape} do not broadcast to {shape}") from None
    if kind == "u":
        return flat
    if kind == "i":
        if flat.size == 0 or flat.min() >= 0:
            return flat.astype(np.uint64)
        flat = flat.astype(object)
    return np.mod(_to_mpz(flat), R)


# --------------------------------------------------------------------------------------------
# recorded blocks
# --------------------------------------------------------------------------------------------


class _Block:
    """One enforce call's rows of one matrix, canonical: per row sorted by final column, unique,
    non-zero. ``counts`` is an int (every row has that many terms) or a (k,) int32 array; ``refs``
    (nnz,) int64 in row-major order; ``cids`` (nnz,) int32, or ``row_cids`` (counts,) int32 shared
    by every row when counts is an int."""

    __slots__ = ("k", "counts", "refs", "cids", "row_cids")

    def __init__(self, k, counts, refs, cids=None, row_cids=None):
        self.k = k
        self.counts = counts
        self.refs = refs
        self.cids = cids
        self.row_cids = row_cids


# --------------------------------------------------------------------------------------------
# the constraint system
# --------------------------------------------------------------------------------------------


class ConstraintSystem:
    """A vectorized R1CS under construction.

    Args:
        shape: record the constraint matrices (needed for :meth:`finalize`).
        witness: keep variable values (then every alloc needs ``values``).
        xp: array module for gadgets' bit/uint32 witness code (numpy by default; CuPy later).
        aux_capacity: expected aux variables (e.g. the shape's ``stats()["aux"]``): the witness
            store is allocated once at that size instead of growing by doubling copies.
        upstream_order: number aux variables and rows as bellperson would (``cuzk.r1cs.order``):
            the circuit marks its loops with :meth:`instances`; :meth:`finalize` and the
            assignment methods then give upstream's columns and rows. Refs (and :meth:`value`)
            keep our own numbering.

    Attributes:
        ONE: ref of the constant 1 (input 0), i.e. -1.
        has_shape, has_values: the modes.
        num_inputs: inputs allocated so far, ONE included.
        num_aux: aux variables allocated so far.
        num_constraints: circuit constraints so far (without the input rows finalize appends).

    Raises:
        ValueError: neither mode chosen.
    """

    ONE = -1

    def __init__(self, shape: bool = True, witness: bool = True, xp=None, aux_capacity: int | None = None,
                 upstream_order: bool = False):
        if not (shape or witness):
            raise ValueError("ConstraintSystem needs shape=True, witness=True or both")
        self.has_shape = bool(shape)
        self.has_values = bool(witness)
        self.xp = xp if xp is not None else np
        self.num_inputs = 1
        self.num_aux = 0
        self.num_constraints = 0
        # coefficient table (shape mode): canonical value -> id
        self._coeff_ids: dict[int, int] = {}
        self._coeffs: list[int] = []
        self._blocks: tuple[list, list, list] = ([], [], [])
        self._gadget_ids: dict[str, int] = {}
        self._gadget_names: list[str] = []
        self._run_starts: list[int] = []  # first row of each run of one gadget
        self._run_gadgets: list[int] = []
        self._consumed = False
        self._order = OrderTracker(rows=self.has_shape) if upstream_order else None
        if self.has_values:
            self._in_vals = ValueStore(64)
            self._aux_vals = ValueStore(max(int(aux_capacity or 0), 1024))
            self._in_vals.append(np.ones(1, dtype=np.uint64))

    # --- variables ---------------------------------------------------------------------------

    def one(self, k: int) -> np.ndarray:
        """``(k,)`` int64 refs, all the constant ONE."""
        return np.full(k, self.ONE, dtype=np.int64)

    @staticmethod
    def _shape(shape) -> tuple[int, ...]:
        if type(shape) is tuple and all(type(s) is int for s in shape):  # the common case, fast
            return shape
        return (int(shape),) if _is_int_scalar(shape) else tuple(int(s) for s in shape)

    def _take_values(self, values, shape, what: str):
        if not self.has_values:
            return None
        if values is None:
            raise ValueError(f"{what}: values are required when the system keeps a witness")
        return _normalize_values(values, shape)

    @contextmanager
    def instances(self, n: int, what: str = "loop"):
        """Mark a loop of n gadget instances (upstream runs them one after another; the calls
        inside cover all n at once, instance-major, or say each element's instance with
        ``lanes``). A no-op unless the system was made with ``upstream_order``.

        Raises:
            cuzk.r1cs.order.OrderError: (on leaving) a call does not split into n instances.
        """
        if self._order is None:
            yield
            return
        self._order.push(n, what)
        try:
            yield
        except BaseException:
            self._order.stack.pop()   # the loop is abandoned, not closed into its parent
            raise
        self._order.pop()

    @property
    def upstream_order(self) -> bool:
        """Whether this system numbers variables and rows in upstream's order."""
        return self._order is not None

    def alloc_input(self, shape, values=None) -> np.ndarray:
        """Allocate public inputs.

        Args:
            shape: int or tuple, the shape of the returned ref array.
            values: ints broadcastable to shape (int array, numpy int array, list, scalar);
                required when ``has_values``, ignored otherwise. Reduced mod r.

        Returns:
            int64 array of refs ``-(i + 1)`` for the new inputs i, in C order.

        Raises:
            ValueError: values missing (witness mode) or not broadcastable. TypeError: not ints.
        """
        shape = self._shape(shape)
        n = math.prod(shape)  # Python ints: no numpy call per allocation
        vals = self._take_values(values, shape, "alloc_input")
        start = self.num_inputs
        refs = -(np.arange(start, start + n, dtype=np.int64) + 1)
        if vals is not None:
            self._in_vals.append(vals)
        self.num_inputs += n
        return refs.reshape(shape)

    def alloc_aux(self, shape, values=None, lanes=None) -> np.ndarray:
        """Allocate auxiliary (private) variables; like :meth:`alloc_input`. ``lanes``: the loop
        instance of each new variable in C order (:meth:`instances`), default instance-major.

        Returns:
            int64 array of refs j (the new aux indices), in C order, of the given shape.
        """
        shape = self._shape(shape)
        n = math.prod(shape)  # Python ints: no numpy call per allocation
        start = self._alloc_aux(n, self._take_values(values, shape, "alloc_aux"), lanes)
        return np.arange(start, start + n, dtype=np.int64).reshape(shape)

    def alloc_aux_block(self, n: int, values=None, calls=None) -> int:
        """Allocate n aux variables (values as :meth:`alloc_aux` takes them, shape ``(n,)``)
        and return the first one's ref, without a ref array: for a gadget that computes the
        refs it needs itself (e.g. the SHA-256 words of a witness-only compression).

        Args:
            calls: with ``upstream_order``, a no-argument callable giving the allocation calls
                the block stands for (``cuzk.r1cs.order.OrderTracker.replay``'s groups; called
                only then); default one call, instance-major.

        Raises:
            ValueError: values missing (witness mode) or not broadcastable. TypeError: not ints.
            cuzk.r1cs.order.OrderError: the calls do not split into their loops' instances.
        """
        vals = self._take_values(values, (n,), "alloc_aux_block")
        if calls is None or self._order is None:
            return self._alloc_aux(n, vals)
        start = self.num_aux
        self._order.replay(start, calls())
        if vals is not None:
            self._aux_vals.append(vals)
        self.num_aux += n
        return start

    def _alloc_aux(self, n: int, vals, lanes=None) -> int:
        start = self.num_aux
        if vals is not None:
            self._aux_vals.append(vals)
        if self._order is not None:
            self._order.alloc(start, n, lanes)
        self.num_aux += n
        return start

    def alloc_aux_limbs(self, shape, limbs: np.ndarray, rows: np.ndarray | None = None,
                        refs: bool = True) -> np.ndarray | None:
        """Allocate aux variables whose values come as limbs (no Python int per value).

        Args:
            shape: int or tuple, the shape of the returned ref array.
            limbs: ``shape + (4,)`` uint64 canonical little-endian limbs of Fr values, or with
                ``rows`` (``(shape[0],)`` ints) ``(m,) + shape[1:] + (4,)`` (or ``ComputedRows``)
                whose ``limbs[rows]`` are the values (kept: ``ValueStore.append_limbs``)
            refs: False returns None instead of the refs (``num_aux`` onwards, in C order).

        Returns:
            int64 refs j (the new aux indices) in C order, of the given shape, or None.

        Raises:
            RuntimeError: the system keeps no witness. ValueError: limbs of another shape or
            dtype, rows of another length or out of range, or a value not below r.
        """
        if not self.has_values:
            raise RuntimeError("alloc_aux_limbs(): this ConstraintSystem keeps no witness (witness=False)")
        shape = self._shape(shape)
        want = shape + (FR.limbs,) if rows is None else (getattr(limbs, "shape", (0,))[0],) + shape[1:] + (FR.limbs,)
        if not (isinstance(limbs, np.ndarray if rows is None else (np.ndarray, ComputedRows))
                and limbs.dtype == np.uint64 and tuple(limbs.shape) == want):
            raise ValueError(f"alloc_aux_limbs: limbs must be a uint64 array of shape {want}, got "
                             f"{getattr(limbs, 'dtype', type(limbs))} {getattr(limbs, 'shape', '')}")
        start, n = self.num_aux, int(np.prod(shape, dtype=np.int64))   # the store checks the values and rows
        self._aux_vals.append_limbs(limbs.reshape(-1, FR.limbs) if rows is None else limbs, rows, n)
        if self._order is not None:
            self._order.alloc(start, n)
        self.num_aux += n
        return np.arange(start, start + n, dtype=np.int64).reshape(shape) if refs else None

    def _check_refs(self, refs: np.ndarray) -> None:
        if refs.size == 0:
            return
        lo, hi = int(refs.min()), int(refs.max())
        if lo < -self.num_inputs or hi >= self.num_aux:
            raise IndexError(f"variable ref out of range [{-self.num_inputs}, {self.num_aux}): min {lo}, max {hi}")

    # --- values ------------------------------------------------------------------------------

    def _value_refs(self, refs, what: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(refs as int64, flattened, mask of the input refs), checked, for a value read."""
        if not self.has_values:
            raise RuntimeError(f"{what}(): this ConstraintSystem keeps no witness (witness=False)")
        refs = np.asarray(refs, dtype=np.int64)
        flat = refs.reshape(-1)
        self._check_refs(flat)
        return refs, flat, flat < 0

    def value(self, refs, dtype=None) -> np.ndarray:
        """Values of variables (vectorized gather, on the host).

        Args:
            refs: int array of refs, any shape.
            dtype: None (uint64 array when every value fits in 64 bits, else an int array of
                mpz), ``np.uint64`` (always uint64) or ``object`` (always an int array).

        Returns:
            numpy array of refs' shape.

        Raises:
            RuntimeError: the system keeps no witness. IndexError: a ref is not allocated.
            OverflowError: dtype uint64 asked but some value is ≥ 2^64.
        """
        refs, flat, neg = self._value_refs(refs, "value")
        if not neg.any():
            out = self._aux_vals.gather(flat)
        elif neg.all():
            out = self._in_vals.gather(-flat - 1)
        else:
            va = self._aux_vals.gather(flat[~neg])
            vi = self._in_vals.gather(-flat[neg] - 1)
            if va.dtype == np.uint64 and vi.dtype == np.uint64:
                out = np.empty(flat.shape[0], dtype=np.uint64)
            else:
                out = np.empty(flat.shape[0], dtype=object)
                va = va if va.dtype == object else u64_to_int_array(va)
                vi = vi if vi.dtype == object else u64_to_int_array(vi)
            out[~neg] = va
            out[neg] = vi
        if dtype is not None:
            if np.dtype(dtype) == np.uint64:
                if out.dtype != np.uint64:
                    raise OverflowError("value(dtype=uint64): some value is ≥ 2^64")
            elif np.dtype(dtype) == object:
                if out.dtype != object:
                    out = u64_to_int_array(out)
            else:
                raise ValueError(f"value(): dtype must be None, np.uint64 or object, not {dtype}")
        return out.reshape(refs.shape)

    def value_limbs(self, refs) -> np.ndarray:
        """Values of variables as ``refs.shape + (4,)`` uint64 canonical little-endian limbs.

        Raises:
            RuntimeError: the system keeps no witness. IndexError: a ref is not allocated.
        """
        refs, flat, neg = self._value_refs(refs, "value_limbs")
        out = np.empty((flat.shape[0], FR.limbs), dtype=np.uint64)
        out[~neg] = self._aux_vals.gather_limbs(flat[~neg])
        out[neg] = self._in_vals.gather_limbs(-flat[neg] - 1)
        return out.reshape(refs.shape + (FR.limbs,))

    def assignment(self) -> tuple[np.ndarray, np.ndarray]:
        """The witness as int arrays (mpz, canonical), aux in upstream's order with
        ``upstream_order``.

        Returns:
            (inputs ``(num_inputs,)`` with inputs[0] == 1, aux ``(num_aux,)``).

        Raises:
            RuntimeError: the system keeps no witness.
        """
        if not self.has_values:
            raise RuntimeError("assignment(): this ConstraintSystem keeps no witness (witness=False)")
        return self._in_vals.all_ints(), self._aux_vals.all_ints(order=self._aux_order())

    def columns(self, refs) -> np.ndarray:
        """Final column numbers of refs (input i → i, aux → num_inputs + its position, upstream's
        with ``upstream_order``): where a variable sits in :meth:`full_assignment` and in the
        finalized matrices.

        Raises:
            IndexError: a ref is not allocated.
        """
        r = np.asarray(refs, dtype=np.int64)
        self._check_refs(r.reshape(-1))
        aux = r if self._order is None else inverse(self._aux_order()).astype(np.int64)[np.maximum(r, 0)]
        return np.where(r < 0, -r - 1, self.num_inputs + aux)

    def _aux_order(self) -> np.ndarray | None:
        """Our aux index at each of upstream's positions (None: our own order)."""
        return None if self._order is None else self._order.result(self.num_aux)[0]

    def aux_slots(self) -> np.ndarray:
        """The aux values' ``(num_aux,)`` uint8 slot codes (``ValueStore.slots``), a view."""
        self._value_refs((), "aux_slots")   # RuntimeError without a witness
        return self._aux_vals.slots()

    def assignment_compact(self, lazy: bool = False) -> CompactAssignment:
        """The witness as a witness file stores it (``cuzk.backend.CompactAssignment``: values 0
        and 1 as packed bits, the others as limbs), made from the value store without a Python
        int per value: at 32 GiB (130 M aux) seconds instead of the half minute of
        ``assignment`` and the writer's comparisons over it. ``lazy``: wide may be a ``LimbRuns``.

        Raises:
            RuntimeError: the system keeps no witness.
        """
        if not self.has_values:
            raise RuntimeError("assignment_compact(): this ConstraintSystem keeps no witness (witness=False)")
        order = None if self._order is None else self._order.aux_pieces(self.num_aux)
        mask, bits, nb, wide = self._aux_vals.compact(order=order, lazy=lazy)
        inputs = to_limbs(self._in_vals.all_ints(), FR.limbs)
        return CompactAssignment(inputs, mask, bits, wide, self._aux_vals.n, nb)

    def full_assignment(self) -> np.ndarray:
        """``(num_inputs + num_aux,)`` int array: inputs then aux (the w of :meth:`R1CS.check`)."""
        inp, aux = self.assignment()
        return np.concatenate([inp, aux])

    # --- constraints -------------------------------------------------------------------------

    def enforce(self, a, b, c, gadget: str = "unnamed", lanes=None) -> None:
        """Add k constraints ``⟨a_i, w⟩ · ⟨b_i, w⟩ = ⟨c_i, w⟩`` (i < k) at once.

        Args:
            a, b, c: each an :class:`LC`, a ref array (one term per row, coefficient 1), or None
                (zero). Their k must agree; at least one must be non-empty.
            gadget: name reported by :meth:`R1CS.gadget_of` and :class:`Unsatisfied`.
            lanes: ``(k,)`` loop instance of each row (:meth:`instances`), default instance-major.

        Raises:
            ValueError: k disagree or cannot be inferred. IndexError: unallocated ref (shape mode).
        """
        lcs = [_as_lc(x) for x in (a, b, c)]
        ks = {x.k for x in lcs if x.k is not None}
        if len(ks) > 1:
            raise ValueError(f"enforce({gadget!r}): blocks disagree on k: {sorted(ks)}")
        if not ks:
            raise ValueError(f"enforce({gadget!r}): all three linear combinations are empty")
        k = ks.pop()
        if k == 0:
            return
        if self._consumed:
            raise RuntimeError("enforce(): the system was consumed by finalize(consume=True)")
        if self.has_shape:
            for mat, x in enumerate(lcs):
                self._blocks[mat].append(self._record(x, k))
            gid = self._gadget_ids.get(gadget)
            if gid is None:
                gid = self._gadget_ids[gadget] = len(self._gadget_names)
                self._gadget_names.append(gadget)
            if not self._run_gadgets or self._run_gadgets[-1] != gid:
                self._run_starts.append(self.num_constraints)
                self._run_gadgets.append(gid)
            if self._order is not None:
                self._order.enforce(self.num_constraints, k, lanes)
        self.num_constraints += k

    def enforce_lazy(self, k: int, build, gadget: str = "unnamed") -> None:
        """Add k constraints whose linear combinations ``build()`` makes only when they are
        recorded: a witness-only system just counts the rows (linear combinations are shape,
        and building them was most of the gadgets' witness-mode time).

        Args:
            k: rows in all; must equal the total k of the blocks ``build`` yields (checked in
                shape mode).
            build: no-argument callable returning an iterable (e.g. a generator) of ``(a, b, c)``
                blocks as :meth:`enforce` takes them (or ``(a, b, c, lanes)``), enforced in order.
            gadget: as in :meth:`enforce`.

        Raises:
            ValueError: (shape mode) the blocks' rows do not add up to k.
        """
        if not self.has_shape:
            self.num_constraints += k
            return
        before = self.num_constraints
        for a, b, c, *lanes in build():
            self.enforce(a, b, c, gadget=gadget, lanes=lanes[0] if lanes else None)
        if self.num_constraints - before != k:
            raise ValueError(f"enforce_lazy({gadget!r}): built {self.num_constraints - before} rows, "
                             f"declared {k}")

    # coefficient table
    def _cid(self, value) -> int:
        v = int(value) % R
        if v == 0:
            return -1
        cid = self._coeff_ids.get(v)
        if cid is None:
            cid = self._coeff_ids[v] = len(self._coeffs)
            self._coeffs.append(v)
        return cid

    def _cids_of_array(self, arr: np.ndarray) -> np.ndarray:
        flat = arr.reshape(-1)
        u, inv = np.unique(flat, return_inverse=True)
        ucids = np.array([self._cid(x) for x in u], dtype=np.int32)
        return ucids[inv.reshape(-1)].reshape(arr.shape)

    @property
    def coefficient_table_size(self) -> int:
        """Distinct non-zero coefficients recorded so far."""
        return len(self._coeffs)

    def _record(self, x: LC, k: int) -> _Block:
        if not x.terms:
            return _Block(k, 0, np.empty(0, np.int64), row_cids=np.empty(0, np.int32))
        refs_parts, cid_parts, uniform = [], [], True
        for refs, kind, co in x.terms:
            self._check_refs(refs)
            m = refs.shape[1]
            refs_parts.append(refs)
            if kind == "scalar":
                cid_parts.append(np.full(m, self._cid(co), dtype=np.int32))
            elif kind == "row":
                cid_parts.append(np.array([self._cid(v) for v in co], dtype=np.int32))
            else:
                uniform = False
                cid_parts.append(self._cids_of_array(co))
        refs = refs_parts[0] if len(refs_parts) == 1 else np.concatenate(refs_parts, axis=1)
        if uniform:
            row_cids = cid_parts[0] if len(cid_parts) == 1 else np.concatenate(cid_parts)
            keep = row_cids >= 0
            if not keep.all():
                refs, row_cids = refs[:, keep], row_cids[keep]
            m = refs.shape[1]
            if m == 0:
                return _Block(k, 0, np.empty(0, np.int64), row_cids=np.empty(0, np.int32))
            if m == 1 or (np.diff(_sort_key(refs), axis=1) > 0).all():
                return _Block(k, m, np.ascontiguousarray(refs).reshape(-1), row_cids=row_cids)
            cids = np.broadcast_to(row_cids, refs.shape)
        else:
            cids = np.concatenate(
                [np.broadcast_to(p, (k, r.shape[1])) for p, r in zip(cid_parts, refs_parts)], axis=1
            )
        return self._canonical_block(refs, cids, k)

    def _canonical_block(self, refs: np.ndarray, cids: np.ndarray, k: int) -> _Block:
        """General path: drop zeros, sort each row by final column, merge duplicate columns."""
        m = refs.shape[1]
        valid = cids >= 0
        key = np.where(valid, _sort_key(refs), _KEY_MAX)
        if m > 1 and not (np.diff(key, axis=1) >= 0).all():
            order = np.argsort(key, axis=1, kind="stable")
            key = np.take_along_axis(key, order, axis=1)
            refs = np.take_along_axis(refs, order, axis=1)
            cids = np.take_along_axis(cids, order, axis=1)
            valid = cids >= 0
        vf = valid.reshape(-1)
        pos = np.flatnonzero(vf)
        row_f = pos // m
        key_f = key.reshape(-1)[pos]
        refs_f = refs.reshape(-1)[pos]
        cids_f = np.ascontiguousarray(cids).reshape(-1)[pos].astype(np.int32)
        n = pos.shape[0]
        if n > 1:
            same = (row_f[1:] == row_f[:-1]) & (key_f[1:] == key_f[:-1])
            if same.any():
                start = np.ones(n, dtype=bool)
                start[1:] = ~same
                gidx = np.flatnonzero(start)
                sizes = np.diff(np.append(gidx, n))
                table = np.array(self._coeffs, dtype=object)
                sums = np.add.reduceat(table[cids_f], gidx)
                new = cids_f[gidx].copy()
                multi = np.flatnonzero(sizes > 1)
                new[multi] = [self._cid(v) for v in sums[multi]]
                keep = new >= 0
                refs_f, row_f, cids_f = refs_f[gidx][keep], row_f[gidx][keep], new[keep]
        counts = np.bincount(row_f, minlength=k).astype(np.int32)
        return _Block(k, counts, refs_f, cids=cids_f)

    # --- finalize ----------------------------------------------------------------------------

    def _build_matrix(self, mat: int, one_cid: int, consume: bool):
        """CSR arrays (indptr, indices, coefficient ids before compaction) of matrix mat."""
        ni, nc = self.num_inputs, self.num_constraints
        blocks = self._blocks[mat]
        n_in = ni if mat == 0 else 0
        nnz = sum(b.refs.shape[0] for b in blocks) + n_in
        indices = np.empty(nnz, dtype=np.int64)
        cids = np.empty(nnz, dtype=np.int32)
        indptr = np.zeros(nc + ni + 1, dtype=np.int64)
        row = pos = 0
        for i, b in enumerate(blocks):
            n = b.refs.shape[0]
            indptr[row + 1 : row + b.k + 1] = b.counts
            if n:
                seg = indices[pos : pos + n]
                np.add(b.refs, ni, out=seg)
                neg = b.refs < 0
                if neg.any():
                    seg[neg] = -b.refs[neg] - 1
                if b.cids is not None:
                    cids[pos : pos + n] = b.cids
                else:
                    cids[pos : pos + n].reshape(b.k, -1)[:] = b.row_cids
            row += b.k
            pos += n
            if consume:
                blocks[i] = None
        if consume:
            blocks.clear()
        if n_in:
            indptr[row + 1 : row + ni + 1] = 1
            indices[pos:] = np.arange(ni, dtype=np.int64)
            cids[pos:] = one_cid
        np.cumsum(indptr, out=indptr)
        return indptr, indices, cids

    def finalize(self, consume: bool = False) -> "R1CS":
        """Build the R1CS: circuit rows, then one row ``input_i * 0 = 0`` per input (ONE first).

        Args:
            consume: free the recorded blocks while building (lower peak memory); the system
                cannot be finalized again or extended afterwards.

        Returns:
            :class:`R1CS` with CSR matrices over columns inputs-then-aux, a compacted coefficient
            table shared by A, B and C; with ``upstream_order``, aux columns and circuit rows in
            upstream's order.

        Raises:
            RuntimeError: the system was built without shape (witness-only), or was consumed.
            cuzk.r1cs.order.OrderError: (``upstream_order``) a loop is open or the recorded order
                is not a permutation.
        """
        if not self.has_shape:
            raise RuntimeError("finalize(): this ConstraintSystem records no shape (shape=False)")
        if self._consumed:
            raise RuntimeError("finalize(): the recorded blocks were consumed by finalize(consume=True)")
        ni, na = self.num_inputs, self.num_aux
        nc = self.num_constraints
        nrows, ncols = nc + ni, ni + na
        one_cid = self._cid(1)
        perm = None
        if self._order is not None:  # checked before the matrices are built
            aux_order, row_order = self._order.result(na, nc)
            perm = (np.concatenate([row_order.astype(np.int64), np.arange(nc, nrows, dtype=np.int64)]),
                    np.concatenate([np.arange(ni, dtype=np.int64), ni + inverse(aux_order).astype(np.int64)]))
        # each matrix permuted as soon as it is built: one unpermuted copy at a time
        parts = [self._build_matrix(mat, one_cid, consume) if perm is None
                 else permute_csr(*self._build_matrix(mat, one_cid, consume), *perm) for mat in range(3)]
        if consume:
            self._consumed = True
        # compact the coefficient table to the ids in use
        used = np.zeros(len(self._coeffs), dtype=bool)
        for _, _, cids in parts:
            used[cids] = True
        if not used.all():
            remap = (np.cumsum(used) - 1).astype(np.int32)
            for _, _, cids in parts:
                cids[:] = remap[cids]
        coeffs = np.fromiter((_MPZ(v) for v, u in zip(self._coeffs, used) if u), dtype=object,
                             count=int(used.sum()))
        mats = [
            CSRMatrix(indptr=ip, indices=cols, coeff_ids=cids, coeffs=coeffs, shape=(nrows, ncols))
            for ip, cols, cids in parts
        ]
        density = []
        for mtx in mats[:2]:
            d = np.zeros(ncols, dtype=bool)
            d[mtx.indices] = True
            density.append(d)
        names = list(self._gadget_names)
        starts = np.array(self._run_starts, dtype=np.int64)
        gids = np.array(self._run_gadgets, dtype=np.int32)
        if perm is not None and nc:  # runs of the rows in their new order
            per_row = np.repeat(gids, np.diff(np.append(starts, nc)))[perm[0][:nc]]
            new_run = np.flatnonzero(np.append(True, per_row[1:] != per_row[:-1]))
            starts, gids = new_run.astype(np.int64), per_row[new_run]
        names.append(INPUT_GADGET)
        starts = np.append(starts, nc)
        gids = np.append(gids, len(names) - 1).astype(np.int32)
        return R1CS(
            num_inputs=ni,
            num_aux=na,
            num_constraints=nrows,
            A=mats[0],
            B=mats[1],
            C=mats[2],
            density_a=density[0],
            density_b=density[1],
            gadget_starts=starts,
            gadget_ids=gids,
            gadget_names=tuple(names),
        )


# --------------------------------------------------------------------------------------------
# the finalized system
# --------------------------------------------------------------------------------------------


def _spmv_ref(m: CSRMatrix, w: np.ndarray) -> np.ndarray:
    rows = m.shape[0]
    out = np.full(rows, _MPZ(0), dtype=object)
    if m.nnz == 0:
        return out
    prod = m.coeffs[m.coeff_ids] * w[m.indices]
    nonempty = np.diff(m.indptr) > 0
    sums = np.add.reduceat(prod, m.indptr[:-1][nonempty])
    out[nonempty] = np.mod(sums, R)
    return out


@dataclass
class R1CS:
    """A finalized constraint system (the PCE's content).

    Attributes:
        num_inputs: public inputs including ONE.
        num_aux: auxiliary variables.
        num_constraints: rows, including the num_inputs appended rows ``input_i * 0 = 0``.
        A, B, C: :class:`~cuzk.backend.base.CSRMatrix`, shape (num_constraints, num_inputs +
            num_aux), rows sorted, columns unique and increasing per row, no zero coefficients;
            all three share one ``coeffs`` table.
        density_a, density_b: ``(num_inputs + num_aux,)`` bool, column appears in A (resp. B).
        gadget_starts: ``(g,)`` int64 first row of each run of rows enforced by one gadget.
        gadget_ids: ``(g,)`` int32 index into gadget_names for each run.
        gadget_names: gadget names; the appended input rows are named ``"input"``.
    """

    num_inputs: int
    num_aux: int
    num_constraints: int
    A: CSRMatrix
    B: CSRMatrix
    C: CSRMatrix
    density_a: np.ndarray
    density_b: np.ndarray
    gadget_starts: np.ndarray
    gadget_ids: np.ndarray
    gadget_names: tuple

    @property
    def num_vars(self) -> int:
        """Columns: num_inputs + num_aux."""
        return self.num_inputs + self.num_aux

    def gadget_of(self, row: int) -> str:
        """Name of the gadget that enforced constraint ``row``.

        Raises:
            IndexError: row outside [0, num_constraints).
        """
        if not 0 <= row < self.num_constraints:
            raise IndexError(f"row {row} outside [0, {self.num_constraints})")
        run = int(np.searchsorted(self.gadget_starts, row, side="right")) - 1
        return self.gadget_names[int(self.gadget_ids[run])]

    def _as_w(self, w) -> np.ndarray:
        w = np.asarray(w)
        if w.dtype != object:
            w = u64_to_int_array(w.astype(np.uint64).reshape(-1))
        if w.shape != (self.num_vars,):
            raise ValueError(f"assignment has shape {w.shape}, expected ({self.num_vars},)")
        return w

    def evaluate(self, w) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Reference A·w, B·w, C·w over Fr (vectorized object-array arithmetic).

        Args:
            w: ``(num_inputs + num_aux,)`` int array (or non-negative numpy int array), inputs
                then aux.

        Returns:
            (a, b, c): int arrays ``(num_constraints,)``, canonical.

        Raises:
            ValueError: w has the wrong length.
        """
        w = self._as_w(w)
        return _spmv_ref(self.A, w), _spmv_ref(self.B, w), _spmv_ref(self.C, w)

    def check(self, w) -> None:
        """Check a full assignment.

        Args:
            w: ``(num_inputs + num_aux,)`` int array, inputs (w[0] == 1) then aux.

        Raises:
            ValueError: wrong length, or w[0] != 1.
            Unsatisfied: the first failing row, with its gadget name.
        """
        w = self._as_w(w)
        if self.num_vars and w[0] % R != 1:
            raise ValueError(f"w[0] (the constant ONE) is {w[0]}, not 1")
        a, b, c = self.evaluate(w)
        bad = np.flatnonzero(np.mod(a * b - c, R) != 0)
        if bad.shape[0]:
            row = int(bad[0])
            raise Unsatisfied(row, self.gadget_of(row), f"a={a[row]}, b={b[row]}, c={c[row]}")

    def stats(self) -> dict[str, int]:
        """Counts: inputs, aux, constraints, nnz_a, nnz_b, nnz_c, coeffs (table size)."""
        return {
            "inputs": self.num_inputs,
            "aux": self.num_aux,
            "constraints": self.num_constraints,
            "nnz_a": self.A.nnz,
            "nnz_b": self.B.nnz,
            "nnz_c": self.C.nnz,
            "coeffs": int(self.A.coeffs.shape[0]),
        }
