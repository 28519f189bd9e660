"""The SHA-256 witness kernel (``cuzk.backend.cuda.witness.sha_aux``) on a device against the CPU
path: every compression bit (ValueStore slot) and state word of a synthetic 2 KiB PoRep
partition and of compressions with negated and constant columns, byte for byte; slots outside
the calls untouched; a partition synthesized with the device computing the compressions'
bits; and a ``synthesis_sha: prover`` file whose bits the device fills in
(``compact_to_device_async``, ``computed.sha_bits_on_device``): the same w on the device as the native file's.
Skipped without CuPy or a device."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

cp = pytest.importorskip("cupy")

from cuzk.backend.cuda import cuda_available  # noqa: E402

if not cuda_available():
    pytest.skip("no CUDA device", allow_module_level=True)

from cuzk import pipeline  # noqa: E402
from cuzk.backend import get_backend  # noqa: E402
from cuzk.backend.cuda.witness import gpu_compute, job_table, sha_aux  # noqa: E402
from cuzk.r1cs.witness import read_witness_compact  # noqa: E402
from pce_util import header_pce  # noqa: E402
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


def test_prover_file_bits_filled_on_the_device(porep_input, tmp_path):
    c1, rec = porep_input("porep-2KiB")
    pce = header_pce(tmp_path / "block.pce", "porep-2KiB")
    native = pipeline.synthesize_partition(c1, rec, pce, 0, tmp_path / "native.wit", sha="native")
    prover = pipeline.synthesize_partition(c1, rec, pce, 0, tmp_path / "prover.wit", sha="prover")
    cw = read_witness_compact(prover)
    assert cw.sha is not None and cw.sha.end > 0.95 * cw.num_aux
    with get_backend("cuda") as bk:
        want = bk.compact_to_device_async(read_witness_compact(native)).ready().get()
        got = bk.compact_to_device_async(cw).ready().get()
        assert np.array_equal(got, want)
        cw.sha = cw.sha._replace(vals=cw.sha.vals.copy())   # the file's bytes are read-only
        cw.sha.vals[0, 9] ^= 1   # a changed input word: other bits on the device
        assert not np.array_equal(bk.compact_to_device_async(cw).ready().get(), want)


def test_a_prover_file_proves_on_the_gpu(tmp_path):
    """The workflow's steps with a cuda prover and ``synthesis_sha: prover`` (what ``auto`` takes
    there): a one-layer 256 B PoRep sector's witness of version 3, its bits made on the device by
    ``prove_batch``, and the proof verifies."""
    shape = "test-only-porep-256B-1L"
    c1, pce, params, vk = tmp_path / "1.c1.json", tmp_path / "s.pce", tmp_path / "s.params", tmp_path / "s.vk"
    pipeline.prepare({"id": 1, "generate": 1}, c1, shape, "e2e", "00" * 32)
    pipeline.pce_extract(shape, pce)
    pipeline.setup_params(pce, params, vk, backend="cuda")
    pipeline.synthesize_sector(c1, pce, tmp_path / "native", sha="native")   # every call's kind known here
    pipeline.synthesize_sector(c1, pce, tmp_path / "wit", sha="prover")
    assert read_witness_compact(tmp_path / "wit" / "partition-0.wit").sha is not None
    pipeline.prove_batch(pce, params, [c1], [tmp_path / "wit"], tmp_path / "proofs", backend="cuda")
    res = pipeline.verify_sector(vk, c1, tmp_path / "proofs" / "1.proof", tmp_path / "v.json", shape_name=shape)
    assert res["verified"] and res["partitions"] == 1
