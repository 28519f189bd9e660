"""Groth16 proofs from a snarkjs ``.zkey`` and a circom witness: snarkjs' quotient for cuzk's
``Prover``, and the ``.zkey`` prover built on it.

snarkjs' key differs from bellperson's in the H part, so the quotient is computed differently
(snarkjs ``groth16_prove.js``): ``OddCosetQuotient``, a ``cuzk.groth16.prover.Quotient``
variant (as ark-circom's ``CircomReduction`` is of ark-groth16's ``R1CSToQAP``):

* a, b: the QAP's A·w and B·w over the domain of size n (section 4's coefficients, which include
  the rows ``A[nConstraints + s][s] = 1`` for the public wires); c = a·b *pointwise* (snarkjs
  never reads the C matrix: for a satisfying witness C·w = a·b on every row).
* Each of a, b, c goes through iFFT, multiplication of coefficient i by ω_2n^i, FFT: the
  evaluations on the odd coset {ω_2n^(2i+1)} of the 2n domain. The H scalars are
  ``a·b − c`` there, **without** division by Z (computed here as −2·Q on that coset, Q the
  quotient ``compute_h`` returns: see ``OddCosetQuotient.h_scalars``) — the ``.zkey``'s H bases are
  L^(2n)_(2i+1)(τ)/δ, and Σ_i p(ω_2n^(2i+1))·L^(2n)_(2i+1)(τ) = p(τ) = h(τ)·Z(τ) because p =
  a·b − c (degree < 2n) vanishes on the even points (the n domain).
* Roots of unity are ffjavascript's (5^((r−1)/n)), not blstrs' (7^…) which the backend's NTT
  uses. With ω5_n = ω7_n^k (``encoding.ffjs_index_map``), snarkjs' row j is backend row k·j mod
  n: the QAP rows are permuted once when the prover is built, the backend runs its own (i)NTT,
  the coset shift is ω5_2n itself, and the H bases are permuted so that backend index m gets
  snarkjs' base k⁻¹·m mod n. No per-proof permutation.

The five MSMs (points at infinity in A/B1/B2 are dropped first) are the ``Prover``'s, with the
``.zkey``'s C section as the private query:
  πA = α1 + Σ w_i·A_i + r·δ1;  πB = β2 + Σ w_i·B2_i + s·δ2;  B1 = β1 + Σ w_i·B1_i + s·δ1;
  πC = Σ_{i>nPublic} w_i·C_i + Σ_j h_j·H_j + s·πA + r·B1 − r·s·δ1.

On other backends ``ZKeyProver`` proves through ``Prover.prove``. On the ``cpu`` backend it runs in one process with threads instead of worker
processes. arkworks' Pippenger releases the GIL, so the calling thread does all the GIL-bound
work — decoding the bases a witness uses (those whose scalar is not 0) on first use, summing the
points at scalar 1, the H scalars (sparse products and Kronecker products) — and hands each
Pippenger to ``threads − 1`` helper threads, joining them when it is done; the helpers never
wait for the GIL, the bases never cross a pipe. The longest MSM (B in G2) starts first. B1 is
only needed as r·B1 in πC, where r·B1 − r·s·δ1 = r·(β1 + Σ_{w_i=1} B1_i) + Σ_{w_i>1} (r·w_i)·B1_i:
the last sum joins Σ w_i·C_i and Σ h_j·H_j in one Pippenger (arkworks' bucket sums are paid per
call, so one large MSM costs less than several), which follows the quotient in ``threads`` ranges
(``_g1_ranges``). The result is the same group elements as the formulas above give, so the proof
bytes are too.
"""

from __future__ import annotations

import collections
import secrets
import threading
import time
import zlib

import gmpy2
import numpy as np

from ..backend import Backend, workers
from ..curve import G1, G2
from ..field import FR
from ..fileio import atomic_write_bytes, cache_dir
from ..groth16.keys import Proof
from ..groth16.prover import PhaseTimes, Prover, ResidentBases, WitnessError
from .encoding import ge_modulus, ffjs_index_map, ffjs_root_of_unity
from .iden3 import WitnessLengthError
from .zkey import ZKey

_R = FR.modulus
_RZ = gmpy2.mpz(_R)
_MPZ_TYPE = type(_RZ)
_SCALAR_BYTES = 32


_LAST_SHARE = 0.27
"""Share of the C + r·B1 + H terms left to the thread that ran B in G2 (``_g1_ranges``)."""


def _g1_ranges(m: int, threads: int) -> list[tuple[int, int]]:
    """(lo, hi) ranges of the m terms of the C + r·B1 + H Pippenger, one MSM job each: all of
    them with one thread; else ``threads`` ranges, the last with ``_LAST_SHARE / (threads − 1)``
    of the terms and the others even.

    These terms are ready once the quotient is (H's scalars), when the calling thread is done
    with its GIL-bound work; it takes the first range at once, while the helper that runs B in
    G2 (started first) takes the last when done with it. At 2^16 on 2 cores the calling thread
    is free about 0.5 s sooner, and with 27% in the last range both end together (measured: at
    30% the helper ended about 0.1 s later, at 25% the calling thread did).
    One Pippenger over C, r·B1 and H together costs less than separate ones (arkworks' bucket
    sums are paid per call and window: at 2^16, 1.21 CPU-s as ranges of 92k and 39k terms
    against 1.27 for v2's 66k + 37k + 28k). With more threads the other helpers wait for the
    quotient too, and the ranges are smaller than that tuning assumes; 2 is what it was measured on.
    """
    if threads <= 1 or m < 2 * threads:
        return [(0, m)]
    last = int(round(m * _LAST_SHARE / (threads - 1)))
    return workers.split(m - last, threads - 1) + [(m - last, m)]


def _finite(arr: np.ndarray) -> np.ndarray:
    """Bool mask of rows that are not the point at infinity (flag 0x40)."""
    return (arr[:, 0] & 0x40) == 0


class _Jobs:
    """Named jobs run by ``helpers`` threads and, through ``help``, the calling thread.

    Jobs are taken first in, first out; ``wait`` returns their results once all are done and
    re-raises the first failure. Each job's own seconds are kept in ``seconds``.
    """

    def __init__(self, helpers: int):
        self._queue: collections.deque = collections.deque()
        self._cond = threading.Condition()
        self._pending = 0
        self._closed = False
        self.results: dict = {}
        self.seconds: dict = {}
        self.cpu_seconds: dict = {}
        self._errors: list = []
        self._threads = [threading.Thread(target=self._loop, name=f"cuzk-msm-{i}", daemon=True)
                         for i in range(helpers)]
        for t in self._threads:
            t.start()

    def put(self, name: str, fn) -> None:
        with self._cond:
            self._queue.append((name, fn))
            self._pending += 1
            self._cond.notify()

    def _take(self, block: bool):
        with self._cond:
            while not self._queue:
                if self._closed or not block:
                    return None
                self._cond.wait()
            return self._queue.popleft()

    def _run(self, job) -> None:
        name, fn = job
        t, c = time.perf_counter(), time.thread_time()
        try:
            res = fn()
        except BaseException as e:  # reported by wait()
            res = None
            self._errors.append(e)
        with self._cond:
            self.results[name] = res
            self.seconds[name] = time.perf_counter() - t
            self.cpu_seconds[name] = time.thread_time() - c
            self._pending -= 1
            self._cond.notify_all()

    def _loop(self) -> None:
        while (job := self._take(True)) is not None:
            self._run(job)

    def help(self) -> None:
        """Run queued jobs in the calling thread until the queue is empty."""
        while (job := self._take(False)) is not None:
            self._run(job)

    def wait(self) -> dict:
        """Block until every job put so far is done (helping meanwhile); return the results.

        Raises:
            the first exception a job raised.
        """
        self.help()
        with self._cond:
            while self._pending:
                self._cond.wait()
        if self._errors:
            raise self._errors[0]
        return self.results

    def close(self) -> None:
        """Drop jobs not yet started, let running ones finish, stop the helpers (idempotent)."""
        with self._cond:
            self._pending -= len(self._queue)
            self._queue.clear()
            self._closed = True
            self._cond.notify_all()
        for t in self._threads:
            t.join()


class OddCosetQuotient:
    """snarkjs' H scalars (module docstring) for a ``Prover`` over a ``.zkey``'s bases.

    Args:
        zkey: the key: its QAP coefficients (A and B; snarkjs keeps no C).
        threaded: on the cpu backend, evaluate on the odd coset by cyclic convolutions
            (``h_scalars``) instead of NTTs.

    Attributes:
        n: the domain size; k: ``ffjs_index_map(n)`` (snarkjs row j is backend row k·j mod n);
        shift: ω5_2n, the odd coset's generator.
    """

    def __init__(self, zkey: ZKey, threaded: bool):
        self.zkey, self.threaded = zkey, threaded
        n = zkey.domain_size
        self.n = n
        self.k = ffjs_index_map(n)
        self.shift = ffjs_root_of_unity(2 * n)
        self._qap: tuple | None = None
        self._odd = None  # the even-domain → odd-coset convolution, built on first use

    @property
    def A(self):
        """The QAP's A as a CSR matrix with rows in the backend's domain order (built on first use)."""
        return self._matrices()[0]

    @property
    def B(self):
        """The QAP's B, as ``A``."""
        return self._matrices()[1]

    def _matrices(self) -> tuple:
        if self._qap is None:
            n, k = self.n, self.k
            remap = lambda rows: (rows * k) % n  # noqa: E731  snarkjs row j → backend row k·j
            self._qap = (self.zkey.qap_matrix(0, remap), self.zkey.qap_matrix(1, remap))
        return self._qap

    def h_scalars(self, bk: Backend, wd, times: PhaseTimes | None = None, since: float | None = None):
        """H scalars in the backend's order (device array of length n) for a device witness
        (with ``times``: adds the "qap" seconds since ``since``).

        p = A·B − C vanishes on the n-domain (c = a·b there), so p = Q·Z with Z = x^n − 1, and
        on the odd coset x^n = −1, Z = −2: snarkjs' scalars p(x) are −2·Q(x).

        On the cpu backend: the odd-coset values of a polynomial of degree < n are a fixed
        cyclic convolution of its even-domain values (``_odd_coset_kernel``), so
        h = (a ⊛ g)·(b ⊛ g) − (a·b) ⊛ g: three cyclic Kronecker products
        (``CPUBackend.cyclic_convolution``: the kernel packed once, each product one call of GMP's
        mpn_mulmod_bnm1) instead of snarkjs' six NTTs; at 2^16 0.09 s a convolution, 0.38 s for h
        with the sparse products (0.66 s with full GMP products, as v2 did). Elsewhere:
        ``compute_h`` gives Q's coefficients and one NTT of them twisted by ω_2n^i evaluates Q on
        the odd coset.
        """
        n = self.n
        a = bk.spmv(self.A, wd)
        b = bk.spmv(self.B, wd)
        if self.threaded and n.bit_length() - 1 <= 24:
            if self._odd is None:
                self._odd = bk.cyclic_convolution(_odd_coset_kernel_bytes(n, self.shift))
            conv = self._odd
            h = np.mod(conv(a) * conv(b) - conv(bk.mul(a, b)), _RZ)
        else:
            q = bk.pad(bk.compute_h(a, b, bk.mul(a, b), n), n)
            h = bk.scale(bk.ntt(bk.mul(q, bk.powers(self.shift, n))), _R - 2)
        if times is not None:
            bk.synchronize()
            times.add("qap", time.perf_counter() - since)
        return h


class ZKeyProver(ResidentBases):
    """Proves circom witnesses with a snarkjs ``.zkey`` on a cuzk backend; bases stay resident.

    A ``Prover`` (``Prover.from_contexts``) over the key's bases with ``OddCosetQuotient`` does
    the work; on the cpu backend the MSMs are scheduled on threads of this process instead
    (module docstring).

    Args:
        zkey: the key (``read_zkey`` or ``setup_zkey``).
        backend: where the sparse products, NTTs and MSMs run. On ``cpu`` the MSMs run on
            ``backend.threads`` threads of this process (module docstring); the backend's
            worker processes are not used.

    Raises:
        ValueError: domain size 2n exceeds Fr's 2-adicity.
    """

    def __init__(self, zkey: ZKey, backend: Backend):
        self.zkey, self.backend = zkey, backend
        n = zkey.domain_size
        self.threaded = getattr(backend, "name", None) == "cpu" and hasattr(backend, "cyclic_convolution")
        self.quotient = OddCosetQuotient(zkey, self.threaded)
        self.n, self.k = n, self.quotient.k
        kinv = pow(self.k, -1, n) if n > 1 else 0
        self.mask_a = _finite(zkey.a)
        self.mask_b = _finite(zkey.b_g1) | _finite(zkey.b_g2)
        t = time.perf_counter()
        perm = (np.arange(n, dtype=np.int64) * kinv) % n
        if self.threaded:
            ctx = lambda g, arr: backend.msm_context(g, arr, local=True)  # noqa: E731
            self.ctx = {
                "b_g2": ctx(G2, zkey.b_g2[self.mask_b]),
                "b_g1": ctx(G1, zkey.b_g1[self.mask_b]),
                "c": ctx(G1, zkey.c),
                "a": ctx(G1, zkey.a[self.mask_a]),
            }
            self.ctx["h"] = ctx(G1, zkey.h[perm])
        else:
            self.ctx = {
                "a": backend.msm_context(G1, zkey.a[self.mask_a]),
                "b_g1": backend.msm_context(G1, zkey.b_g1[self.mask_b]),
                "b_g2": backend.msm_context(G2, zkey.b_g2[self.mask_b]),
                "c": backend.msm_context(G1, zkey.c),
                "h": backend.msm_context(G1, zkey.h[perm]),
            }
        ni = zkey.n_public + 1
        self.prover = Prover.from_contexts(backend, zkey, self.ctx, ni, zkey.n_vars - ni, self.mask_a, self.mask_b,
                                           self.quotient, private="c")
        self.times = self.prover.times
        self.times.add("load_bases", time.perf_counter() - t)

    def h_scalars(self, wd):
        """``OddCosetQuotient.h_scalars`` of this key (device array of length n, backend order)."""
        return self.quotient.h_scalars(self.backend, wd)

    def prove(self, witness, r: int | None = None, s: int | None = None) -> tuple[Proof, list[int]]:
        """Prove one full circom witness.

        Args:
            witness: ``(n_vars,)`` ints in wire order, witness[0] == 1 (``read_wtns``).
            r, s: blinding scalars (fresh random by default; fix both only in tests).

        Returns:
            (proof, public signals) — the signals are witness[1 : 1 + n_public], as snarkjs'
            ``public.json`` lists them.

        Raises:
            WitnessLengthError: wrong number of values.
            WitnessError: witness[0] ≠ 1 or a value outside [0, r).
            (A witness that violates the circuit gives a proof that does not verify; the key
            holds no C matrix to check it against — use ``CircomR1CS.check``.)
        """
        zk = self.zkey
        w = np.asarray(witness, dtype=object)
        if w.shape != (zk.n_vars,):
            raise WitnessLengthError("<witness>", None, f"witness has {w.size} values, the key needs {zk.n_vars}", "wtns")
        if not all(type(x) is _MPZ_TYPE for x in w):  # read_wtns gives mpz already
            w = np.fromiter((gmpy2.mpz(int(x)) for x in w), dtype=object, count=len(w))
        if w[0] != 1:
            raise WitnessError("witness[0] (ONE) must be 1")
        public = [int(x) for x in w[1 : zk.n_public + 1]]
        if self.threaded:
            try:  # the MSMs' transport form; a negative value or one ≥ 2^256 does not fit
                wb = np.frombuffer(b"".join(v.to_bytes(_SCALAR_BYTES, "little") for v in w), dtype=np.uint8)
            except OverflowError:
                raise WitnessError("witness value outside [0, r)") from None
            wb = wb.reshape(len(w), _SCALAR_BYTES)
            if ge_modulus(wb.view("<u8"), _R).any():
                raise WitnessError("witness value outside [0, r)")
            return self._prove_threaded(w, wb, r, s), public
        if min(w) < 0 or max(w) >= _R:
            raise WitnessError("witness value outside [0, r)")
        ni = zk.n_public + 1
        return self.prover.prove(w[:ni], w[ni:], r, s), public

    def _prove_threaded(self, w: np.ndarray, wb: np.ndarray, r: int | None, s: int | None) -> Proof:
        zk, tm = self.zkey, self.times
        t0 = time.perf_counter()
        rr = secrets.randbelow(_R) if r is None else r % _R
        ss = secrets.randbelow(_R) if s is None else s % _R
        jobs = _Jobs(max(0, self.backend.threads - 1))
        try:
            # This thread does all the GIL-bound work (decoding bases, summing the points at
            # scalar 1, the quotient); the helpers only run Pippengers, which release the GIL, so
            # they never wait for it. B in G2, about a third of all the MSM work, goes first.
            t = time.perf_counter()
            kb = wb[self.mask_b].tobytes()
            plan = self._plan("b_g2", kb, big_only=True)  # the helper starts sooner; the ones below
            jobs.put("b_g2", lambda: workers.msm_run(G2, plan))
            ones_b2 = workers.msm_ones(G2, self._plan_points("b_g2", kb), kb)
            plan_cb, ones_b1 = self._plan_c_and_r_b1(w, wb, rr)
            m_a = workers.msm_run(G1, self._plan("a", wb[self.mask_a].tobytes()))
            tm.add("msm_plan", time.perf_counter() - t)
            t = time.perf_counter()
            h = self.quotient.h_scalars(self.backend, w)
            hb = b"".join(v.to_bytes(_SCALAR_BYTES, "little") for v in h)
            tm.add("qap", time.perf_counter() - t)
            t = time.perf_counter()
            # C, r·B1 and H in one Pippenger, cut into ranges (``_g1_ranges``)
            acc_h, pts, scs = self._plan("h", hb)
            acc = plan_cb[0] + acc_h
            pts, scs = plan_cb[1] + pts, plan_cb[2] + scs
            parts = _g1_ranges(len(pts), self.backend.threads)
            for i, (lo, hi) in enumerate(parts):
                piece = (acc if i == 0 else G1.identity(), pts[lo:hi], scs[lo:hi])
                jobs.put(f"c_h{i}", lambda p=piece: workers.msm_run(G1, p))
            del pts, scs
            tm.add("msm_plan", time.perf_counter() - t)
            t = time.perf_counter()
            res = jobs.wait()
            tm.add("msm_wait", time.perf_counter() - t)
        finally:
            jobs.close()
        for name, sec in jobs.seconds.items():
            tm.add(f"msm_{name}", sec)
        t = time.perf_counter()
        # πC = Σ w·C + Σ h·H + s·πA + r·B1 − r·s·δ1, with
        # r·B1 = r·(β1 + ones_B1 + s·δ1) + Σ_big (r·w)·B1: the r·s·δ1 terms cancel, and
        # Σ_big (r·w)·B1 joined Σ w·C and Σ h·H in one Pippenger (jobs c_h*)
        m_ch = G1.sum([res[f"c_h{i}"] for i in range(len(parts))])
        g_a = zk.alpha_g1 + m_a + G1.mul(zk.delta_g1, rr)
        g_b = zk.beta_g2 + ones_b2 + res["b_g2"] + G2.mul(zk.delta_g2, ss)
        g_c = m_ch + G1.mul(g_a, ss) + G1.mul(zk.beta_g1 + ones_b1, rr)
        tm.add("combine", time.perf_counter() - t)
        tm.add("prove", time.perf_counter() - t0)
        return Proof(g_a, g_b, g_c)

    def _plan_points(self, name: str, data: bytes) -> list:
        """Context ``name``'s points, decoded where these scalars (32-byte LE) are not 0."""
        return self.ctx[name].load(np.frombuffer(data, dtype=np.uint8).reshape(-1, _SCALAR_BYTES).any(axis=1))

    def _plan(self, name: str, data: bytes, big_only: bool = False) -> tuple:
        """``workers.msm_plan`` of context ``name`` for these scalars (decoding what they use;
        with big_only, only the points at scalars above 1, and their plan leaves the ones out)."""
        c = self.ctx[name]
        if big_only:
            k = np.frombuffer(data, dtype=np.uint8).reshape(-1, _SCALAR_BYTES)
            pts = c.load(k[:, 1:].any(axis=1) | (k[:, 0] > 1))
        else:
            pts = self._plan_points(name, data)
        return workers.msm_plan(c.group, [(pts, data)], ones=not big_only)

    def _plan_c_and_r_b1(self, w: np.ndarray, wb: np.ndarray, rr: int) -> tuple:
        """(plan of Σ_{i>nPublic} w_i·C_i + Σ_{w_i>1} (r·w_i)·B1_i, Σ_{w_i=1} B1_i) over the B wires."""
        ctx = self.ctx
        kb = wb[self.mask_b]
        high = kb[:, 1:].any(axis=1)
        ones = ~high & (kb[:, 0] == 1)
        big = np.flatnonzero(high | (kb[:, 0] > 1))
        pb1 = ctx["b_g1"].load(ones)
        ones_b1 = G1.sum([pb1[i] for i in np.flatnonzero(ones).tolist()])
        rb = np.zeros_like(kb)
        if len(big):
            r = gmpy2.mpz(rr)
            scaled = b"".join((v * r % _RZ).to_bytes(_SCALAR_BYTES, "little") for v in w[self.mask_b][big])
            rb[big] = np.frombuffer(scaled, dtype=np.uint8).reshape(len(big), _SCALAR_BYTES)
        pb1 = ctx["b_g1"].load(rb.any(axis=1))
        kc = wb[self.zkey.n_public + 1 :]
        pc = ctx["c"].load(kc.any(axis=1))
        return workers.msm_plan(G1, [(pc, kc.tobytes()), (pb1, rb.tobytes())]), ones_b1


def _batch_inverse(x: np.ndarray) -> np.ndarray:
    """Inverses mod r of a power-of-two-length int array of non-zero values: a product tree up
    and down (3 vectorized multiplications per element, one modular inversion)."""
    levels = [x]
    while len(levels[-1]) > 1:
        v = levels[-1]
        levels.append(np.mod(v[0::2] * v[1::2], _RZ))
    inv = np.array([gmpy2.invert(levels[-1][0], _RZ)], dtype=object)
    for v in reversed(levels[:-1]):
        out = np.empty(len(v), dtype=object)
        out[0::2] = np.mod(inv * v[1::2], _RZ)
        out[1::2] = np.mod(inv * v[0::2], _RZ)
        inv = out
    return inv


def _odd_coset_kernel(n: int, zeta: int) -> np.ndarray:
    """g with (a ⊛ g)[m] = A(ζ·ω^m) for A of degree < n with A(ω^k) = a_k (ω = FR.root_of_unity(n),
    the backend's order; ζ a primitive 2n-th root, so (ζω^m)^n = −1).

    The Lagrange basis of the n-domain at x = ζω^m is L_k(x) = (x^n − 1)·ω^k / (n·(x − ω^k))
    = −2 / (n·(ζ·ω^(m−k) − 1)), a function of m − k: g_d = −2 / (n·(ζ·ω^d − 1)).
    """
    x = FR.powers(FR.root_of_unity(n), n, start=zeta) - 1
    return np.mod(_batch_inverse(np.mod(x, _RZ)) * gmpy2.mpz((_R - 2) * pow(n, -1, _R) % _R), _RZ)


_KERNEL_MAGIC = b"cuzk odd-coset kernel v1\n"


def _odd_coset_kernel_bytes(n: int, zeta: int) -> bytes:
    """``_odd_coset_kernel(n, ζ)`` as 32-byte LE values, kept in ``$CUZK_CACHE_DIR/snarkjs-odd-coset``
    (about 0.1 s to compute at 2^16, a millisecond to load). A file whose magic, ζ, length or
    CRC-32 do not match is ignored and rewritten; a cache that cannot be written costs nothing."""
    path = cache_dir() / "snarkjs-odd-coset" / f"n{n}"
    head = _KERNEL_MAGIC + zeta.to_bytes(32, "little")
    try:
        data = path.read_bytes()
        body = data[len(head) + 4 :]
        if (data[: len(head)] == head and len(body) == 32 * n
                and int.from_bytes(data[len(head) : len(head) + 4], "little") == zlib.crc32(body)):
            return body
    except OSError:
        pass
    body = b"".join(v.to_bytes(_SCALAR_BYTES, "little") for v in _odd_coset_kernel(n, zeta))
    try:
        atomic_write_bytes(path, head + zlib.crc32(body).to_bytes(4, "little") + body)
    except OSError:
        pass
    return body


def prove_zkey(zkey: ZKey, witness, backend: Backend, r: int | None = None,
               s: int | None = None) -> tuple[Proof, list[int]]:
    """One-shot proof (starts and stops a :class:`ZKeyProver`); see ``ZKeyProver.prove``."""
    with ZKeyProver(zkey, backend) as p:
        return p.prove(witness, r, s)


__all__ = ["OddCosetQuotient", "ZKeyProver", "prove_zkey"]
