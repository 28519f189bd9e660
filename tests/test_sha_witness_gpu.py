"""The SHA-256 witness kernel (``cuzk.backend.cuda.witness.sha_aux``) on a device against the CPU
path: every compression bit (ValueStore slot) and state word of a synthetic 2 KiB PoRep
partition and of compressions with negated and constant columns, byte for byte; slots outside
the calls untouched; and a partition synthesized with the device computing the compressions'
bits. Skipped without CuPy or a device."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

cp = pytest.importorskip("cupy")

from cuzk.backend.cuda import cuda_available  # noqa: E402

if not cuda_available():
    pytest.skip("no CUDA device", allow_module_level=True)

from cuzk.backend.cuda.witness import gpu_compute, job_table, sha_aux  # noqa: E402
from cuzk.bench.witness import mismatches, same_witness, synthesize_recorded  # noqa: E402
from sha_util import mixed_calls  # noqa: E402


def _check(cs, calls):
    sentinel = 0xA5   # slots outside the calls must keep it
    slots = cp.full(cs.num_aux, sentinel, dtype=cp.uint8)
    slots, outw = sha_aux(job_table(calls), slots=slots)
    got, words = cp.asnumpy(slots), cp.asnumpy(outw)
    assert mismatches(calls, cs.aux_slots(), got, words) == []
    inside = np.zeros(cs.num_aux, dtype=bool)
    for c in calls:
        inside[c.base:c.base + c.size] = True
    assert (got[~inside] == sentinel).all()
    return got, words


def test_sha_aux_matches_cpu_porep_2kib(porep_input):
    cs, calls = synthesize_recorded(*porep_input("porep-2KiB"), "porep-2KiB", 0)
    assert sum(c.size for c in calls) > 0.95 * cs.num_aux
    _check(cs, calls)
    # a flipped input bit changes the device's bits: the comparison can fail
    table = job_table(calls)
    table.vals[0, 8] ^= 1
    slots, outw = sha_aux(table, cs.num_aux)
    assert mismatches(calls, cs.aux_slots(), cp.asnumpy(slots), cp.asnumpy(outw))


def test_sha_aux_matches_cpu_mixed_literals():
    _check(*mixed_calls(6, 5))


def test_gpu_delegated_synthesis_is_the_cpu_path(porep_input):
    """A 2 KiB partition synthesized with the compressions' bits from the device
    (``gpu_compute``): the CPU path's witness and constraint count."""
    ref, calls = synthesize_recorded(*porep_input("porep-2KiB"), "porep-2KiB", 0)
    cs, got = synthesize_recorded(*porep_input("porep-2KiB"), "porep-2KiB", 0, compute=gpu_compute())
    assert same_witness(ref, cs) and ref.num_constraints == cs.num_constraints and len(got) == len(calls)
