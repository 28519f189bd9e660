"""Basic gadgets over blocks of k instances: booleans, bit decomposition, packing, uint32 add.

Every gadget works in both modes of a :class:`~cuzk.r1cs.system.ConstraintSystem`: with
``cs.has_shape`` it records its constraints (a constant number of ``enforce`` calls, whatever k),
with ``cs.has_values`` it computes its new variables' values in one vectorized computation.
Bit and uint32 witness arithmetic runs on ``cs.xp`` (numpy, or CuPy later); values come from
``cs.value`` (host numpy) and go back through ``alloc_aux`` (which accepts CuPy arrays).

Bits are little-endian along the last axis: bit i has weight 2^i.
"""

from __future__ import annotations

import numpy as np

from .system import LC, ConstraintSystem, R, lc

POW2 = tuple(pow(2, i, R) for i in range(256))
"""2^i mod r for i < 256 (the packing coefficients)."""


def _refs(x) -> np.ndarray:
    return np.asarray(x, dtype=np.int64)


def _bits_to_ints(xp, vals, nbits: int):
    """(k, n) bit values (uint64 array on xp or int array) → (k,) uint64 (n ≤ 64) or int array."""
    if nbits <= 64 and vals.dtype == np.uint64:
        shifts = xp.arange(nbits, dtype=np.uint64)
        return (vals << shifts).sum(axis=1, dtype=np.uint64)
    vals = np.asarray(vals.get() if hasattr(vals, "get") and not isinstance(vals, np.ndarray) else vals)
    obj = vals.astype(object)
    out = np.zeros(obj.shape[0], dtype=object)
    for i in range(nbits):  # a loop over bit positions, vectorized over k
        out = out + obj[:, i] * (1 << i)
    return out


def _ints_to_bits(xp, vals, nbits: int):
    """(k,) values (uint64 or int array) → (k, nbits) uint64 bits (xp array), little-endian;
    bits above nbits are dropped."""
    if vals.dtype == np.uint64 or nbits <= 0:
        v = xp.asarray(vals, dtype=np.uint64)
        nb = min(nbits, 64)
        shifts = xp.arange(nb, dtype=np.uint64)
        bits = (v[:, None] >> shifts) & np.uint64(1)
        if nbits > 64:
            bits = xp.concatenate([bits, xp.zeros((v.shape[0], nbits - 64), dtype=np.uint64)], axis=1)
        return bits
    # big values: split into 64-bit limbs with object arithmetic (one loop step per limb)
    limbs = []
    rest = vals
    mask = (1 << 64) - 1
    for _ in range((nbits + 63) // 64):
        limbs.append(xp.asarray(np.asarray(rest & mask).astype(np.uint64)))
        rest = rest >> 64
    shifts = xp.arange(64, dtype=np.uint64)
    bits = [(limb[:, None] >> shifts) & np.uint64(1) for limb in limbs]
    return xp.concatenate(bits, axis=1)[:, :nbits]


def boolean(cs: ConstraintSystem, refs, gadget: str = "boolean") -> None:
    """Enforce (1 − v) · v = 0 for every ref (any shape): n = refs.size constraints, in
    bellperson's form (``AllocatedBit::alloc``: A = ONE − v, B = v, C = 0).

    Args:
        refs: int array of refs, any shape.
        gadget: constraint name for error reports.
    """
    v = _refs(refs).reshape(-1)
    k = v.shape[0]
    if k == 0:
        return
    def rows():
        # ONE first so each row is already in column order
        yield lc(np.stack([cs.one(k), v], axis=1), (1, -1)), lc(v), None

    cs.enforce_lazy(k, rows, gadget=gadget)


def alloc_bits(cs: ConstraintSystem, shape, values=None, gadget: str = "alloc_bits") -> np.ndarray:
    """Allocate aux bits with booleanity constraints.

    Args:
        shape: int or tuple, shape of the returned refs.
        values: bit values broadcastable to shape (required in witness mode).

    Returns:
        int64 refs of the given shape.

    Raises:
        ValueError: values missing in witness mode.
    """
    bits = cs.alloc_aux(shape, values)
    boolean(cs, bits, gadget=f"{gadget}/boolean")
    return bits


def num_to_bits(cs: ConstraintSystem, x_refs, nbits: int, gadget: str = "num_to_bits",
                packing_row: bool = False) -> np.ndarray:
    """Decompose k values into nbits little-endian bits each.

    Constraints: booleanity of the k·nbits bits, and k packings 0 · 0 = Σ 2^i·b_i − x
    (bellperson's ``AllocatedNum::to_bits_le`` "unpacking constraint": everything in C), or with
    ``packing_row`` Σ 2^i·b_i · 1 = x (rust-fil-proofs' ``allocated_num_to_allocated_bits``,
    ``storage-proofs-update/src/gadgets.rs``: the same count, other non-zeros).

    Args:
        x_refs: ``(k,)`` int64 refs.
        nbits: number of bits (1..255 for a unique decomposition).

    Returns:
        ``(k, nbits)`` int64 refs of the new aux bits.

    Raises:
        ValueError: x_refs not 1-D, nbits < 1.
    """
    x = _refs(x_refs)
    if x.ndim != 1:
        raise ValueError(f"num_to_bits: x_refs must have shape (k,), got {x.shape}")
    if nbits < 1:
        raise ValueError("num_to_bits: nbits must be ≥ 1")
    k = x.shape[0]
    values = None
    if cs.has_values:
        values = _ints_to_bits(cs.xp, cs.value(x), nbits)
    bits = cs.alloc_aux((k, nbits), values)
    boolean(cs, bits, gadget=f"{gadget}/boolean")
    if packing_row:
        cs.enforce_lazy(k, lambda: [(lc(bits, _pow2(nbits)), cs.one(k), lc(x))], gadget=gadget)
    else:
        cs.enforce_lazy(k, lambda: [(None, None, lc(x, -1) + lc(bits, _pow2(nbits)))], gadget=gadget)
    return bits


def _pow2(n: int) -> tuple:
    return POW2[:n] if n <= len(POW2) else tuple(pow(2, i, R) for i in range(n))


def pack_bits(cs: ConstraintSystem, bits, gadget: str = "pack_bits") -> np.ndarray:
    """A new aux variable per instance equal to Σ 2^i·bits[:, i] (no booleanity is added).

    Args:
        bits: ``(k, n)`` int64 refs.

    Returns:
        ``(k,)`` int64 refs.

    Raises:
        ValueError: bits not 2-D.
    """
    b = _refs(bits)
    if b.ndim != 2:
        raise ValueError(f"pack_bits: bits must have shape (k, n), got {b.shape}")
    k, n = b.shape
    values = None
    if cs.has_values:
        xp = cs.xp
        bv = cs.value(b)
        values = _bits_to_ints(xp, xp.asarray(bv) if bv.dtype == np.uint64 else bv, n)
    x = cs.alloc_aux(k, values)
    cs.enforce_lazy(k, lambda: [(lc(b, _pow2(n)), cs.one(k), lc(x))], gadget=gadget)
    return x


def uint32_add(cs: ConstraintSystem, *operands, constant=None, gadget: str = "uint32_add") -> np.ndarray:
    """Sum of uint32 words modulo 2^32, k instances at once.

    Allocates 32 + ceil(log2(#terms)) result bits (sum bits then carries) with booleanity and
    enforces, per instance, Σ_operands Σ_i 2^i·op_i (+ constant·ONE) · 1 = Σ_j 2^j·out_j.

    Args:
        operands: each ``(k, 32)`` int64 refs of little-endian bits (assumed boolean).
        constant: optional uint32 added to every instance: an int or a ``(k,)`` integer array
            (counts as one more term for the carry width).

    Returns:
        ``(k, 32)`` int64 refs of the sum bits (mod 2^32).

    Raises:
        ValueError: no operands, or an operand not of shape (k, 32) with a common k.
    """
    ops = [_refs(o) for o in operands]
    if not ops:
        raise ValueError("uint32_add: needs at least one operand")
    k = ops[0].shape[0]
    for o in ops:
        if o.shape != (k, 32):
            raise ValueError(f"uint32_add: operands must all have shape ({k}, 32), got {o.shape}")
    nterms = len(ops) + (constant is not None)
    extra = (nterms - 1).bit_length()  # ceil(log2(nterms))
    nout = 32 + extra
    values = None
    xp = cs.xp
    if cs.has_values:
        total = xp.zeros(k, dtype=np.uint64)
        for o in ops:
            total = total + _bits_to_ints(xp, xp.asarray(cs.value(o, dtype=np.uint64)), 32)
        if constant is not None:
            total = total + xp.asarray(np.asarray(constant, dtype=np.uint64))
        values = _ints_to_bits(xp, total, nout)
    out = cs.alloc_aux((k, nout), values)
    boolean(cs, out, gadget=f"{gadget}/boolean")
    left = LC.zero()
    if constant is not None:  # ONE first: rows stay in column order
        const = np.asarray(constant)
        if const.ndim == 0:
            left = lc(cs.one(k), int(const))
        else:
            left = lc(cs.one(k), const.astype(np.int64).reshape(k))
    for o in ops:
        left = left + lc(o, POW2[:32])
    cs.enforce(left, cs.one(k), lc(out, POW2[:nout]), gadget=gadget)
    return out[:, :32]


def enforce_equal(cs: ConstraintSystem, x, y, gadget: str = "enforce_equal") -> None:
    """Enforce x · 1 = y elementwise.

    Args:
        x, y: int64 refs of the same shape (any).

    Raises:
        ValueError: shapes differ.
    """
    xr, yr = _refs(x), _refs(y)
    if xr.shape != yr.shape:
        raise ValueError(f"enforce_equal: shapes differ: {xr.shape} vs {yr.shape}")
    xf, yf = xr.reshape(-1), yr.reshape(-1)
    if xf.shape[0] == 0:
        return
    cs.enforce(lc(xf), cs.one(xf.shape[0]), lc(yf), gadget=gadget)


def pick(cs: ConstraintSystem, cond, a, b, gadget: str = "pick") -> np.ndarray:
    """``c = cond ? a : b`` elementwise (rust-fil-proofs ``pick``,
    ``storage-proofs-core/src/gadgets/insertion.rs``): one constraint ``(b − a)·cond = b − c``.

    Args:
        cond: ``(k,)`` refs of boolean variables (not constrained here); a, b: ``(k,)`` refs.

    Returns:
        ``(k,)`` int64 refs of the new aux variables.
    """
    cr, ar, br = _refs(cond), _refs(a), _refs(b)
    val = None
    if cs.has_values:
        val = np.where(cs.value(cr, dtype=object) == 1, cs.value(ar, dtype=object), cs.value(br, dtype=object))
    c = cs.alloc_aux(cr.shape[0], val)
    if cr.shape[0]:
        cs.enforce(lc(br) - lc(ar), lc(cr), lc(br) - lc(c), gadget=gadget)
    return c


def select(cs: ConstraintSystem, table, bits, gadget: str = "select") -> np.ndarray:
    """Row i's element of ``table`` at index Σ 2^j·bits[i, j] (rust-fil-proofs ``select``,
    ``insertion.rs``): halves the candidates once per bit, most significant bit first, with
    :func:`pick` -- 2^n − 1 constraints per row.

    Args:
        table: ``(k, 2^n)`` refs; bits: ``(k, n)`` refs of boolean variables, little-endian.

    Returns:
        ``(k,)`` int64 refs.

    Raises:
        ValueError: the table's width is not 2^n.
    """
    state, b = _refs(table), _refs(bits)
    if state.ndim != 2 or b.ndim != 2 or state.shape[1] != 1 << b.shape[1]:
        raise ValueError(f"select: table (k, 2^n) and bits (k, n) expected, got {state.shape}, {b.shape}")
    for j in range(b.shape[1] - 1, -1, -1):
        half = state.shape[1] // 2
        state = np.stack([pick(cs, b[:, j], state[:, half + i], state[:, i], gadget=gadget)
                          for i in range(half)], axis=1)
    return state[:, 0]
