"""Checks of the GPU witness (issue 17) against the CPU path, for tests and benchmarks
(``benchmarks/witness_gpu``): a partition's CPU witness with its SHA-256 compression calls
recorded, or their bits computed by a delegate (:func:`synthesize_recorded`); whole witnesses
compared (:func:`same_witness`); the device's bits and words compared call by call
(:func:`mismatches`). The device side is ``cuzk.backend.cuda.witness``."""

from __future__ import annotations

import contextlib
from typing import Sequence

import numpy as np

from .. import pipeline
from ..circuits.registry import shape_by_name
from ..r1cs.sha_calls import delegate_compressions, record_compressions
from ..r1cs.system import ConstraintSystem


def synthesize_recorded(c1_path, checked, shape_name: str, partition: int = 0, compute=None):
    """The CPU path's witness of one partition (witness-only, block order, as the ``synthesize``
    step of a block-order PCE) with its compression calls recorded: ``(cs, calls)``, the
    ``ConstraintSystem`` and the list of ``cuzk.r1cs.sha_calls.Compression``. ``checked``: the
    input's check record (``pipeline.check_input``). ``compute``: a delegate for the
    compressions' bits (``cuzk.backend.sha_host.host_compute``,
    ``cuzk.backend.cuda.witness.gpu_compute``), or None (numpy).

    Raises:
        C1Error and the other input errors of ``cuzk.pipeline``: the input is bad or changed.
    """
    shape = shape_by_name(shape_name)
    fam = pipeline.family_of(shape)
    inp = pipeline._read_input(c1_path, shape, checked)
    cs = ConstraintSystem(shape=False, witness=True, aux_capacity=shape.stats()["aux"], upstream_order=False)
    with record_compressions() as calls, \
            (delegate_compressions(compute) if compute is not None else contextlib.nullcontext()):
        fam.synthesize(cs, shape, fam.values(inp, partition))
    return cs, calls




def same_witness(a, b) -> bool:
    """Two constraint systems' witnesses are the same witness file content (``assignment_compact``:
    inputs, mask, bits, wide and the counts)."""
    x, y = a.assignment_compact(), b.assignment_compact()
    return (x.num_aux, x.num_bits) == (y.num_aux, y.num_bits) and all(
        np.array_equal(getattr(x, f), getattr(y, f)) for f in ("inputs", "mask", "bits", "wide"))


def mismatches(calls: Sequence, cpu_slots: np.ndarray, slots: np.ndarray, outw: np.ndarray) -> list[str]:
    """Differences between the CPU path and ``cuzk.backend.cuda.witness.sha_aux``'s results (host arrays): each call's
    bits ``cpu_slots[base:base + size]`` against ``slots`` there, and its new state words against
    ``outw``'s rows of its lanes. Returns one line per call that differs (empty: bit-identical)."""
    bad, first = [], 0
    for j, c in enumerate(calls):
        lo, hi = c.base, c.base + c.size
        diff = np.flatnonzero(cpu_slots[lo:hi] != slots[lo:hi])
        want = np.stack([np.asarray(o, dtype=np.uint64) & np.uint64(0xFFFFFFFF) for o in c.out], axis=1)
        words = not np.array_equal(want, outw[first:first + c.k].astype(np.uint64))
        if diff.shape[0] or words:
            at = f"first at aux {lo + int(diff[0])}" if diff.shape[0] else "bits equal"
            bad.append(f"call {j} (aux {lo}..{hi - 1}, k={c.k}): {diff.shape[0]} bits differ ({at}); "
                       f"state words {'differ' if words else 'equal'}")
        first += c.k
    return bad
