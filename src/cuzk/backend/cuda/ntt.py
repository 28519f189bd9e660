"""NTTs of the ``cuda`` backend (``ntt.cu``): ``ntt`` (sizes 2^0..2^27), ``coset_ntt`` and
``compute_h`` with its schedules under a device-memory limit.

The NTT is decimation in frequency in shared memory, up to 10 radix-2 stages per launch on blocks
of 1024 elements (3 launches at 2^20..2^26), natural order in and out (the last pass writes to the
bit-reversed index), one stage per shared-memory round trip (``ntt.cu``: ``ntt_pass``). Twiddles
``ω^j`` for each size are computed once on the GPU and cached. ``NTT_VARIANT`` picks the pass
kernel and block size among ``NTT_VARIANTS`` (radix-4 and radix-8 rounds, blocks of 2^7..2^12
elements; same values, same flags, same order), ``NTT_VARIANT_BY_LOG`` per size (2^10..2^18: the
radix-2 pass with each stage's twiddle loaded a stage ahead on blocks of 2^7 or 2^8 elements;
2^19..2^20: radix-4 on blocks of 2^8; from 2^21: radix-4 at 3 blocks per SM).
Input factors (coset powers) and output factors (n⁻¹, 1/Z) are fused into the first and last
pass. When the whole transform does not fit, it runs split (four-step, in blocks:
``plan.ntt_memory_plan``); ``compute_h`` picks the first of ``plan.H_SCHEDULES`` that fits
(fused, staged, split), same values.
"""

from __future__ import annotations

import functools
import threading
from typing import NamedTuple

import numpy as np

from ...field import FR
from .plan import _ntt_plan, compute_h_bus_arrays, _stage_step, compute_h_device_bytes, compute_h_memory_plan, ntt_device_bytes, ntt_memory_plan, ntt_split
from .launch import DriverLaunch
from .runtime import DeviceRuntime, _grid, _guard, _i32, _kernel, _R, _u64

MAX_LOG_NTT = 27
"""Largest NTT size handled, as log2 (2^27 is the Filecoin 32 GiB sector domain)."""

# NTT pass flags (must match ntt.cu)
_NTT_PRE, _NTT_PRE_LO, _NTT_LAST, _NTT_INV, _NTT_POST, _NTT_POST_LO, _NTT_SUB = 1, 2, 4, 8, 16, 32, 64

_NTT_THREADS = 256
"""Threads per block of the pass kernels at most (their ``__launch_bounds__``): one per butterfly
(``ntt_pass``) or per group of 2^radix_log elements (the others, looping when there are more)."""


class NTTVariant(NamedTuple):
    """A pass kernel (of ``module``) and its plan: ``_ntt_plan(k, block_log, max_t)``, each
    thread running the butterflies of a group of 2^radix_log elements per shared-memory round."""

    module: str
    kernel: str
    radix_log: int
    block_log: int
    max_t: int


NTT_VARIANTS: dict[str, NTTVariant] = {
    "old": NTTVariant("ntt.cu", "ntt_pass", 1, 10, 8),            # 64 registers, no spills
    "r8": NTTVariant("ntt_radix.cu", "ntt_pass_r8", 3, 11, 9),    # 162 registers, no spills: 1 block / SM
    "r8-4k": NTTVariant("ntt_radix.cu", "ntt_pass_r8", 3, 12, 10),
    "r8-1k": NTTVariant("ntt_radix.cu", "ntt_pass_r8", 3, 10, 8),  # 128 threads: 2 blocks / SM
    "r8c": NTTVariant("ntt_radix.cu", "ntt_pass_r8c", 3, 11, 9),  # 128 registers, no spills: 2 blocks / SM
    "r8c-1k": NTTVariant("ntt_radix.cu", "ntt_pass_r8c", 3, 10, 8),
    "r4": NTTVariant("ntt_radix.cu", "ntt_pass_r4", 2, 11, 9),    # 100 registers, no spills: 2 blocks / SM
    "r4-1k": NTTVariant("ntt_radix.cu", "ntt_pass_r4", 2, 10, 8),
    "r4o3": NTTVariant("ntt.cu", "ntt_pass_r4o3", 2, 11, 9),        # 80 registers, no spills: 3 blocks / SM
    "old-256": NTTVariant("ntt.cu", "ntt_pass", 1, 8, 8),          # small sizes: 4x the blocks of old
    "pf-256": NTTVariant("ntt.cu", "ntt_pass_pf", 1, 8, 8),      # old-256, twiddles loaded a stage ahead: 70 registers
    "pf-128": NTTVariant("ntt.cu", "ntt_pass_pf", 1, 7, 7),      # blocks of 2^7: twice the blocks of pf-256
    "pf-128-late": NTTVariant("ntt.cu", "ntt_pass_pf_late", 1, 7, 7),  # the next pass launched as blocks end
    "r4o3-256": NTTVariant("ntt.cu", "ntt_pass_r4o3", 2, 8, 8),
    "r4o3-512": NTTVariant("ntt.cu", "ntt_pass_r4o3", 2, 9, 9),
    "r4o3-512/7": NTTVariant("ntt.cu", "ntt_pass_r4o3", 2, 9, 7),   # 2^27: 4 passes, runs of 8 elements
}
"""The NTT pass variants by name (registers and spills: nvcc 13.0 ``-arch=sm_90 -Xptxas -v``;
blocks / SM at 256 threads by registers). ``ntt_radix.cu`` (r8, r8c, r4) compiles in about 15 s
(nvcc), once per process or CuPy kernel cache; r4o3 is in ``ntt.cu``. Every variant runs its passes before the last in one
pass buffer, which ``plan.ntt_device_bytes`` counts from 2^8 up (blocks are at least 2^7 elements:
a single pass below). The *-256 variants (blocks of 2^8 elements, so four times the blocks
of old's 2^10) keep more of the device busy where a transform is small; r4o3-512 (blocks of 2^9,
up to 9 stages a pass) is the fastest from 2^21 to 2^25, r4o3-512/7 (at most 7) at 2^27, where
r4o3-512's passes of 9 stages leave runs of one element. Blocks of more than 2^10
elements take over 48 KiB of shared memory (32 B per element), opted in per kernel; 2^12 (128 KiB)
leaves one block per SM."""

NTT_VARIANT = "old"
"""The variant ``_ntt`` runs (a key of ``NTT_VARIANTS``), read at each call."""

NTT_VARIANT_BY_LOG: dict[int, str] = {10: "pf-256", **dict.fromkeys(range(11, 15), "pf-128"), 15: "pf-256", 16: "pf-256", 17: "pf-128-late",
                                      18: "pf-128", 19: "r4o3-256", 20: "r4o3-256",
                                      **dict.fromkeys(range(21, 26), "r4o3-512"), 26: "r4o3-256", 27: "r4o3-512/7"}
"""Per transform length 2^k (of a row, in batches), a variant that overrides ``NTT_VARIANT``:
the fastest side by side on the H100 with outputs equal to old's (benchmarks/results/
2026-12-05-stop47, calls 2 and 3; ms per transform back to back, Python-launched):

===== ======= ======= ========= ========= =========
2^k   old     r4o3    r4o3-256  r4o3-512  old-256
===== ======= ======= ========= ========= =========
16    0.0485  .       0.0497    0.0502    0.0501
18    0.0807  .       0.0725    0.0697    0.0722
20    0.3049  0.2665  0.2471    0.2511    0.2726
21    0.5986  0.5400  0.5032    0.4886    0.5455
22    1.1845  1.0760  1.0402    0.9922    1.1061
24    4.9263  4.3828  4.2418    4.1993    4.7989
25    10.124  9.1240  8.8200    8.5489    9.9327
26    20.978  18.690  18.005    18.661    20.731
27    44.282  38.527  38.530    39.568    43.226
===== ======= ======= ========= ========= =========

(2^16..2^20: call 2's r4o3@9:9 and @8:8 runs, the same kernels; 2^20 r4o3 from call 1.) At 2^27
(call 7) r4o3-512/7 37.43 against r4o3 38.26 ms, and the fused H step at 2^27 with it 0.2456 against
0.2483 s (alternated, equal H; benchmarks/ntt_fast/h_variants.py); at 2^26 it was not faster than
r4o3-256 (18.30 / 17.88). At 2^16
the Python launches set the back-to-back time: as a CUDA graph replay of 200 transforms, old 0.0428
against old-256 0.0246 ms (2^17 0.0475 / 0.0391; 2^18 0.0789 / r4o3-256 0.0659). Earlier, r4o3
against old on the H200: 2^20 0.313 / 0.303, 2^24 5.164 / 5.091, 2^27 46.56 / 45.25 (2026-12-05-
h200-stop44/call2). Bigger blocks leave too few blocks below 2^21. r4o3 is in ``ntt.cu`` (about 3 s
of its compile). Stop 52 (H100, calls 3 and 4, back to back / graph replay, ms): at 2^17 none of
old@9:9, old@9:8, r4o3-256, r4o3-512, r4o3@9:8 beat old-256 (0.0418 / 0.0390), nor two passes
with a last one on blocks of 2^9 ((16, 8, 0), (8, 9, 0): 0.0421 / 0.0404); at 2^16 that split
((15, 7, 1), (8, 9, 0)) gave 0.0263 / 0.0250 against 0.0260 / 0.0247.

Stop 53 (H100, 2026-12-06-stop53 calls 1-3; ms back to back into preallocated buffers, two runs,
sppark NN in the same calls): pf-128 and pf-256 (``ntt_pass_pf``, old's pass with each stage's
twiddle loaded a stage ahead) at 2^11..2^18, with ``NTT_OVERLAP_LOGS``' launches where listed.
2^11..2^14 pf-128 0.0107..0.0127 (old 0.0299..0.0370, sppark 0.0163..0.0191; dependent launches);
2^15 pf-256 0.0149 (old-256 0.0178, pf-128 0.0163, sppark 0.0203; dependent); 2^16 pf-256 0.0213
(old-256 0.0243, sppark 0.0259; dependent); 2^17 pf-128 0.0382 / 0.0376 (pf-256 0.0390 / 0.0385,
old-256 0.0422 / 0.0417, sppark 0.0406; plain launches); 2^18 pf-128 0.0640 / 0.0641 (r4o3-256
0.0702 / 0.0687 plain, 0.0876 dependent; sppark 0.0735; dependent); 2^19 r4o3-256 0.1268 / 0.1270
against pf-128 0.1273 / 0.1272 (dependent). As one graph replay (no launch gaps): 2^16 pf-256
0.0215 against sppark 0.0237, 2^17 pf-128 0.0351 against 0.0384. Call 4: 2^10 pf-256 0.0179
against old 0.0250 (one pass; pf-128 0.0183); below 2^10 old's single pass stays (2^8 0.0106
against pf-128's two passes 0.0179, 2^9 0.0132 / 0.0179). Tried and removed (call 4): the radix-4
pass with the next round's twiddles held in registers (126 registers, 16 B spilled) or prefetched
into L1 (``prefetch.global.L1``), slower than r4o3 at every size 2^19..2^27 (2^27 39.2 and 39.2
against r4o3-512/7 37.4 ms; the fused H step 0.2538 and 0.2546 against 0.2447 s). Call 7 (dependent
launches at every size, two runs): pf-128-late (the next pass's launch allowed as each block ends,
``ntt.cuh`` NTT_PASS_KERNEL_LATE) at 2^17 0.0343 / 0.0343 against pf-128 0.0404 / 0.0403 (plain
launches in call 3: 0.0382 / 0.0376; sppark 0.0404); elsewhere the late trigger tied or lost (2^16
pf-256 0.0213 against 0.0226 / 0.0235 late; 2^18 pf-128 0.0641 / 0.0642 against 0.0644 / 0.0640;
r4o3-256 at 2^19..2^21 within 0.3 %)."""

NTT_DRIVER_LAUNCH = True
"""``_ntt`` launches its passes through the driver with argument blocks built once per shape
(``launch.DriverLaunch``), else through CuPy's ``RawKernel`` call; read at each call. Side by
side on an H100 (benchmarks/results/2026-12-06-stop52, call 3; ``benchmarks/ntt_fast/launch.py``),
``CUDABackend.ntt`` back to back: 2^16 0.0268 against 0.0331 ms (host 26.5 against 33.1 µs a
call), from 2^17 equal within 1 % (call 2: 2^17 0.0610 against 0.0872 on a slower host). Tried
and removed (call 1): every pass in one launch, later passes' blocks waiting on a counter of the
pass before (a ticket per block, no cooperative launch): the host saved a launch, but the
waiting blocks slowed the device, 2^16 0.0364 against 0.0262 ms and 2^18 0.0926 against 0.0696
into preallocated buffers, 1-3 % from 2^19."""

NTT_OVERLAP_LOGS: frozenset = frozenset(range(11, 22))
"""Transform lengths 2^k (of a row) whose passes are launched to begin before the kernel ahead of
them ends (programmatic dependent launch: ``launch.DriverLaunch.after``; every pass kernel waits
for that kernel before it touches memory, ``ntt.cuh`` NTT_GRID_DEPEND); needs
``NTT_DRIVER_LAUNCH`` and a device of compute capability 9.0 or later (the wait is compiled
there only); read at each call. Every size from 2^11 to 2^21 now, with the per-size kernels
below; with stop 52's kernels (old-256, r4o3-256) it was faster into preallocated buffers in both
runs on an H100 (benchmarks/results/2026-12-06-stop52, calls 5 and 6, ms back to back, with /
without) at: 2^16 0.0242 / 0.0258 and 0.0244 / 0.0262 (sppark 0.0263, 0.0264), 2^19 0.1272 / 0.1308
and 0.1277 / 0.1325, 2^20 0.2415 / 0.2478 and 0.2425 / 0.2496, 2^21 0.4833 / 0.4879 and 0.4854 /
0.4901. Not at 2^18 (0.0879 / 0.0690 and 0.0880 / 0.0698: the next pass's 1,024 blocks are all
resident early and slow the one ahead) nor 2^17 (0.0442 / 0.0415, then 0.0395 / 0.0423); within
0.5 % from 2^22. The launch costs the host more (ctypes' ``cuLaunchKernelEx``: about 1 µs a pass).
With the pf variants (stop 53, calls 2 and 3, with / without): 2^11..2^14 pf-128 0.0107..0.0127 /
0.0119..0.0145, 2^15 pf-256 0.0149 / 0.0169, 2^16 0.0213 / 0.0233, 2^18 pf-128 0.0640 / 0.0696; but
2^17 pf-128 0.0404 / 0.0382 (pf-256 0.0418 / 0.0390), in both runs: there pf-128-late (the next
pass allowed to launch only as each block ends) takes it, 0.0343 (call 7)."""

ALL_LOGS: frozenset = frozenset(range(MAX_LOG_NTT + 1))
"""Every transform length 2^k the NTT takes (k ≤ ``MAX_LOG_NTT``): the launch settings' "everywhere"."""

NTT_OVERLAP_FIRST_LOGS: frozenset = ALL_LOGS - {16}
"""Of ``NTT_OVERLAP_LOGS``, the lengths 2^k whose first pass is launched dependent too (on the
kernel ahead of the transform, whatever it is); elsewhere only the later passes are. Not at 2^16:
there the product call (``ntt``) is host-bound, and a dependent first launch costs the host more;
H100, benchmarks/results/2026-12-06-stop54/call5 (``first_pass.py``, two processes), product call
/ preallocated ms back to back, host µs a product call: every pass dependent 0.0261 / 0.0212, 25.9
and 0.0258 / 0.0210, 25.7; all but the first 0.0226 / 0.0223, 22.5 and 0.0223 / 0.0220, 22.1; none
0.0239 / 0.0234, 23.5 (sppark 0.0255 in that call). At 2^14, 2^15, 2^17 and 2^18 every pass
dependent was fastest both ways (2^17: 0.0342 against 0.0358 and 0.0386)."""

NTT_SCRATCH_ELEMS = 1 << 18
"""``_ntt`` without a ``tmp`` takes the pass buffer of a transform of up to this many elements
(rows·n; 8 MiB) from one buffer kept per stream and thread (``_pass_buffer``: the largest asked
for so far, released at ``close``) instead of allocating one at each call: at the small sizes a
product call's two allocations cost the host more than the kernels take (2^16: ``cp.empty_like``
9.6 µs of a 45.6 µs call against 21 µs of kernels, stop 53 call 5, H100 host). Call 6 (another
H100 host), ``CUDABackend.ntt`` back to back with driver launches, kept / allocated: 0.0222 /
0.0238 ms at 2^10..2^13 (host 22.1 / 23.6 µs a call), 2^15 0.0223 / 0.0238, 2^16 equal (0.0238),
from 2^17 within 0.5 %. 0: allocate each time. Read at each call."""

_SCRATCH_KEPT = 8   # pass buffers kept (``_pass_buffer``): 64 MiB at most

_SMEM_OPTED: dict[tuple[str, str, int], int] = {}
"""Dynamic shared-memory bytes each pass kernel (module, name, device) was allowed so far."""


def _pass_kernel(cp, var: NTTVariant, plan):
    """``var``'s kernel (a CuPy RawKernel), allowed the dynamic shared memory of ``plan``'s
    largest block (over the 48 KiB default: opted in once per kernel, size and device)."""
    fn = _kernel(var.module, var.kernel)
    smem = max(1 << (t + c) for _, t, c in plan) * 32
    key = (var.module, var.kernel, cp.cuda.runtime.getDevice())
    if smem > 48 * 1024 and _SMEM_OPTED.get(key, 0) < smem:
        fn.max_dynamic_shared_size_bytes = smem   # cuFuncSetAttribute on this device's function
        _SMEM_OPTED[key] = smem
    return fn


def pass_threads(E: int, radix_log: int) -> int:
    """Threads of a pass block of E elements for a kernel of groups of 2^radix_log elements: one
    per group, at most ``_NTT_THREADS`` (more groups: a thread loops)."""
    return max(1, min(_NTT_THREADS, E >> radix_log))


def _factor_args(f, flag: int, lo_flag: int, tw) -> tuple:
    """(flags, hi, lo, m) of a pass for the factor tables f (a ``_factor_tables`` triple or None):
    ``flag``, with ``lo_flag`` when f has a lo table; ``tw`` fills the unused table slots."""
    if f is None:
        return 0, tw, tw, 0
    return flag | (lo_flag if f[1] is not None else 0), f[0], tw if f[1] is None else f[1], f[2]


def h_factors(m: int, n: int) -> tuple:
    """compute_h's three factors f(i) = c·x^i for a domain of m = 2^k elements (Z(x) = x^n − 1,
    g = ``FR.generator``), as (x, c) pairs of ints: m⁻¹·g^i into the coset (the last pass of each
    input's inverse NTT), m⁻¹·Z(g)⁻¹·g^(−i) out of it (the last pass of the product's coset
    inverse NTT) and m⁻¹·Z(g)⁻¹ for c's coefficients.

    Why c takes one inverse NTT: on the coset Z is the constant Z(g) = g^n − 1, so
    h = coset-iNTT(A·B − C)/Z(g) = (coset-iNTT(A·B) − coset-iNTT(C))/Z(g), and C has degree below
    m: the coset inverse NTT of its coset evaluations is its coefficients, the inverse NTT of c.
    Six NTTs of m, not seven (bellperson's ``groth16::prover`` evaluates c on the coset too).
    """
    g = FR.generator
    minv = pow(m, -1, _R)
    zinv = pow(pow(g, n, _R) - 1, -1, _R)
    return (g, minv), (pow(g, -1, _R), minv * zinv % _R), (1, minv * zinv % _R)


SMALL_NTT_BYTES = 64 << 20
"""Device bytes (``ntt_device_bytes``) up to which ``ntt``/``coset_ntt`` skip the memory queries
when the pool has no limit: a device-memory query and the pool's counters cost the host more than
a small transform's kernels (stop 48: ``benchmarks/ntt_fast/overhead.py``). Read at each call."""


@functools.cache
def _fits(n: int, twiddles: bool, small: int) -> bool:
    """Whether ``ntt_device_bytes(n, 0, twiddles)`` ≤ ``small``: remembered, as the product call's
    host path repeats it."""
    return ntt_device_bytes(n, 0, twiddles) <= small


class NTTOps(DeviceRuntime):
    """NTT, coset NTT and ``compute_h`` of ``CUDABackend`` (a mixin), with the factor tables and
    twiddles they cache (``_tables``, ``_tw``)."""

    def _factor_tables(self, x: int, c: int, k: int):
        """Tables giving f(i) = c·x^i for i < 2^k as hi[i >> m]·lo[i & (2^m−1)] (device, cached).

        Returns (hi, lo or None, m); with x = 1, lo is None and m = k (hi = [c]).
        """
        key = (x % _R, c % _R, k)
        t = self._tables.get(key)
        if t is None:
            self._own_chunks()
            x, c = key[0], key[1]
            if x == 1:
                t = (self._const(c), None, k)
            else:
                m = (k + 1) // 2
                lo = [1] * (1 << m)
                for i in range(1, len(lo)):
                    lo[i] = lo[i - 1] * x % _R
                step = pow(x, 1 << m, _R)
                hi = [c] * (1 << (k - m))
                for i in range(1, len(hi)):
                    hi[i] = hi[i - 1] * step % _R
                t = (self._upload_mont_host(hi), self._upload_mont_host(lo), m)
            if len(self._tables) > 64:
                self._tables.clear()
                self._ntt_launches.clear()   # their arguments hold the tables
            self._tables[key] = t
        return t

    def _powers(self, x: int, c: int, n: int):
        """Device array [c·x^i for i < n]."""
        out = self.cp.empty((n, 4), dtype=self.cp.uint64)
        if n == 0:
            return out
        k = max(1, (n - 1).bit_length())
        hi, lo, m = self._factor_tables(x, c, k)
        if lo is None:
            lo, m = self._const(1), 0
        self._launch_ew("fr_powers2", n, hi, lo, _i32(m), out)
        return out

    # --- NTT --------------------------------------------------------------------------------

    def _twiddles(self, k: int):
        """[ω^j for j < 2^(k−1)], ω = FR.root_of_unity(2^k), on the device (cached per size)."""
        tw = self._tw.get(k)
        if tw is None:
            self._own_chunks()
            tw = self._powers(FR.root_of_unity(1 << k), 1, max(1, 1 << (k - 1)))
            self._tw[k] = tw
        return tw

    @staticmethod
    def _check_ntt_size(n: int) -> int:
        if n < 1 or n & (n - 1) or n.bit_length() - 1 > MAX_LOG_NTT:
            raise ValueError(f"ntt: length n={n} is not a power of two in [1, 2^{MAX_LOG_NTT}]")
        return n.bit_length() - 1

    def _ntt(self, a, inverse: bool, pre=None, post=None, out=None, tmp=None, rows: int = 1, sub: bool = False,
             checked: int | None = None):
        """NTT with optional input factors ``pre`` (at input index) and output factors ``post``
        (at output index), each a ``_factor_tables`` triple. ``inverse`` reverses the output order
        ((n − j) mod n) without scaling: pass n⁻¹ in ``post``.

        Args:
            a: (rows·n, 4) device array, n = 2^k.
            out: the result's (rows·n, 4) array, not overlapping ``a`` (new when None).
            sub: the result less what ``out`` holds, element by element (the last pass reads it).
            tmp: buffer of the passes before the last (any number of them run in place); may be
                ``a`` itself when its contents may be overwritten (new when None and needed).
            rows: ``a`` holds that many transforms of length n, done side by side by the same
                launches (``ntt.cu``: no stage reaches across a row); ``pre`` and ``post`` index the
                whole array and one row, so the split NTT applies its factors itself.
            checked: k, where the caller has checked ``a`` (``_check``) and its length (the
                product calls: a small transform's host time is its launch, stop 53).

        Returns ``out``.
        """
        cp = self.cp
        if checked is None:
            a = self._check(a)
            k = self._check_ntt_size(a.shape[0] // rows)
        else:
            k = checked
        if out is None:
            out = cp.ndarray(a.shape, a.dtype)   # as empty_like: 2.3 against 4.0 host µs (stop 53 call 6)
        if k == 0:  # copies, times the factors at index 0: hi[0] (lo[0] = 1)
            y = a
            for f in (pre, post):
                if f is not None:
                    y = self.mul(y, f[0][:1])
            out[...] = self.sub(y, out) if sub else y
            return out
        dev = cp.cuda.runtime.getDevice()
        passes, overlap_ok = self._ntt_passes(k, rows, inverse, pre, post, sub, dev)
        stream = cp.cuda.get_current_stream().ptr
        if tmp is None and len(passes) > 1:
            tmp = self._pass_buffer(a.shape[0], stream, dev) if a.shape[0] <= NTT_SCRATCH_ELEMS else cp.empty_like(a)
        if not NTT_DRIVER_LAUNCH:
            stream = None
        overlap = k in NTT_OVERLAP_LOGS and overlap_ok
        first = overlap and k in NTT_OVERLAP_FIRST_LOGS
        src = a
        for i, p in enumerate(passes):
            dst = out if i == len(passes) - 1 else tmp
            if stream is None:
                p.raw(src, dst)
            elif overlap and (i or first):
                p.after(stream, src, dst)
            else:
                p(stream, src, dst)
            src = dst
        return out

    def _pass_buffer(self, m: int, stream: int, dev: int):
        """An (m, 4) device array for ``_ntt``'s passes on ``stream`` (a pointer) of device ``dev``
        (the current one) in this thread: the one buffer kept for them (grown to m when smaller), or
        a view of its first m rows. Kernels on one stream run in order, so the next transform there finds the buffer
        free; other streams and threads, whose transforms may run at the same time, get buffers of
        their own. At most ``_SCRATCH_KEPT`` are kept: streams and threads come and go, and a
        dropped buffer goes back to its stream's part of CuPy's pool (reused there in order)."""
        key = (stream, threading.get_ident(), dev)
        buf = self._ntt_scratch.get(key)
        if buf is None or buf.shape[0] < m:
            if buf is None and len(self._ntt_scratch) >= _SCRATCH_KEPT:
                self._ntt_scratch.clear()
            self._own_chunks()
            buf = self._ntt_scratch[key] = self.cp.empty((m, 4), dtype=self.cp.uint64)
        return buf if buf.shape[0] == m else buf[:m]   # a view costs the host about a µs

    def _ntt_passes(self, k: int, rows: int, inverse: bool, pre, post, sub: bool, dev: int | None = None) -> tuple:
        """``_ntt``'s pass launches for this shape (``DriverLaunch``s, src and dst given per call)
        and whether the device runs the kernels' dependent-launch wait (sm_90 up:
        ``NTT_OVERLAP_LOGS`` applies), built once per shape, device and thread (a launch's argument
        block is written at each call): variant ``NTT_VARIANT_BY_LOG`` or ``NTT_VARIANT``, read here;
        pre and post are ``_factor_tables`` triples or None; ``dev``: the current device (None: asked)."""
        cp = self.cp
        vname = NTT_VARIANT_BY_LOG.get(k, NTT_VARIANT)
        dev = cp.cuda.runtime.getDevice() if dev is None else dev
        key = (k, rows, vname, inverse, sub, id(pre), id(post), dev, threading.get_ident())
        rec = self._ntt_launches.get(key)
        if rec is not None and rec[0] is pre and rec[1] is post:
            return rec[2:]
        tw = self._twiddles(k)
        var = NTT_VARIANTS[vname]
        plan = _ntt_plan(k, var.block_log, var.max_t)
        fn = _pass_kernel(cp, var, plan)
        first, pre_hi, pre_lo, pre_m = _factor_args(pre, _NTT_PRE, _NTT_PRE_LO, tw)
        last, post_hi, post_lo, post_m = _factor_args(post, _NTT_POST, _NTT_POST_LO, tw)
        last |= _NTT_LAST | (_NTT_INV if inverse else 0) | (_NTT_SUB if sub else 0)
        # griddepcontrol (ntt.cuh NTT_GRID_DEPEND) is compiled for sm_90 up only: elsewhere a pass
        # must not begin before the one ahead has ended
        overlap_ok = int(cp.cuda.Device().compute_capability) >= 90
        passes = []
        for i, (s_hi, t, c) in enumerate(plan):
            E = 1 << (t + c)
            flags = (first if i == 0 else 0) | (last if i == len(plan) - 1 else 0)
            args = (tw, _i32(k), _i32(k), _i32(s_hi), _i32(t), _i32(c), _i32(flags),
                    pre_hi, pre_lo, _i32(pre_m), post_hi, post_lo, _i32(post_m))
            grid, block = rows * (1 << k) // E, pass_threads(E, var.radix_log)
            passes.append(DriverLaunch(fn, grid, block, E * 32, 2, args))
        if len(self._ntt_launches) > 256:
            self._ntt_launches.clear()
        self._ntt_launches[key] = (pre, post, tuple(passes), overlap_ok)
        return self._ntt_launches[key][2:]

    # --- NTT under a device-memory limit: split (four-step) transforms, staged compute_h ----------

    last_ntt_schedule: tuple[str, int] | None = None
    """(schedule, block) of the latest ``ntt``/``coset_ntt``: ("whole", 0) or ("split", block)."""
    last_h_schedule: tuple[str, int] | None = None
    """(schedule, block) of the latest ``compute_h``: ("fused" | "staged", 0) or ("split", block)."""

    def _grid_mul(self, x, f, lc: int, row0: int, p: int, q: int, s: int, k: int) -> None:
        """In place: x[r·2^lc + col] ·= f(e), e = ((row0 + r)·(p·col + q) + s·col) mod 2^k, for f a
        ``_factor_tables`` triple of size 2^k (kernel ``fr_mul_pow_grid``)."""
        hi, lo, m = f
        n = x.shape[0]
        if n:
            _kernel("ntt.cu", "fr_mul_pow_grid")(
                (_grid(n, 256),), (256,),
                (x, hi, hi if lo is None else lo, _i32(m), _i32(lo is not None), _i32(lc),
                 _u64(row0), _u64(p), _u64(q), _u64(s), _i32(k), _u64(n)),
            )

    def _gather_cols(self, src, nrows: int, ncols: int, c0: int, w: int, buf, up=None):
        """Columns c0 … c0+w−1 of ``src`` viewed as an (nrows, ncols) matrix, as rows: returns
        ``buf[:w·nrows]`` with element r·nrows + j = src[j·ncols + c0 + r].

        src: a device array, or a host (n, 4) uint64 array (Montgomery limbs), whose block is
        copied on the host, uploaded into ``up[:w·nrows]`` and transposed on the device.
        """
        m = w * nrows
        if not isinstance(src, self.cp.ndarray):
            # one strided copy by the driver (DMA when src is page-locked), no host gather first
            block = up[:m].reshape(nrows, w, 4)
            host = np.ascontiguousarray(src)
            rt = self.cp.cuda.runtime   # on the compute stream: ordered after the block's last use
            rt.memcpy2DAsync(block.data.ptr, w * 32, host.ctypes.data + c0 * 32, ncols * 32, w * 32, nrows,
                             rt.memcpyHostToDevice, self.cp.cuda.get_current_stream().ptr)
        else:
            block = src.reshape(nrows, ncols, 4)[:, c0 : c0 + w]
        dst = buf[:m]
        dst.reshape(w, nrows, 4)[...] = block.transpose(1, 0, 2)
        return dst

    def _split_ntt(self, src, out, inverse: bool, chunk: int, pre=None, post=None, bufs=None):
        """``_ntt(src, inverse, pre, post)`` (the same values: exact field arithmetic) written to
        ``out``, as the four-step transform in blocks of ``chunk`` elements, so that besides ``out``
        the device holds two blocks (``ntt_device_bytes(n, chunk)``).

        Algorithm (Cooley–Tukey's factorization as in Bailey, "FFTs in external or hierarchical
        memory", 1990): with n = n1·n2 (``ntt_split``), j = j1 + n1·j2 and o = k2 + n2·k1,
        X[o] = Σ_j1 ω_n1^(j1·k1) · ω^(j1·k2) · Σ_j2 x[j]·ω_n2^(j2·k2). Step 1, per block of w
        columns j1 of x viewed as (n2, n1): gather them as rows, multiply by ``pre`` at j, n2-point
        NTTs (one ``_ntt`` with rows = w), twiddles ω^(j1·k2); written to rows j1 of ``out`` viewed
        as (n1, n2). Step 2, per block of h columns k2 of ``out``: gather, n1-point NTTs, ``post``
        at o, written back to the same columns, where X[k2 + n2·k1] (row k1, column k2) is in
        natural order. The inverse runs on ω⁻¹ throughout: the row transforms' INV order reversal
        (n_i-point transforms on ω_(n_i)⁻¹) and twiddles ω^(−j1·k2).

        Args:
            src: device array, or host (n, 4) uint64 array of Montgomery limbs; left unchanged.
            out: (n, 4) device array, n = 2^k with k ≥ 2, not overlapping ``src``.
            chunk: block size in elements, a power of two ≥ n1.
            pre, post: ``_factor_tables`` triples of size 2^k (factors at input / output index).
            bufs: two device arrays of ≥ ``chunk`` elements to use as blocks (new when None).

        Returns ``out``.
        """
        cp = self.cp
        n = out.shape[0]
        k = n.bit_length() - 1
        n1, n2 = ntt_split(n)
        k1, k2 = n1.bit_length() - 1, n2.bit_length() - 1
        if bufs is None:
            bufs = tuple(cp.empty((chunk, 4), dtype=cp.uint64) for _ in range(2))
        g, g2 = bufs
        root = FR.root_of_unity(n)
        twid = self._factor_tables(pow(root, -1, _R) if inverse else root, 1, k)
        out3 = out.reshape(n1, n2, 4)
        w = min(n1, chunk // n2)
        for c0 in range(0, n1, w):
            blk = self._gather_cols(src, n2, n1, c0, w, g, g2)
            if pre is not None:
                self._grid_mul(blk, pre, k2, c0, 0, 1, n1, k)      # e = j1 + n1·j2
            dst = out3[c0 : c0 + w].reshape(w * n2, 4)
            self._ntt(blk, inverse, out=dst, tmp=blk, rows=w)
            self._grid_mul(dst, twid, k2, c0, 1, 0, 0, k)          # e = j1·k2
        h = min(n2, chunk // n1)
        for c0 in range(0, n2, h):
            blk = self._gather_cols(out, n1, n2, c0, h, g)
            res = self._ntt(blk, inverse, out=g2[: h * n1], tmp=blk, rows=h)
            if post is not None:
                self._grid_mul(res, post, k1, c0, 0, 1, n2, k)     # e = k2 + n2·k1
            out3[:, c0 : c0 + h] = res.reshape(h, n1, 4).transpose(1, 0, 2)
        return out

    def _planned(self, op: str, plan, smallest, need, run):
        """``run(plan)``; on CuPy's OutOfMemoryError (an estimate too low, fragmentation, another
        process) once more with ``smallest`` after freeing the pool's cached blocks. ``plan`` None
        (nothing fits beside what the pool holds): ``smallest`` is still tried when it fits beside
        the live arrays alone (the pool's free blocks inside chunks that hold live arrays count
        against the limit yet take new arrays: seen on the H200, 2.4 GB of them at the 32 GiB
        partition's H phase); else GPUMemoryError for ``op`` naming ``need(smallest)`` bytes."""
        pool = self._pool()
        limit = int(pool.get_limit())
        if plan is None:
            if not (limit and limit - int(pool.used_bytes()) >= need(smallest)):
                blocks = f" in blocks of {smallest[1]:,} elements" if smallest[1] else ""
                raise self._memory_error(op, need(smallest), f"not even the {smallest[0]} schedule{blocks} fits")
            plan = smallest
        attempts = [plan] if plan == smallest or smallest[1] == 0 else [plan, smallest]
        if limit and int(pool.total_bytes()) + need(plan) > limit:
            pool.free_all_blocks()  # CuPy counts cached blocks against the limit without freeing them
        for i, p in enumerate(attempts):
            try:
                return run(p)
            except self._oom_type():
                if i == len(attempts) - 1:
                    raise
            self._free_cached()  # outside the except block: the failed attempt's arrays are gone

    def _ntt_limited(self, op: str, a, inverse: bool, pre=None, post=None):
        """``_ntt`` of a whole (n, 4) array, or ``_split_ntt`` into a new array when the whole
        transform does not fit (``ntt_memory_plan``); records ``last_ntt_schedule``. Without a
        pool limit, a transform of at most ``SMALL_NTT_BYTES`` runs whole without the memory
        queries (falling back to them on an out-of-memory error)."""
        n = a.shape[0]
        k = n.bit_length() - 1   # a and n checked by ntt / coset_ntt
        twiddles = k not in self._tw
        if _fits(n, twiddles, SMALL_NTT_BYTES) and not self._pool().get_limit():
            try:
                self.last_ntt_schedule = ("whole", 0)
                return self._ntt(a, inverse, pre, post, checked=k)
            except self._oom_type():
                self._free_cached()
        smallest = ("split", ntt_split(n)[0]) if n >= 4 else ("whole", 0)

        def run(p):
            self.last_ntt_schedule = p
            if p[0] == "whole":
                return self._ntt(a, inverse, pre, post)
            return self._split_ntt(a, self.cp.empty_like(a), inverse, p[1], pre, post)

        plan = ntt_memory_plan(n, self._mem_avail(ntt_device_bytes(n, 0, twiddles)), twiddles)
        return self._planned(op, plan, smallest, lambda p: ntt_device_bytes(n, p[1], twiddles), run)

    @_guard("ntt")
    def ntt(self, a, inverse: bool = False):
        """Radix-2 NTT of a device array of length n = 2^k, 0 ≤ k ≤ 27, natural order in and out.

        Same transform as ``CPUBackend.ntt`` (ω = FR.root_of_unity(n); the inverse scales by n⁻¹).
        Under a memory limit that the whole transform (output and pass buffer: ``ntt_device_bytes``)
        exceeds, the split transform runs in blocks (same values).

        Raises:
            ValueError: n is not a power of two or exceeds 2^27.
            TypeError: ``a`` is not a cuda device array.
            GPUMemoryError: not even the output plus the smallest blocks fit.
        """
        a = self._check(a)
        n = a.shape[0]
        k = self._check_ntt_size(n)
        post = self._factor_tables(1, pow(n, -1, _R), k) if inverse else None
        return self._ntt_limited("ntt", a, inverse, post=post)

    @_guard("coset_ntt")
    def coset_ntt(self, a, inverse: bool = False):
        """Evaluate on / interpolate from the coset g·H (g = 7); the g^(±i) and n⁻¹ factors are
        applied inside the first (forward) or last (inverse) NTT pass (split in blocks under a
        memory limit, as ``ntt``)."""
        a = self._check(a)
        n = a.shape[0]
        k = self._check_ntt_size(n)
        g = FR.generator
        if not inverse:
            return self._ntt_limited("coset_ntt", a, False, pre=self._factor_tables(g, 1, k))
        return self._ntt_limited("coset_ntt", a, True, post=self._factor_tables(pow(g, -1, _R), pow(n, -1, _R), k))

    def _h_eval(self, x, to_coset, b1, b2):
        """Coset evaluations of the interpolant of x into b1 (b2 left free): an inverse NTT into b2
        (b1 its pass buffer) whose last pass multiplies by n⁻¹·g^i, then the forward NTT in place
        in b2, its last pass into b1. Two arrays of n besides x, or one when b1 is x itself."""
        self._ntt(x, True, post=to_coset, out=b2, tmp=b1)
        self._ntt(b2, False, out=b1, tmp=b2)
        return b1, b2

    def _h_fused(self, xs, tabs):
        """All on the device, 3 arrays of n besides the inputs: a's and b's coset evaluations
        (``_h_eval``), their product in a's buffer, c's coefficients through b's buffer into the
        spare one, and the product's coset inverse NTT less them, ending in the spare."""
        to_coset, from_coset, c_coef = tabs
        ev, spare = [], self.cp.empty_like(xs[0])
        for x in xs[:2]:
            e, spare = self._h_eval(x, to_coset, spare, self.cp.empty_like(x))
            ev.append(e)
        self._launch_ew("fr_mul", spare.shape[0], ev[0], ev[1], ev[0])
        self._ntt(xs[2], True, post=c_coef, out=spare, tmp=ev.pop())
        return self._ntt(ev[0], True, post=from_coset, out=spare, tmp=ev[0], sub=True)

    def _h_staged(self, xs, tabs):
        """2 arrays of n on the device: a's and b's evaluations wait on the host (numpy; a host
        input's own memory takes them) while the next input reuses the two buffers; c's
        coefficients stay, and a·b is formed from uploaded slices (``_stage_step``) into the
        other buffer, whose coset inverse NTT less them ends in theirs. A host input
        (``compute_h_host``) is uploaded into the first buffer first."""
        cp = self.cp
        to_coset, from_coset, c_coef = tabs
        p, q = cp.empty(xs[0].shape, dtype=cp.uint64), cp.empty(xs[0].shape, dtype=cp.uint64)

        def upload(x):
            if isinstance(x, np.ndarray):
                p.set(x)
                return p
            return x

        staged = []
        for x in xs[:2]:
            self._h_eval(upload(x), to_coset, p, q)
            staged.append(p.get(out=x if isinstance(x, np.ndarray) else self.host_empty(p.shape)))
        self._ntt(upload(xs[2]), True, post=c_coef, out=q, tmp=p)
        m = p.shape[0]
        step = _stage_step(m)
        ua, ub = cp.empty((step, 4), dtype=cp.uint64), cp.empty((step, 4), dtype=cp.uint64)
        for i in range(0, m, step):
            j = min(m, i + step)
            ua[: j - i].set(staged[0][i:j])
            ub[: j - i].set(staged[1][i:j])
            self._launch_ew("fr_mul", j - i, ua, ub, p[i:j])
        del ua, ub, staged
        return self._ntt(p, True, post=from_coset, out=q, tmp=p, sub=True)

    def _h_split(self, xs, tabs, chunk: int):
        """1 array of n on the device (the result) plus three blocks of ``chunk`` elements: each
        NTT split (``_split_ntt``) from a device input or a host copy of the previous step's output;
        a's and b's evaluations and c's coefficients on the host; a·b formed from uploaded slices
        into the result array, copied to the host, its coset inverse NTT split back into the
        result array, and c's coefficients subtracted slice by slice."""
        cp = self.cp
        to_coset, from_coset, c_coef = tabs
        out = cp.empty(xs[0].shape, dtype=cp.uint64)   # xs: device arrays or host copies
        g1, g2, g3 = (cp.empty((chunk, 4), dtype=cp.uint64) for _ in range(3))

        def to_host(x):   # out's values into x's own memory when x is a host input (read by now)
            host = x if isinstance(x, np.ndarray) and x.shape == out.shape else self.host_empty(out.shape)
            return out.get(out=host)

        hosts = []
        for x in xs[:2]:
            self._split_ntt(x, out, True, chunk, post=to_coset, bufs=(g1, g2))
            host = to_host(x)
            self._split_ntt(host, out, False, chunk, bufs=(g1, g2))
            hosts.append(out.get(out=host))
        self._split_ntt(xs[2], out, True, chunk, post=c_coef, bufs=(g1, g2))
        coef = to_host(xs[2])
        m = out.shape[0]
        for i in range(0, m, chunk):
            j = min(m, i + chunk)
            for buf, host in zip((g1, g2), hosts):
                buf[: j - i].set(host[i:j])
            self._launch_ew("fr_mul", j - i, g1, g2, out[i:j])
        num = out.get(out=hosts[0])
        del hosts
        self._split_ntt(num, out, True, chunk, post=from_coset, bufs=(g1, g2))
        for i in range(0, m, chunk):
            j = min(m, i + chunk)
            g3[: j - i].set(coef[i:j])
            self._launch_ew("fr_sub", j - i, out[i:j], g3, out[i:j])
        return out

    def _h_tables(self, m: int, n: int, k: int):
        """compute_h's factor tables for 2^k = m elements (``h_factors``: into the coset, out of
        it, c's coefficients), on the device."""
        return tuple(self._factor_tables(x, c, k) for x, c in h_factors(m, n))

    @_guard("compute_h")
    def prepare_h(self, n: int) -> None:
        """``Backend.prepare_h``: this size's twiddles and ``compute_h``'s factor tables cached now."""
        k = self._check_ntt_size(n)
        self._twiddles(k)
        self._h_tables(n, n, k)

    @_guard("compute_h")
    def compute_h_ab(self, a, b, n: int, stage_c: bool = False):
        """``Backend.compute_h_ab`` on the GPU: c = a·b (one kernel), then a's and b's coset
        evaluations each made in its own buffer through one spare array (the inverse NTT's passes
        in place, its last pass into the spare; the forward NTT back into the input's buffer), a·b
        in a's buffer, c's coefficients (one inverse NTT, ``h_factors``) through b's buffer into
        the spare, and the coset inverse NTT of a less them into the spare, which holds the
        result. Four arrays of n at the peak; three with ``stage_c``, c's values waiting in
        pinned host memory until b's buffer is free (two more arrays over the bus). Same values
        as ``compute_h(a, b, a·b, n)``.

        Raises:
            ValueError: lengths differ, or are not a power of two ≤ 2^27.
        """
        cp = self.cp
        a, b = self._pair(a, b)
        m = a.shape[0]
        k = self._check_ntt_size(m)
        to_coset, from_coset, c_coef = self._h_tables(m, n, k)
        c = cp.empty_like(a)
        self._launch_ew("fr_mul", m, a, b, c)
        if stage_c:   # c waits on the host; its buffer is the spare
            staged, spare = c.get(out=self.host_empty(c.shape)), c
            self.bus_bytes += 2 * m * 32
        else:
            spare = cp.empty_like(a)
        for x in (a, b):   # each one's coset evaluations in its own buffer, the spare left free
            self._h_eval(x, to_coset, x, spare)
        self._launch_ew("fr_mul", m, a, b, a)
        if stage_c:
            b.set(staged)
            c = b
        del b, x
        self._ntt(c, True, post=c_coef, out=spare, tmp=c)
        del c
        self.last_h_schedule = ("lean_staged" if stage_c else "lean", 0)
        return self._ntt(a, True, post=from_coset, out=spare, tmp=a, sub=True)[0 : n - 1]

    @_guard("compute_h")
    def compute_h_host(self, a, b, c, n: int, chunk: int):
        """``Backend.compute_h_host`` on the GPU reading a, b, c (``HostFr``, zero-padded to n on
        the host; one already n long is used in place and overwritten) from host memory: the
        split schedule (``_h_split``) in blocks of ``chunk`` elements, the device holding the
        result and three blocks; or with ``chunk`` 0 the staged one (``_h_staged``: two arrays of
        n on the device, each input uploaded once). The host holds three arrays of n. Same
        values as ``compute_h``.

        Raises:
            ValueError: n not a power of two ≤ 2^27, an input longer than n, or 0 < chunk < √n.
        """
        k = self._check_ntt_size(n)
        if chunk and chunk < ntt_split(n)[0]:
            raise ValueError(f"compute_h_host: a block of {chunk} elements is below one row ({ntt_split(n)[0]})")
        xs = []
        for x in (a, b, c):
            if len(x) > n:
                raise ValueError(f"compute_h_host: {len(x)} values for a domain of {n}")
            if len(x) == n and x.mont.dtype == np.uint64 and x.mont.flags.c_contiguous and x.mont.flags.writeable:
                xs.append(x.mont)   # consumed: _h_split writes the evaluations over it
                continue
            full = self.host_empty((n, 4))
            full[: len(x)] = x.mont
            full[len(x) :] = 0
            xs.append(full)
        tabs = self._h_tables(n, n, k)
        sched = ("split", chunk) if chunk else ("staged", 0)
        self.last_h_schedule = sched
        h = self._h_split(xs, tabs, chunk) if chunk else self._h_staged(xs, tabs)
        self.bus_bytes += compute_h_bus_arrays(sched[0], inputs_on_host=True) * n * 32
        return h[0 : n - 1]

    @_guard("compute_h")
    def compute_h(self, a, b, c, n: int):
        """Groth16 quotient as ``Backend.compute_h`` (same result): for a and b one inverse NTT
        whose last pass multiplies by n⁻¹·g^i (so the next forward NTT evaluates on the coset), one
        forward NTT; their product in one kernel; c's coefficients by one inverse NTT times
        n⁻¹·Z(g)⁻¹ (``h_factors`` says why c needs no coset evaluations); then the product's coset
        inverse NTT with n⁻¹·Z(g)⁻¹·g^(−i) applied in its last pass, which also subtracts c's
        coefficients. Returns the first n − 1 coefficients (a view of an array of len(a) elements).

        a, b, c are left unchanged (the caller keeps them, so they count as used device memory).
        The schedule is the first of ``H_SCHEDULES`` whose ``compute_h_device_bytes`` fits in what
        the memory pool may still allocate (``compute_h_memory_plan``): "fused" (3 arrays of n),
        "staged" (2, with a's and b's evaluations waiting on the host) or "split" (the result plus
        blocks: four-step NTTs, everything staged on the host); all give the same values. On an
        out-of-memory the smallest split schedule is tried once more. ``last_h_schedule`` records
        the one used.

        Raises:
            ValueError: lengths differ, or are not a power of two ≤ 2^27.
            GPUMemoryError: not even the smallest split schedule fits.
        """
        a, b, c = self._check(a), self._check(b), self._check(c)
        m = a.shape[0]
        if b.shape[0] != m or c.shape[0] != m:
            raise ValueError(f"compute_h: lengths differ ({a.shape[0]}, {b.shape[0]}, {c.shape[0]})")
        k = self._check_ntt_size(m)
        tabs = self._h_tables(m, n, k)
        twiddles = k not in self._tw
        smallest = ("split", ntt_split(m)[0]) if m >= 4 else ("staged", 0)
        xs = (a, b, c)

        def run(p):
            self.last_h_schedule = p
            self.bus_bytes += compute_h_bus_arrays(p[0]) * m * 32
            if p[0] == "fused":
                return self._h_fused(xs, tabs)
            if p[0] == "staged":
                return self._h_staged(xs, tabs)
            return self._h_split(xs, tabs, p[1])

        plan = compute_h_memory_plan(m, self._mem_avail(compute_h_device_bytes(m, "fused", 0, twiddles)), twiddles)
        need = lambda p: compute_h_device_bytes(m, p[0], p[1], twiddles)  # noqa: E731
        h = self._planned("compute_h", plan, smallest, need, run)
        return h[0 : n - 1]
