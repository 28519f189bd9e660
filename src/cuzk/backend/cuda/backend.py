"""The ``cuda`` backend's ``CUDABackend``: Fr arithmetic, NTTs, G1/G2 MSMs and fixed-base products
on an NVIDIA GPU through CuPy, composed of one part per kernel family.

Device arrays are CuPy ``(n, 4)`` uint64 arrays of little-endian limbs in Montgomery form
(``x · 2^256 mod r``), C-contiguous. ``to_device`` checks and uploads canonical values and converts
them to Montgomery form on the GPU; ``to_host`` does the reverse.

What runs where: everything on the GPU (CUDA C in ``ntt.cu``, ``msm.cu``, ``spmv.cu`` and the
headers beside them, compiled by CuPy/NVRTC for the device's architecture and cached by CuPy).
The host orchestration of each sits beside it, and ``CUDABackend`` mixes them in:

- ``runtime.DeviceRuntime``: module loading, the memory pool and its limit, transfers;
- ``ntt.NTTOps``: ``powers``' tables, ``ntt``, ``coset_ntt``, ``compute_h`` (iNTT → coset NTT →
  a·b − c → coset iNTT, with n⁻¹, the coset powers and 1/Z fused into the NTT passes);
- ``spmv.SpMVOps``: ``spmv``, ``spmv_t``, ``first_unsatisfied``;
- ``points.MSMOps``: ``msm_context`` (``msm.CUDAMSMContext``), ``fixed_base_mul``,
  ``fixed_base_context``;
- here: the elementwise ops ``add``, ``sub``, ``mul``, ``scale``, ``powers``, ``pad``,
  ``select``, ``concat``, ``slice`` (kernels of ``ntt.cu``), construction and ``close``.

Device memory: ``CUDABackend(mem_limit=bytes)`` (``get_backend(..., gpu_mem_limit=...)``) caps CuPy's
default memory pool (``set_limit``; ``close`` restores the earlier limit). MSM contexts keep their
bases resident only when the bases plus an MSM chunk fit (else the host keeps them and each chunk
uploads its slice); an MSM whose temporaries (``msm_device_bytes``: n, window width, bucket and
partial-sum buffers) exceed what is free under the limit runs in chunks (``msm_chunk_points``)
whose partial sums are added, and halves its chunk on an out-of-memory. An NTT that does not fit
whole (``ntt_device_bytes``) runs split (four-step, in blocks: ``ntt_memory_plan``); ``compute_h``
picks the first of fused (4 arrays of n besides a, b, c), staged (2, evaluations waiting on the
host) or split (the result plus blocks) that fits (``compute_h_memory_plan``); same values. The
planning functions are in ``plan`` (no CuPy). CuPy's ``OutOfMemoryError`` surfaces as
``cuzk.backend.GPUMemoryError`` (operation, bytes, limit) after the pool's cached blocks are freed.
``gpu_peak_bytes`` is the most bytes of live arrays at any allocation; ``gpu_pool_peak_bytes`` the
pool's high-water mark (cached free blocks included).

Kernel design notes (see the ``.cu`` files): Montgomery multiplication is CIOS over 32-bit limbs
with PTX ``mad.lo.cc``/``madc.hi.cc`` carry chains (2n² 32×32-bit products, n = 8 for Fr, 12 for
Fq, one IMAD.WIDE.U32.X each on sm_90), the running sum in two arrays by the parity of a product's
position (``ff.cuh``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..base import Backend
from . import pinned
from .points import MSMOps
from .ntt import NTTOps
from .runtime import _PoolAllocator, _cupy, _guard, _i32, _kernel, _u64
from .spmv import SpMVOps


_SEL_ITERS = 16   # rows per thread of the select kernels: a block of 256 threads takes 4096


class DeviceSelection(NamedTuple):
    """A bool mask on the device for ``CUDABackend.select``: ``mask`` (n,) uint8, ``ends`` the
    inclusive running counts of its tiles of 256·_SEL_ITERS entries (uint64), n entries, m set."""

    mask: object
    ends: object
    n: int
    m: int


class CUDABackend(NTTOps, SpMVOps, MSMOps, Backend):
    """Backend on a CUDA GPU through CuPy (see the module docstring for what runs where).

    Args:
        threads: accepted for interface compatibility (nothing is delegated to CPU workers).
        device: CUDA device ordinal (default: CuPy's current device).
        mem_limit: bytes CuPy's memory pool may hold on the device (None: no limit); see
            ``set_mem_limit``. MSMs run in chunks, NTTs and ``compute_h`` in lower-memory
            schedules to stay under it.

    Raises:
        BackendUnavailableError: CuPy is missing or sees no CUDA device.
        ValueError: threads < 1.
    """

    name = "cuda"

    def __init__(self, threads: int = 1, device: int | None = None, mem_limit: int | None = None):
        if threads < 1:
            raise ValueError(f"threads must be ≥ 1, got {threads}")
        self.cp = _cupy()
        if device is not None:
            self.cp.cuda.Device(device).use()
        self.threads = int(threads)
        self._device_id = int(self.cp.cuda.runtime.getDevice())  # other threads start on device 0
        self._tw: dict[int, object] = {}
        self._ntt_launches: dict[tuple, tuple] = {}   # ntt.NTTOps._ntt_passes: launches per shape
        self._ntt_scratch: dict[tuple, object] = {}   # ntt.NTTOps._pass_buffer: per stream and thread
        self._tables: dict[tuple[int, int, int], tuple] = {}
        self._csr: dict[int, tuple] = {}
        self._csr32: dict[int, tuple] = {}   # spmv_blocks: (weakref to the matrix, its host index arrays)
        self._coeff_tables: dict[int, tuple] = {}
        self._fb_tables: dict[tuple, object] = {}
        self._sel_rows: dict[int, tuple] = {}   # host_select: (weakref to a mask, its set rows)
        self._sm_counts: dict[int, int] = {}   # sm_count, per device
        self._named_streams: dict[tuple[str, int], object] = {}   # named_stream, per name and device
        self.mem_limit: int | None = None
        self._prev_limit: int | None = None
        self._peak = 0
        self.bus_bytes = 0   # bytes the host-staged schedules (gpu_plan) moved over the bus
        self._live_peak = int(self._pool().used_bytes())
        self._alloc = _PoolAllocator.install(self.cp)
        self._live_tracked = self._alloc is not None
        if self._alloc is not None:
            self._alloc.watch(self)
        if mem_limit is not None:
            self.set_mem_limit(mem_limit)

    # --- elementwise ------------------------------------------------------------------------

    @_guard("elementwise op")
    def _binary(self, name, a, b):
        a, b = self._pair(a, b)
        out = self.cp.empty_like(a)
        self._launch_ew(name, a.shape[0], a, b, out)
        return out

    def add(self, a, b):
        """Elementwise a + b in Fr (GPU)."""
        return self._binary("fr_add", a, b)

    def sub(self, a, b):
        """Elementwise a − b in Fr (GPU)."""
        return self._binary("fr_sub", a, b)

    def mul(self, a, b):
        """Elementwise a · b in Fr (GPU)."""
        return self._binary("fr_mul", a, b)

    @_guard("scale")
    def scale(self, a, k: int):
        """Elementwise k · a in Fr for an integer k of any sign or size (GPU)."""
        a = self._check(a)
        out = self.cp.empty_like(a)
        self._launch_ew("fr_scale", a.shape[0], a, self._const(int(k)), out)
        return out

    @_guard("powers")
    def powers(self, x: int, n: int):
        """Device array [1, x, x², …, x^(n−1)] in Fr (GPU, from two tables of ≈√n host powers)."""
        if n < 0:
            raise ValueError(f"powers: negative length {n}")
        return self._powers(int(x), 1, n)

    def length(self, a) -> int:
        """Number of elements."""
        return int(self._check(a).shape[0])

    @_guard("concat")
    def concat(self, parts):
        """The device arrays one after the other (a new device array)."""
        parts = [self._check(p) for p in parts]
        return self.cp.concatenate(parts) if parts else self.cp.empty((0, 4), dtype=self.cp.uint64)

    @_guard("slice")
    def slice(self, a, start: int, stop: int):
        """a[start:stop] as a new device array (numpy slice semantics)."""
        return self._check(a)[start:stop].copy()

    @_guard("selection")
    def selection(self, mask: np.ndarray) -> "DeviceSelection":
        """``mask`` (host bool, (n,)) on the device with its per-tile running counts
        (``select_count`` and a scan): what ``select`` otherwise redoes per call (count the mask on
        the host, upload its n bytes from pageable memory, count the tiles). A Prover makes one
        per density mask: 2 × 130 MB of device memory for a 32 GiB partition, against 0.087 s of
        every proof with the GPU idle for the two (benchmarks/results/2026-12-04-h200-stop39, call 3).

        Raises:
            GPUMemoryError: the mask does not fit on the device.
        """
        mask = np.ascontiguousarray(mask, dtype=bool)
        n, m = mask.shape[0], int(np.count_nonzero(mask))
        dmask = self.cp.asarray(mask.view(np.uint8))
        tiles = -(-n // (256 * _SEL_ITERS))
        ends = self.cp.empty(max(1, tiles), dtype=self.cp.uint64)
        if tiles:
            _kernel("ntt.cu", "select_count")((tiles,), (256,), (dmask, _u64(n), _i32(_SEL_ITERS), ends))
        return DeviceSelection(dmask, self.cp.cumsum(ends), n, m)

    @_guard("select")
    def select(self, a, mask):
        """The elements of ``a`` where the host bool array ``mask`` is True, in order: a new (m, 4)
        uint64 device array, m = mask's True count. The mask (1 B per element) goes up (or is
        already there: a ``DeviceSelection`` from ``selection``), the ``select_count``/``select_rows``
        kernels of ``ntt.cu`` place the rows (no index array).

        Raises:
            ValueError: the mask's shape is not (len(a),).
        """
        a = self._check(a)
        sel = mask if isinstance(mask, DeviceSelection) else None
        shape = (sel.n,) if sel is not None else np.shape(mask)
        if shape != (a.shape[0],):
            raise ValueError(f"select: mask of shape {shape} for {a.shape[0]} elements")
        if sel is None:
            sel = self.selection(mask)
        out = self.cp.empty((sel.m, 4), dtype=self.cp.uint64)
        if sel.m:
            tiles = int(sel.ends.shape[0])
            _kernel("ntt.cu", "select_rows")((tiles,), (256,), (a, sel.mask, _i32(_SEL_ITERS), sel.ends, out, _u64(sel.n)))
        return out

    @_guard("pad")
    def pad(self, a, n: int):
        """``a`` followed by zeros up to length n (a new device array; ValueError if n < len(a))."""
        a = self._check(a)
        m = a.shape[0]
        if n < m:
            raise ValueError(f"pad: length {n} is shorter than the array ({m})")
        out = self.cp.empty((n, 4), dtype=self.cp.uint64)
        out[:m] = a
        out[m:] = 0
        return out

    def close(self) -> None:
        """Drop cached twiddles and tables and restore the pool's earlier limit (idempotent);
        ``gpu_peak_bytes`` stops following allocations."""
        if self._prev_limit is not None:
            self.set_mem_limit(None)
        if self._alloc is not None:
            self._alloc.watchers.discard(self)
        self._tw.clear()
        self._tables.clear()
        self._ntt_launches.clear()   # they hold twiddles and tables too
        self._ntt_scratch.clear()
        self._csr.clear()
        self._csr32.clear()
        self.cp.get_default_pinned_memory_pool().free_all_blocks()   # offloaded scalars' pinned blocks
        pinned.free_all(self.cp)
        self._coeff_tables.clear()
        self._fb_tables.clear()
        self._sel_rows.clear()
