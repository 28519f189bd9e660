"""The cuda backend's Montgomery arithmetic (ff.cuh) built for the host with its PTX carry-chain
model (CUZK_HOST_EMULATION) and checked against Python integers, so CPU-only CI covers the
kernels' field code (products, squares, sums, differences in Fr and Fq; edge values)."""

from __future__ import annotations

import random
import subprocess

import pytest

from cuzk.field import FQ, FR


@pytest.fixture(scope="module")
def harness(host_build):
    """tests/fixtures/ff_host.cpp built for the host (conftest ``host_build``)."""
    return host_build("ff_host")


@pytest.mark.parametrize("field, limbs", [(FR, 8), (FQ, 12)], ids=["Fr", "Fq"])
def test_field_ops_match_python(harness, field, limbs):
    p = field.modulus
    rng = random.Random(limbs)
    edge = [0, 1, 2, p - 1, p - 2, (p - 1) // 2, (p + 1) // 2, 2**32 - 1, 2**64 - 1, 2 ** (32 * limbs - 2) % p]
    half = 16 * limbs   # low halves of all ones: long carry chains
    edge += [2**half - 1, (2**(2 * half) - 1) % p, ((2**half - 2) << half | (2**half - 1)) % p]
    vals = edge + [rng.randrange(p) for _ in range(1500)]
    pairs = [(a, b) for a in edge for b in edge] + [(vals[i], vals[(7 * i + 3) % len(vals)]) for i in range(len(vals))]
    rinv = pow(2, -32 * limbs, p)
    want = {"mul": lambda a, b: a * b * rinv % p, "sqr": lambda a, b: a * a * rinv % p, "add": lambda a, b: (a + b) % p, "sub": lambda a, b: (a - b) % p,
            "lzy": lambda a, b: (a - b) * b * rinv % p}
    name = "Fr" if limbs == 8 else "Fq"
    cases = [(op, a, b) for op in want for a, b in pairs]
    # fp_mul's second factor may be any N-word value (the NTT's lazy differences below 2p,
    # fp_to_mont's unreduced inputs): the product is still fully reduced
    top = 2 ** (32 * limbs)
    wide_b = [p, p + 1, 2 * p - 1, 2 * p, top - 1, top - p] + [rng.randrange(p, top) for _ in range(300)]
    cases += [("mul", a, b) for a in edge + vals[:300] for b in wide_b[:6]] + [("mul", vals[i], b) for i, b in enumerate(wide_b)]
    text = "".join(f"{name} {op} {a:0{8 * limbs}x} {b:0{8 * limbs}x}\n" for op, a, b in cases)
    out = subprocess.run([str(harness)], input=text, capture_output=True, text=True, check=True).stdout.split()
    assert len(out) == len(cases)
    bad = [(op, hex(a), hex(b)) for (op, a, b), got in zip(cases, out) if int(got, 16) != want[op](a, b)]
    assert not bad, bad[:3]


def test_fq_y3_matches_python(harness):
    """fp_y3 (the XYZZ formulas' Y3 = a (u - v) - c d: ff.cuh fp_mul_sum of the lazy difference
    u - v + q and of q - d, both products under one Montgomery reduction) equals
    (a (u - v) - c d) 2^-384 mod q, with edge values in every slot (d = 0 makes q - d q itself;
    u < v the largest lazy difference) and random ones."""
    q = FQ.modulus
    rng = random.Random(381)
    edge = [0, 1, q - 1, q - 2, (q + 1) // 2, 2**64 - 1, 2**382 % q, 2**192 - 1]
    cases = [(a, u, v, c, d) for a in edge[::3] for u in edge[::2] for v in edge[1::2] for c in edge[1::3] for d in edge[::2]]
    cases += [(a, u, v, c, d) for a in (0, q - 1) for u in (0, q - 1) for v in (0, q - 1) for c in (0, q - 1) for d in (0, q - 1)]
    cases += [tuple(rng.randrange(q) for _ in range(5)) for _ in range(2000)]
    rinv = pow(2, -384, q)
    text = "".join("Fq y3 " + " ".join(f"{x:096x}" for x in case) + "\n" for case in cases)
    out = subprocess.run([str(harness)], input=text, capture_output=True, text=True, check=True).stdout.split()
    assert len(out) == len(cases)
    bad = [case for case, got in zip(cases, out) if int(got, 16) != (case[0] * (case[1] - case[2]) - case[3] * case[4]) * rinv % q]
    assert not bad, [tuple(map(hex, b)) for b in bad[:3]]
