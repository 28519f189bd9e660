"""Schedules of the GPU steps under a device limit (``gpu_mem_limit_gb``): which key queries stay
resident and which are streamed from host memory in pieces, where the MSM scalars and the H
phase's arrays live, how many partitions share each pass over the key, and the device peak.

Pure arithmetic over the per-kernel sizes of ``cuzk.backend.cuda.plan`` (no CuPy; CPU-tested).
``plan_prove`` is what ``Prover.prove_group`` follows on the cuda backend, ``plan_setup`` what
``setup`` follows; both raise ``GPUMemoryError`` (step, need, limit) before any work when not even
the smallest schedule fits.

The prove schedule of a batch (SupraSeal C2's ``num_circuits`` idea: each piece of the key crosses
the bus once per group of partitions, not once per partition):

1. per partition of a group of ``in_flight``: its H scalars (the H phase: on the device with the
   matrices cached there and ``compute_h``'s own schedule; "lean": the matrices' row blocks sent
   from host memory, a and b on the device, C·w only checked against a·b, and the quotient
   transformed in the buffers of a, b, c and one spare, or three with c staged on the host
   (``compute_h_ab``); or "host": the sparse products in row blocks with a, b, c sent to the host
   and the quotient's split schedule reading them from there), and its A, B, L scalars; with
   ``scalars_on_host`` each vector is moved to host memory as soon as it exists;
2. per query: its bases resident, or sent from host memory in pieces of ``piece`` points through
   two device buffers (the next piece's copy on a side stream while this one is used); each
   piece (or resident chunk) serves the MSMs of every partition of the group, whose partial sums
   are added across pieces. Without ``h_shared`` the H query is the exception: each partition's
   H MSM runs right after its quotient, over its own walk of the bases, its scalars never leaving
   the device (no host array of n per partition in flight: more partitions share the other
   queries' passes where host memory bounds the group).

Sizes are points, elements or bytes.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from ..backend.base import GPUMemoryError
from ..backend.cuda.plan import (
    _FR_BYTES,
    MIN_MSM_CHUNK,
    compute_h_ab_device_bytes,
    compute_h_bus_arrays,
    compute_h_device_bytes,
    compute_h_memory_plan,
    csr_width_bytes,
    fixed_base_slice,
    largest_fitting,
    msm_device_bytes,
    ntt_device_bytes,
    ntt_memory_plan,
    compact_device_bytes,
    ntt_split,
)
from ..backend.cuda import pieces as _pieces

QUERIES = ("h", "l", "a", "b_g1", "b_g2")
"""The proving key's MSM queries, in the order ``Prover`` runs them."""
H_PHASES = ("device", "lean", "host")
"""Where a partition's H phase runs (``ProvePlan.h_phase``), most device memory first."""
LEAN_SCHEDULES = (("lean", 0), ("lean_staged", 0))
"""``compute_h_ab``'s schedules in the "lean" H phase: c on the device, or staged on the host."""
GROUP_WORDS = {"h": 1, "l": 1, "a": 1, "b_g1": 1, "b_g2": 2}
"""Fq words per coordinate of each query's points (1: G1, 2: G2)."""
POINT_BYTES = 96
"""Device bytes of one affine G1 point (Montgomery Fq limbs); a G2 point takes twice as many."""
RUNTIME_SLACK = 48 << 20
"""Device bytes every plan keeps free for small tables (NTT factor tables, the coefficient
table, fixed-base window tables, CuPy's rounding): not modelled one by one."""
POOL_FRAGMENT_ARRAYS = 0.25
"""Domain-size arrays (n × 32 B) every plan keeps free for the memory pool's free blocks that CuPy
counts against its limit but cannot release (free parts of chunks that still hold a live array).
On the H200 the 32 GiB partition's H phase once found 2.4 GB (0.56 of such an array) held beyond
its live arrays at 48 GiB (benchmarks/results/2026-12-02-h200/smallgpu-try2): long-lived arrays (a
group's compact assignments, cached tables) carved from a freed w's chunk. They now get chunks of
their own (``DeviceRuntime._own_chunks``), so a quarter of an array is kept. An allowance, not a
bound."""
KEY_BYTES_PER_S = 10e9
"""Rate the key crosses from its file to the device (read into the pinned staging buffers by
``pieces.COPY_THREADS`` threads, then sent): 10-20 GB/s on the H200 host for the streamed queries
(benchmarks/results/2026-12-02-h200/stop17; 2026-12-04-h200-stop38/call3: a partition's own walk
of H's 12.9 GB of bases beside its MSMs 1.13 s, five vectors' walk of L's 12.5 GB 0.73 s)."""
MSM_SECONDS_PER_POINT = {"h": 7.0e-9, "l": 0.5e-9, "a": 0.5e-9, "b_g1": 1.1e-9, "b_g2": 3.1e-9}
"""GPU seconds per point of one MSM of each query: a 32 GiB PoRep partition's on the H200 (H's
2^27 random scalars 0.86 s whole, 0.95-0.99 s in pieces of 2^25; L's and A's 130 M mostly-bit
scalars 0.063 and 0.067 s; B's 33 M in G1 0.035 s and in G2 0.102 s: benchmarks/results/
2026-12-04-h200-stop38/call3). What a walk's copies hide behind (``plan_seconds``). H's whole MSM
now takes 0.80 s (6.0e-9 a point, stop 40 call 1), but at 6.0e-9 the planner picks the shared walk
at 24 GiB (7 in flight), which measured slower than the own walks it picks now (2.29-2.51 against
2.22 s per proof): the hidden-copies model is coarser than that difference, so H keeps 7.0e-9."""
PINNED_BYTES_PER_S = 50e9
"""Rate of copies between the device and page-locked host arrays (scalars, matrices' row blocks,
staged NTT arrays): 55 GB/s measured on the H200 (``cuzk.backend.cuda.pinned``)."""
MIN_SPMV_ROWS = 1 << 10
"""Fewest rows of a sparse-product block of the "host" H phase."""
_SPMV_T_NNZ_BYTES = 64
"""Device bytes per non-zero ``spmv_t`` holds at its peak (the cached CSR, the argsort and its
scratch, the transposed index arrays; see ``SpMVOps.spmv_t``): an upper estimate."""
SPMV_T_BLOCK_NNZ_BYTES = 96
"""Device bytes per entry of a row block of ``spmv_t_blocks`` at its peak (the block's columns
and ids, the column filter's mask, prefix sums and kept copies, then ``transpose_split``'s sort,
its scratch and the transposed arrays): an upper estimate."""
SPMV_T_BLOCK_ROW_BYTES = 56
"""Device bytes per row of such a block (x's rows, the row offsets and their filtered copy)."""
SPMV_T_COL_BYTES = 168
"""Device bytes per column of a column slice of ``spmv_t_blocks`` (the accumulated sums, the
block's product, the per-column counts and offsets of ``transpose_split``, and its virtual rows,
at least one per column: offsets, partial sums, the second product's index arrays)."""


def _gib(b: int) -> str:
    return f"{b / (1 << 30):.3f} GiB"


@dataclass(frozen=True)
class QueryPlan:
    """One key query in a prove plan.

    Attributes:
        name: one of ``QUERIES``.
        points: its points.
        words: Fq words per coordinate (1: G1, 2: G2).
        resident: the bases stay on the device for the whole batch (uploaded once).
        piece: points per streamed piece, or per MSM chunk over resident bases with host scalars
            (``points``: whole).
    """

    name: str
    points: int
    words: int
    resident: bool
    piece: int

    @property
    def nbytes(self) -> int:
        """Device (and host) bytes of the query's bases."""
        return self.points * POINT_BYTES * self.words

    @property
    def pieces(self) -> int:
        """Pieces (or chunks) one pass over the query takes."""
        return -(-self.points // self.piece) if self.points else 0


@dataclass(frozen=True)
class ProvePlan:
    """How a batch of partitions is proved under a device limit (``plan_prove``).

    Attributes:
        limit: device bytes allowed (None: no limit).
        batch: partitions in the batch.
        in_flight: partitions whose MSMs share one pass over the key (a group).
        queries: one ``QueryPlan`` per query, in ``QUERIES`` order.
        scalars_on_host: each partition's MSM scalar vectors wait in host memory (else on the
            device, ``in_flight`` partitions' worth).
        h_phase: one of ``H_PHASES``: "device" (the sparse products' matrices cached on the
            device, a, b, c there), "lean" (the matrices sent in ``spmv_rows``/``spmv_block_nnz``
            blocks, a and b on the device: ``Backend.spmv_ab``, ``compute_h_ab``) or "host" (the
            same blocks, a, b, c sent to the host).
        h_schedule: ``compute_h``'s (schedule, block) (``H_SCHEDULES``; "split" for "host"), or
            one of ``LEAN_SCHEDULES`` for "lean".
        spmv_rows, spmv_block_nnz: most rows and non-zeros per matrix of a sparse-product block
            ("host" and "lean"; 0 for "device").
        parts: device bytes of each phase and held part (see ``prove_parts``).
        peak: predicted device peak (bytes).
        transfer_bytes: bytes over the bus for the whole batch (key passes, witnesses, scalar
            round trips, the host H phase's traffic).
        host_bytes: host memory the schedule adds to a prove on the cuda backend
            (``prove_host_bytes``): staging buffers, waiting scalars, the host H phase's arrays.
        compact_w: bytes of one partition's assignment as its witness file stores it (its
            sections, ``witness_compact_bytes``), kept on the device while the partition is in
            flight (with its rank table: ``compact_device_bytes``), A's, B's and L's scalars expanded
            from it piece by piece (``CUDABackend.compact_of``); None: w's limbs are selected
            and sliced into those scalars (offloaded with ``scalars_on_host``).
        h_shared: the H MSMs of a group share one walk of H's bases (their scalars wait, on the
            host with ``scalars_on_host``); False: each partition's H MSM runs over its own walk
            right after its quotient, from the device (``h_own_bytes``).
        bus_seconds: predicted seconds of the batch's bus traffic alone (``bus_seconds``).
        seconds: predicted seconds of the batch's MSMs and bus traffic (``plan_seconds``), which
            the planner minimises; the resident queries' upload (once per Prover) not counted.
    """

    limit: int | None
    batch: int
    in_flight: int
    queries: tuple
    scalars_on_host: bool
    h_phase: str
    h_schedule: tuple
    spmv_rows: int
    spmv_block_nnz: int
    parts: dict = field(compare=False)
    peak: int = 0
    transfer_bytes: int = 0
    host_bytes: int = 0
    compact_w: int | None = None
    h_shared: bool = True
    bus_seconds: float = 0.0
    seconds: float = 0.0

    def query(self, name: str) -> QueryPlan:
        """The ``QueryPlan`` named ``name``."""
        return next(q for q in self.queries if q.name == name)

    @property
    def passes(self) -> int:
        """Passes over the streamed queries per batch (``_passes``)."""
        return _passes(self.batch, self.in_flight)

    @property
    def transfer_bytes_per_proof(self) -> float:
        """``transfer_bytes`` / batch."""
        return self.transfer_bytes / self.batch

    @property
    def streamed(self) -> bool:
        """Some query is streamed from the host."""
        return any(not q.resident for q in self.queries)


def _counts(stats: dict, density_a: int | None, density_b: int | None, compact_w: int | None = None) -> dict:
    nv = stats["inputs"] + stats["aux"]
    return {"nv": nv, "cw": compact_w, "aux": stats["aux"], "rows": stats["constraints"], "n": stats["domain"],
            "nnz": stats["nnz_a"] + stats["nnz_b"] + stats["nnz_c"], "csr": host_csr_bytes(stats),
            "da": nv if density_a is None else density_a, "db": nv if density_b is None else density_b}


def query_points(stats: dict, density_a: int | None = None, density_b: int | None = None) -> dict:
    """Points of each query of a shape's key: H n − 1, L aux, A #density_a, B_G1/B_G2 #density_b."""
    c = _counts(stats, density_a, density_b)
    return {"h": c["n"] - 1, "l": c["aux"], "a": c["da"], "b_g1": c["db"], "b_g2": c["db"]}


def lazy_selection(count: int, nv: int) -> bool:
    """Whether a query over ``count`` of the ``nv`` variables takes its waiting scalars as a lazy
    selection of w's host copy (``Backend.host_select``: each piece's span of w uploaded and
    selected on the device) rather than its own host copy: when it covers at least half of the
    variables (the span it uploads is then at most twice its scalars; PoRep's A covers 99.6 %),
    and not all of them (then it is w itself)."""
    return 2 * count >= nv and count != nv


def _own_selections(c: dict, density_a: int | None, density_b: int | None) -> int:
    """Scalars of A's and B's own host copies: none for a query over every variable (a view of
    w) or a lazy selection of it (``lazy_selection``); a density not given (None) counts as the
    largest own copy a query can have, just under half of the variables (an upper bound)."""
    nv = c["nv"]
    return sum((nv - 1) // 2 if d is None else (0 if c[k] == nv or lazy_selection(c[k], nv) else c[k])
               for k, d in (("da", density_a), ("db", density_b)))


def host_scalar_bytes(stats: dict, density_a: int | None = None, density_b: int | None = None,
                      compact_w: int | None = None, h_shared: bool = True) -> int:
    """Host bytes one partition's MSM scalars take while they wait there (``scalars_on_host``):
    w (L's scalars, and A's and B's when their query covers every variable, are views of it;
    ``Prover.prove_group``), A's and B's own selections otherwise (``_own_selections``), and the
    n − 1 H scalars where ``h_shared`` (``ProvePlan``); with ``compact_w`` the H scalars only."""
    c = _counts(stats, density_a, density_b, compact_w)
    h = (c["n"] - 1) * _FR_BYTES if h_shared else 0
    if compact_w is not None:
        return h
    return (c["nv"] + _own_selections(c, density_a, density_b)) * _FR_BYTES + h


def prove_host_bytes(stats: dict, density_a: int | None, density_b: int | None, in_flight: int,
                     scalars_on_host: bool, h_phase: str, h_schedule: tuple = ("fused", 0),
                     compact_w: int | None = None, h_shared: bool = True) -> int:
    """Host bytes a device-limited prove adds on the cuda backend, beside what every prove holds
    (``cuzk.memory.model``): the two pinned staging buffers bases go through (the key itself stays
    in its mapped file, pages handed back per chunk), ``in_flight`` partitions' waiting scalars
    (``host_scalar_bytes``) when ``scalars_on_host``, and the "host" H phase's three arrays of n
    (a, b, c zero-padded, their evaluations written over them) and the matrices' arrays its row
    blocks are uploaded from (``host_csr_bytes``); the "lean" H phase's same arrays, and c's
    values when ``h_schedule`` stages them; with ``compact_w`` A's and B's row indices (4 bytes
    per selected variable, ``CUDABackend.host_select``)."""
    c = _counts(stats, density_a, density_b)
    total = 2 * _pieces.STAGING_BYTES
    if scalars_on_host:
        total += in_flight * host_scalar_bytes(stats, density_a, density_b, compact_w, h_shared)
    if compact_w is not None:   # A's and B's row indices (page-locked uint32), once per batch
        total += 4 * sum(c[k] for k in ("da", "db") if c[k] != c["nv"])
    if h_phase == "host":
        total += 3 * c["n"] * _FR_BYTES + host_csr_bytes(stats)
    elif h_phase == "lean":
        total += host_csr_bytes(stats) + (c["n"] * _FR_BYTES if h_schedule[0] == "lean_staged" else 0)
    return total


def host_h_bus_arrays(h_schedule: tuple) -> int:
    """Arrays of the domain size (n × 32 B) the "host" H phase moves over the bus per partition:
    its ``compute_h_host`` schedule's (``compute_h_bus_arrays``, inputs on the host) and the H
    scalars' download."""
    return compute_h_bus_arrays(h_schedule[0], inputs_on_host=True) + 1


def host_csr_bytes(stats: dict) -> int:
    """Host bytes of the matrices A, B, C as the "host" and "lean" H phases upload their row
    blocks from (``CUDABackend._host_csr32``, pinned), and what each partition's blocks move
    over the bus: per matrix its row offsets and per non-zero a uint32 column and a coefficient
    id, in ``csr_width_bytes``' widths (PoRep: 4 bytes per row, 6 per non-zero). The coefficient
    table's length is ``stats["coeffs"]`` where the caller knows it (the PCE header's
    ``ncoeffs``: the prove step), else taken as over 2^16 (4-byte ids: an upper estimate, as at
    DAG build, before the PCE exists)."""
    ncoeffs = stats.get("coeffs", (1 << 16) + 1)
    total = 0
    for m in "abc":
        nnz = stats[f"nnz_{m}"]
        ob, ib = csr_width_bytes(nnz, ncoeffs)
        total += ob * (stats["constraints"] + 1) + (4 + ib) * nnz
    return total


def spmv_block_bytes(rows: int, nnz: int) -> int:
    """Device bytes of the row blocks of the "lean" and "host" H phases' sparse products (at most
    ``rows`` rows and ``nnz`` entries of each matrix): per matrix A, B, C two sets of its slices
    (the next block's arrive while this one is used, ``SpMVOps._streamed_blocks``) at the widest
    widths (row offsets int64, columns and coefficient ids uint32; an upper estimate, as
    ``host_csr_bytes``) and its output block."""
    return 3 * (2 * ((rows + 1) * 8 + nnz * 8) + rows * _FR_BYTES)


def msm_step_bytes(q: QueryPlan, scalars_on_host: bool, compact: bool = False) -> int:
    """Device bytes one MSM step over a piece (or chunk) of ``q`` allocates besides the held parts:
    two piece buffers when streamed (one in use, the next arriving), the piece's scalars when they
    come from the host (H's twice: the next one is copied during the MSM, ``msm_many``'s
    ``prefetch``), and the MSM's temporaries (``msm_device_bytes``). ``compact``
    (``ProvePlan.compact_w``): A's, B's and L's piece expanded from the compact assignment, A's and
    B's from their rows' uint32 indices."""
    m = q.piece
    bufs = 0 if q.resident else 2 * m * POINT_BYTES * q.words
    sc = m * _FR_BYTES * (2 if q.name == "h" else 1) if scalars_on_host else 0   # H's next slice prefetched
    if compact and q.name != "h":
        sc = m * _FR_BYTES + (0 if q.name == "l" else 4 * m)
    return bufs + sc + msm_device_bytes(m, q.words, host_scalars=False)


def h_own_bytes(q: QueryPlan, n: int, compact: bool = False) -> int:
    """Device bytes a partition's own H MSM step allocates besides the held parts (``ProvePlan``
    without ``h_shared``): its n H scalars as the quotient left them (the steps slice them) and
    ``msm_step_bytes`` of H's piece with its scalars on the device."""
    return n * _FR_BYTES + msm_step_bytes(q, False, compact)


def csr_cache_bytes(c: dict) -> int:
    """Device bytes of the matrices the "device" H phase caches for the whole job
    (``Backend.prepare_spmv``: int64 row offsets, uint32 columns and coefficient ids), from
    ``_counts``."""
    return c["nnz"] * 8 + 3 * (c["rows"] + 1) * 8


def h_phase_bytes(stats: dict, density_a: int | None, density_b: int | None, h_phase: str, h_schedule: tuple,
                  spmv_rows: int, spmv_block_nnz: int) -> dict:
    """Device bytes of the H phase of one partition beside the held parts, step by step as
    ``Prover.prove_group`` runs it (``CosetQuotient.products`` then ``quotient``; w, A·w, B·w and
    C·w of the constraint rows, their zero-padded copies of the domain's n).

    "device" (beside the cached matrices, a held part: ``csr_cache_bytes``): "cache" (one slice of
    an index array in flight while they are uploaded before any w: ``Backend.prepare_spmv``),
    "products" (w, a, b, c), "pad" (w dropped; each of a, b, c replaced by its padded copy in
    turn: at most one unpadded one beside three padded), "quotient" (the padded a, b, c and
    ``compute_h`` by ``h_schedule``); "held_at_quotient" is what is live when ``compute_h`` starts.
    "lean": "products" (w, a and b of the domain's n, one row block), "quotient" (w dropped:
    ``compute_h_ab`` by ``h_schedule``, a and b included; the twiddles are a held part);
    "host": "products" (w and one sparse-product row block, ``spmv_block_bytes``), "quotient"
    (w dropped, a, b, c on the host: ``compute_h_host`` by ``h_schedule``, staged or split);
    "held_at_quotient" 0. "h" is the largest step.
    """
    c = _counts(stats, density_a, density_b)
    n, rows, w = c["n"], c["rows"], c["nv"] * _FR_BYTES
    sched, block = h_schedule
    if h_phase == "device":
        upload = min(max(c["nnz"], rows), 1 << 25) * 8          # one slice of an index array in flight
        at = 3 * n * _FR_BYTES
        out = {"cache": upload, "products": w + 3 * rows * _FR_BYTES, "pad": rows * _FR_BYTES + at,
               "quotient": at + compute_h_device_bytes(n, sched, block, twiddles=False), "held_at_quotient": at}
    elif h_phase == "lean":
        out = {"products": w + 2 * n * _FR_BYTES + spmv_block_bytes(spmv_rows, spmv_block_nnz),
               "quotient": compute_h_ab_device_bytes(n, sched == "lean_staged", twiddles=False), "held_at_quotient": 0}
    else:
        out = {"products": w + spmv_block_bytes(spmv_rows, spmv_block_nnz),
               "quotient": compute_h_device_bytes(n, sched, block, True), "held_at_quotient": 0}
    out["h"] = max(v for k, v in out.items() if k != "held_at_quotient")
    return out


def prove_parts(stats: dict, density_a: int | None, density_b: int | None, queries, scalars_on_host: bool,
                in_flight: int, h_phase: str, h_schedule: tuple, spmv_rows: int, spmv_block_nnz: int,
                compact_w: int | None = None, h_shared: bool = True) -> dict:
    """Device bytes of each part of a prove plan and its "peak".

    Held throughout: "cache" (the "device" H phase's cached matrices, ``csr_cache_bytes``: live
    from before the first upload through the last MSM), "resident" (resident bases), "scalars"
    (``in_flight`` partitions' A, B, L, H scalar vectors when not on the host; H's only with
    ``compact_w``; never H's without ``h_shared``), "compact" (``in_flight`` compact
    assignments, ``ProvePlan.compact_w``), "twiddles" (the unsplit NTT's cached table, n/2
    elements, "device" H phase only), "fragments" (``POOL_FRAGMENT_ARRAYS``) and
    ``RUNTIME_SLACK``. Then the largest of the phases: "select" (w beside its canonical copy
    while it is uploaded, or beside one selected scalar vector and its byte mask, or L's
    copy), "h" (``h_phase_bytes``), "msm" (the largest ``msm_step_bytes`` of the
    shared walks), "h_own" (without ``h_shared``: ``h_own_bytes``, else 0).
    """
    c = _counts(stats, density_a, density_b, compact_w)
    n, w = c["n"], c["nv"] * _FR_BYTES
    h_vec = n * _FR_BYTES if h_shared else 0   # H's n − 1 scalars: a view of compute_h's n
    vec = (c["da"] + c["db"] + c["aux"]) * _FR_BYTES + h_vec
    if compact_w is not None:   # A's, B's and L's expanded per piece from the compact assignments
        vec = h_vec
    cache = csr_cache_bytes(c) if h_phase == "device" else 0
    held = {
        "cache": cache,
        "resident": sum(q.nbytes for q in queries if q.resident),
        "scalars": 0 if scalars_on_host else in_flight * vec,
        "compact": in_flight * compact_device_bytes(compact_w, c["aux"]) if compact_w is not None else 0,
        "twiddles": (n // 2) * _FR_BYTES if h_phase in ("device", "lean") else 0,
        "fragments": int(POOL_FRAGMENT_ARRAYS * n) * _FR_BYTES,
        "slack": RUNTIME_SLACK,
    }
    base = sum(held.values())
    select = w + max(w, max(c["da"], c["db"]) * _FR_BYTES + c["nv"], c["aux"] * _FR_BYTES)
    if compact_w is not None:   # w expanded beside its compact form (held), nothing selected yet
        select = w
    hp = h_phase_bytes(stats, density_a, density_b, h_phase, h_schedule, spmv_rows, spmv_block_nnz)
    compact = compact_w is not None
    msm = max(msm_step_bytes(q, scalars_on_host, compact) for q in queries if h_shared or q.name != "h")
    own = 0 if h_shared else h_own_bytes(next(q for q in queries if q.name == "h"), n, compact)
    parts = dict(held, select=select, h=hp["h"], h_held_at_quotient=hp["held_at_quotient"], msm=msm, h_own=own)
    parts["peak"] = base + max(select, hp["h"], msm, own)
    return parts


def _device_h_schedule(stats, density_a, density_b, room) -> tuple | None:
    """The schedule ``compute_h`` picks in the "device" H phase with ``room`` bytes beside the held
    parts, the cached matrices among them (what else the H phase holds when it starts,
    ``h_phase_bytes``' "held_at_quotient", taken off first)."""
    at = h_phase_bytes(stats, density_a, density_b, "device", ("fused", 0), 0, 0)["held_at_quotient"]
    return compute_h_memory_plan(stats["domain"], None if room is None else room - at, twiddles=False)


def _phases_peak(parts: dict) -> int:
    return max(parts["select"], parts["h"], parts["msm"], parts["h_own"])


def _passes(batch: int, in_flight: int) -> int:
    """Walks of each streamed query per batch: ⌈batch / in_flight⌉."""
    return -(-batch // in_flight)


def _transfers(c: dict, queries, batch: int, in_flight: int, scalars_on_host: bool, h_phase: str,
               own: int = 0, h_schedule: tuple = ("fused", 0), h_shared: bool = True) -> tuple:
    """(key bytes, other bytes) over the bus for the batch: the key's walks, and the scalars',
    witnesses', matrices' and staged arrays' copies to and from page-locked host memory."""
    passes = _passes(batch, in_flight)
    key = sum(q.nbytes * (1 if q.resident else batch if q.name == "h" and not h_shared else passes)
              for q in queries)
    h_wait = (c["n"] - 1) * _FR_BYTES if scalars_on_host and h_shared else 0   # H's scalars down and up
    per = c["nv"] * _FR_BYTES
    if c["cw"] is not None:   # the compact assignment up once, A's and B's row indices per query (B's
        # twice); only H's scalars wait on the host
        per = c["cw"] + 4 * (c["da"] + 2 * c["db"]) + 2 * h_wait
    elif scalars_on_host:   # down once (w shared, ``own`` selections: host_scalar_bytes), up per query (B's twice)
        per += (c["nv"] + own) * _FR_BYTES + h_wait
        up = {k: (c["nv"] if lazy_selection(c[k], c["nv"]) else c[k]) for k in ("da", "db")}   # a lazy one: w's span
        per += (up["da"] + 2 * up["db"] + c["aux"]) * _FR_BYTES + h_wait
    if h_phase != "device":   # the matrices' row blocks up
        per += c["csr"]
    if h_phase == "host":
        per += 3 * c["rows"] * _FR_BYTES + host_h_bus_arrays(h_schedule) * c["n"] * _FR_BYTES
    elif h_phase == "lean":   # c's values down and up when staged
        per += 2 * c["n"] * _FR_BYTES if h_schedule[0] == "lean_staged" else 0
    else:   # the device H phase's compute_h: what its schedule stages on the host
        per += compute_h_bus_arrays(h_schedule[0]) * c["n"] * _FR_BYTES
    return key, batch * per


def bus_seconds(key_bytes: int, other_bytes: int) -> float:
    """Predicted seconds of a batch's bus traffic alone: the key at ``KEY_BYTES_PER_S``, the rest
    at ``PINNED_BYTES_PER_S``."""
    return key_bytes / KEY_BYTES_PER_S + other_bytes / PINNED_BYTES_PER_S


def plan_seconds(queries, batch: int, in_flight: int, h_shared: bool, other_bytes: int) -> float:
    """Predicted seconds of a batch's MSMs and bus traffic (what ``plan_prove`` minimises): each
    walk of a streamed query's bases the longer of its key bytes' transfer (``KEY_BYTES_PER_S``)
    and its MSMs' compute (``MSM_SECONDS_PER_POINT`` × points × the vectors it serves), since the
    next piece is copied while the MSMs run over this one (``CUDAMSMContext._streamed_pieces``); a
    resident query its MSMs alone; the other copies (``other_bytes``, at ``PINNED_BYTES_PER_S``)
    added, not hidden. By bus seconds alone a partition's own walk of H looked slower than the
    shared one at 24 GiB; measured side by side it was faster (2.22 against 2.29-2.51 s per proof,
    benchmarks/results/2026-12-04-h200-stop38/call3): its ten partitions share one walk of the
    other queries, and H's MSMs hide most of its copies.

    Args:
        queries: the plan's ``QueryPlan``s.
        batch, in_flight: partitions proved together, and at once.
        h_shared: ``ProvePlan.h_shared`` (False: H's bases walked once per partition).
        other_bytes: the batch's bytes other than the key's (``_transfers``).
    """
    passes = _passes(batch, in_flight)
    t = other_bytes / PINNED_BYTES_PER_S
    for q in queries:
        one = q.points * MSM_SECONDS_PER_POINT[q.name]
        if q.resident:
            t += batch * one
        elif q.name == "h" and not h_shared:
            t += batch * max(q.nbytes / KEY_BYTES_PER_S, one)
        else:   # max(passes × transfer, batch × compute): more in flight never costs more
            t += passes * max(q.nbytes / KEY_BYTES_PER_S, batch / passes * one)
    return t


def plan_prove(stats: dict, density_a: int | None, density_b: int | None, batch: int, limit: int | None,
               host_limit: int | None = None, step: str = "prove", h_phases: tuple = H_PHASES,
               compact_w: int | None = None, h_sharing: tuple = (True, False)) -> ProvePlan:
    """The prove schedule of ``batch`` partitions of a shape under a device limit.

    Among the schedules whose peak fits ``limit`` (which queries resident, scalars on the device
    or the host, the H phase on the device or the host, partitions in flight, H's MSMs sharing a
    walk or not), each with the most partitions in flight that fit, the one with the fewest
    predicted seconds per batch (``plan_seconds``: its MSMs and bus traffic; ties: the fewest
    bytes streamed, then the lowest peak), those within ``host_limit`` first; then the largest pieces, blocks and chunks that fit. A larger limit
    never gives more predicted seconds
    (the schedules that fit a smaller limit fit it too), unless it brings the first schedule
    within the host limit. Without a limit: everything resident, on the device, one partition
    at a time (today's ``Prover.prove``).

    Args:
        stats: the shape's numbers (``shape.stats()``): inputs, aux, constraints, domain, nnz_*.
        density_a, density_b: points of the A and B queries (default: every variable).
        batch: partitions proved together (≥ 1).
        limit: device bytes (None: no limit).
        host_limit: host bytes the schedule may add (``prove_host_bytes``; None: any): bounds
            the partitions in flight when scalars wait on the host (at least one).
        step: named in the error.
        h_phases: the H phases (``H_PHASES``) it may choose among (benchmarks compare them at
            one limit).
        h_sharing: the ``ProvePlan.h_shared`` values it may choose among (likewise; without a
            limit one partition runs at a time and the plan says shared).
        compact_w: bytes of one partition's compact assignment (``witness_compact_bytes`` of its
            witness file) when the prover keeps it on the device and expands A's, B's and
            L's scalars from it per piece (cuda with compact witnesses); None: w's limbs.

    Raises:
        GPUMemoryError: not even the smallest schedule fits (op = step; requested = its peak).
        ValueError: batch < 1, or ``h_sharing`` empty or other than booleans.
    """
    if batch < 1:
        raise ValueError(f"batch must be ≥ 1, got {batch}")
    if not h_sharing or not set(h_sharing) <= {True, False}:
        raise ValueError(f"h_sharing must hold True and/or False, got {h_sharing!r}")
    c = _counts(stats, density_a, density_b, compact_w)
    pts = query_points(stats, density_a, density_b)
    n = c["n"]
    if limit is None:
        qs = tuple(QueryPlan(q, pts[q], GROUP_WORDS[q], True, max(pts[q], 1)) for q in QUERIES)
        parts = prove_parts(stats, density_a, density_b, qs, False, 1, "device", ("fused", 0), 0, 0)
        key, other = _transfers(c, qs, batch, 1, False, "device")
        return ProvePlan(None, batch, 1, qs, False, "device", ("fused", 0), 0, 0, parts, parts["peak"], key + other,
                         bus_seconds=bus_seconds(key, other), seconds=plan_seconds(qs, batch, 1, True, other))
    own = _own_selections(c, density_a, density_b)
    split_min = ntt_split(n)[0] if n >= 4 else 0
    mean_row = -(-max(stats["nnz_a"], stats["nnz_b"], stats["nnz_c"]) // max(1, c["rows"]))
    best, best_key, smallest = None, None, None
    scheds = {"device": (("split", split_min),), "lean": LEAN_SCHEDULES, "host": (("staged", 0), ("split", split_min))}
    for mask in range(1 << len(QUERIES)):
        resident = {q for i, q in enumerate(QUERIES) if mask >> i & 1}
        key_host = sum(pts[q] * POINT_BYTES * GROUP_WORDS[q] for q in QUERIES if q not in resident)
        for on_host, h_phase, h_shared in itertools.product((False, True), h_phases, h_sharing):
            if on_host:
                fixed = prove_host_bytes(stats, density_a, density_b, 0, True, h_phase, LEAN_SCHEDULES[-1], compact_w)
                per_host = host_scalar_bytes(stats, density_a, density_b, compact_w, h_shared)
                cap = batch if host_limit is None or not per_host else max(1, int((host_limit - fixed) // per_host))
                flights = [min(batch, cap)]
            else:
                flights = range(batch, 0, -1)
            for P in flights:
                qs = tuple(QueryPlan(q, pts[q], GROUP_WORDS[q], q in resident,
                                     max(1, min(pts[q], MIN_MSM_CHUNK)) if (q not in resident or on_host) else max(pts[q], 1))
                           for q in QUERIES)
                rows_b = min(c["rows"], MIN_SPMV_ROWS) if h_phase != "device" else 0
                # compute_h_ab's / compute_h_host's schedules, most memory first (device: decided below)
                for sched in scheds[h_phase]:
                    parts = prove_parts(stats, density_a, density_b, qs, on_host, P, h_phase, sched, rows_b,
                                        rows_b * mean_row, compact_w, h_shared)
                    if parts["peak"] <= limit:
                        break
                if h_phase == "device":   # the schedule compute_h picks in the room the held parts leave
                    held = parts["peak"] - _phases_peak(parts)
                    sched = _device_h_schedule(stats, density_a, density_b, limit - held)
                    if sched is None:
                        continue
                    parts = prove_parts(stats, density_a, density_b, qs, on_host, P, h_phase, sched, rows_b, 0, compact_w,
                                        h_shared)
                peak = parts["peak"]
                if smallest is None or peak < smallest:
                    smallest = peak
                if peak > limit:
                    continue
                over = host_limit is not None and prove_host_bytes(
                    stats, density_a, density_b, P, on_host, h_phase, sched, compact_w, h_shared) > host_limit
                other = _transfers(c, qs, batch, P, on_host, h_phase, own, sched, h_shared)[1]
                cand = (over, plan_seconds(qs, batch, P, h_shared, other), key_host, peak)
                if best_key is None or cand < best_key:
                    best_key, best = cand, (resident, on_host, h_phase, P, sched, h_shared)
                break   # the largest P that fits
    if best is None:
        raise GPUMemoryError(step, smallest, limit,
                             f"its smallest schedule (key streamed in pieces of {MIN_MSM_CHUNK} points, scalars and "
                             f"the H phase on the host) needs {_gib(smallest)} of device memory, over the limit of "
                             f"{_gib(limit)}")
    return _grow(stats, density_a, density_b, batch, limit, c, pts, *best, mean_row)


def _grow(stats, density_a, density_b, batch, limit, c, pts, resident, on_host, h_phase, P, sched,
          h_shared, mean_row) -> ProvePlan:
    cw = c["cw"]
    """The chosen schedule with its pieces, blocks and chunks as large as the limit allows."""
    n, rows = c["n"], c["rows"]
    split_min = ntt_split(n)[0] if n >= 4 else 0
    qs = [QueryPlan(q, pts[q], GROUP_WORDS[q], q in resident,
                    max(1, min(pts[q], MIN_MSM_CHUNK)) if (q not in resident or on_host) else max(pts[q], 1))
          for q in QUERIES]
    rows_b = min(rows, MIN_SPMV_ROWS) if h_phase != "device" else 0

    def parts_of(qs_, sched_, rows_):
        return prove_parts(stats, density_a, density_b, tuple(qs_), on_host, P, h_phase, sched_, rows_, rows_ * mean_row, cw,
                           h_shared)

    base = parts_of(qs, sched, rows_b)
    held = base["peak"] - _phases_peak(base)
    room = limit - held
    for i, q in enumerate(qs):   # each query's piece: the largest whose step fits the room
        if q.piece == q.points:
            continue
        def step(m, q=q):
            qm = QueryPlan(q.name, q.points, q.words, q.resident, m)
            if q.name == "h" and not h_shared:
                return h_own_bytes(qm, n, cw is not None)
            return msm_step_bytes(qm, on_host, cw is not None)

        m = largest_fitting(q.points, step, room)
        qs[i] = QueryPlan(q.name, q.points, q.words, q.resident, max(m, q.piece))
    if h_phase == "host" and sched[0] == "split":
        blk = split_min
        while blk * 2 <= min(n, 1 << 22) and compute_h_device_bytes(n, "split", blk * 2, True) <= room:
            blk *= 2
        sched = ("split", blk)
    if h_phase != "device":   # the sparse products' row blocks beside w (and a and b: "lean")
        w = c["nv"] * _FR_BYTES + (2 * n * _FR_BYTES if h_phase == "lean" else 0)
        r = rows_b
        while r * 2 <= rows and w + spmv_block_bytes(r * 2, r * 2 * mean_row) <= room:
            r *= 2
        rows_b = r
    parts = parts_of(qs, sched, rows_b)
    qs = tuple(qs)
    key, other = _transfers(c, qs, batch, P, on_host, h_phase, _own_selections(c, density_a, density_b), sched, h_shared)
    return ProvePlan(limit, batch, P, qs, on_host, h_phase, sched, rows_b, rows_b * mean_row, parts, parts["peak"],
                     key + other, prove_host_bytes(stats, density_a, density_b, P, on_host, h_phase, sched, cw, h_shared),
                     cw, h_shared, bus_seconds(key, other), plan_seconds(qs, batch, P, h_shared, other))


# --- setup ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SetupPlan:
    """How ``setup`` computes a key under a device limit (``plan_setup``).

    Attributes:
        limit: device bytes (None: no limit, the whole-array path).
        ntt: the Lagrange basis's NTT schedule (``ntt_memory_plan``).
        slice: scalars per fixed-base slice (the query scalars are formed and multiplied slice
            by slice from u, v, w waiting on the host).
        parts: device bytes per phase: "lagrange", "spmv_t", "fixed_base"; "peak" the largest
            plus ``RUNTIME_SLACK``.
        spmv_rows, spmv_nnz, spmv_cols: the transposed products' row blocks (most rows and
            entries) and column slices (``Backend.spmv_t_blocks``, the Lagrange basis on the
            host); spmv_cols 0: each matrix whole on the device (``spmv_t``).
    """

    limit: int | None
    ntt: tuple
    slice: int
    parts: dict = field(compare=False)
    peak: int = 0
    spmv_rows: int = 0
    spmv_nnz: int = 0
    spmv_cols: int = 0


def spmv_t_block_bytes(rows: int, nnz: int, cols: int) -> int:
    """Device bytes of ``spmv_t_blocks`` over row blocks of ``rows`` rows and ``nnz`` entries and
    column slices of ``cols`` columns (an upper estimate)."""
    return rows * SPMV_T_BLOCK_ROW_BYTES + nnz * SPMV_T_BLOCK_NNZ_BYTES + cols * SPMV_T_COL_BYTES


def setup_parts(stats: dict, ntt_plan: tuple, fb_slice: int, spmv_blocks: tuple | None = None) -> dict:
    """Device bytes of each phase of the sliced setup (see ``SetupPlan``): "lagrange" (τ's powers,
    their inverse NTT by ``ntt_plan``, the constraint rows' slice), "spmv_t" (whole: the Lagrange
    basis, the largest matrix's ``spmv_t`` at ``_SPMV_T_NNZ_BYTES`` per non-zero, its output and
    the partial sums of split columns; with ``spmv_blocks`` = (rows, nnz, cols):
    ``spmv_t_block_bytes``), "fixed_base" (three uploaded slices of u, v, w, the slice's scalars
    twice, and ``fixed_base_mul``'s work space and products for the G2 group)."""
    n, rows, nv = stats["domain"], stats["constraints"], stats["inputs"] + stats["aux"]
    nnz = max(stats["nnz_a"], stats["nnz_b"], stats["nnz_c"])
    lag = n * _FR_BYTES + ntt_device_bytes(n, ntt_plan[1]) + rows * _FR_BYTES
    if spmv_blocks:
        spmv = spmv_t_block_bytes(*spmv_blocks)
    else:
        spmv = rows * _FR_BYTES + nnz * _SPMV_T_NNZ_BYTES + 2 * nv * _FR_BYTES + (rows + 1) * 8 + 4 * nv * 8
    fb = 5 * fb_slice * _FR_BYTES + fb_slice * (32 + (48 + 12 + 24 + 24) * 4 * 2) + 8160 * 192
    parts = {"lagrange": lag, "spmv_t": spmv, "fixed_base": fb}
    parts["peak"] = RUNTIME_SLACK + max(parts.values())
    return parts


def _spmv_t_blocks(stats: dict, room: int) -> tuple | None:
    """(rows, nnz, cols) of ``spmv_t_blocks`` within ``room`` device bytes: the fewest column
    slices (each one more read of the matrix) whose blocks still hold at least 1/64 of the
    largest matrix (and 2^16 entries), rows per block bounded by entries per block; then the
    largest blocks. None when not even one column fits beside a smallest block."""
    nv = stats["inputs"] + stats["aux"]
    nnz = max(stats["nnz_a"], stats["nnz_b"], stats["nnz_c"], 1)
    want = min(nnz, max(1 << 16, nnz // 64))
    per = SPMV_T_BLOCK_NNZ_BYTES + SPMV_T_BLOCK_ROW_BYTES
    slices = 1
    while True:
        cols = -(-nv // slices)
        e = min(nnz, (room - cols * SPMV_T_COL_BYTES) // per)
        if e >= want or (cols == 1 and e >= 1):
            return e, e, cols
        if cols == 1:
            return None
        slices = max(slices + 1, -(-nv // max(1, (room - want * per) // SPMV_T_COL_BYTES)) if room > want * per else slices * 2)


def setup_host_bytes(stats: dict, plan: SetupPlan) -> int:
    """Host bytes the sliced setup (cuda, under a limit: ``setup(plan=...)``) adds beside what
    every setup holds (``cuzk.memory.model``): the key's point arrays, filled slice by slice and
    written out after (IC and the five queries, every variable in A and B: an upper bound), u, v,
    w waiting on the host, and the Lagrange basis there when the products run in blocks."""
    nv = stats["inputs"] + stats["aux"]
    pts = query_points(stats)
    key = stats["inputs"] * POINT_BYTES + sum(pts[q] * POINT_BYTES * GROUP_WORDS[q] for q in QUERIES)
    lag = stats["constraints"] * _FR_BYTES if plan.spmv_cols else 0
    return key + 3 * nv * _FR_BYTES + lag


def plan_setup(stats: dict, limit: int | None, step: str = "setup") -> SetupPlan:
    """The setup schedule of a shape under a device limit: the Lagrange NTT whole or split, the
    transposed products whole (``spmv_t``) or in column slices and row blocks
    (``spmv_t_blocks``, ``_spmv_t_blocks``) and the largest fixed-base slice that fit.

    Raises:
        GPUMemoryError: the smallest NTT, product blocks and slice do not fit (op = step;
            requested = the smallest peak).
    """
    n = stats["domain"]
    if limit is None:
        parts = setup_parts(stats, ("whole", 0), 1 << 22)
        return SetupPlan(None, ("whole", 0), 1 << 22, parts, parts["peak"])
    room = limit - RUNTIME_SLACK - n * _FR_BYTES - stats["constraints"] * _FR_BYTES
    ntt = ntt_memory_plan(n, room) if room > 0 else None
    k2 = 2
    fb_room = limit - RUNTIME_SLACK - 8160 * 192
    per = 5 * _FR_BYTES + 32 + (48 + 12 + 24 + 24) * 4 * k2
    sl = max(1024, min(fixed_base_slice(k2, fb_room), fb_room // per)) if fb_room > 0 else 1024
    parts = setup_parts(stats, ntt or ("split", ntt_split(n)[0]), sl)
    blocks = None
    if RUNTIME_SLACK + parts["spmv_t"] > limit:   # the whole products do not fit: blocks
        blocks = _spmv_t_blocks(stats, limit - RUNTIME_SLACK)
        parts = setup_parts(stats, ntt or ("split", ntt_split(n)[0]), sl, blocks or (1, 1, 1))
    if ntt is None or parts["peak"] > limit or (blocks is None and RUNTIME_SLACK + parts["spmv_t"] > limit):
        raise GPUMemoryError(step, parts["peak"], limit,
                             f"its smallest schedule (split NTT, {sl} scalars per fixed-base slice) needs "
                             f"{_gib(parts['peak'])} (largest phase: {max(('lagrange', 'spmv_t', 'fixed_base'), key=parts.get)}), "
                             f"over the limit of {_gib(limit)}")
    return SetupPlan(limit, ntt, sl, parts, parts["peak"], *(blocks or (0, 0, 0)))


__all__ = ["GROUP_WORDS", "MSM_SECONDS_PER_POINT", "H_PHASES", "LEAN_SCHEDULES", "POINT_BYTES", "POOL_FRAGMENT_ARRAYS", "ProvePlan", "QUERIES", "QueryPlan", "RUNTIME_SLACK",
           "SetupPlan", "h_phase_bytes", "host_csr_bytes", "host_h_bus_arrays", "lazy_selection", "host_scalar_bytes", "setup_host_bytes", "msm_step_bytes", "plan_prove", "plan_setup", "prove_host_bytes",
           "prove_parts", "query_points", "setup_parts", "spmv_block_bytes", "spmv_t_block_bytes"]
