"""CPU emulation of the cuda backend's register-radix NTT pass (``ntt.cu``: ``ntt_pass_rx``).

No GPU needed: ``emulate_ntt`` runs exactly the kernel's per-thread schedule (the passes of
``_ntt_plan``, the flags ``NTTOps._ntt`` sets, which element each work item loads, which twiddle
index each butterfly reads, where it stores; the index expressions are the kernel's, written the
same way) with exact Fr arithmetic, and the result is compared with ``CPUBackend.ntt`` (forward,
inverse, input and output factors, batches of rows) on fresh random inputs, for several pass
splits and register-group widths. Each group is also checked to touch every shared-memory word
exactly once and, for blocks of ≥ 2^(5+r) elements, to read its 32 lanes' elements from 32
distinct banks (the swizzle's claim in ``ntt.cu``).
"""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

from cuzk.backend.cpu import CPUBackend
from cuzk.backend.cuda.ntt import _pass_plan, _rx_config
from cuzk.backend.cuda.plan import _ntt_plan
from cuzk.field import FR, int_array

R = FR.modulus
RNG = random.Random()
ROOT = Path(__file__).resolve().parents[1]
CUDA_SRC = ROOT / "src" / "cuzk" / "backend" / "cuda"
MONT = 1 << 256
PRE, PRE_LO, LAST, INV, POST, POST_LO = 1, 2, 4, 8, 16, 32   # ntt.cu's NTT_* flags
SWZ_COLS = (31, 21, 25, 17, 16)                               # ntt.cu's rx_swz columns


def rx_swz(e: int) -> int:
    """ntt.cu ``rx_swz``: e's low 5 bits XOR the GF(2) image of its bits 5..9."""
    x, m = e >> 5, 0
    for i, col in enumerate(SWZ_COLS):
        if (x >> i) & 1:
            m ^= col
    return e ^ m


def rx_width(t: int, g: int, rmax: int) -> int:
    """ntt.cu ``rx_width``."""
    ng = (t + rmax - 1) // rmax
    return t // ng + (1 if g < t % ng else 0)


def rx_group(sm, blk, g0, K, tw, r, io, first, last, checks):
    """ntt.cu ``rx_group<r, IN = first, OUT = last>`` for one block (all work items w in order)."""
    E, c, s_lo, lob = blk["E"], blk["c"], blk["s_lo"], blk["lob"]
    b = g0 + c
    ob = [rx_swz(1 << (b + i)) for i in range(r)]
    seen = []
    for w in range(E >> r):
        e0 = ((w >> b) << (b + r)) | (w & ((1 << b) - 1))
        a0 = rx_swz(e0)
        addr = []
        for m in range(1 << r):
            a = a0
            for i in range(r):
                if (m >> i) & 1:
                    a ^= ob[i]
            addr.append(a)
            assert a == rx_swz(e0 | (m << b))   # the linearity rx_addr relies on
        seen.append(addr)
        x = [io.load(blk["gi"](e0 | (m << b))) if first else sm[a] for m, a in enumerate(addr)]
        pbase = (((e0 >> c) & ((1 << g0) - 1)) << s_lo) + (lob << c) + (e0 & blk["cmask"])
        for i in range(r - 1, -1, -1):
            s = s_lo + g0 + i
            for q in range(1 << i):
                f = tw[(pbase + (q << (g0 + s_lo))) << (K - 1 - s)] if s != 0 else 1
                for m in range(q, 1 << r, 2 << i):
                    u, v = x[m], x[m + (1 << i)]
                    x[m] = (u + v) % R
                    x[m + (1 << i)] = (u - v) * f % R
        for m, a in enumerate(addr):
            if last:
                io.store(blk["gi"](e0 | (m << b)), x[m])
            else:
                sm[a] = x[m]
    if checks:
        flat = sorted(a for addr in seen for a in addr)
        assert flat == list(range(E))           # every element once: work items are independent
        if E >= 1 << (5 + r):
            for w0 in range(0, E >> r, 32):     # one warp: lanes w0 .. w0+31
                for m in range(1 << r):
                    assert len({seen[w][m] % 32 for w in range(w0, w0 + 32)}) == 32


class PassIO:
    """ntt.cu ``ntt_io`` with ``ntt_in`` (load) and ``ntt_out`` (store) on Python lists."""

    def __init__(self, src, dst, k, flags, pre, post):
        self.src, self.dst, self.k, self.flags, self.pre, self.post = src, dst, k, flags, pre, post

    def load(self, gi):
        x = self.src[gi]
        if self.flags & PRE:
            f = self.pre[0][gi >> self.pre[2]]
            if self.flags & PRE_LO:
                f = f * self.pre[1][gi & ((1 << self.pre[2]) - 1)] % R
            x = x * f % R
        return x

    def store(self, gi, x):
        k, nmask = self.k, (1 << self.k) - 1
        if self.flags & LAST:
            o = int(format(gi & nmask, f"0{k}b")[::-1], 2) if k else 0   # __brev(gi) >> (32 - k)
            if self.flags & INV:
                o = (-o) & nmask
            if self.flags & POST:
                f = self.post[0][o >> self.post[2]]
                if self.flags & POST_LO:
                    f = f * self.post[1][o & ((1 << self.post[2]) - 1)] % R
                x = x * f % R
            self.dst[(gi & ~nmask) | o] = x
        else:
            self.dst[gi] = x


def emulate_pass(src, dst, tw, k, K, s_hi, t, c, flags, pre, post, rmax, nblocks, checks):
    """ntt.cu ``ntt_pass_rx`` over a grid of ``nblocks`` blocks (pre/post: (hi, lo, m) lists)."""
    io = PassIO(src, dst, k, flags, pre, post)
    E = 1 << (t + c)
    s_lo = s_hi - t + 1
    nlo_log = s_lo - c
    cmask = (1 << c) - 1
    for bi in range(nblocks):                   # ntt_blk
        lob = bi & ((1 << nlo_log) - 1)
        base = ((bi >> nlo_log) << (s_hi + 1)) + (lob << c)
        blk = {"E": E, "c": c, "s_lo": s_lo, "lob": lob, "cmask": cmask,
               "gi": lambda e, base=base: base + ((e >> c) << s_lo) + (e & cmask)}
        sm = [None] * E
        ng = (t + rmax - 1) // rmax
        top = t
        for g in range(ng):
            r = rx_width(t, g, rmax)
            top -= r
            rx_group(sm, blk, top, K, tw, r, io, g == 0, g == ng - 1, checks and bi == 0)


def factor_table(x: int, c: int, k: int):
    """``NTTOps._factor_tables`` as host ints: (hi, lo or None, m) with f(i) = c·x^i."""
    if x == 1:
        return [c], None, k
    m = (k + 1) // 2
    lo = [pow(x, i, R) for i in range(1 << m)]
    hi = [c * pow(x, i << m, R) % R for i in range(1 << (k - m))]
    return hi, lo, m


def twiddles(k: int) -> list[int]:
    """``NTTOps._twiddles``: [ω^j for j < 2^(k−1)] (one entry for k = 0)."""
    w = FR.root_of_unity(1 << k)
    return [pow(w, j, R) for j in range(max(1, (1 << k) >> 1))]


def passes(k, inverse, pre, post, block_log, max_t):
    """``NTTOps._ntt``'s launches: (s_hi, t, c, flags) per pass."""
    plan = _ntt_plan(k, block_log, max_t)
    out = []
    for i, (s_hi, t, c) in enumerate(plan):
        first, last = i == 0, i == len(plan) - 1
        flags = 0
        if first and pre is not None:
            flags |= PRE | (PRE_LO if pre[1] is not None else 0)
        if last:
            flags |= LAST | (INV if inverse else 0)
            if post is not None:
                flags |= POST | (POST_LO if post[1] is not None else 0)
        out.append((s_hi, t, c, flags))
    return out


def emulate_ntt(a, k, inverse=False, pre=None, post=None, rows=1, block_log=10, max_t=8, rmax=3, checks=True):
    """``NTTOps._ntt`` with the ``rx`` kernel, emulated: the same passes and flags."""
    n = 1 << k
    tw = twiddles(k)
    plan = passes(k, inverse, pre, post, block_log, max_t)
    src, tmp, out = list(a), [None] * len(a), [None] * len(a)
    for i, (s_hi, t, c, flags) in enumerate(plan):
        dst = out if i == len(plan) - 1 else tmp
        E = 1 << (t + c)
        emulate_pass(src, dst, tw, k, k, s_hi, t, c, flags, pre, post, rmax, rows * n // E, checks)
        src = dst
    return out


@pytest.fixture(scope="module")
def cpu():
    with CPUBackend(threads=1) as b:
        yield b


def reference(cpu, a, k, inverse, pre, post, rows):
    """The same transform by ``CPUBackend.ntt`` row by row (inverse unscaled: times n)."""
    n = 1 << k
    f = lambda tab, i: tab[0][i >> tab[2]] * (tab[1][i & ((1 << tab[2]) - 1)] if tab[1] else 1) % R  # noqa: E731
    x = [v * f(pre, i) % R for i, v in enumerate(a)] if pre else list(a)
    out = []
    for r in range(rows):
        y = [int(v) for v in cpu.ntt(int_array(x[r * n : (r + 1) * n]), inverse=inverse)]
        if inverse:
            y = [v * n % R for v in y]
        if post:
            y = [v * f(post, o) % R for o, v in enumerate(y)]
        out += y
    return out


# (block_log, max_t, rmax): the default plan and splits into more passes and narrower groups
SPLITS = [(10, 8, 3), (4, 2, 3), (6, 3, 2), (5, 4, 4), (7, 5, 1)]


@pytest.mark.parametrize("block_log,max_t,rmax", SPLITS)
def test_rx_schedule_matches_cpu(cpu, block_log, max_t, rmax):
    for k in range(1, 13 if block_log == 10 else 11):
        a = [RNG.randrange(R) for _ in range(1 << k)]
        for inverse in (False, True):
            got = emulate_ntt(a, k, inverse, block_log=block_log, max_t=max_t, rmax=rmax, checks=k >= 8)
            assert got == reference(cpu, a, k, inverse, None, None, 1), (k, inverse)


@pytest.mark.parametrize("k", [1, 5, 9, 11])
def test_rx_schedule_factors_and_rows(cpu, k):
    g = FR.generator
    rows = 1 if k > 9 else 3
    n = 1 << k
    a = [RNG.randrange(R) for _ in range(rows * n)]
    kr = (rows * n - 1).bit_length()   # pre indexes the whole array
    pre = factor_table(g, RNG.randrange(1, R), kr)
    post = factor_table(pow(g, -1, R), RNG.randrange(1, R), k)
    scal = RNG.randrange(1, R)
    cases = [(False, pre, None), (True, None, post), (False, pre, post),
             (True, factor_table(1, scal, kr), factor_table(1, scal, k))]
    for inverse, p, q in cases:
        got = emulate_ntt(a, k, inverse, p, q, rows, block_log=6, max_t=3)
        assert got == reference(cpu, a, k, inverse, p, q, rows), (k, inverse)


def test_rx_schedule_large(cpu):
    """2^14 on the default plan (two passes: t = 4, c = 6, then t = 10, c = 0), forward and a
    coset-style inverse with both factor tables."""
    k = 14
    a = [RNG.randrange(R) for _ in range(1 << k)]
    assert _ntt_plan(k) == [(13, 4, 6), (9, 10, 0)]
    assert emulate_ntt(a, k) == reference(cpu, a, k, False, None, None, 1)
    post = factor_table(FR.generator, RNG.randrange(1, R), k)
    assert emulate_ntt(a, k, True, post=post, checks=False) == reference(cpu, a, k, True, None, post, 1)


# --- the kernels' own code, built for the host (tests/fixtures/ntt_host.cpp) -----------------------


@pytest.fixture(scope="module")
def host_ntt(tmp_path_factory):
    """Runs ntt.cu's passes on the host: f(kernel, a, k, inverse, pre, post, rows, block_log,
    max_t, rmax) -> values (``NTTOps._ntt``'s launches; Montgomery limbs in and out)."""
    cxx = shutil.which("g++") or shutil.which("c++")
    if cxx is None:
        pytest.skip("no C++ compiler")
    exes = {}

    def build(rmax):
        if rmax not in exes:
            exe = tmp_path_factory.mktemp("ntt") / f"ntt_host_{rmax}"
            subprocess.run([cxx, "-O1", "-std=c++17", f"-DNTT_RX_MAX={rmax}", f"-I{CUDA_SRC}",
                            str(ROOT / "tests/fixtures/ntt_host.cpp"), "-o", str(exe)], check=True, capture_output=True, text=True)
            exes[rmax] = exe
        return exes[rmax]

    def words(vals):
        return "".join(" ".join(f"{(v * MONT % R) >> (32 * i) & 0xFFFFFFFF:x}" for i in range(8)) + "\n" for v in vals)

    def run(kernel, a, k, inverse=False, pre=None, post=None, rows=1, block_log=10, max_t=8, rmax=3):
        plan = passes(k, inverse, pre, post, block_log, max_t)
        tabs = [twiddles(k), *(pre or ([1], None, 0))[:2], *(post or ([1], None, 0))[:2]]
        tabs = [t or [1] for t in tabs]
        text = f"{k} {k} {rows} {len(plan)}\n" + "".join(f"{s} {t} {c} {f}\n" for s, t, c, f in plan)
        text += f"{pre[2] if pre else 0} {post[2] if post else 0} " + " ".join(str(len(t)) for t in tabs) + "\n"
        text += words(a) + "".join(words(t) for t in tabs)
        out = subprocess.run([str(build(rmax)), kernel], input=text, capture_output=True, text=True, check=True).stdout
        rinv = pow(MONT, -1, R)
        return [sum(int(w, 16) << (32 * i) for i, w in enumerate(line.split())) * rinv % R for line in out.splitlines()]

    return run


@pytest.mark.parametrize("rmax", [3, 2, 4])
def test_host_kernels_match_cpu(cpu, host_ntt, rmax):
    """ntt_pass_rx (NTT_RX_MAX = rmax) and ntt_pass built for the host, against CPUBackend.ntt:
    every size 2^1..2^12 on the default plan (no pass at 2^0: ``_ntt`` copies), forward and
    inverse; 2^9 split into passes."""
    for k in range(1, 13):
        a = [RNG.randrange(R) for _ in range(1 << k)]
        for inverse in (False, True):
            want = reference(cpu, a, k, inverse, None, None, 1)
            assert host_ntt("rx", a, k, inverse, rmax=rmax) == want, (k, inverse)
            if rmax == 3:
                assert host_ntt("radix2", a, k, inverse) == want, (k, inverse)
    a = [RNG.randrange(R) for _ in range(1 << 9)]
    for block_log, max_t in [(4, 2), (6, 3), (7, 5)]:
        assert host_ntt("rx", a, 9, rmax=rmax, block_log=block_log, max_t=max_t) == reference(cpu, a, 9, False, None, None, 1)


@pytest.mark.parametrize("k,rows", [(11, 1), (6, 4), (3, 16)])
def test_host_kernels_flags_and_rows(cpu, host_ntt, k, rows):
    """Each flag on the host build: PRE (± PRE_LO), INV, POST (± POST_LO), batches of rows;
    ntt_pass_rx equal to the CPU reference and to ntt_pass."""
    n = 1 << k
    a = [RNG.randrange(R) for _ in range(rows * n)]
    kr = (rows * n - 1).bit_length()
    g, c1, c2 = FR.generator, RNG.randrange(1, R), RNG.randrange(1, R)
    cases = [(False, factor_table(g, c1, kr), None), (True, None, factor_table(pow(g, -1, R), c2, k)),
             (True, factor_table(g, c1, kr), factor_table(g, c2, k)), (False, factor_table(1, c1, kr), factor_table(1, c2, k))]
    for inverse, p, q in cases:
        want = reference(cpu, a, k, inverse, p, q, rows)
        got = host_ntt("rx", a, k, inverse, p, q, rows, block_log=8, max_t=4)
        assert got == want, (k, rows, inverse)
        assert host_ntt("radix2", a, k, inverse, p, q, rows, block_log=8, max_t=4) == got


def test_rx_kernel_names():
    """``NTTOps._ntt``'s kernel names: "rx" is ntt.cu's compiled default, "rx-R-T-B" a variant."""
    text = (CUDA_SRC / "ntt.cu").read_text()
    default = tuple(int(text.split(f"#define {name} ")[1].split()[0]) for name in ("NTT_RX_MAX", "NTT_RX_THREADS", "NTT_RX_MINB"))
    assert _rx_config("rx") == (*default, 0)
    assert _rx_config("rx-2-256-2") == (2, 256, 2, 0)
    assert _rx_config("rx-3-128-3-528") == (3, 128, 3, 528)
    for bad in ("rx-5-64-1", "rx-2-256", "radix4", "rx-a-1-1", "rx-1-2-3-4-5"):
        with pytest.raises(ValueError):
            _rx_config(bad)


@pytest.mark.parametrize("k", range(1, 28))
def test_pass_plans(k):
    """Every kernel's plan covers stages k−1..0 once, in blocks of ≥ 2^6 elements (or the whole
    row) with runs of ≥ 4 elements before the last pass, and has several passes exactly when
    the default plan does (the pass buffer of ``ntt_device_bytes``)."""
    for kernel, rows in [("radix2", 1), ("rx", 1), ("rx-3-128-3-528", 1), ("rx-3-128-3-528", 64), ("rx-2-256-2-100000", 1)]:
        plan = _pass_plan(kernel, k, rows)
        assert (len(plan) > 1) == (len(_ntt_plan(k)) > 1)
        stages = [s for s_hi, t, _ in plan for s in range(s_hi, s_hi - t, -1)]
        assert stages == list(range(k - 1, -1, -1))
        for s_hi, t, c in plan[:-1]:
            assert c >= 2 and t + c >= 6
        if kernel != "radix2" and k > 10 and _rx_config(kernel)[3]:
            E = 1 << sum(plan[0][1:])
            assert (rows << k) // E >= min(_rx_config(kernel)[3], (rows << k) >> 6)
    assert _pass_plan("rx", 20, 1) == _ntt_plan(20) == _pass_plan("radix2", 20, 1)
    assert _pass_plan("rx-3-128-3-264", 16, 1) == _ntt_plan(16, 7, 5)   # 512 blocks of 2^7
