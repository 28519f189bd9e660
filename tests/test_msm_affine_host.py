"""The MSM's batch-affine pair level (``src/cuzk/backend/cuda/msm_affine.cuh``, the kernel
``msm_affine_level`` of ``msm.cu``) built for the host with the PTX carry-chain model
(``tests/fixtures/msm_affine_emu.cpp``), so CPU-only CI checks its walk: every output slot equals
the sum of its two entries computed by arkworks (``cuzk.curve.G1``), with signed entries, empty and
odd buckets, doublings, a point and its negation, points at infinity, and thread ranges that start
inside a bucket; levels run on their own output down to one point per bucket give each bucket's
sum. Also ``plan.affine_levels``'s level counts."""

from __future__ import annotations

import random
import subprocess

import numpy as np
import pytest
from curve_util import g1_from_mont as _from_mont
from curve_util import g1_to_mont as _to_mont

from cuzk.backend.cuda import plan
from cuzk.curve import G1


@pytest.fixture(scope="module")
def emu(host_build):
    return host_build("msm_affine_emu")


def _level(emu, tmp_path, vals, src: np.ndarray, oi: np.ndarray, K: int):
    """One level: returns (points (m, 24), output offsets)."""
    B = len(oi) - 1
    counts = oi[1:] - oi[:-1]
    oo = np.zeros(B + 1, dtype=np.uint32)
    oo[1:] = np.cumsum((counts + 1) // 2)
    inp, outp = tmp_path / "in.bin", tmp_path / "out.bin"
    nv = 0 if vals is None else len(vals)
    parts = [] if vals is None else [np.asarray(vals, dtype=np.uint32).tobytes()]
    parts += [np.ascontiguousarray(src, dtype=np.uint32).tobytes(), oi.astype(np.uint32).tobytes(), oo.tobytes()]
    inp.write_bytes(b"".join(parts))
    subprocess.run([str(emu), str(B), str(K), str(nv), str(len(src)), str(inp), str(outp)], check=True)
    m = int(oo[-1])
    return np.frombuffer(outp.read_bytes(), dtype=np.uint32).reshape(m, 24), oo


def _buckets(rng: random.Random, n: int):
    """Entries (index | sign << 31) of test buckets over n bases (base 0 the point at infinity)."""
    rand = lambda k: [rng.randrange(1, n) | (rng.randrange(2) << 31) for _ in range(k)]
    return [
        [], [3], [1, 2], [4, 4], [5, 5 | 1 << 31], [0, 6], [7, 0], [0, 0], [8 | 1 << 31],
        rand(7), rand(16), [9, 9, 9], rand(5), [], rand(33), [10 | 1 << 31, 10 | 1 << 31],
    ]


def _entry(bases, v):
    p = bases[v & 0x7FFFFFFF]
    return -p if v >> 31 else p


@pytest.mark.parametrize("K", [1, 3, 256])
def test_each_slot_is_the_sum_of_its_pair(emu, tmp_path, K):
    rng = random.Random()
    n = 12
    bases = [G1.identity()] + [G1.mul(G1.generator(), rng.randrange(1, 2**255)) for _ in range(n - 1)]
    buckets = _buckets(rng, n)
    vals = [v for b in buckets for v in b]
    oi = np.zeros(len(buckets) + 1, dtype=np.uint32)
    oi[1:] = np.cumsum([len(b) for b in buckets])
    out, oo = _level(emu, tmp_path, vals, _to_mont(bases), oi, K)
    got = _from_mont(out)
    want = [G1.sum([_entry(bases, v) for v in b[j:j + 2]]) for b in buckets for j in range(0, len(b), 2)]
    assert len(got) == len(want) == int(oo[-1])
    assert all(g == w for g, w in zip(got, want))


def test_levels_down_to_one_point_give_each_buckets_sum(emu, tmp_path):
    rng = random.Random()
    n = 40
    bases = [G1.identity()] + [G1.mul(G1.generator(), rng.randrange(1, 2**255)) for _ in range(n - 1)]
    buckets = _buckets(rng, n) + [[rng.randrange(1, n) | (rng.randrange(2) << 31) for _ in range(rng.randrange(60, 90))]]
    vals = [v for b in buckets for v in b]
    oi = np.zeros(len(buckets) + 1, dtype=np.uint32)
    oi[1:] = np.cumsum([len(b) for b in buckets])
    src, cur = _to_mont(bases), vals
    while int((oi[1:] - oi[:-1]).max()) > 1:
        src, oi = _level(emu, tmp_path, cur, src, oi, rng.choice([2, 5, 64]))
        cur = None
    got = _from_mont(src)
    want = [G1.sum([_entry(bases, v) for v in b]) for b in buckets if b]
    assert len(got) == len(want)
    assert all(g == w for g, w in zip(got, want))


def test_wrong_sum_is_caught(emu, tmp_path):
    """The check above can fail: a slot's sum differs from the sum of other entries."""
    rng = random.Random()
    bases = [G1.mul(G1.generator(), rng.randrange(1, 2**255)) for _ in range(3)]
    oi = np.array([0, 2], dtype=np.uint32)
    out, _ = _level(emu, tmp_path, [0, 1], _to_mont(bases), oi, 4)
    assert _from_mont(out)[0] == bases[0] + bases[1] != bases[0] + bases[2]


def test_affine_levels_stop_at_few_threads_or_small_buckets():
    # a 2^27-point window at c = 20: 2^19 buckets of 256 entries; 2^26, 2^25, 2^24, 2^23 slots
    assert plan.affine_levels(1 << 27, 1 << 19, K=256, min_threads=1 << 15, min_mean=8) == 4
    assert plan.affine_levels(1 << 24, 1 << 16, K=256, min_threads=1 << 15, min_mean=8) == 1
    assert plan.affine_levels(1 << 24, 1 << 16, K=256, min_threads=1 << 13, min_mean=8) == 3
    assert plan.affine_levels(7 << 16, 1 << 16, K=1, min_threads=1, min_mean=8) == 0   # 7 a bucket
    assert plan.affine_levels(0, 0) == 0 and plan.affine_levels(100, 0) == 0
