"""The GPU SHA-256 witness kernel's core (``src/cuzk/backend/cuda/sha_witness.cuh``), built for the
host with g++ and run lane by lane as the kernel's threads run it, against the CPU path
(``cuzk.r1cs.sha256._WordWitness`` through ``cuzk.backend.cuda.witness``): every new aux bit
(ValueStore slot) and every new state word, byte for byte, for real PoRep partitions (synthetic
2 KiB and 512 MiB sectors, block order) and for compressions with negated and constant columns;
and whole partitions synthesized with the core computing the compressions' bits
(``cuzk.r1cs.sha_calls.delegate_compressions``) against the CPU path's witness."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from cuzk.backend.cuda.witness import host_compute, host_core, job_table, sha_aux
from cuzk.bench.witness import mismatches, same_witness, synthesize_recorded
from cuzk.r1cs.sha_calls import delegate_compressions
from sha_util import mixed_calls


@pytest.fixture(scope="module")
def run_core(tmp_path_factory):
    """The kernel's core on the host (``witness.host_core``): run_core(table, num_aux)."""
    if shutil.which("g++") is None and shutil.which("c++") is None:
        pytest.skip("no C++ compiler")
    return host_core(tmp_path_factory.mktemp("shaw"))


@pytest.mark.parametrize("shape", ["porep-2KiB", "porep-512MiB"])
def test_core_matches_cpu_porep_partition(run_core, porep_input, shape):
    """Every compression of partition 0: the core's bits and state words are the CPU path's; the
    calls' bits are nearly all of the partition's aux, and tile their ranges exactly."""
    cs, calls = synthesize_recorded(*porep_input(shape), shape, 0)
    table = job_table(calls)
    slots, outw = run_core(table, cs.num_aux)
    assert mismatches(calls, cs.aux_slots(), slots, outw) == []
    covered = np.zeros(cs.num_aux, dtype=np.int8)
    for c in calls:
        covered[c.base:c.base + c.size] += 1
    assert covered.max() == 1 and covered.sum() > 0.95 * cs.num_aux
    # bits outside the calls were never written (the core stays in its calls' ranges)
    assert not slots[covered == 0].any()


def test_core_matches_cpu_mixed_literals(run_core):
    """Compressions whose state and message mix variables, negations and constants (bellman's
    ch/maj cases, constant-column xors, all-constant additions): the core equals the CPU path."""
    cs, calls = mixed_calls(5, 3)
    assert len(calls) == 5 and any(w.n for c in calls for w in c.H + c.W)
    slots, outw = run_core(job_table(calls), cs.num_aux)
    assert mismatches(calls, cs.aux_slots(), slots, outw) == []


def test_tampered_inputs_are_caught(run_core, porep_input):
    """A flipped input bit or a wrong mask gives bits that the comparison refuses."""
    cs, calls = synthesize_recorded(*porep_input("porep-2KiB"), "porep-2KiB", 0)
    table = job_table(calls)
    table.vals[1, 9] ^= 1 << 7                   # one message bit of lane 1
    assert mismatches(calls, cs.aux_slots(), *run_core(table, cs.num_aux))
    table = job_table(calls)
    table.jobs[0]["wc"][3] ^= 1                  # a variable column taken for a constant
    assert mismatches(calls, cs.aux_slots(), *run_core(table, cs.num_aux))


def test_job_table_refuses_bad_calls(porep_input):
    cs, calls = synthesize_recorded(*porep_input("porep-2KiB"), "porep-2KiB", 0)
    c = calls[0]
    with pytest.raises(ValueError, match="state"):
        job_table([c._replace(H=c.H[:7])])
    big = c.W[0].__class__(c.W[0].v | np.uint64(1 << 32), c.W[0].c, c.W[0].n)
    with pytest.raises(ValueError, match="2\\^32"):
        job_table([c._replace(W=[big] + c.W[1:])])


@pytest.mark.parametrize("shape", ["porep-2KiB", "porep-512MiB"])
def test_delegated_synthesis_is_the_cpu_path(run_core, porep_input, shape):
    """With the compressions' bits from the core (``sha_calls.delegate_compressions``), the
    partition's witness and constraint count are the CPU path's, and most calls were delegated."""
    ref, calls = synthesize_recorded(*porep_input(shape), shape, 0)
    used = []
    compute = host_compute(run_core)
    cs, got = synthesize_recorded(*porep_input(shape), shape, 0, compute=lambda c: used.append(c) or compute(c))
    assert same_witness(ref, cs) and ref.num_constraints == cs.num_constraints
    assert len(got) == len(calls) and len(used) >= len(calls) - 8
    assert [(c.base, c.size) for c in got] == [(c.base, c.size) for c in calls]


def test_delegate_output_is_checked(run_core, porep_input):
    """A delegate whose bits are not 0/1 or whose shapes are wrong is refused; a second
    delegation inside one is refused."""
    compute = host_compute(run_core)
    bad = [lambda c: (compute(c)[0] * 2, compute(c)[1]), lambda c: (compute(c)[0][1:], compute(c)[1]),
           lambda c: (compute(c)[0], compute(c)[1][:, :7])]
    for b in bad:
        with pytest.raises(ValueError, match="delegate"):
            synthesize_recorded(*porep_input("porep-2KiB"), "porep-2KiB", 0, compute=b)
    with delegate_compressions(compute), pytest.raises(RuntimeError, match="already"):
        with delegate_compressions(compute):
            pass


def test_sha_aux_refuses_bad_block(porep_input):
    cs, calls = synthesize_recorded(*porep_input("porep-2KiB"), "porep-2KiB", 0)
    with pytest.raises(ValueError, match="block"):
        sha_aux(job_table(calls), block=129)
