"""CPU kernels and the one worker-process pool that runs them in parallel.

The kernels live here so that the parent process (``threads=1``) and the worker processes run
the same code:

- ``msm_shard``: Σ kᵢ·Pᵢ over resident points, with 0/1 scalars split off from Pippenger.
- ``fixed_base_mul_bytes``: [k·P for k in scalars] for one point P, by a fixed-base window table.
- ``ntt`` / ``ntt_chain``: radix-2 NTTs over Fr int arrays, twiddles cached in a ``Twiddles``.

Transport: scalars and Fr elements as 32-byte little-endian strings (``scalars_to_bytes``,
``fr_from_bytes``), points as the uncompressed zcash encoding (``cuzk.curve``).

``WorkerPool`` runs ``size`` processes started with the ``spawn`` method (the parent may have
threads, so ``fork`` is unsafe). Each worker keeps private state across requests: MSM base
shards registered under integer keys (ops ``load``/``msm``/``drop``, see ``new_key`` and
``discard``) and a twiddle cache, so bases and twiddles cross the pipe once.
"""

from __future__ import annotations

import functools
import itertools
import multiprocessing as mp
import operator
import signal
import threading
import time
import traceback
import weakref
from multiprocessing.connection import wait as mp_wait
from typing import Callable, Sequence

import gmpy2
import numpy as np
import py_arkworks_bls12381 as ark

from ..errors import CuzkError
from ..curve import G1, G2, CurveError, EncodingError, Group
from ..field import FR

SCALAR_BYTES = 32
_GROUPS = {G1.name: G1, G2.name: G2}
# Window width cap for the fixed-base table: 22 windows × 4096 points (~30 MB for G2).
_MAX_WINDOW = 12

MAX_LOG_NTT = 27
"""Largest NTT size handled, as log2 (2^27 is the Filecoin 32 GiB sector domain)."""

_MPZ = gmpy2.mpz
_RZ = _MPZ(FR.modulus)
_ONE = _MPZ(1)
_FROM_BYTES = _MPZ.from_bytes


class WorkerError(CuzkError, RuntimeError):
    """A worker process failed (its traceback is in the message) or died."""


class WorkerDiedError(WorkerError):
    """A worker process ended during a request; the message names its likely cause.

    Attributes:
        worker: its position in the pool.
        pid: its process id.
        op: the request it was serving ("msm", "ntt", …).
        exitcode: ``multiprocessing``'s exit code: −N when signal N killed it, None if unknown.
    """

    def __init__(self, worker: int, pid: int | None, op: str, exitcode: int | None, step: str = "", note: str = ""):
        self.worker, self.pid, self.op, self.exitcode, self.step = worker, pid, op, exitcode, step
        what, why = death_cause(exitcode)
        super().__init__((f"{step}: " if step else "") + f"worker process {worker} (pid {pid}) {what} during {op!r}"
                         + (f": {why}" if why else "") + (f" ({note})" if note else ""))

    def in_step(self, step: str, note: str = "") -> "WorkerDiedError":
        """The same error naming the step it ended (``cuzk.pipeline.measured``) and a note."""
        return WorkerDiedError(self.worker, self.pid, self.op, self.exitcode, step, note)


REPLY_TIMEOUT_S = 6 * 3600.0
"""Seconds a request may wait for its reply before the pool stops it (``WorkerStalledError``):
a worker alive but stuck (a deadlock, a stopped process) would otherwise hold the step forever.
Generous: the longest worker request measured is minutes (a 2^27 NTT, the CPU MSMs of a 32 GiB
partition); a step that needs more sets ``WorkerPool.reply_timeout_s``."""


class WorkerStalledError(WorkerError):
    """Workers alive but without a reply past the pool's ``reply_timeout_s`` (the pool is closed).

    Attributes:
        workers: the positions still without a reply.
        op: the request ("msm", "ntt", …).
        seconds: how long the request waited.
    """

    def __init__(self, workers: list[int], op: str, seconds: float):
        self.workers, self.op, self.seconds = workers, op, seconds
        super().__init__(f"worker process(es) {', '.join(map(str, workers))} gave no reply to {op!r} in "
                         f"{seconds:.0f} s (alive but stuck: stopped, deadlocked, or swapping); the pool "
                         "was stopped")


def death_cause(exitcode: int | None) -> tuple[str, str]:
    """(what happened, its likely cause or "") for a worker's ``multiprocessing`` exit code.

    SIGKILL is what the kernel's OOM killer (and a cgroup or SLURM memory limit) sends, so it
    is reported as most likely out of memory; exit status 1 is what a script without a main
    guard gives (spawned workers import the main module, which starts workers again).
    """
    if exitcode is None:
        return "stopped answering", "its exit status is unknown"
    if exitcode >= 0:
        why = ("from a script, spawned workers import the main module: guard it with "
               "`if __name__ == '__main__':`") if exitcode == 1 else ""
        return f"exited with status {exitcode}", why
    try:
        name = signal.Signals(-exitcode).name
    except ValueError:
        name = f"signal {-exitcode}"
    if -exitcode != signal.SIGKILL:
        return f"was killed by {name}", ""
    return (f"was killed by {name}", "most likely out of memory (the kernel's OOM killer, a cgroup or a SLURM "
            "memory limit sends SIGKILL; see `dmesg`): give the step more memory (mem_gb) or fewer threads")


# --- transport --------------------------------------------------------------------------------


def scalars_to_bytes(values) -> bytes:
    """Scalars (ints or mpz, each in [0, 2^256)) → concatenated 32-byte little-endian strings.

    Also the transport form of Fr int arrays (canonical values), read back by ``fr_from_bytes``.

    Raises:
        OverflowError: a value is negative or too large for 32 bytes.
    """
    # int.to_bytes and mpz.to_bytes share the signature.
    return b"".join(v.to_bytes(SCALAR_BYTES, "little") for v in values)


def fr_from_bytes(data: bytes) -> np.ndarray:
    """Concatenated 32-byte little-endian values → 1-D int array (object dtype, ``gmpy2.mpz``).

    Values are not reduced. Raises ValueError when ``len(data)`` is not a multiple of 32.
    """
    if len(data) % SCALAR_BYTES:
        raise ValueError(f"buffer of {len(data)} bytes is not a whole number of 32-byte values")
    n = len(data) // SCALAR_BYTES
    w = SCALAR_BYTES
    # fromiter: assigning a list of mpz into an object array is ~5× slower (numpy probes each).
    return np.fromiter((_FROM_BYTES(data[i : i + w], "little") for i in range(0, n * w, w)), dtype=object, count=n)


def _scalar_matrix(scalars: bytes) -> np.ndarray:
    if len(scalars) % SCALAR_BYTES:
        raise ValueError(f"scalar buffer of {len(scalars)} bytes is not a whole number of 32-byte scalars")
    return np.frombuffer(scalars, dtype=np.uint8).reshape(-1, SCALAR_BYTES)


# --- curve kernels ------------------------------------------------------------------------------


def decode_points(group: Group, data, index: np.ndarray | None = None) -> list:
    """Uncompressed zcash encodings of trusted points → py-arkworks points, without subgroup checks.

    The same result and errors as ``group.from_array(data, check_subgroup=False)`` (arkworks
    still checks the curve equation and that coordinates are below q) at a third of the cost:
    the flag bytes and points at infinity are checked on the whole array at once, G2's
    coordinate halves are reordered there (zcash c1 ‖ c0 → arkworks c0 ‖ c1), and each point
    is one arkworks call. Only on a failure does it fall back to the per-point decoder, to name
    the first bad point.

    Args:
        data: bytes, or a ``(n, group.uncompressed_size)`` uint8 array.
        index: optional ``(n,)`` numbers of the points in a larger array, used in error messages
            (point i of ``data`` is called point ``index[i]``).

    Raises:
        cuzk.curve.CurveError (a subclass) with the index of the first bad point.
    """
    size = group.uncompressed_size
    arr = data if isinstance(data, np.ndarray) else np.frombuffer(bytes(data), dtype=np.uint8)
    if arr.size % size:
        raise EncodingError(f"{group.name}: {arr.size} bytes is not a whole number of points")
    arr = np.ascontiguousarray(arr, dtype=np.uint8).reshape(-1, size)
    n = arr.shape[0]
    if n == 0:
        return []
    flags = arr[:, 0] & 0xE0
    inf = flags == 0x40
    bad = (flags != 0) & ~inf  # compression or sort flag, or a flag mixed with infinity
    bad |= inf & (((arr[:, 0] & 0x1F) != 0) | arr[:, 1:].any(axis=1))
    bad |= ~inf & ~arr.any(axis=1)  # (0, 0) without the infinity flag
    first = int(np.flatnonzero(bad)[0]) if bad.any() else None
    if first is None:
        xy = arr if group.coord_words == 1 else arr.reshape(n, 4, 48)[:, [1, 0, 3, 2]].reshape(n, size)
        raw = np.ascontiguousarray(xy).tobytes()
        make = group.point.from_xy_bytes_unchecked_be
        try:
            if not inf.any():
                return [make(raw[i : i + size]) for i in range(0, n * size, size)]
            ident, infl = group.point.identity, inf.tolist()
            return [ident() if infl[k] else make(raw[k * size : (k + 1) * size]) for k in range(n)]
        except ValueError:
            pass  # off the curve, or a coordinate not below q: find the first such point below
    for i in range(n):  # the slow decoder names the first bad point (one may precede ``first``)
        try:
            group.from_uncompressed(arr[i].tobytes(), check_subgroup=False)
        except CurveError as e:  # the exact reason, worded as from_array words it
            raise type(e)(f"point {i if index is None else int(index[i])}: {e}") from None
    raise EncodingError(f"{group.name}: undecodable points")  # not reached: arkworks refused one


def msm_shard(group: Group, points: Sequence, scalars: bytes):
    """Σ kᵢ·points[i] with kᵢ read from ``scalars`` (32-byte little-endian, already in [0, r)).

    Zero scalars are skipped and scalars equal to 1 summed by plain additions (``Group.sum``);
    the rest go to arkworks' Pippenger (``multiexp_unchecked``, as ``Group.msm``). Sparse 0/1
    witnesses make this split pay: an addition costs ~1 µs against ~10 µs per Pippenger term.
    Points at zero scalars are never read (they may be None).

    Raises:
        ValueError: the number of scalars differs from the number of points.
    """
    return msm_parts(group, [(points, scalars)])


def msm_parts(group: Group, parts: Sequence[tuple[Sequence, bytes]]):
    """Σ over ``(points, scalars)`` parts of Σ kᵢ·points[i], as ``msm_shard`` does each part, but
    with the scalars above 1 of all parts in one Pippenger: arkworks' window grows with the MSM's
    size, so one MSM of 2^16 terms costs about 8% less than two of 2^15.

    Raises:
        ValueError: a part's number of scalars differs from its number of points.
    """
    return msm_run(group, msm_plan(group, parts))


def msm_plan(group: Group, parts: Sequence[tuple[Sequence, bytes]], ones: bool = True) -> tuple:
    """The part of ``msm_parts`` that holds the GIL: the sum of the points at scalars equal to 1
    and the arkworks lists (points, scalars) of the rest. ``msm_run`` finishes it; a caller that
    runs MSMs on threads plans in one thread and runs in others, so that the helpers never wait
    for the GIL (arkworks' Pippenger releases it).

    Args:
        ones: False leaves the points at scalar 1 out (the plan's sum is the identity, and those
            points are not read): a caller that wants its Pippenger started sooner adds them
            later (``msm_ones``).

    Raises:
        ValueError: a part's number of scalars differs from its number of points.
    """
    acc = group.identity()
    big_points: list = []
    big_scalars: list = []
    frm = ark.Scalar.from_le_bytes
    for points, scalars in parts:
        k = _scalar_matrix(scalars)
        if len(k) != len(points):
            raise ValueError(f"{group.name} msm: {len(points)} points but {len(k)} scalars")
        high = k[:, 1:].any(axis=1)
        low = k[:, 0]
        if ones:
            acc = acc + group.sum([points[i] for i in np.flatnonzero(~high & (low == 1)).tolist()])
        rest = np.flatnonzero(high | (low > 1)).tolist()
        big_points += [points[i] for i in rest]
        big_scalars += [frm(scalars[SCALAR_BYTES * i : SCALAR_BYTES * (i + 1)]) for i in rest]
    return acc, big_points, big_scalars


def msm_ones(group: Group, points: Sequence, scalars: bytes):
    """Σ of the points whose scalar (32-byte LE in ``scalars``) is 1: what ``msm_plan(..., ones=False)``
    left out."""
    k = _scalar_matrix(scalars)
    return group.sum([points[i] for i in np.flatnonzero(~k[:, 1:].any(axis=1) & (k[:, 0] == 1)).tolist()])


def msm_run(group: Group, plan: tuple):
    """Finish an ``msm_plan``: one arkworks Pippenger (the GIL released) plus the ones' sum."""
    acc, big_points, big_scalars = plan
    if big_points:
        acc = acc + group.point.multiexp_unchecked(big_points, big_scalars)
    return acc


def _window(n: int) -> int:
    # Minimise table adds + per-scalar adds: ceil(255/w)·(2^w + n).
    return min(range(1, _MAX_WINDOW + 1), key=lambda w: -(-255 // w) * ((1 << w) + n))


def _digits(k: np.ndarray, w: int, nwin: int) -> np.ndarray:
    """(n, 32) uint8 little-endian scalars → (nwin, n) int64 w-bit digits, low window first."""
    limbs = np.zeros((len(k), 5), dtype=np.uint64)  # a zero limb above the top: windows past bit 255 read 0
    limbs[:, :4] = np.ascontiguousarray(k).view("<u8")
    mask = np.uint64((1 << w) - 1)
    out = np.empty((nwin, len(k)), dtype=np.int64)
    for j in range(nwin):
        li, sh = divmod(w * j, 64)
        d = limbs[:, li] >> np.uint64(sh)
        if sh + w > 64:
            d |= limbs[:, li + 1] << np.uint64(64 - sh)
        out[j] = d & mask
    return out


def fixed_base_mul_bytes(group: Group, base, scalars: bytes) -> bytes:
    """[k·base for k in scalars] as concatenated uncompressed encodings (96 / 192 bytes each).

    Fixed-base windowing with a full digit table (cf. HAC §14.6.3): T[j][d] = d·2^(wj)·base for
    every window j and digit d < 2^w, then k·base = Σ_j T[j][k_j] with k_j the j-th w-bit digit
    of k, i.e. ceil(255/w) − 1 additions per scalar; w (≤ 12) minimises table + per-scalar adds.
    The sums run window by window over all scalars (one table row stays in cache: ~25% faster
    than scalar by scalar); digits come from 64-bit limb shifts. ``scalars`` are 32-byte
    little-endian, in [0, r) (0 gives the point at infinity). Measured on the 2-core dev box:
    ~25 µs per G1 scalar, of which ~9 µs is the affine conversion (one inversion per point).
    """
    k = _scalar_matrix(scalars)
    n = len(k)
    if n == 0:
        return b""
    w = _window(n)
    nwin = -(-255 // w)
    table = []
    q = base
    for _ in range(nwin):
        row = [group.identity(), q]
        for _d in range(2, 1 << w):
            row.append(row[-1] + q)
        table.extend(row)
        q = row[-1] + q
    digits = _digits(k, w, nwin)
    get = table.__getitem__
    acc = list(map(get, digits[0].tolist()))
    for j in range(1, nwin):
        acc = list(map(operator.add, acc, map(get, (digits[j] + (j << w)).tolist())))
    # Encode in bulk: arkworks' x‖y (zeros for infinity), then the zcash fix-ups on the array.
    size = group.uncompressed_size
    out = np.frombuffer(b"".join(p.to_xy_bytes_be() for p in acc), dtype=np.uint8).reshape(n, size)
    if group.coord_words == 2:  # arkworks orders Fq2 as c0 ‖ c1, zcash as c1 ‖ c0
        out = out.reshape(n, 4, 48)[:, [1, 0, 3, 2]].reshape(n, size)
    else:
        out = out.copy()
    out[~out.any(axis=1), 0] = 0x40
    return out.tobytes()


# --- NTT kernels --------------------------------------------------------------------------------


def _bitrev(n: int) -> np.ndarray:
    k = n.bit_length() - 1
    idx = np.arange(n, dtype=np.int64)
    rev = np.zeros(n, dtype=np.int64)
    for b in range(k):
        rev |= ((idx >> b) & 1) << (k - 1 - b)
    rev.flags.writeable = False
    return rev


_bitrev_cached = functools.lru_cache(maxsize=8)(_bitrev)


def bitrev(n: int) -> np.ndarray:
    """Bit-reversal permutation of range(n), n a power of two, as a read-only int64 array (cached
    up to n = 2^20, 8 MB)."""
    return _bitrev_cached(n) if n <= 1 << 20 else _bitrev(n)


class Twiddles:
    """Cache of [ω_N^0 … ω_N^(N/2−1)] for the largest N seen; smaller sizes stride it.

    One per process (the backend's, and one in each worker), so repeated NTTs of a size pay
    for the twiddles once.
    """

    def __init__(self):
        self._cache: tuple[int, np.ndarray] = (1, np.empty(0, dtype=object))

    def roots(self, n: int) -> np.ndarray:
        """[ω_n^0 … ω_n^(n/2−1)] for ω_n = FR.root_of_unity(n), as a strided view of the cache."""
        big, tw = self._cache
        if n > big:
            big, tw = n, FR.powers(FR.root_of_unity(n), n // 2)
            self._cache = (big, tw)  # one assignment: readers see a consistent pair
        return tw[:: big // n]

    def clear(self) -> None:
        """Drop the cached twiddles."""
        self._cache = (1, np.empty(0, dtype=object))


def check_ntt_size(n: int) -> None:
    """Raise ValueError unless n is a power of two in [1, 2^MAX_LOG_NTT] (n is named)."""
    if n < 1 or n & (n - 1) or n.bit_length() - 1 > MAX_LOG_NTT:
        raise ValueError(f"ntt: length n={n} is not a power of two in [1, 2^{MAX_LOG_NTT}]")


def ntt(a: np.ndarray, inverse: bool, twiddles: Twiddles) -> np.ndarray:
    """Radix-2 NTT of an int array (length n a power of two); canonical output in [0, r).

    Forward: out[j] = Σ_i a[i]·ω^(ij); inverse: out[j] = n⁻¹ Σ_i a[i]·ω^(−ij). Iterative
    decimation in time (bit-reversed input, log2(n) butterfly stages, each one numpy expression
    over an (n/2m, 2m) view). Sums are left unreduced inside the stages (mpz grows one bit per
    stage) and only the twiddle products are reduced; one final reduction. The inverse reuses
    the forward twiddles: Σ a[i]·ω^(−ij) is the forward output at index (n − j) mod n.
    (Measured alternatives that were slower: ufuncs writing into preallocated halves, skipping
    the ω^0 column, reducing every other stage, Python ints instead of mpz.)

    Raises:
        ValueError: n is not a power of two in [1, 2^27].
    """
    n = len(a)
    check_ntt_size(n)
    if n == 1:
        return np.mod(a, _RZ)
    w = twiddles.roots(n)
    x = a[bitrev(n)]
    m = 1
    while m < n:
        v = x.reshape(n // (2 * m), 2 * m)
        e, o = v[:, :m], v[:, m:]
        t = o if m == 1 else np.mod(o * w[:: n // (2 * m)], _RZ)
        x = np.concatenate((e + t, e - t), axis=1).reshape(n)
        m *= 2
    if not inverse:
        return np.mod(x, _RZ)
    x = x[(-np.arange(n, dtype=np.int64)) % n]
    return np.mod(x * _MPZ(pow(n, -1, FR.modulus)), _RZ)


NTT_STEPS = ("ntt", "intt", "coset_ntt", "coset_intt")
"""Step names of ``ntt_chain``; the coset is g·H with g = FR.generator (as Backend.coset_ntt)."""


def ntt_chain(a: np.ndarray, steps: Sequence[str], twiddles: Twiddles) -> np.ndarray:
    """Apply NTT steps (names from ``NTT_STEPS``) in order to an int array; canonical output.

    ``coset_ntt`` scales a[i] by g^i then NTTs, ``coset_intt`` inverse-NTTs then scales by
    g^(−i), exactly as ``Backend.coset_ntt``. An empty chain returns ``a`` reduced mod r.

    Raises:
        ValueError: an unknown step, or a length that is not a power of two ≤ 2^27.
    """
    x = np.mod(a, _RZ) if not steps else a
    for step in steps:
        if step == "ntt":
            x = ntt(x, False, twiddles)
        elif step == "intt":
            x = ntt(x, True, twiddles)
        elif step == "coset_ntt":
            x = ntt(np.mod(x * FR.powers(FR.generator, len(x)), _RZ), False, twiddles)
        elif step == "coset_intt":
            ginv = pow(FR.generator, -1, FR.modulus)
            x = np.mod(ntt(x, True, twiddles) * FR.powers(ginv, len(x)), _RZ)
        else:
            raise ValueError(f"unknown NTT step {step!r}; expected one of {', '.join(NTT_STEPS)}")
    return x


# --- worker side ------------------------------------------------------------------------------
# Worker state: {"bases": {key: (group, points)}, "twiddles": Twiddles}.


def _op_load(state: dict, arg, data: bytes):
    key, group_name = arg
    group = _GROUPS[group_name]
    points = decode_points(group, data)
    state["bases"][key] = (group, points)
    return len(points), b""


def _op_msm(state: dict, arg, data: bytes):
    try:
        group, points = state["bases"][arg]
    except KeyError:
        raise KeyError(f"no MSM bases loaded under key {arg!r} (dropped, or never loaded)") from None
    return None, group.to_uncompressed(msm_shard(group, points, data))


def _op_drop(state: dict, arg, data: bytes):
    for key in arg:
        state["bases"].pop(key, None)
    return None, b""


def _op_keys(state: dict, arg, data: bytes):
    return sorted(state["bases"]), b""


def _op_fixed_base(state: dict, arg, data: bytes):
    group_name, base = arg
    group = _GROUPS[group_name]
    return None, fixed_base_mul_bytes(group, group.from_uncompressed(base, check_subgroup=False), data)


def _op_ntt(state: dict, arg, data: bytes):
    return None, scalars_to_bytes(ntt_chain(fr_from_bytes(data), arg, state["twiddles"]))


_OPS = {
    "load": _op_load,  # arg (key, group name), data bases → number of points
    "msm": _op_msm,  # arg key, data scalars → partial sum (uncompressed)
    "drop": _op_drop,  # arg list of keys (missing ones ignored)
    "keys": _op_keys,  # → sorted resident keys (tests, diagnostics)
    "fixed_base": _op_fixed_base,  # arg (group name, base bytes), data scalars → points
    "ntt": _op_ntt,  # arg steps (ntt_chain), data Fr values → Fr values
}


def _serve(conn) -> None:
    # Ctrl-C goes to the whole process group; the parent handles it and stops us.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    state: dict = {"bases": {}, "twiddles": Twiddles()}
    while True:
        try:
            op, arg = conn.recv()
            data = conn.recv_bytes()
        except (EOFError, OSError):
            return  # parent gone
        if op == "stop":
            return
        try:
            head, out = _OPS[op](state, arg, data)
            reply = ("ok", head)
        except Exception:
            reply, out = ("err", traceback.format_exc()), b""
        del data  # a large request buffer should not outlive the request
        try:
            conn.send(reply)
            conn.send_bytes(out)
        except OSError:
            return


# --- parent side -----------------------------------------------------------------------------


def _shutdown(procs: list, conns: list) -> None:
    for conn in conns:
        try:
            conn.send(("stop", None))
            conn.send_bytes(b"")
        except Exception:
            pass
    for p in procs:
        p.join(timeout=2)
        if p.is_alive():  # busy on an abandoned request
            p.terminate()
            p.join(timeout=2)
        if p.is_alive():  # stopped (SIGTERM stays pending) or ignoring it
            p.kill()
            p.join(timeout=2)
    for conn in conns:
        conn.close()
    procs.clear()
    conns.clear()


class WorkerPool:
    """``size`` worker processes, each with private resident state, addressed by position.

    ``run(op, jobs)`` sends ``jobs[i]`` to worker i (all sends first, so workers run in
    parallel) and returns the replies in order; ``run_overlapped`` also runs a function in the
    calling process while the workers compute. One exchange at a time (a lock), so several
    users (MSM contexts, fixed-base, NTTs) can share one pool. Workers are stopped by
    ``close()``, by garbage collection of the pool, or at interpreter exit (``weakref.finalize``);
    they are also daemonic and exit on their own when the parent's pipe closes.

    Raises:
        ValueError: size < 1.
    """

    def __init__(self, size: int):
        if size < 1:
            raise ValueError(f"worker pool size must be ≥ 1, got {size}")
        ctx = mp.get_context("spawn")
        self._procs: list = []
        self._conns: list = []
        self._lock = threading.Lock()  # one request/reply exchange at a time
        self._keys = itertools.count(1)
        self._pending_drops: list = []  # keys discarded by finalizers, dropped at the next exchange
        self.reply_timeout_s = REPLY_TIMEOUT_S
        self._finalizer = weakref.finalize(self, _shutdown, self._procs, self._conns)
        try:
            for i in range(size):
                parent, child = ctx.Pipe(duplex=True)
                p = ctx.Process(target=_serve, args=(child,), name=f"cuzk-worker-{i}", daemon=True)
                p.start()
                child.close()
                self._procs.append(p)
                self._conns.append(parent)
        except BaseException:
            self.close()
            raise

    @property
    def size(self) -> int:
        """Number of live workers (0 once closed)."""
        return len(self._procs)

    @property
    def closed(self) -> bool:
        """True once the workers have been stopped."""
        return not self._finalizer.alive

    def new_key(self) -> int:
        """A fresh key for resident worker state (MSM base shards), unique within this pool."""
        return next(self._keys)

    def discard(self, key: int) -> None:
        """Queue ``key`` to be dropped from every worker at the start of the next exchange.

        Safe from finalizers and other threads (no pipe traffic here: a finalizer may run in
        the middle of an exchange of this same thread).
        """
        self._pending_drops.append(key)

    def run(self, op: str, jobs: Sequence[tuple[object, bytes]]) -> list[tuple[object, bytes]]:
        """Run ``op`` with ``jobs[i] = (arg, data)`` on worker i; return ``[(head, data), …]``.

        Raises:
            ValueError: more jobs than workers.
            WorkerError: the pool is closed, a worker raised (traceback in the message; the pool
                stays usable).
            WorkerDiedError: a worker ended before its reply (the pool is closed); the message
                names the worker, the op and the likely cause (SIGKILL: out of memory).
            WorkerStalledError: no reply within ``reply_timeout_s`` (the pool is closed).
        """
        return self.run_overlapped(op, jobs, None)[0]

    def run_overlapped(self, op: str, jobs: Sequence[tuple[object, bytes]], local: Callable[[], object] | None):
        """As ``run``, and call ``local()`` in this process after the jobs are sent.

        Returns:
            (replies, local()'s result, or None when ``local`` is None).

        Raises:
            as ``run``; an exception of ``local`` is re-raised once the replies are read.
        """
        with self._lock:
            if self.closed:
                raise WorkerError("worker pool is closed")
            if len(jobs) > len(self._conns):
                raise ValueError(f"{len(jobs)} jobs for {len(self._conns)} workers")
            drops = []
            while self._pending_drops:
                drops.append(self._pending_drops.pop())
            if drops:
                self._exchange("drop", [(drops, b"")] * len(self._conns), None)
            return self._exchange(op, jobs, local)

    def _exchange(self, op, jobs, local):
        conns = self._conns[: len(jobs)]
        try:
            for conn, (arg, data) in zip(conns, jobs):
                conn.send((op, arg))
                conn.send_bytes(data)
            local_result, local_exc = None, None
            if local is not None:
                try:
                    local_result = local()
                except Exception as e:  # read the replies first: the stream must stay in step
                    local_exc = e
            replies = self._replies(op, conns)
        except BaseException as e:
            # The request/reply stream is out of step (dead worker, Ctrl-C): drop the pool.
            died = e if isinstance(e, WorkerDiedError) else None
            if died is None and isinstance(e, (EOFError, OSError)):
                died = self._dead(op)
            # the others are busy on requests nobody will read, and a stalled one may be stopped
            # with part of its request unread in its pipe: SIGTERM would stay pending on it and
            # close()'s stop message block on the full pipe (a test hung so), so SIGKILL all
            for p in self._procs:
                p.kill()
            for p in self._procs:
                p.join(timeout=2)
            self.close()
            if died is not None:
                raise died from None
            raise
        if local_exc is not None:
            raise local_exc
        for i, ((status, head), _) in enumerate(replies):
            if status != "ok":
                raise WorkerError(f"worker {i} failed in {op!r}:\n{head}")
        return [(head, data) for (_, head), data in replies], local_result

    def _replies(self, op: str, conns: list) -> list:
        """Every reply of ``conns``, watching the workers meanwhile: a worker that ends before
        its reply raises WorkerDiedError at once (not after the others finish, and not a bare
        EOFError), whether or not its pipe reports the end; workers alive without a reply past
        ``reply_timeout_s`` raise WorkerStalledError."""
        procs = self._procs[: len(conns)]
        out: list = [None] * len(conns)
        pending = set(range(len(conns)))
        start = time.monotonic()
        while pending:
            left = start + self.reply_timeout_s - time.monotonic()
            ready = set(mp_wait([conns[i] for i in pending] + [procs[i].sentinel for i in pending],
                                timeout=max(0.0, left)))
            if not ready and time.monotonic() - start >= self.reply_timeout_s:
                raise WorkerStalledError(sorted(pending), op, time.monotonic() - start)
            for i in sorted(pending):
                if conns[i] in ready:
                    try:
                        out[i] = (conns[i].recv(), conns[i].recv_bytes())
                    except (EOFError, OSError):  # its end of the pipe closed: it died
                        raise self._dead(op, i) from None
                    pending.discard(i)
                elif procs[i].sentinel in ready:
                    raise self._dead(op, i)
        return out

    def _dead(self, op: str, worker: int | None = None) -> WorkerDiedError:
        """The error for a worker that ended during ``op`` (the first dead one if not given)."""
        candidates = range(len(self._procs)) if worker is None else [worker]
        for i in candidates:
            p = self._procs[i]
            p.join(timeout=1)  # reap it: its exit code tells the cause
            if p.exitcode is not None or worker is not None:
                return WorkerDiedError(i, p.pid, op, p.exitcode)
        return WorkerDiedError(0, self._procs[0].pid if self._procs else None, op, None)

    def close(self) -> None:
        """Stop the workers (idempotent); their resident state is lost."""
        self._finalizer()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def split(n: int, parts: int) -> list[tuple[int, int]]:
    """``parts`` contiguous (lo, hi) ranges covering [0, n), sizes differing by at most one."""
    q, rem = divmod(n, parts)
    out, lo = [], 0
    for i in range(parts):
        hi = lo + q + (i < rem)
        out.append((lo, hi))
        lo = hi
    return out
