"""A Python model of the radix-4/8 NTT passes' schedule (``ntt.cuh``: ``ntt_round``,
``ntt_pass_radix``, ``ntt_sw``), checked without a GPU or compiler:

- each round's groups cover the block once, and its butterflies (element pairs, twiddle index)
  are exactly the radix-2 stages' of ``ntt_pass`` (``ntt.cu``), stage for stage;
- the model run over whole plans (first pass's input factors, last pass's bit-reversed or
  negated index and output factors) equals a naive O(n^2) DFT over Fr, or above 2^8 the cpu
  backend's NTT, for 2^3..2^12 with every variant's plan;
- the shared-memory slot map ``ntt_sw<R>`` is a bijection of the block, and a warp's 32 groups
  read or write 32 distinct banks in every round of every pass shape the variants use.

The kernels' own code runs on the host in tests/test_ntt_host.py.
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from cuzk.backend import workers
from cuzk.backend.cuda.ntt import NTT_VARIANTS
from cuzk.backend.cuda.plan import _ntt_plan
from cuzk.field import FR

R = FR.modulus
RNG = random.Random()
RADIX = [n for n, v in NTT_VARIANTS.items() if v.radix_log > 1]


def rounds(t: int, r: int):
    """(hl, m) of a pass's rounds: local top stage and stage count, t mod r first."""
    m, hl = t % r or r, t - 1
    while hl >= 0:
        yield hl, m
        hl -= m
        m = r


def groups(t: int, c: int, hl: int, m: int):
    """Per group g of a round: the block's element of each b < 2^m, and the twiddle base p0
    without the block's lob term (ntt_round's index arithmetic)."""
    h0 = hl - m + 1
    for g in range((1 << (t + c)) >> m):
        l, q = g & ((1 << c) - 1), g >> c
        jlow, jhi = q & ((1 << h0) - 1), q >> h0
        e0 = (((jhi << (hl + 1)) + jlow) << c) + l
        yield [e0 + (b << (h0 + c)) for b in range(1 << m)], jlow, l


def round_butterflies(t: int, c: int, s_lo: int, lob: int, hl: int, m: int):
    """{stage s: {(e_lo, e_hi, p)}}: the round's butterflies, p = the twiddle's exponent of
    ω_(2^(s+1)) (the table index p << (K − 1 − s))."""
    out: dict[int, set] = {}
    h0 = hl - m + 1
    for es, jlow, l in groups(t, c, hl, m):
        p0 = (jlow << s_lo) + (lob << c) + l
        for i in range(m):
            half = 1 << (m - 1 - i)
            for b in range(1 << m):
                if b & half == 0:
                    out.setdefault(s_lo + hl - i, set()).add((es[b], es[b + half], p0 + ((b & (half - 1)) << (s_lo + h0))))
    return out


def radix2_butterflies(t: int, c: int, s_lo: int, lob: int, s: int):
    """ntt_pass's butterflies of stage s (ntt.cu's index arithmetic)."""
    hl, out = s - s_lo, set()
    for bf in range(1 << (t + c - 1)):
        l, q = bf & ((1 << c) - 1), bf >> c
        jlow, jhi = q & ((1 << hl) - 1), q >> hl
        e0 = (((jhi << (hl + 1)) + jlow) << c) + l
        out.add((e0, e0 + (1 << (hl + c)), (jlow << s_lo) + (lob << c) + l))
    return out


def ntt_sw(e: int, r: int) -> int:
    return e ^ ((e >> r) & 31)


def model_ntt(x, k, r, block_log, max_t, inverse=False, pre=None, post=None):
    """The passes of ``_ntt_plan(k, block_log, max_t)`` run as ``ntt_pass_radix<r>`` does,
    on Python ints: pre(i) multiplies input i, post(o) output o."""
    n, w = 1 << k, FR.root_of_unity(1 << k)
    tw = [pow(w, j, R) for j in range(max(1, n // 2))]
    a = [v * pre(i) % R for i, v in enumerate(x)] if pre else list(x)
    plan = _ntt_plan(k, block_log, max_t)
    for pi, (s_hi, t, c) in enumerate(plan):
        s_lo, nlo = s_hi - t + 1, s_hi - t + 1 - c
        for blk in range(n >> (t + c)):
            lob = blk & ((1 << nlo) - 1)
            base = ((blk >> nlo) << (s_hi + 1)) + (lob << c)
            gi = [base + ((e >> c) << s_lo) + (e & ((1 << c) - 1)) for e in range(1 << (t + c))]
            sm = [a[i] for i in gi]
            for hl, m in rounds(t, r):
                for s, bfs in round_butterflies(t, c, s_lo, lob, hl, m).items():
                    for e0, e1, p in bfs:
                        u, v = sm[e0], sm[e1]
                        sm[e0], sm[e1] = (u + v) % R, (u - v) * tw[p << (k - 1 - s)] % R
            for e, i in enumerate(gi):
                a[i] = sm[e]
        if pi == len(plan) - 1:
            out = [0] * n
            for i in range(n):
                o = int(f"{i:0{k}b}"[::-1], 2)
                o = -o % n if inverse else o
                out[o] = a[i] * post(o) % R if post else a[i]
            return out
    raise AssertionError("empty plan")


def dft(x, inverse=False):
    """Σ_i x_i·ω^(±ij): naive up to 2^8, else the cpu backend's NTT (its inverse times n)."""
    n = len(x)
    if n > 256:
        y = workers.ntt(np.array(x, dtype=object), inverse, workers.Twiddles())
        return [int(v) * (n if inverse else 1) % R for v in y]
    w = FR.root_of_unity(n)
    sign = -1 if inverse else 1
    return [sum(v * pow(w, sign * i * j % n, R) for i, v in enumerate(x)) % R for j in range(n)]


def shapes(v) -> set:
    """Every pass shape (t, c) of the variant's plans at 2^1..2^27."""
    return {(t, c) for k in range(1, 28) for _, t, c in _ntt_plan(k, v.block_log, v.max_t)}


@pytest.mark.parametrize("name", RADIX)
def test_rounds_are_the_radix2_stages(name):
    """Every shape's rounds: groups cover the block once per round; the butterflies of each
    stage are ntt_pass's (pairs and twiddle exponents), for a block with lob = 0 and one with
    the largest lob."""
    v = NTT_VARIANTS[name]
    for t, c in shapes(v):
        s_lo = c + 2
        for lob in (0, (1 << (s_lo - c)) - 1):
            seen = set()
            for hl, m in rounds(t, v.radix_log):
                cover = Counter(e for es, _, _ in groups(t, c, hl, m) for e in es)
                assert sorted(cover) == list(range(1 << (t + c))) and set(cover.values()) == {1}
                for s, bfs in round_butterflies(t, c, s_lo, lob, hl, m).items():
                    assert bfs == radix2_butterflies(t, c, s_lo, lob, s), (t, c, s)
                    seen.add(s)
            assert seen == set(range(s_lo, s_lo + t))


@pytest.mark.parametrize("name", RADIX)
def test_model_matches_dft(name):
    """The model on the variant's plans, 2^3..2^12, forward and inverse (above 2^10 forward)."""
    v = NTT_VARIANTS[name]
    for k in range(3, 13):
        x = [RNG.randrange(R) for _ in range(1 << k)]
        for inverse in (False, True)[: 2 if k <= 10 else 1]:
            assert model_ntt(x, k, v.radix_log, v.block_log, v.max_t, inverse) == dft(x, inverse), (k, inverse)


@pytest.mark.parametrize("r", [2, 3])
def test_model_factors_and_small_blocks(r):
    """Coset factors in (g^i), n⁻¹·g^(−o) out with the inverse order, on plans of 2..4 passes."""
    g = FR.generator
    for k, block_log, max_t in ((9, 4, 2), (8, 5, 3), (7, 3, 1)):
        n = 1 << k
        assert len(_ntt_plan(k, block_log, max_t)) > 1
        x = [RNG.randrange(R) for _ in range(n)]
        got = model_ntt(x, k, r, block_log, max_t, pre=lambda i: pow(g, i, R))
        assert got == dft([v * pow(g, i, R) % R for i, v in enumerate(x)])
        ginv, ninv = pow(g, -1, R), pow(n, -1, R)
        got = model_ntt(x, k, r, block_log, max_t, inverse=True, post=lambda o: ninv * pow(ginv, o, R) % R)
        assert got == [v * ninv * pow(ginv, o, R) % R for o, v in enumerate(dft(x, True))]


@pytest.mark.parametrize("name", RADIX)
def test_shared_memory_banks(name):
    """ntt_sw<R> permutes [0, E); each warp of 32 groups hits 32 distinct banks (one 32-bit word
    of a limb plane per thread) in every round of every shape with t + c ≤ 12."""
    v = NTT_VARIANTS[name]
    r = v.radix_log
    cases = shapes(v) | {(t, c) for t in range(1, 13) for c in range(13 - t)}
    for t, c in cases:
        E = 1 << (t + c)
        assert sorted(ntt_sw(e, r) for e in range(E)) == list(range(E))
        if E < 32 * (1 << r):
            continue
        for hl, m in rounds(t, r):
            gs = list(groups(t, c, hl, m))
            for w0 in range(0, len(gs), 32 * 8):   # every 8th warp
                for b in range(1 << m):
                    banks = {ntt_sw(gs[g][0][b], r) % 32 for g in range(w0, w0 + 32)}
                    assert len(banks) == 32, (t, c, hl, m, w0, b)
