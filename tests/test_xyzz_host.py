"""The MSM's XYZZ curve formulas (``src/cuzk/backend/cuda/xyzz.cuh`` over G1: mixed addition of
signed affine entries, addition, doubling, each Y3 = a (u - v) - c d one ``fp_y3``) built for the
host with the PTX carry-chain model (``tests/fixtures/xyzz_host.cpp``) and checked against arkworks
(``cuzk.curve.G1``): running sums through infinity, a point added to itself (the mixed doubling),
a point added to its negation, infinity entries, sums of two XYZZ points (equal, opposite, one at
infinity) and doublings."""

from __future__ import annotations

import random
import subprocess

import numpy as np
import pytest
from curve_util import g1_from_mont, g1_to_mont

from cuzk.curve import G1


@pytest.fixture(scope="module")
def harness(host_build):
    return host_build("xyzz_host")


def _run(harness, tmp_path, points, negs, others):
    n = len(points)
    ops = np.array([int(s) | (j << 8) for s, j in zip(negs, others)], dtype=np.uint32)
    inp, outp = tmp_path / "in.bin", tmp_path / "out.bin"
    inp.write_bytes(g1_to_mont(points).astype(np.uint32).tobytes() + ops.tobytes())
    subprocess.run([str(harness), str(n), str(inp), str(outp)], check=True)
    got = g1_from_mont(np.frombuffer(outp.read_bytes(), dtype=np.uint32).reshape(3 * n, 24))
    return got[:n], got[n:2 * n], got[2 * n:]


def _case(rng: random.Random):
    """Entries whose running sums pass through every special case of the formulas."""
    g = G1.generator()
    p = [G1.mul(g, rng.randrange(1, 2**255)) for _ in range(6)]
    pts = [p[0], p[0], G1.mul(p[0], 2), p[1], G1.identity(), p[1], p[2], p[3], p[3], p[4], p[5]]
    negs = [0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1]   # P, 2P, then -2P: infinity; Q - Q: infinity again
    pts += [G1.mul(g, rng.randrange(1, 2**255)) for _ in range(40)]
    negs += [rng.randrange(2) for _ in range(40)]
    return pts, negs


def test_xyzz_formulas_match_arkworks(harness, tmp_path):
    rng = random.Random()
    pts, negs = _case(rng)
    n = len(pts)
    want_sums = []
    acc = G1.identity()
    for p, s in zip(pts, negs):
        acc = acc - p if s else acc + p
        want_sums.append(acc)
    # second operands: itself (doubling through add), an earlier equal sum, infinity, random ones
    others = [i if i % 5 == 0 else 2 if i == 2 else rng.randrange(n) for i in range(n)]
    sums, adds, dbls = _run(harness, tmp_path, pts, negs, others)
    assert sums == want_sums
    assert G1.identity() in want_sums   # the cases reached infinity and came back
    assert adds == [want_sums[i] + want_sums[j] for i, j in enumerate(others)]
    assert dbls == [G1.mul(s, 2) for s in want_sums]


def test_opposite_sums_add_to_infinity(harness, tmp_path):
    """xyzz_add of S and -S (equal X, opposite Y): the branch that returns infinity."""
    rng = random.Random()
    p = G1.mul(G1.generator(), rng.randrange(1, 2**255))
    q = G1.mul(G1.generator(), rng.randrange(1, 2**255))
    # running sums: p, p + q, p + q - (p + q) = 0, then -p; S_3 + S_0 = -p + p = 0
    pts, negs = [p, q, p + q, p], [0, 0, 1, 1]
    sums, adds, _ = _run(harness, tmp_path, pts, negs, [1, 0, 0, 0])
    assert sums == [p, p + q, G1.identity(), -p]
    assert adds == [p + p + q, p + q + p, p, G1.identity()]


def test_wrong_formula_is_caught(harness, tmp_path):
    """The comparison above can fail: a running sum differs from the sum with one sign flipped."""
    rng = random.Random()
    pts = [G1.mul(G1.generator(), rng.randrange(1, 2**255)) for _ in range(3)]
    sums, _, _ = _run(harness, tmp_path, pts, [0, 0, 0], [0, 0, 0])
    assert sums[-1] == pts[0] + pts[1] + pts[2] != pts[0] + pts[1] - pts[2]
