"""The Backend interface: the operations the Groth16 prover and setup need from a device.

A backend owns "device arrays" of Fr elements: for ``cpu`` these are 1-D numpy object arrays of
``gmpy2.mpz`` in canonical form ("int arrays", see ``cuzk.field``); for ``cuda`` CuPy ``(n, 4)``
uint64 arrays in Montgomery form. ``to_device``/``to_host`` convert from/to int arrays.
"""

from __future__ import annotations

import abc
from typing import Sequence

import numpy as np

from ..curve import Group
from ..errors import CuzkError
from ..field import FR, LimbRuns, is_limb_array, limbs_below_modulus
from ..field.sparse import CSRMatrix
from .native import built_once
from .sha_host import fill_bits, host_core


class BackendUnavailableError(CuzkError, RuntimeError):
    """The requested backend cannot run on this machine (e.g. ``cuda`` without a device)."""


class GPUMemoryError(CuzkError, RuntimeError):
    """A GPU operation needs more device memory than it may use (the memory-pool limit, or what the
    device has free). The pool's cached blocks are freed before this is raised, so the next job
    in the same process starts clean.

    Attributes:
        op: the operation (e.g. "G1 msm", "compute_h").
        requested: bytes the failed allocation (or the smallest MSM chunk) needed.
        limit: the memory-pool limit in bytes, or None when none was set.
    """

    def __init__(self, op: str, requested: int | None, limit: int | None, detail: str = ""):
        self.op, self.requested, self.limit = op, requested, limit
        req = "an unknown number of" if requested is None else f"{requested:,}"
        lim = f"the memory-pool limit of {limit:,} bytes ({limit / (1 << 30):.3f} GiB)" if limit else "no memory-pool limit (device memory)"
        msg = f"GPU out of memory in {op}: {req} bytes requested under {lim}"
        if detail:
            msg += f"; {detail}"
        super().__init__(msg + "; raise gpu_mem_limit_gb or free the device")


class MSMContext(abc.ABC):
    """Bases of one MSM kept resident (in worker processes or device memory) across calls.

    Usable as a context manager (``close`` on exit).
    """

    group: Group
    size: int

    def encoded(self, lo: int, hi: int) -> np.ndarray:
        """Bases ``lo:hi`` as ``(hi − lo, group.uncompressed_size)`` uint8 uncompressed encodings
        (writing a resident key out). Raises NotImplementedError where the bases cannot be read back."""
        raise NotImplementedError(f"{type(self).__name__} cannot hand out its bases")

    @abc.abstractmethod
    def msm(self, scalars: np.ndarray):
        """Σ scalars[i]·bases[i]; ``scalars`` an int array of length ``size`` with values in [0, r).

        Scalars equal to 0 or 1 are summed by additions, the rest by Pippenger.
        Returns a point of ``group`` (py-arkworks-bls12381 object).

        Raises:
            ValueError: wrong length, or a scalar outside [0, r).
            RuntimeError: the context (or the backend holding its bases) is closed.
        """

    def msm_many(self, scalars_list, piece: int | None = None, prefetch: bool = False) -> list:
        """``[self.msm(s) for s in scalars_list]``: MSMs of several scalar vectors over these bases
        (each vector as ``msm`` takes it, or ``Backend.offload``-ed). The cuda context walks its
        bases once in pieces of ``piece`` points (streamed from host memory when not resident),
        each piece serving every vector, and adds the partial sums: the same points.
        ``prefetch``: cuda copies an offloaded vector's next slice while this one's MSM runs."""
        return [self.msm(s) for s in scalars_list]

    def close(self) -> None:
        """Release the resident bases (idempotent)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def fixed_base_point(group: Group, base) -> tuple[object, bytes]:
    """(point, uncompressed encoding) of a fixed-base product's base, given either (an ark point,
    or bytes / a uint8 array of its encoding; the encoding is checked, not the subgroup).

    Raises:
        cuzk.curve.CurveError: a malformed encoding.
    """
    if isinstance(base, (bytes, bytearray, memoryview, np.ndarray)):
        raw = base.tobytes() if isinstance(base, np.ndarray) else bytes(base)
        return group.from_uncompressed(raw, check_subgroup=False), raw
    return base, group.to_uncompressed(base)


class PendingUpload:
    """A device array whose upload (``Backend.to_device_async``) may still be in flight.

    This base class is an upload that is already complete (cpu backend); the cuda backend's
    subclass orders the compute stream after the copy in ``ready``.

    Attributes:
        array: the device array (use it only through ``ready``).
        nbytes: bytes copied to the device (0 when nothing was copied).
    """

    __slots__ = ("array", "nbytes")

    def __init__(self, array, nbytes: int = 0):
        self.array, self.nbytes = array, nbytes

    def ready(self):
        """The device array, safe to use on the caller's current (compute) stream."""
        return self.array


_POPCOUNT8 = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)  # set bits of a byte


_HOST_SHA: dict = {}   # the SHA-256 core's host build, loaded once per process (CompactAssignment.resolved)


class CompactAssignment:
    """A full assignment w = inputs ‖ aux as a witness file stores it (``cuzk.r1cs.witness``):
    the aux values that are 0 or 1 as packed bits, the others as limbs. A PoRep partition is
    mostly bits: at 32 GiB its 130 M aux values take about 35 MB here against 4.2 GB as limbs,
    so the cuda backend uploads this and expands it on the GPU.

    Attributes:
        inputs: ``(num_inputs, 4)`` uint64 canonical limbs, ONE first.
        mask: ``(ceil(num_aux / 8),)`` uint8, ``numpy.packbits(bitorder="little")``: bit j set
            when aux j is stored as a bit.
        bits: ``(ceil(num_bits / 8),)`` uint8, the bit-valued aux in order, packed the same way.
        wide: ``(num_wide, 4)`` uint64 canonical limbs of the other aux values, in order, or a
            ``cuzk.field.LimbRuns`` of them (``ConstraintSystem.assignment_compact(lazy=True)``:
            what the witness writer streams; other users read ``numpy.asarray(wide)``).
        num_aux, num_bits: counts (num_wide = num_aux − num_bits).
        sha: None, or the ``cuzk.backend.sha_host.ShaJobs`` of SHA-256 compressions whose bits
            are still to be computed (a ``synthesis_sha: prover`` file: ``bits`` holds 0 there);
            :meth:`resolved` computes them on the host, the cuda backend on the device.

    Raises (on construction):
        ValueError: shapes or dtypes that disagree with the counts, a mask whose set bits are
            not ``num_bits`` (or with bits set past ``num_aux``), or a limb value not below r.
    """

    __slots__ = ("inputs", "mask", "bits", "wide", "num_aux", "num_bits", "sha")

    def __init__(self, inputs: np.ndarray, mask: np.ndarray, bits: np.ndarray, wide: np.ndarray, num_aux: int,
                 num_bits: int, sha=None):
        if not (is_limb_array(inputs) and (is_limb_array(wide) or isinstance(wide, LimbRuns))):
            raise ValueError("inputs and wide must be (n, 4) uint64 limb arrays")
        if mask.dtype != np.uint8 or bits.dtype != np.uint8:
            raise ValueError("mask and bits must be packed uint8 arrays")
        if mask.shape != ((num_aux + 7) // 8,) or bits.shape != ((num_bits + 7) // 8,) or len(wide) != num_aux - num_bits:
            raise ValueError("section sizes disagree with num_aux and num_bits")
        if int(_POPCOUNT8[mask].sum(dtype=np.int64)) != num_bits or (
                num_aux % 8 and int(mask[-1]) >> (num_aux % 8)):
            raise ValueError("the bit mask disagrees with num_bits")
        if not (limbs_below_modulus(inputs).all()
                and (wide.below_modulus() if isinstance(wide, LimbRuns) else limbs_below_modulus(wide).all())):
            raise ValueError("a value is not below the field modulus")
        self.inputs, self.mask, self.bits, self.wide = inputs, mask, bits, wide
        self.num_aux, self.num_bits, self.sha = num_aux, num_bits, sha
        if sha is not None and sha.end > num_aux:
            raise ValueError(f"the SHA-256 job table ends at aux {sha.end}, past the {num_aux} aux values")

    def __len__(self) -> int:
        return len(self.inputs) + self.num_aux

    @property
    def nbytes(self) -> int:
        """Bytes of the four sections (as a witness file stores them, and the cuda backend's
        ``CompactW`` on the device)."""
        return int(self.inputs.nbytes + self.mask.nbytes + self.bits.nbytes + self.wide.nbytes)

    def is_bit(self) -> np.ndarray:
        """``(num_aux,)`` bool: which aux values are stored as bits."""
        return np.unpackbits(self.mask, bitorder="little", count=self.num_aux).astype(bool)

    def resolved(self) -> "CompactAssignment":
        """This assignment with every bit value in ``bits``: itself, or, with a pending ``sha``
        table, a copy whose compressions' bits the SHA-256 core computed on the host
        (``cuzk.backend.sha_host.fill_bits``; its g++ build, once per process).

        Raises:
            NativeBuildError: the host core cannot be built.
            ValueError: the table's bits fall on aux values the mask does not flag as bits.
        """
        if self.sha is None:
            return self
        bits = fill_bits(self.mask, self.bits, self.num_aux, self.num_bits, self.sha, built_once(_HOST_SHA, host_core))
        return CompactAssignment(self.inputs, self.mask, bits, self.wide, self.num_aux, self.num_bits)

    def bit_values(self) -> np.ndarray:
        """``(num_bits,)`` uint8 values of the bit-valued aux, in order (a pending ``sha`` table's
        computed first: :meth:`resolved`)."""
        return np.unpackbits(self.resolved().bits, bitorder="little", count=self.num_bits)

    def limbs(self) -> np.ndarray:
        """w on the host: ``(num_inputs + num_aux, 4)`` uint64 canonical limbs, inputs first."""
        ni = len(self.inputs)
        w = np.zeros((ni + self.num_aux, 4), dtype=np.uint64)
        w[:ni] = self.inputs
        aux = w[ni:]
        is_bit = self.is_bit()
        aux[is_bit, 0] = self.bit_values()
        aux[~is_bit] = self.wide
        return w


class Backend(abc.ABC):
    """Device operations over Fr and the curve groups."""

    name: str = "abstract"

    # --- transfers ---------------------------------------------------------------------------
    @abc.abstractmethod
    def to_device(self, values: np.ndarray):
        """Int array (canonical, object dtype), or an ``(n, 4)`` uint64 array of canonical
        little-endian limbs, → device array (ValueError for a value outside [0, r))."""

    def to_device_async(self, values: np.ndarray, stream=None, defer: bool = False) -> PendingUpload:
        """``to_device`` that may return before the data is on the device (safe to call from a
        background thread while the compute stream works).

        The default (cpu backend) converts synchronously and returns an upload that is already
        complete; the cuda backend converts on the host in the calling thread, then copies on
        a side stream (``stream``, or the backend's own non-blocking one). Use ``ready()`` on
        the compute stream before the array's first use. ``defer``: convert now but copy only
        in ``ready`` (on the compute stream): no second assignment on the device meanwhile,
        for a device whose memory limit leaves no room for one.

        Raises:
            ValueError, TypeError: as ``to_device``, raised here (never from ``ready``).
        """
        return PendingUpload(self.to_device(values))

    def compact_to_device_async(self, cw: "CompactAssignment", stream=None, defer: bool = False) -> PendingUpload:
        """``to_device_async`` of an assignment as a witness file stores it (values already
        checked). The default expands it on the host (``cw.limbs()``); the cuda backend uploads
        the compact form and expands it on the device.
        """
        return self.to_device_async(cw.limbs(), stream=stream, defer=defer)

    @abc.abstractmethod
    def to_host(self, arr) -> np.ndarray:
        """Device array → int array (canonical, object dtype)."""

    # --- elementwise -------------------------------------------------------------------------
    @abc.abstractmethod
    def add(self, a, b): """Elementwise a + b in Fr."""

    @abc.abstractmethod
    def sub(self, a, b): """Elementwise a − b in Fr."""

    @abc.abstractmethod
    def mul(self, a, b): """Elementwise a · b in Fr."""

    @abc.abstractmethod
    def scale(self, a, k: int): """Elementwise k · a in Fr for a scalar k."""

    # --- NTT ---------------------------------------------------------------------------------
    @abc.abstractmethod
    def ntt(self, a, inverse: bool = False):
        """Radix-2 NTT over Fr of a power-of-two length n (roots from generator 7, see cuzk.field).

        Forward: out[j] = Σ_i a[i]·ω^(ij); inverse: out[j] = n⁻¹ Σ_i a[i]·ω^(−ij).
        Raises ValueError when n is not a power of two or exceeds 2^32.
        """

    def coset_ntt(self, a, inverse: bool = False):
        """Evaluate on the coset g·H (g = 7): forward scales a[i] by g^i then NTTs;
        inverse runs the inverse NTT then scales by g^(−i)."""
        n = self.length(a)
        g = FR.generator if not inverse else pow(FR.generator, -1, FR.modulus)
        if not inverse:
            return self.ntt(self.mul(a, self.powers(g, n)))
        return self.mul(self.ntt(a, inverse=True), self.powers(g, n))

    def lagrange_basis(self, tau: int, n: int):
        """Device array [L_j(τ) for j < n]: the Lagrange basis of the n-th roots of unity at τ.

        L_j(X) = n⁻¹·Σ_k X^k·ω^(−jk), so the vector is the inverse NTT of [1, τ, …, τ^(n−1)]
        (one NTT; the CPU backend overrides this with the batch-inversion form). n a power of two.

        Raises:
            ValueError: n is not a power of two (or too large), or τ lies in the domain.
        """
        if (pow(tau, n, FR.modulus) - 1) % FR.modulus == 0:
            raise ValueError("τ lies in the evaluation domain")
        return self.ntt(self.powers(tau, n), inverse=True)

    @abc.abstractmethod
    def powers(self, x: int, n: int):
        """Device array [1, x, x², …, x^(n−1)] in Fr."""

    @abc.abstractmethod
    def length(self, a) -> int:
        """Number of elements of a device array."""

    def compute_h(self, a, b, c, n: int):
        """Groth16 quotient scalars as bellperson computes them.

        a, b, c: device arrays of length n (constraint evaluations A·w, B·w, C·w, zero-padded).
        Steps: iNTT each → coset NTT → a·b − c → multiply by 1/Z(g) with Z(x) = x^n − 1 (constant
        on the coset) → coset iNTT. Returns the first n − 1 coefficients (device array); the
        last is zero for a satisfied system.
        """
        ea = self.coset_ntt(self.ntt(a, inverse=True))
        eb = self.coset_ntt(self.ntt(b, inverse=True))
        ec = self.coset_ntt(self.ntt(c, inverse=True))
        zinv = pow(pow(FR.generator, n, FR.modulus) - 1, -1, FR.modulus)
        h = self.coset_ntt(self.scale(self.sub(self.mul(ea, eb), ec), zinv), inverse=True)
        return self.slice(h, 0, n - 1)

    @abc.abstractmethod
    def slice(self, a, start: int, stop: int):
        """Device sub-array a[start:stop]."""

    @abc.abstractmethod
    def pad(self, a, n: int):
        """``a`` followed by zeros up to length n, as a new device array.

        Raises:
            ValueError: n < length(a).
        """

    @abc.abstractmethod
    def select(self, a, mask: np.ndarray):
        """The elements of ``a`` where the host bool array ``mask`` (length(a),) is True, as a new
        device array (numpy boolean-indexing semantics). ``mask`` may also be what ``selection``
        made of such an array.

        Raises:
            ValueError: the mask's length differs from a's.
        """

    def selection(self, mask: np.ndarray):
        """``mask`` (a host bool array) prepared for many ``select`` calls (a Prover's density
        masks, the same for every proof): here the bool array itself; backends whose ``select``
        works elsewhere keep what they can reuse (the cuda backend: the mask and its per-tile
        counts on the device)."""
        return np.asarray(mask, dtype=bool)

    @abc.abstractmethod
    def first_unsatisfied(self, a, b, c) -> int | None:
        """The smallest index i with a[i]·b[i] ≠ c[i] in Fr, or None when a·b = c everywhere.

        Computed where the arrays live (no host copy of a, b, c).

        Raises:
            ValueError: the lengths differ.
        """

    def synchronize(self) -> None:
        """Wait for queued device work to finish (asynchronous backends; for phase timings)."""

    # --- host staging under a device-memory limit (``cuzk.memory.gpu_plan``) ---------------
    def offload(self, a, out=None):
        """A device array moved to host memory (the device copy is the caller's to drop): what
        ``restore`` and MSM contexts take back in slices; ``len()`` is its length. ``out``: a
        host buffer to copy into (cuda: ``host_empty``'s, kept across partitions). The default
        (cpu backend, whose arrays live on the host) is ``a`` itself."""
        return a

    def host_buffers(self, count: int, shape: tuple, ahead: bool = False):
        """Host buffers for ``offload``'s ``out``, reused across groups of partitions: an object
        with ``take(j)`` (buffer j < count), ``make_ahead(j)`` (with ``ahead``: start making
        buffers up to j in the background; else a no-op) and ``close()``, or None where
        ``offload`` needs none (the default: cpu arrays stay where they are)."""
        return None

    def make_room(self, nbytes: int) -> float:
        """Get the host ready to page-lock ``nbytes`` bytes soon (cuda: ``pinned.make_room``, which
        may compact the kernel's free memory so the new regions get huge pages); returns the
        seconds it took. The default (cpu backend, nothing pinned) does nothing: 0.0."""
        return 0.0

    def compact_of(self, upload):
        """The compact form of the assignment a ``compact_to_device_async`` upload left where the
        backend keeps it, for A's, B's and L's scalars to be expanded from piece by piece
        (``host_select``, ``restore``, ``MSMContext.msm_many``; the upload lets go of it), or None:
        the default (cpu), whose w lives on the host already."""
        return None

    def restore(self, h, lo: int, hi: int):
        """Elements ``lo:hi`` of an ``offload``-ed array (or of a ``host_select``-ion) as a new
        device array."""
        return self.slice(h, lo, hi)

    def host_select(self, h, mask: np.ndarray):
        """The elements of the ``offload``-ed array ``h`` where the bool array ``mask`` (len(h),)
        is set, as a scalar vector ``restore`` and ``MSMContext.msm_many`` take in slices. The
        default (cpu) selects now; cuda selects each slice when it is asked for (its span of h
        uploaded, the rows picked on the device: no host copy of the selection).

        Raises:
            ValueError: the mask's length differs from h's.
        """
        return self.select(h, mask)

    def spmv_blocks(self, mats: Sequence[CSRMatrix], w, rows: int, nnz: int, pad_to: int | None = None):
        """The products M·w of matrices with equal rows (A, B, C) left in host memory, computed
        in row blocks of at most ``rows`` rows and ``nnz`` entries per matrix (at least one row),
        each block's slices uploaded for it (none cached); the blocks checked for a·b = c.
        ``pad_to``: each product zero-padded to that length (what ``compute_h_host`` takes
        without a copy).

        Returns:
            (list of ``offload``-ed products, the first row i with y0[i]·y1[i] ≠ y2[i] or None).
        """
        ys = [self.spmv(m, w) for m in mats]
        bad = self.first_unsatisfied(*ys) if len(ys) == 3 else None
        return [self.offload(self.pad(y, pad_to) if pad_to else y) for y in ys], bad

    def compute_h_host(self, a, b, c, n: int, chunk: int):
        """``compute_h`` of ``offload``-ed a, b, c (up to n elements each, zero-padded to n), with
        the device holding the result and blocks of ``chunk`` elements (cuda: the split schedule
        reading a, b, c from the host; inputs already n long are consumed: their host memory
        takes the evaluations). Returns the n − 1 H scalars (device array)."""
        return self.compute_h(*(self.pad(self.restore(x, 0, len(x)), n) for x in (a, b, c)), n)

    def spmv_ab(self, mats: Sequence[CSRMatrix], w, rows: int, nnz: int, pad_to: int):
        """The lean H phase's products: a = A·w and b = B·w as device arrays zero-padded to
        ``pad_to``, with C·w computed in row blocks (at most ``rows`` rows and ``nnz`` entries per
        matrix, each block's slices uploaded for it: cuda) only to check a·b = c; C·w is not kept,
        since for a satisfied witness it equals a·b (``compute_h_ab``).

        Returns:
            (a, b, the first row i with a[i]·b[i] ≠ (C·w)[i] or None).

        Raises:
            ValueError: len(w) differs from the columns, or pad_to is below the rows.
        """
        a, b, c = (self.spmv(m, w) for m in mats)
        return self.pad(a, pad_to), self.pad(b, pad_to), self.first_unsatisfied(a, b, c)

    def compute_h_ab(self, a, b, n: int, stage_c: bool = False):
        """``compute_h(a, b, a·b, n)`` for the products of a satisfied witness, whose C·w equals
        a·b row by row (``spmv_ab`` checked it): the same H scalars. ``a`` and ``b`` (length n,
        zero-padded) are consumed (cuda: the transforms run in their buffers, so the device holds
        a, b, c and one spare array at the peak, or three arrays with ``stage_c``: c waits in
        host memory while a's and b's evaluations are made). Returns the n − 1 H scalars.

        Raises:
            ValueError: lengths differ or are not a power of two.
        """
        return self.compute_h(a, b, self.mul(a, b), n)

    def prepare_h(self, n: int) -> None:
        """Make now what ``compute_h`` and ``compute_h_ab`` cache for a domain of n (cuda: the
        twiddles, n/2 elements, and the coset factor tables), so that it is allocated before a
        proof's transient arrays rather than among them (as ``prepare_spmv``). Default: nothing
        is cached.

        Raises:
            ValueError: n is not a supported power of two.
        """

    def prepare_blocks(self, m: CSRMatrix) -> None:
        """Make now what ``spmv_blocks`` and ``spmv_ab`` keep for the matrix ``m`` on the host
        (cuda: its row offsets, columns and coefficient ids checked and converted into pinned
        uint32 arrays, once per matrix object). Default: nothing is kept.

        Raises:
            ValueError: a column index or coefficient id outside the matrix.
        """

    def prepare_spmv(self, m: CSRMatrix) -> None:
        """Make now what ``spmv`` caches for the matrix ``m`` (cuda: its device CSR arrays), so
        that it is allocated before a proof's transient arrays rather than among them (see
        ``Prover.prove_group``). Default: nothing is cached.

        Raises:
            ValueError: a malformed matrix (as ``spmv``).
        """

    def drop_cached(self, m: CSRMatrix) -> None:
        """Forget what the backend caches for the matrix ``m`` (cuda: its device CSR arrays), so
        a later phase under a memory limit has the room; the next product uploads it again."""

    # --- sparse ------------------------------------------------------------------------------
    @abc.abstractmethod
    def spmv(self, m: CSRMatrix, w):
        """y = M·w over Fr: ``w`` a device array of length cols, result of length rows."""

    def spmv_t(self, m: CSRMatrix, x):
        """y = Mᵀ·x over Fr (the setup's QAP evaluation u_i(τ) = Σ_row A[row, i]·L_row(τ)):
        ``x`` a device array of length rows, result of length cols. Default: ``spmv`` of
        ``m.transpose()`` (built on the host).

        Raises:
            ValueError: len(x) != rows.
        """
        if self.length(x) != m.shape[0]:
            raise ValueError(f"spmv_t: matrix has {m.shape[0]} rows but the vector has {self.length(x)} entries")
        return self.spmv(m.transpose(), x)

    def spmv_t_blocks(self, m: CSRMatrix, x, rows: int, nnz: int, cols: int):
        """Mᵀ·x left in host memory (``offload``-ed), computed ``cols`` columns at a time, each
        over row blocks of at most ``rows`` rows and ``nnz`` entries (at least one row) whose
        slices are uploaded for it (cuda: nothing cached; the device holds one column slice's
        sums and one block). ``x``: a device array or an ``offload``-ed one. Default (the cpu
        backend): ``spmv_t`` whole.

        Raises:
            ValueError: len(x) != rows.
        """
        return self.offload(self.spmv_t(m, x))

    @abc.abstractmethod
    def concat(self, parts: Sequence):
        """The device arrays ``parts`` one after the other, as a new device array."""

    # --- curve -------------------------------------------------------------------------------
    @abc.abstractmethod
    def msm_context(self, group: Group, bases: np.ndarray, resident: bool | None = None) -> MSMContext:
        """Keep ``bases`` ((n, group.uncompressed_size) uint8, already validated) resident.
        ``resident`` (cuda): False keeps them in host memory, streamed per MSM; None decides by
        the room left."""

    @abc.abstractmethod
    def fixed_base_mul(self, group: Group, base, scalars: Sequence[int]) -> np.ndarray:
        """[k·base for k in scalars] as a ``(n, group.uncompressed_size)`` uint8 array (setup)."""

    def fixed_base_context(self, group: Group, base, scalars) -> MSMContext:
        """An MSM context over the bases [k·base for k in scalars] (a setup's query kept resident
        for proving without writing it out). ``scalars``: a device array or an int array.
        Default: ``msm_context`` of ``fixed_base_mul``'s encodings; the cuda backend keeps the
        products on the device.

        Raises:
            ValueError: a scalar outside [0, r), or a malformed base encoding.
        """
        return self.msm_context(group, self.fixed_base_mul(group, base, scalars))

    def close(self) -> None:
        """Release workers and device memory."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
