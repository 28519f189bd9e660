"""``cuzk.field.LimbRuns`` and the value store's runs (``ValueStore.append_limbs`` with rows):
the values read back, the compact form and the witness file equal those of the expanded arrays
(numpy's ``limbs[rows]``, an independent expansion), and a run costs the store no expanded copy."""

import tracemalloc

import numpy as np
import pytest

from cuzk.backend import CompactAssignment
from cuzk.field import FR, LimbRuns, to_limbs
from cuzk.r1cs import ConstraintSystem
from cuzk.r1cs.values import ValueStore
from cuzk.r1cs.witness import read_witness_compact, write_witness_compact


def _wide_limbs(rng, shape) -> np.ndarray:
    """Random canonical Fr limbs, every value ≥ 2^64 (so none fits a slot)."""
    n = int(np.prod(shape))
    vals = [int(x) * 2**190 % FR.modulus + 2**64 for x in rng.integers(1, 2**62, size=n)]
    return to_limbs(vals, FR.limbs).reshape(tuple(shape) + (FR.limbs,))


def _runs(rng):
    """A mix of runs: plain rows, indexed rows with repeats, an empty index, w = 1."""
    a = _wide_limbs(rng, (5, 4))[:, 0]                    # (5, 4) plain
    b = _wide_limbs(rng, (3, 7))                          # (3, 7, 4) indexed
    c = _wide_limbs(rng, (2, 1))
    return [(a, None), (b, rng.integers(0, 3, size=9)), (c, np.array([], dtype=np.int64)), (c, np.array([1, 1, 0])),
            (b, np.array([2]))]


def _expanded(runs) -> np.ndarray:
    return np.concatenate([lm if rows is None else lm[rows].reshape(-1, FR.limbs) for lm, rows in runs])


@pytest.mark.parametrize("rows", [1, 3, 7, 8, 1 << 20])
def test_limb_runs_read_whole_and_in_chunks_equal_the_expansion(rows):
    rng = np.random.default_rng()
    runs = _runs(rng)
    want = _expanded(runs)
    lr = LimbRuns(runs)
    assert lr.shape == want.shape and len(lr) == len(want) and lr.nbytes == want.nbytes
    assert np.array_equal(np.asarray(lr), want)
    parts = [c.copy() for c in lr.chunks(rows)]   # a reused buffer: copied before the next
    assert all(len(c) <= max(rows, 7) and c.flags.c_contiguous for c in parts)
    assert np.array_equal(np.concatenate(parts), want)
    assert lr.below_modulus()


def test_limb_runs_refuse_bad_runs_and_see_values_not_below_r():
    rng = np.random.default_rng()
    b = _wide_limbs(rng, (3, 2))
    for bad in ([(b, None)], [(b[:, 0], np.array([0]))], [(b.astype(np.int64), np.array([0]))],
                [(b, np.array([3]))], [(b, np.array([-1]))], [(b, np.array([[0]]))]):
        with pytest.raises(ValueError, match="LimbRuns"):
            LimbRuns(bad)
    with pytest.raises(ValueError, match="at least 1"):
        next(LimbRuns([(b, np.array([0]))]).chunks(0))
    r = b.copy()
    r[1, 1] = to_limbs([FR.modulus], FR.limbs)[0]
    assert not LimbRuns([(r, np.array([0, 0]))]).below_modulus()   # distinct rows checked, used or not
    with pytest.raises(ValueError, match="modulus"):
        CompactAssignment(np.zeros((1, 4), dtype=np.uint64), np.zeros(1, dtype=np.uint8), np.zeros(0, dtype=np.uint8),
                          LimbRuns([(r, np.array([1, 0]))]), 4, 0)


def _store_pair(rng):
    """The same values appended to two stores: as runs, and expanded. Returns (runs store,
    expanded store, expected limbs of every slot)."""
    stores = (ValueStore(4), ValueStore(4))
    want = []
    for step in range(12):
        kind = step % 4
        if kind == 0:   # bits and small values
            v = rng.integers(0, 300 if step % 8 else 2, size=int(rng.integers(1, 9))).astype(np.uint64)
            for s in stores:
                s.append(v)
            want += [to_limbs([int(x)], 4)[0] for x in v]
        elif kind == 1:   # a run
            lm = _wide_limbs(rng, (int(rng.integers(1, 4)), int(rng.integers(1, 5))))
            rows = rng.integers(0, lm.shape[0], size=int(rng.integers(1, 6)))
            stores[0].append_limbs(lm, rows, rows.shape[0] * lm.shape[1])
            stores[1].append_limbs(lm[rows].reshape(-1, 4))
            want += list(lm[rows].reshape(-1, 4))
        else:   # dense wide rows
            lm = _wide_limbs(rng, (int(rng.integers(1, 6)),))
            for s in stores:
                s.append_limbs(lm)
            want += list(lm)
    assert stores[0]._runs and not stores[1]._runs
    return stores[0], stores[1], np.array(want, dtype=np.uint64)


def test_store_runs_read_back_and_compact_as_the_expanded_values():
    rng = np.random.default_rng()
    for _ in range(5):
        runs, flat, want = _store_pair(rng)
        n = len(want)
        idx = rng.permutation(n)
        assert np.array_equal(runs.gather_limbs(idx), want[idx])
        assert [int(v) for v in runs.gather(idx)] == [int(v) for v in flat.gather(idx)]
        for chunk in (8, 16, None):
            for order in (None, rng.permutation(n)):
                for lazy in (False, True):
                    got, ref = runs.compact(chunk, order, lazy=lazy), flat.compact(chunk, order)
                    assert all(np.array_equal(np.asarray(x), y) for x, y in zip(got, ref))


def test_witness_file_from_runs_equals_the_expanded_ones(tmp_path):
    """A PoSt-like store (every value wide or a bit, slot order): the lazy compact form is a
    LimbRuns, streamed by the writer into the same file as the expanded form's; it reads back."""
    rng = np.random.default_rng()
    files = []
    lm = _wide_limbs(rng, (3, 5))
    rows = rng.integers(0, 3, size=40)
    for form in ("runs", "expanded"):
        cs = ConstraintSystem(shape=False, witness=True)
        cs.alloc_aux((3,), np.array([1, 0, 1], dtype=np.uint64))
        if form == "runs":
            cs.alloc_aux_limbs((40, 5), lm, rows=rows)
        else:
            cs.alloc_aux_limbs((40, 5), lm[rows])
        cs.alloc_aux_limbs((2,), _wide_limbs(np.random.default_rng(7), (2,)))
        cw = cs.assignment_compact(lazy=True)
        assert isinstance(cw.wide, LimbRuns) == (form == "runs")
        write_witness_compact(tmp_path / f"{form}.wit", cw, pce_digest="d")
        files.append((tmp_path / f"{form}.wit").read_bytes())
    assert files[0] == files[1]
    back = read_witness_compact(tmp_path / "runs.wit")
    assert np.array_equal(back.wide, np.concatenate([lm[rows].reshape(-1, 4), _wide_limbs(np.random.default_rng(7), (2,))]))


def test_a_run_costs_the_store_no_expanded_copy():
    """2^20 values of one distinct row (a padded PoSt partition's shape): the store allocates
    about their codes (1 MiB), not their 32 MiB of limbs."""
    lm = _wide_limbs(np.random.default_rng(), (1, 64))
    rows = np.zeros((1 << 20) // 64, dtype=np.int64)
    store = ValueStore(4)
    tracemalloc.start()
    try:
        store.append_limbs(lm, rows, 1 << 20)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert store.n == 1 << 20
    assert peak < 4 << 20, peak
    assert np.array_equal(store.gather_limbs(np.array([0, 63, 64, (1 << 20) - 1])), lm[0][[0, 63, 0, 63]])


def test_witness_pieces_hashed_beside_the_write_give_the_file_digest(tmp_path, monkeypatch):
    """The writer hashes each piece on a thread while writing it: with pieces of 40 bytes (many
    per section, cut mid-value) the file still ends in the SHA-256 of everything before it, and
    reads back."""
    import hashlib

    from cuzk.r1cs import witness

    rng = np.random.default_rng()
    lm = _wide_limbs(rng, (3, 5))
    cs = ConstraintSystem(shape=False, witness=True)
    cs.alloc_aux((11,), rng.integers(0, 2, size=11).astype(np.uint64))
    cs.alloc_aux_limbs((7, 5), lm, rows=rng.integers(0, 3, size=7))
    files = []
    for piece in (40, 1 << 25):
        monkeypatch.setattr(witness, "_PIECE", piece)
        path = tmp_path / f"{piece}.wit"
        write_witness_compact(path, cs.assignment_compact(lazy=True), pce_digest="d")
        files.append(path.read_bytes())
    assert files[0] == files[1] and hashlib.sha256(files[0][:-32]).digest() == files[0][-32:]
    assert np.array_equal(read_witness_compact(tmp_path / "40.wit").wide, cs.assignment_compact().wide)
