"""The witness-only SHA-256 compression calls (``cuzk.r1cs.sha256._WordWitness``, one per
compression of k instances) seen from outside: :func:`record_compressions` lists them (the GPU
witness's inputs, ``cuzk.backend.cuda.witness``); :func:`delegate_compressions` has another
implementation compute their bits (the GPU kernel, or its host build) while the constraint
system allocates, counts and wires them exactly as the word-level gadget does.

Delegation works in block order only (upstream order permutes the bit loops: those calls run
the gadget). The first call of each kind (k and the input words' constant/negated column
masks, which fix every allocation) runs the gadget, which gives the kind's template: its bit
count, constraint count and output words' positions relative to the call's first bit; later
calls of that kind take the template and the delegate's bits and words.
"""

from __future__ import annotations

import contextlib
from typing import Callable, NamedTuple

import numpy as np


class Compression(NamedTuple):
    """One compression call: its new aux bits are ``base … base + size − 1`` (in block order as
    ``cuzk.backend.cuda.witness`` lays them out; upstream order permutes them), for ``k`` instances; ``H`` (8) and ``W`` (16) are its input words as ``sha256._WVal`` (``v``:
    ``(k,)`` uint64 literal values, ``c``/``n``: 32-bit masks of constant/negated columns);
    ``out``: the 8 new state words' ``(k,)`` uint64 values (empty in a call given to a delegate)."""

    base: int
    size: int
    k: int
    H: list
    W: list
    out: list


_COLS = np.arange(32, dtype=np.uint32)
_RECORDERS: list = []
_DELEGATE: list = []          # at most one compute function
_TEMPLATES: dict = {}         # kind → (bits, constraints, output refs − base), or None: not delegable
_MAX_TEMPLATES = 128


@contextlib.contextmanager
def record_compressions():
    """Within the block, every witness-only compression is appended, as a :class:`Compression`,
    to the list this yields."""
    got: list = []
    _RECORDERS.append(got)
    try:
        yield got
    finally:
        _RECORDERS.remove(got)


def recorded(call: Compression) -> None:
    """Hand a finished call to the recorders (``_WordWitness`` calls this)."""
    for rec in _RECORDERS:
        rec.append(call)


@contextlib.contextmanager
def delegate_compressions(compute: Callable):
    """Within the block, witness-only compressions in block order take their bits from
    ``compute(call)``: ``call`` a :class:`Compression` (``out`` empty) → ``(bits, out)``, bits
    ``(call.size,)`` uint8 0/1 (the call's new aux values in block order), out ``(k, 8)`` uint32
    (the new state words of each instance). ``bits`` None: the call's bits are computed later
    (``synthesis_sha: prover``); its output words' bits, which later gadgets read from the value
    store (a digest packed into Fr), are set from ``out`` and the others left 0.

    Raises:
        RuntimeError: a delegation is already active.
        ValueError (from the calls): compute returned arrays of other shapes or values.
    """
    if _DELEGATE:
        raise RuntimeError("delegate_compressions: a delegation is already active")
    _DELEGATE.append(compute)
    try:
        yield
    finally:
        _DELEGATE.clear()


def compress(wit, hw: list, ww: list, word: Callable) -> list:
    """A ``_WordWitness``'s compression of the input words ``hw``, ``ww``: its own (``_compress``),
    or, under :func:`delegate_compressions` in block order, the delegate's for a known kind, its
    8 output words made by ``word(first aux index, (k,) uint32 values, (32,) int8 kinds)``
    (``sha256._Word``: passed in, since sha256 imports this module)."""
    cs = wit.sha.cs
    if not _DELEGATE or cs.upstream_order:
        return wit._compress(hw, ww)
    key = (wit.k, tuple((w.c, w.n) for w in hw + ww))
    if key not in _TEMPLATES:
        base = cs.num_aux
        words = wit._compress(hw, ww)
        if len(_TEMPLATES) >= _MAX_TEMPLATES:
            _TEMPLATES.clear()
        # a constant output word (all-constant inputs) is no variable: such a kind is not delegated
        _TEMPLATES[key] = None if any(w.is_const() for w in words) else (
            cs.num_aux - base, wit.size + wit.k * wit.flushes, [w.l - base for w in words])
        return words
    if _TEMPLATES[key] is None:
        return wit._compress(hw, ww)
    size, constraints, refs = _TEMPLATES[key]
    base = cs.num_aux
    bits, out = _DELEGATE[0](Compression(base, size, wit.k, hw, ww, []))
    out = np.asarray(out)
    if bits is None and out.shape == (wit.k, 8):   # computed later: only the output words' bits now
        bits = np.zeros(size, dtype=np.uint8)
        for j, r in enumerate(refs):
            bits[r] = (out[:, j, None].astype(np.uint32) >> _COLS) & 1
    bits = np.asarray(bits)
    if bits.shape != (size,) or out.shape != (wit.k, 8) or (bits.size and bits.max() > 1):
        raise ValueError(f"delegate_compressions: {wit.sha.g}: the delegate gave bits {bits.shape} and words "
                         f"{out.shape}, not ({size},) 0/1 and ({wit.k}, 8)")
    cs.alloc_aux_block(size, bits.astype(np.uint8, copy=False))
    cs.enforce_lazy(constraints, lambda: (), gadget=f"{wit.sha.g}/add")
    recorded(Compression(base, size, wit.k, hw, ww, [out[:, j].astype(np.uint64) for j in range(8)]))
    return [word(base + r, out[:, j].astype(np.uint32), np.zeros(32, dtype=np.int8)) for j, r in enumerate(refs)]
