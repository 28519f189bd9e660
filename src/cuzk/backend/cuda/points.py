"""Point arrays, fixed-base products and MSM contexts of the ``cuda`` backend (``MSMOps``, a mixin
of ``CUDABackend``): affine points up and down in the zcash encodings, XYZZ results to arkworks
points, the fixed-base tables (8-bit windows) and their products (``msm.cu``'s ``fixed_base_mul``);
the MSM itself is ``msm.CUDAMSMContext``.
"""

from __future__ import annotations

import gmpy2
import numpy as np

from ...curve import G1, Group
from ..base import MSMContext, fixed_base_point
from .msm import CUDAMSMContext
from .plan import _coord_words, fixed_base_slice
from .runtime import DeviceRuntime, _Q, _grid, _guard, _host_limbs, _i32, _kernel, _limbs_to_encoding, _limbs_to_ints, _u32, _u64

_FB_C, _FB_WINDOWS = 8, 32    # fixed-base table: 8-bit windows, 32 of them cover 256 bits


def _f2_mul(a, b):
    return ((a[0] * b[0] - a[1] * b[1]) % _Q, (a[0] * b[1] + a[1] * b[0]) % _Q)


def _f2_inv(a):
    t = int(gmpy2.invert((a[0] * a[0] + a[1] * a[1]) % _Q, _Q))
    return (a[0] * t % _Q, -a[1] * t % _Q)


class MSMOps(DeviceRuntime):
    """MSM contexts, point arrays and fixed-base products of ``CUDABackend`` (a mixin), with the
    fixed-base tables it caches (``_fb_tables``)."""

    def _xyzz_to_points(self, pts, group: Group = G1) -> list:
        """(m, 48 k) uint32 XYZZ Montgomery on the device → list of arkworks points of ``group``
        (host; one inversion per point; the on-curve check of ``from_uncompressed`` runs)."""
        cp = self.cp
        k = _coord_words(group)
        m = pts.shape[0]
        canon = cp.empty_like(pts)
        _kernel("msm.cu", "fq_from_mont", group.name)((_grid(4 * k * m, 256),), (256,), (pts, canon, _u64(4 * k * m)))
        vals = _limbs_to_ints(self.read_back(canon).view(np.uint64).reshape(4 * k * m, 6))
        out = []
        for i in range(m):
            v = vals[4 * k * i : 4 * k * (i + 1)]
            if k == 1:
                X, Y, ZZ, ZZZ = v
                if ZZ == 0:
                    out.append(group.identity())
                    continue
                inv = int(gmpy2.invert(ZZ * ZZZ % _Q, _Q))
                x = X * inv % _Q * ZZZ % _Q
                y = Y * inv % _Q * ZZ % _Q
                enc = x.to_bytes(48, "big") + y.to_bytes(48, "big")
            else:
                X, Y, ZZ, ZZZ = (tuple(v[2 * j : 2 * j + 2]) for j in range(4))
                if ZZ == (0, 0):
                    out.append(group.identity())
                    continue
                inv = _f2_inv(_f2_mul(ZZ, ZZZ))
                x = _f2_mul(X, _f2_mul(inv, ZZZ))
                y = _f2_mul(Y, _f2_mul(inv, ZZ))
                enc = b"".join(t.to_bytes(48, "big") for t in (x[1], x[0], y[1], y[0]))
            out.append(group.from_uncompressed(enc, check_subgroup=False))
        return out

    # --- point arrays on the device (tests, benchmarks, setup) --------------------------------

    def points_upload_affine(self, group: Group, bases: np.ndarray):
        """(n, 96 k) uint8 uncompressed encodings → device affine array ((n, 24 k) uint32,
        Montgomery; k = 1 for G1, 2 for G2)."""
        return CUDAMSMContext(self, group, bases, resident=True)._bases

    def points_download_affine(self, group: Group, dev) -> np.ndarray:
        """Device affine array ((n, 24 k) uint32, Montgomery) → (n, 96 k) uint8 uncompressed encodings."""
        k = _coord_words(group)
        n = int(dev.shape[0])
        canon = self.cp.empty_like(dev)
        if n:
            _kernel("msm.cu", "fq_from_mont", group.name)((_grid(2 * k * n, 256),), (256,), (dev, canon, _u64(2 * k * n)))
        return _limbs_to_encoding(group, canon.get())

    def points_sum_grid(self, group: Group, a_dev, b_dev, n: int):
        """Device affine array of n points A[i mod len(A)] + B[i div len(A)] (distinct test bases
        from len(A) + n/len(A) host points; one Fermat inversion per 32 points on the GPU)."""
        k = _coord_words(group)
        na = int(a_dev.shape[0])
        if na * int(b_dev.shape[0]) < n:
            raise ValueError("points_sum_grid: len(A) * len(B) < n")
        cp = self.cp
        out = cp.empty((n, 24 * k), dtype=cp.uint32)
        if n:
            per = 32
            scratch = cp.empty((n, 48 * k), dtype=cp.uint32)
            prods = cp.empty((n, 12 * k), dtype=cp.uint32)
            groups = -(-n // per)
            _kernel("msm.cu", "gen_points", group.name)(
                (_grid(groups, 128),), (128,), (a_dev, _u32(na), b_dev, _u64(n), _u32(per), scratch, prods, out)
            )
        return out

    def _fixed_base_table(self, group: Group, base_bytes: bytes):
        """Device table of d·2^(8w)·P for windows w < 32 and digits 1 ≤ d < 256 (affine, 8160
        points, built on the host with arkworks; cached per base)."""
        key = (group.name, base_bytes)
        tab = self._fb_tables.get(key)
        if tab is None:
            p = group.from_uncompressed(base_bytes, check_subgroup=False)
            pts = []
            for _ in range(_FB_WINDOWS):
                acc = p
                for _d in range(1, 1 << _FB_C):
                    pts.append(acc)
                    acc = acc + p
                p = acc  # 2^c · p
            tab = self.points_upload_affine(group, group.to_array(pts))
            if len(self._fb_tables) > 8:
                self._fb_tables.clear()
            self._fb_tables[key] = tab
        return tab

    # --- curve ------------------------------------------------------------------------------

    @_guard("msm_context")
    def msm_context(self, group: Group, bases: np.ndarray, resident: bool | None = None,
                    shift: bool = False) -> MSMContext:
        """MSM bases (``CUDAMSMContext``) for G1 and G2: on the GPU, or in host memory when
        ``resident`` is False (or None and they do not fit). ``shift``: also precompute their
        shifted multiples where the memory model says they fit (``CUDAMSMContext.shift``: fixed
        bases proved with many times)."""
        ctx = CUDAMSMContext(self, group, bases, resident=resident)
        if shift:
            ctx.shift()
        return ctx

    @_guard("fixed_base_mul")
    def fixed_base_mul(self, group: Group, base, scalars) -> np.ndarray:
        """[k·base for k in scalars] as a ``(n, group.uncompressed_size)`` uint8 array of
        uncompressed encodings (the same bytes as ``CPUBackend.fixed_base_mul``), on the GPU.

        Each product is at most 32 mixed additions from a table of d·2^(8w)·base (8-bit windows,
        8160 affine points, ``_fixed_base_table``); each GPU thread converts 32 consecutive
        results to affine with one inversion. Scalars go up in slices of ``_FB_SLICE``.

        Args:
            scalars: host ints in [0, r) (list, int array, numpy integer array) or a cuda device
                array.

        Raises:
            ValueError: a scalar outside [0, r), or a malformed base encoding.
        """
        n = int(scalars.shape[0]) if isinstance(scalars, self.cp.ndarray) else len(scalars)
        out = np.empty((n, group.uncompressed_size), dtype=np.uint8)   # filled per slice: one copy on the host
        for lo, m, aff in self._fixed_base_slices(group, base, scalars):
            if aff is None:     # k · infinity
                out[lo : lo + m] = 0
                out[lo : lo + m, 0] = 0x40
            else:
                out[lo : lo + m] = self.points_download_affine(group, aff)
        return out

    @_guard("fixed_base_context")
    def fixed_base_context(self, group: Group, base, scalars) -> MSMContext:
        """Resident MSM bases [k·base for k in scalars] computed into device memory (affine,
        Montgomery; never copied to the host): a setup's query proved with at once.

        Args:
            scalars: host ints in [0, r) or a cuda device array.

        Raises:
            ValueError: a scalar outside [0, r), or a malformed base encoding.
            GPUMemoryError: the products do not fit.
        """
        k = _coord_words(group)
        n = int(scalars.shape[0]) if isinstance(scalars, self.cp.ndarray) else len(scalars)
        dev = self.cp.empty((n, 24 * k), dtype=self.cp.uint32)
        for lo, m, aff in self._fixed_base_slices(group, base, scalars, into=dev):
            if aff is None:
                dev[lo : lo + m] = 0    # (0, 0) is infinity in the device layout
        return CUDAMSMContext.from_device_affine(self, dev, group)

    def _fixed_base_slices(self, group: Group, base, scalars, into=None):
        """Yield (lo, m, device affine (m, 24 k) uint32 products) per slice of the scalars; the
        products are written to ``into[lo:lo + m]`` when given. For the point at infinity as
        base, yields (0, n, None)."""
        k = _coord_words(group)
        _, base_bytes = fixed_base_point(group, base)   # checks the encoding
        cp = self.cp
        if isinstance(scalars, cp.ndarray):
            sc_dev = self._check(scalars)
            n = int(sc_dev.shape[0])
            limbs = None
        else:
            limbs = _host_limbs(scalars, f"{group.name} fixed_base_mul scalars")
            n = limbs.shape[0]
        if n == 0:
            return
        if not any(base_bytes[1:]) and base_bytes[0] & 0x40:   # k · infinity
            yield 0, n, None
            return
        tab = self._fixed_base_table(group, base_bytes)
        fn = _kernel("msm.cu", "fixed_base_mul", group.name)
        per = 32
        step = fixed_base_slice(k, self._mem_avail())
        for lo in range(0, n, step):
            m = min(step, n - lo)
            if limbs is None:   # Montgomery device scalars → canonical limbs for the kernel
                sc = cp.empty((m, 4), dtype=cp.uint64)
                self._launch_ew("fr_from_mont", m, sc_dev[lo : lo + m], sc)
            else:
                sc = cp.asarray(limbs[lo : lo + m])
            scratch = cp.empty((m, 48 * k), dtype=cp.uint32)
            prods = cp.empty((m, 12 * k), dtype=cp.uint32)
            aff = into[lo : lo + m] if into is not None else cp.empty((m, 24 * k), dtype=cp.uint32)
            groups = -(-m // per)
            fn((_grid(groups, 128),), (128,),
               (sc, _u64(m), _i32(_FB_C), _i32(_FB_WINDOWS), tab, _u32(per), scratch, prods, aff))
            del scratch, prods, sc
            yield lo, m, aff
