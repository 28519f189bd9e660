"""Synthesis in worker processes (``cuzk.r1cs.parallel``): the values computed by the workers are
the ones the single-process path computes (itself checked against the native hash and the R1CS),
and a worker that dies fails the step with a typed error instead of hanging it."""

from __future__ import annotations

import os

import numpy as np
import pytest

from cuzk.circuits import post as cp
from cuzk.field import FR
from cuzk.hash.poseidon import poseidon_many
from cuzk.r1cs import ConstraintSystem
from cuzk.r1cs import parallel, poseidon
from cuzk.r1cs.parallel import SynthesisWorkerError, map_rows, synthesis_workers
from cuzk.r1cs.poseidon import hash_constraints, poseidon_hash
from cuzk.sector.post import generate_post
from cuzk.sector.post_synthetic import SyntheticSector


@pytest.mark.parametrize("arity", [2, 8])
def test_legacy_hash_in_workers_matches_native_and_is_satisfied(arity):
    """k = 40 hashes in 2 workers (chunks of ≥ 4 rows): digests equal the native permutation,
    every op value equals the single-process one, and the R1CS holds."""
    k = 40
    vals = FR.random(k * arity, np.random.default_rng(arity)).reshape(k, arity)
    systems = []
    for workers in (2, 1):
        with synthesis_workers(workers, min_rows=4) as n:
            assert n == (2 if workers == 2 else 0)
            cs = ConstraintSystem(shape=True, witness=True)
            out = poseidon_hash(cs, cs.alloc_aux((k, arity), vals), arity, legacy=True)
        assert list(cs.value(out, dtype=object)) == list(poseidon_many(vals, arity))
        assert cs.num_constraints == k * hash_constraints(arity, legacy=True)
        systems.append(cs)
    par, ser = systems
    assert np.array_equal(par.assignment_compact().wide, ser.assignment_compact().wide)
    par.finalize().check(par.full_assignment())


def test_post_partition_in_workers_is_the_single_process_witness(monkeypatch):
    """A WindowPoSt partition over three synthetic 32 GiB sectors (two challenges each: a
    Merkle level is 6 rows) synthesized with 2 workers gives the same compact witness as one
    process, value for value."""
    monkeypatch.setattr(parallel, "MIN_ROWS", 2)
    split = []   # Merkle levels whose values came from the workers

    def counted(*a):
        out = map_rows(*a)
        split.append(out is not None)
        return out

    monkeypatch.setattr(poseidon, "map_rows", counted)
    size = 32 << 30
    doc = generate_post("window", [SyntheticSector(700 + i, size) for i in range(3)], bytes(range(32)), bytes(32),
                        sector_count=3, challenge_count=2)
    shape = cp.PoStShape("test-only-window-post-32GiB-3x2", "window", size, 3, 2, test_only=True)
    got = []
    for workers in (2, 1):
        with synthesis_workers(workers):
            cs = ConstraintSystem(shape=False, witness=True)
            cp.synthesize(cs, shape, cp.values(doc, 0))
        got.append(cs.assignment_compact())
    a, b = got
    # the Merkle levels; not the comm_r hash (one row a sector) nor the top level, where the two
    # challenges of a sector share their node (identical preimages are hashed once: 3 rows)
    assert sum(split) >= 9
    for f in ("inputs", "mask", "bits", "wide"):
        assert np.array_equal(getattr(a, f), getattr(b, f)), f
    assert a.num_aux == shape.stats()["aux"] and len(a.wide) > 0.9 * a.num_aux


def _die(rows):
    os._exit(3)


def _twice(rows):
    return 2 * rows


def test_dead_worker_is_a_typed_error_and_pools_do_not_nest():
    rows = np.arange(64, dtype=np.uint64).reshape(64, 1)
    with synthesis_workers(2, min_rows=4):
        assert np.array_equal(map_rows(_twice, rows), 2 * rows)
        with synthesis_workers(2) as inner:   # a nested request runs in the active pool
            assert inner == 0 and parallel.active_workers() == 2
        with pytest.raises(SynthesisWorkerError, match="died"):
            map_rows(_die, rows)
    assert parallel.active_workers() == 0 and map_rows(_twice, rows) is None


def test_workers_are_asked_for_only_where_the_levels_split():
    """``useful_workers`` (the cores a PoSt synthesis job declares) is the threads exactly when a
    Merkle level of the shape has enough rows for ``map_rows`` to split it."""
    from cuzk.circuits.registry import shape_by_name

    for name, split in (("window-post-32GiB", True), ("window-post-2KiB", False), ("winning-post-32GiB", False)):
        rows = shape_by_name(name).challenges
        assert parallel.useful_workers(rows, 8) == (8 if split else 1), name
        with synthesis_workers(2):
            assert (map_rows(_twice, np.zeros((rows, 1), np.uint64)) is not None) == split, name
