"""The GPU SHA-256 witness kernel's core (``src/cuzk/backend/cuda/sha_witness.cuh``), built for the
host with g++ and run lane by lane as the kernel's threads run it, against the CPU path
(``cuzk.r1cs.sha256._WordWitness`` through ``cuzk.backend.cuda.witness``): every new aux bit
(ValueStore slot) and every new state word, byte for byte, for real PoRep partitions (synthetic
2 KiB and 512 MiB sectors, block order) and for compressions with negated and constant columns."""

from __future__ import annotations

import ctypes
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from cuzk.backend.cuda.witness import job_table, mismatches, synthesize_recorded
from cuzk.r1cs.gadgets import alloc_bits
from cuzk.r1cs.sha256 import BIT0, BIT1, bit_not, record_compressions, sha256, sha256_compress
from cuzk.r1cs.system import ConstraintSystem

ROOT = Path(__file__).resolve().parents[1]
CUDA_SRC = ROOT / "src" / "cuzk" / "backend" / "cuda"


@pytest.fixture(scope="module")
def core(tmp_path_factory):
    """sha_witness_host(jobs, job_of, vals, slots, outw, lanes) from the kernel's header."""
    cxx = shutil.which("g++") or shutil.which("c++")
    if cxx is None:
        pytest.skip("no C++ compiler")
    lib = tmp_path_factory.mktemp("shaw") / "sha_witness_host.so"
    subprocess.run([cxx, "-O2", "-std=c++17", "-shared", "-fPIC", f"-I{CUDA_SRC}",
                    str(ROOT / "tests/fixtures/sha_witness_host.cpp"), "-o", str(lib)],
                   check=True, capture_output=True, text=True)
    fn = ctypes.CDLL(str(lib)).sha_witness_host
    fn.restype = None
    fn.argtypes = [ctypes.c_void_p] * 5 + [ctypes.c_uint64]
    return fn


def run_core(core, table, n: int):
    """The host core over every lane of ``table``: (slots (n,) uint8 zeros elsewhere, outw)."""
    lanes = table.job_of.shape[0]
    slots = np.zeros(n, dtype=np.uint8)
    outw = np.zeros((lanes, 8), dtype=np.uint32)
    jobs, job_of, vals = (np.ascontiguousarray(a) for a in (table.jobs, table.job_of, table.vals))
    core(jobs.ctypes.data, job_of.ctypes.data, vals.ctypes.data, slots.ctypes.data, outw.ctypes.data, lanes)
    return slots, outw


@pytest.fixture(scope="module")
def porep_input(tmp_path_factory):
    """A synthetic sector's checked C1 per shape (made on first use)."""
    from cuzk import pipeline

    made = {}

    def get(shape: str):
        if shape not in made:
            d = tmp_path_factory.mktemp(shape)
            c1, rec = d / "c1.json", d / "checked.json"
            pipeline.prepare({"id": 7, "synthetic": True}, c1, shape, "test", "00" * 32)
            pipeline.check_input(c1, rec, shape)
            made[shape] = (c1, rec)
        return made[shape]

    return get


@pytest.mark.parametrize("shape", ["porep-2KiB", "porep-512MiB"])
def test_core_matches_cpu_porep_partition(core, porep_input, shape):
    """Every compression of partition 0: the core's bits and state words are the CPU path's; the
    calls' bits are nearly all of the partition's aux, and tile their ranges exactly."""
    cs, calls = synthesize_recorded(*porep_input(shape), shape, 0)
    table = job_table(calls)
    slots, outw = run_core(core, table, cs.num_aux)
    assert mismatches(calls, cs.aux_slots(), slots, outw) == []
    covered = np.zeros(cs.num_aux, dtype=np.int8)
    for c in calls:
        covered[c.base:c.base + c.size] += 1
    assert covered.max() == 1 and covered.sum() > 0.95 * cs.num_aux
    # bits outside the calls were never written (the core stays in its calls' ranges)
    assert not slots[covered == 0].any()


def test_core_matches_cpu_mixed_literals(core):
    """Compressions whose state and message mix variables, negations and constants (bellman's
    ch/maj cases, constant-column xors, all-constant additions): the core equals the CPU path."""
    rng = np.random.default_rng(5)
    k, nbits = 3, 1200
    kinds = rng.choice(4, nbits, p=[0.6, 0.2, 0.1, 0.1])   # variable, negated, constant 0, 1
    cs = ConstraintSystem(shape=False, witness=True)
    x = alloc_bits(cs, (k, nbits), rng.integers(0, 2, (k, nbits)))
    lits = x.copy()
    lits[:, kinds == 1] = bit_not(x[:, kinds == 1])
    lits[:, kinds == 2], lits[:, kinds == 3] = BIT0, BIT1
    state = lits[:, :256].copy()
    with record_compressions() as calls:
        sha256(cs, lits)                                   # three blocks from the IV
        sha256_compress(cs, state, lits[:, 256:768])       # a mixed state
        sha256_compress(cs, bit_not(state), np.full((k, 512), BIT1, dtype=np.int64))   # constant block
    assert len(calls) == 5 and any(w.n for c in calls for w in c.H + c.W)
    slots, outw = run_core(core, job_table(calls), cs.num_aux)
    assert mismatches(calls, cs.aux_slots(), slots, outw) == []


def test_tampered_inputs_are_caught(core, porep_input):
    """A flipped input bit or a wrong mask gives bits that the comparison refuses."""
    cs, calls = synthesize_recorded(*porep_input("porep-2KiB"), "porep-2KiB", 0)
    table = job_table(calls)
    table.vals[1, 9] ^= 1 << 7                   # one message bit of lane 1
    assert mismatches(calls, cs.aux_slots(), *run_core(core, table, cs.num_aux))
    table = job_table(calls)
    table.jobs[0]["wc"][3] ^= 1                  # a variable column taken for a constant
    assert mismatches(calls, cs.aux_slots(), *run_core(core, table, cs.num_aux))


def test_job_table_refuses_bad_calls(porep_input):
    cs, calls = synthesize_recorded(*porep_input("porep-2KiB"), "porep-2KiB", 0)
    c = calls[0]
    with pytest.raises(ValueError, match="state"):
        job_table([c._replace(H=c.H[:7])])
    big = c.W[0].__class__(c.W[0].v | np.uint64(1 << 32), c.W[0].c, c.W[0].n)
    with pytest.raises(ValueError, match="2\\^32"):
        job_table([c._replace(W=[big] + c.W[1:])])
