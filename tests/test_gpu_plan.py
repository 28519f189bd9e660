"""The streaming planner of the GPU steps under a device limit (``cuzk.memory.gpu_plan``), without
a GPU: every plan fits its limit (its peak recomputed here from its pieces with the per-kernel
sizes), more memory never costs more bus time, and a limit below the smallest schedule is
refused with a typed error naming the step, the need and the limit."""

from __future__ import annotations

import pytest

from cuzk.backend import GPUMemoryError
from cuzk.backend.cuda.plan import compute_h_ab_device_bytes, compute_h_device_bytes, msm_device_bytes, ntt_device_bytes
from cuzk.circuits.registry import shape_by_name
from cuzk.errors import CuzkError
from cuzk.backend.cuda.pieces import STAGING_BYTES
from cuzk.memory.gpu_plan import RUNTIME_SLACK, h_phase_bytes, host_csr_bytes, plan_prove, plan_setup
from cuzk.memory.model import predict_step_bytes

GIB = 1 << 30
LIMITS = (1, 4, 8, 16, 24, 48, None)
SHAPES = ("porep-2KiB", "porep-32GiB", "window-post-32GiB")


def _peak(stats, p) -> int:
    """The plan's device peak from its pieces, by the rules the prover follows (written out here,
    not through ``prove_parts``)."""
    nv, n, rows = stats["inputs"] + stats["aux"], stats["domain"], stats["constraints"]
    nnz = stats["nnz_a"] + stats["nnz_b"] + stats["nnz_c"]
    pts = {q.name: q.points for q in p.queries}
    assert pts["h"] == n - 1 and pts["l"] == stats["aux"] and pts["b_g1"] == pts["b_g2"]
    h_vec = (pts["h"] + 1) * 32 if p.h_shared else 0   # H: a view of an array of n, waiting for the group's walk
    vec = (pts["a"] + pts["b_g1"] + pts["l"]) * 32 + h_vec
    held = RUNTIME_SLACK + n // 4 * 32                  # and the pool's fragments: a quarter of a domain array
    cw = p.compact_w
    if cw is not None:   # w's compact form per partition in flight; A, B, L expanded from it per piece
        vec = h_vec
        held += p.in_flight * (cw + 3 + 4 * (-(-stats["aux"] // 32)))   # mask in 32-bit words, rank table
    held += sum(q.points * 96 * (2 if q.name == "b_g2" else 1) for q in p.queries if q.resident)
    if not p.scalars_on_host:
        held += p.in_flight * vec
    if p.h_phase == "device":
        held += n // 2 * 32                              # the unsplit NTT's cached twiddles
        held += 8 * nnz + 24 * (rows + 1)                # the matrices, cached before the first upload to the last MSM
        h = max(min(max(nnz, rows), 1 << 25) * 8,        # one slice in flight while they are uploaded
                32 * nv + 96 * rows,                     # w, A·w, B·w, C·w
                32 * rows + 96 * n,                      # w dropped, padded one by one
                96 * n + compute_h_device_bytes(n, *p.h_schedule, twiddles=False))
    elif p.h_phase == "lean":
        held += n // 2 * 32                              # the unsplit NTT's cached twiddles
        blk = 3 * (2 * ((p.spmv_rows + 1) * 8 + p.spmv_block_nnz * 8) + p.spmv_rows * 32)   # next block's arrive
        staged = {"lean": False, "lean_staged": True}[p.h_schedule[0]]
        h = max(32 * nv + 64 * n + blk,                  # w, a and b padded, one row block
                compute_h_ab_device_bytes(n, staged, twiddles=False))   # w dropped: a, b, c (or staged), spare
    else:
        assert p.h_schedule[0] in ("staged", "split")
        blk = 3 * (2 * ((p.spmv_rows + 1) * 8 + p.spmv_block_nnz * 8) + p.spmv_rows * 32)
        h = max(32 * nv + blk, compute_h_device_bytes(n, *p.h_schedule, True))
    msm = 0
    for q in p.queries:
        k = 2 if q.name == "b_g2" else 1
        step = msm_device_bytes(q.piece, k, host_scalars=False)
        step += 0 if q.resident else 2 * q.piece * 96 * k
        if q.name == "h" and not p.h_shared:   # right after the quotient: its n scalars on the device
            step += n * 32
        elif cw is not None and q.name != "h":   # the piece, and A's and B's rows (uint32 indices)
            step += q.piece * 32 + (0 if q.name == "l" else 4 * q.piece)
        else:
            step += q.piece * 32 * (2 if q.name == "h" else 1) if p.scalars_on_host else 0   # H's next slice prefetched
        msm = max(msm, step)
    # w beside its canonical copy (upload), or beside a selection and its byte mask, or L's copy
    select = 32 * nv + max(32 * nv, 32 * max(pts["a"], pts["b_g1"]) + nv, 32 * pts["l"])
    if cw is not None:   # w expanded beside its compact form: nothing selected from it
        select = 32 * nv
    return held + max(select, h, msm)


@pytest.mark.parametrize("shape", SHAPES)
def test_prove_plans_fit_and_are_monotone(shape):
    stats = shape_by_name(shape).stats()
    for batch in (1, 3, 10):
        prev = None
        for gib in LIMITS:
            limit = None if gib is None else gib * GIB
            try:
                p = plan_prove(stats, None, None, batch, limit)
            except GPUMemoryError as e:
                assert isinstance(e, CuzkError) and e.op == "prove" and e.limit == limit
                assert e.requested > limit and f"{limit:,}" in str(e)
                assert prev is None, "a larger limit failed after a smaller one fit"
                continue
            assert p.peak == _peak(stats, p), (shape, batch, gib)
            if limit is not None:
                assert p.peak <= limit
                assert 1 <= p.in_flight <= batch
                for q in p.queries:
                    assert 1 <= q.piece <= max(1, q.points)
            else:
                assert all(q.resident for q in p.queries) and p.h_phase == "device"
            if prev is not None:
                assert p.seconds <= prev.seconds, (shape, batch, gib)
            prev = p
        assert prev is not None and prev.limit is None


def test_prove_plan_choices():
    st = shape_by_name("porep-2KiB").stats()
    roomy = plan_prove(st, None, None, 10, 48 * GIB)
    assert all(q.resident for q in roomy.queries) and roomy.h_phase == "device"
    tight = plan_prove(st, None, None, 10, GIB // 2)
    assert tight.streamed and tight.h_phase in ("lean", "host") and tight.peak <= GIB // 2
    # the key crosses once per group of partitions: fewer passes, fewer key bytes per proof
    one = plan_prove(st, None, None, 1, GIB // 2)
    assert tight.in_flight >= 1 and tight.transfer_bytes_per_proof < one.transfer_bytes_per_proof
    big = shape_by_name("porep-32GiB").stats()
    p16 = plan_prove(big, None, None, 10, 16 * GIB)
    assert p16.peak <= 16 * GIB and p16.in_flight == 10 and p16.passes == 1
    # the host budget bounds the partitions whose scalars wait on the host
    lim = plan_prove(big, None, None, 10, 16 * GIB, host_limit=64 * GIB)
    assert lim.in_flight < 10 and lim.passes > 1 and lim.transfer_bytes > p16.transfer_bytes
    with pytest.raises(ValueError):
        plan_prove(st, None, None, 0, GIB)
    for bad in ((), ("yes",)):
        with pytest.raises(ValueError, match="h_sharing"):
            plan_prove(st, None, None, 1, GIB, h_sharing=bad)


def test_setup_plans():
    small = shape_by_name("porep-2KiB").stats()
    p = plan_setup(small, GIB)
    n = small["domain"]
    assert p.peak <= GIB and p.slice >= 1024
    assert p.parts["lagrange"] == n * 32 + ntt_device_bytes(n, p.ntt[1]) + small["constraints"] * 32
    assert p.peak == RUNTIME_SLACK + max(p.parts[k] for k in ("lagrange", "spmv_t", "fixed_base"))
    prev = 0
    for gib in (1, 2, 4, 8):   # more room: never a smaller slice
        q = plan_setup(small, gib * GIB)
        assert q.peak <= gib * GIB and q.slice >= prev
        prev = q.slice
    with pytest.raises(GPUMemoryError) as e:
        plan_setup(small, 256 << 20)
    assert e.value.op == "setup" and e.value.limit == 256 << 20 and e.value.requested > 256 << 20
    assert plan_setup(small, None).limit is None


def _host(stats, p, known=False) -> int:
    """The plan's host bytes written out: two staging buffers; per partition in flight w and the
    H scalars (unless each partition's H MSM runs at once: not ``h_shared``), and A's and B's own copies unless ``known`` densities cover every variable (then
    views of w, as L is) or at least half of them (picked from w per piece on the device); the
    host H phase's a, b, c padded to n and the matrices' uint32 columns and coefficient ids."""
    nv, n = stats["inputs"] + stats["aux"], stats["domain"]
    if known:
        own = sum(q.points for q in p.queries if q.name in ("a", "b_g1") and 2 * q.points < nv)
    else:   # densities unknown: each query's largest own copy, just under half of w
        own = 2 * ((nv - 1) // 2)
    h = 32 * (n - 1) if p.h_shared else 0
    per = 32 * (nv + own) + h if p.compact_w is None else h   # compact: only H waits there
    nnz = stats["nnz_a"] + stats["nnz_b"] + stats["nnz_c"]
    csr = 8 * nnz + 12 * (stats["constraints"] + 1)   # uint32 row offsets, columns, coefficient ids
    host_h = {"host": 3 * 32 * n + csr, "lean": csr + (32 * n if p.h_schedule[0] == "lean_staged" else 0)}.get(p.h_phase, 0)
    rows = 0
    if p.compact_w is not None:   # A's and B's selected rows as uint32 (a query over every variable: none)
        rows = 4 * sum(q.points for q in p.queries if q.name in ("a", "b_g1") and q.points != nv)
    return 2 * STAGING_BYTES + (p.in_flight * per if p.scalars_on_host else 0) + host_h + rows


@pytest.mark.parametrize("shape", SHAPES)
def test_compact_plans_fit_and_hold_less(shape):
    """Plans for w kept on the device as its witness file stores it (``compact_w``; A's, B's and
    L's scalars expanded from it per piece): the peak as written out in ``_peak``, within the
    limit, host bytes as ``_host`` (H's scalars only wait there), never more bus bytes than w as
    limbs, and at 16 and 24 GiB under a 40 GiB host limit at least as many partitions in flight.
    The compact size is a 32 GiB PoRep partition's figure scaled to the shape (about 35 MB of 4.2 GB)."""
    stats = shape_by_name(shape).stats()
    nv = stats["inputs"] + stats["aux"]
    cw = 32 * stats["inputs"] + 2 * (-(-stats["aux"] // 8)) + 32 * (nv // 1000)
    fits = 0
    for batch in (1, 3, 10):
        for gib in (0.25, 1, 4, 16, 24, 48):
            limit = int(gib * GIB)
            for hl in (None, 40 * GIB):
                try:
                    p = plan_prove(stats, None, None, batch, limit, host_limit=hl, compact_w=cw)
                except GPUMemoryError:
                    continue
                fits += 1
                assert p.compact_w == cw and p.peak == _peak(stats, p) and p.peak <= limit, (shape, batch, gib)
                assert p.host_bytes == _host(stats, p), (shape, batch, gib)
                try:
                    q = plan_prove(stats, None, None, batch, limit, host_limit=hl)
                except GPUMemoryError:
                    continue
                assert p.transfer_bytes <= q.transfer_bytes, (shape, batch, gib)
                if hl is not None and gib in (16, 24):
                    assert p.in_flight >= q.in_flight, (shape, batch, gib)
    assert fits


@pytest.mark.parametrize("shape", ["porep-2KiB", "porep-32GiB"])
def test_prove_plan_host_bytes_within_host_limit(shape):
    stats = shape_by_name(shape).stats()
    one = None
    for gib in (0.25, 1, 16, 24, 48):
        prev = 0
        for host_gib in (1, 8, 24, 64, 100, None):
            hl = None if host_gib is None else host_gib * GIB
            try:
                p = plan_prove(stats, None, None, 10, int(gib * GIB), host_limit=hl)
            except GPUMemoryError:
                continue
            assert p.host_bytes == _host(stats, p), (shape, gib, host_gib)
            if p.scalars_on_host:
                one = _host(stats, plan_prove(stats, None, None, 1, int(gib * GIB)))
                if hl is not None and one <= hl:
                    assert p.host_bytes <= hl, (shape, gib, host_gib)
                assert p.in_flight >= prev   # more host room: never fewer partitions in flight
                prev = p.in_flight
            base = predict_step_bytes("prove", stats, backend="cuda", partitions=10)
            nv = stats["inputs"] + stats["aux"]   # w and, densities unknown, two copies just under half of it
            per_worst = 32 * (nv + 2 * ((nv - 1) // 2) + (stats["domain"] - 1 if p.h_shared else 0))
            slack = per_worst if p.scalars_on_host and p.in_flight < 10 else 0
            assert predict_step_bytes("prove", stats, backend="cuda", partitions=10, gpu_mem_limit=int(gib * GIB),
                                      host_limit=hl) == base + p.host_bytes + slack
            # with the key's densities given and full, A and B are views of w on the host
            pk = plan_prove(stats, nv, nv, 10, int(gib * GIB), host_limit=hl)
            assert pk.host_bytes == _host(stats, pk, known=True)
    assert one is not None
    assert plan_prove(stats, None, None, 10, None).host_bytes == 0


@pytest.mark.parametrize("shape", SHAPES)
def test_setup_plans_with_blocked_products_fit(shape):
    """The transposed products in column slices and row blocks when whole they do not fit: every
    accepted plan's peak ≤ L, recomputed here from its blocks; 32 GiB PoRep at 16 and 24 GiB."""
    stats = shape_by_name(shape).stats()
    nv = stats["inputs"] + stats["aux"]
    nnz = max(stats["nnz_a"], stats["nnz_b"], stats["nnz_c"])
    rows, n = stats["constraints"], stats["domain"]
    whole = RUNTIME_SLACK + rows * 32 + nnz * 64 + 2 * nv * 32 + (rows + 1) * 8 + 4 * nv * 8
    accepted = []
    for gib in (0.25, 0.5, 1, 2, 4, 8, 12, 16, 24, 32, 48, 96):
        limit = int(gib * GIB)
        try:
            p = plan_setup(stats, limit)
        except GPUMemoryError as e:
            assert e.op == "setup" and e.requested > limit and e.limit == limit
            assert not accepted, "a larger limit was refused after a smaller one fit"
            continue
        accepted.append(gib)
        assert p.peak <= limit
        if p.spmv_cols:
            assert whole > limit   # blocks only when the whole products do not fit
            spmv = p.spmv_rows * 56 + p.spmv_nnz * 96 + p.spmv_cols * 168
            assert -(-nv // p.spmv_cols) * p.spmv_cols >= nv and 1 <= p.spmv_nnz <= nnz
            assert p.spmv_rows >= 1 and p.spmv_nnz >= min(nnz, max(1 << 16, nnz // 64))
        else:
            assert whole <= limit
            spmv = whole - RUNTIME_SLACK
        assert p.parts["spmv_t"] == spmv
        lag = n * 32 + ntt_device_bytes(n, p.ntt[1]) + rows * 32
        assert p.peak == RUNTIME_SLACK + max(lag, spmv, p.parts["fixed_base"])
    if shape != "porep-2KiB":
        assert 16 in accepted and 24 in accepted
        p16 = plan_setup(stats, 16 * GIB)
        assert p16.spmv_cols and p16.spmv_cols < nv   # columns sliced at 16 GiB


def test_limited_setup_declares_the_key_on_the_host():
    """Under a limit setup fills the key in host memory: the model adds the key's bytes (IC and
    the five queries, every variable in A and B), u, v, w and, with blocked products, the
    Lagrange basis."""
    from cuzk.memory.gpu_plan import setup_host_bytes

    st = shape_by_name("porep-32GiB").stats()
    nv = st["inputs"] + st["aux"]
    # every variable in A and B (densities unknown here): above the 47.3 GB of the real key file
    key = (st["inputs"] + st["domain"] - 1 + st["aux"] + 2 * nv) * 96 + nv * 192
    assert key > 47.3e9
    base = predict_step_bytes("setup", st, backend="cuda")
    for gib in (16, 24, 48):
        p = plan_setup(st, gib * GIB)
        extra = key + 3 * nv * 32 + (st["constraints"] * 32 if p.spmv_cols else 0)
        assert setup_host_bytes(st, p) == extra
        assert predict_step_bytes("setup", st, backend="cuda", gpu_mem_limit=gib * GIB) == base + extra
    assert predict_step_bytes("setup", st, backend="cuda", gpu_mem_limit=GIB) == base   # refused: nothing added


# The 32 GiB PoRep key's query sizes in the H200 run of issue 14 (about: A's from the 48 GiB
# plan's host bytes, 38.32 GiB, then B's from the key file's 47,373,928,632 bytes, 96 per A point
# and 288 per B point after H and L; benchmarks/results/2026-12-02-h200/smallgpu-try2).
POREP_32_DENSITIES = (129_670_000, 33_140_155)


def _live_arrays(stats, p) -> dict:
    """Device bytes live at each step of a prove plan's partition whose scalars wait longest (the
    last of a group: the others' scalars held when not on the host), summed array by array as
    ``Prover.prove_group`` allocates them (written out here, not through ``gpu_plan``). Steps:
    "upload" (w beside its canonical copy), "select" (w, a selection and its byte mask),
    the H phase's "products" (w, the cached CSR matrices, A·w, B·w, C·w; host H phase: one row
    block per matrix), "pad" (w dropped, one unpadded product beside three padded ones),
    "quotient_start" (what ``compute_h`` finds live) and "quotient" (with its own arrays)."""
    fr = 32
    nv, n, rows = stats["inputs"] + stats["aux"], stats["domain"], stats["constraints"]
    pts = {q.name: q.points for q in p.queries}
    da, db, aux = pts["a"], pts["b_g1"], pts["l"]
    live = sum(q.points * 96 * (2 if q.name == "b_g2" else 1) for q in p.queries if q.resident)
    if not p.scalars_on_host:   # earlier partitions' a, b, L and h (a view of n, unless its MSM ran), this one's a, b, L
        live += (p.in_flight - 1) * (da + db + aux + (n if p.h_shared else 0)) * fr + (da + db + aux) * fr
    if p.h_phase in ("device", "lean"):
        live += n // 2 * fr     # twiddles an earlier partition's unsplit NTT cached
    # a selection's byte mask of w, and its values unless they are counted with the held scalars
    sel = nv + max(da, db) * (fr if p.scalars_on_host else 0)
    steps = {"upload": live + 2 * nv * fr, "select": live + nv * fr + sel}
    if p.h_phase == "device":
        csr = sum((rows + 1) * 8 + stats[f"nnz_{m}"] * 4 * 2 for m in "abc")
        steps = {k: v + csr for k, v in steps.items()}   # cached before the first upload
        steps["products"] = live + nv * fr + csr + 3 * rows * fr
        steps["pad"] = live + csr + rows * fr + 3 * n * fr
        steps["quotient_start"] = live + csr + 3 * n * fr
        steps["quotient"] = steps["quotient_start"] + compute_h_device_bytes(n, *p.h_schedule, twiddles=False)
    elif p.h_phase == "lean":   # a and b of n from the start, C's block product checked and dropped
        r, e = p.spmv_rows, p.spmv_block_nnz
        # two sets of the three matrices' block slices (the next one arriving), C's block product
        steps["products"] = live + nv * fr + 2 * n * fr + 2 * 3 * ((r + 1) * 8 + e * 8) + r * fr
        steps["quotient_start"] = live   # a and b: compute_h_ab's own (it consumes them)
        arrays = 3 if p.h_schedule[0] == "lean_staged" else 4   # a, b, c (or its host copy), the spare
        steps["quotient"] = live + arrays * n * fr + compute_h_ab_device_bytes(n, False, twiddles=False) - 4 * n * fr
    else:
        r, e = p.spmv_rows, p.spmv_block_nnz
        steps["products"] = live + nv * fr + 2 * 3 * ((r + 1) * 8 + e * 8) + 3 * r * fr
        steps["quotient_start"] = live
        steps["quotient"] = live + compute_h_device_bytes(n, *p.h_schedule, True)
    return steps


@pytest.mark.parametrize("shape,densities,limits", [
    ("porep-32GiB", POREP_32_DENSITIES, (16, 24, 48)),
    ("porep-32GiB", (None, None), (16, 24, 48)),
    ("porep-2KiB", (None, None), (0.5, 1, 2, 4)),
    ("window-post-2KiB", (None, None), (1 / 16, 1 / 8, 1 / 4)),
])
def test_plan_parts_cover_the_arrays_live_in_the_h_phase(shape, densities, limits):
    """At every step of the H phase (and w's upload and selections before it) the arrays the
    prover holds, summed here one by one, fit in what the plan counts for that step without its
    allowances (pool fragments, runtime slack), and the plan's peak ≤ L. Before this the 48 GiB
    plan of the H200 run counted the live set right (44.8 GB at compute_h) but left 20 MB for the
    pool's fragments; the prover now drops w and the unpadded products before the NTTs."""
    stats = shape_by_name(shape).stats()
    n = stats["domain"]
    for gib in limits:
        for batch, host_limit in ((10, 40 * GIB), (10, None), (3, None)):
            limit = int(gib * GIB)
            p = plan_prove(stats, *densities, batch, limit, host_limit=host_limit)
            parts = p.parts
            assert p.peak <= limit
            assert parts["fragments"] == n // 4 * 32 and parts["slack"] == RUNTIME_SLACK
            arrays = parts["cache"] + parts["resident"] + parts["scalars"] + parts["twiddles"]
            live = _live_arrays(stats, p)
            where = (shape, gib, batch, host_limit, p.h_phase, p.scalars_on_host, p.in_flight)
            steps = h_phase_bytes(stats, *densities, p.h_phase, p.h_schedule, p.spmv_rows, p.spmv_block_nnz)
            assert parts["h"] == steps["h"] and parts["h_held_at_quotient"] == steps["held_at_quotient"]
            for step in ("products", "pad", "quotient"):
                if step in live:
                    assert live[step] <= arrays + steps[step], (step, where)
            assert live["quotient_start"] <= arrays + parts["h_held_at_quotient"], where
            for step in ("upload", "select"):
                assert live[step] <= arrays + parts["select"], (step, where)
            assert max(live.values()) + parts["fragments"] + parts["slack"] <= p.peak <= limit, where


def test_h200_48_gib_plan_leaves_room_for_the_pool():
    """The plan the H200 run failed with (48 GiB, its key's densities): the live set at
    compute_h is now what the plan says is held then, and beside it compute_h's schedule and
    a quarter of a domain array of pool fragments fit; and even the 2.4 GB of fragments that run
    had (20 MB left; long-lived arrays carved from freed chunks, which now get their own) would
    leave room for the split schedule compute_h falls back to."""
    stats = shape_by_name("porep-32GiB").stats()
    p = plan_prove(stats, *POREP_32_DENSITIES, 10, 48 * GIB, host_limit=40 * GIB, h_phases=("device", "host"))
    live = _live_arrays(stats, p)
    n = stats["domain"]
    assert p.h_phase == "device" and p.scalars_on_host
    room = 48 * GIB - live["quotient_start"]
    assert room - n // 4 * 32 >= compute_h_device_bytes(n, *p.h_schedule, twiddles=False) + RUNTIME_SLACK
    assert room >= 2.4e9 + compute_h_device_bytes(n, "split", 1 << 14, twiddles=True)


def test_device_h_schedule_traffic_is_counted():
    """A device H phase whose compute_h has to stage (staged) or split its NTTs moves arrays of
    the domain over the bus; the plan's transfers count them (written out here from the
    schedule's passes), so at 48 GiB the planner keeps the fused compute_h and streams the key
    instead (the H200 run in benchmarks/results/2026-12-02-h200/stop15/call1: with l and b_g2
    resident the split compute_h took 16-21 s a partition against 0.44 s fused)."""
    stats = shape_by_name("porep-32GiB").stats()
    n = stats["domain"]
    p48 = plan_prove(stats, *POREP_32_DENSITIES, 10, 48 * GIB, host_limit=40 * GIB, h_phases=("device", "host"))
    assert p48.h_phase == "device" and p48.h_schedule == ("fused", 0)
    seen = set()
    for gib in (24, 28, 32, 40, 48):
        p = plan_prove(stats, *POREP_32_DENSITIES, 10, gib * GIB, host_limit=40 * GIB, h_phases=("device", "host"))
        if p.h_phase != "device":
            continue
        seen.add(p.h_schedule[0])
        arrays = {"fused": 0, "staged": 4, "split": 12}[p.h_schedule[0]]
        nv, (da, db), aux = stats["inputs"] + stats["aux"], POREP_32_DENSITIES, stats["aux"]
        passes = -(-10 // p.in_flight)
        walks = {q.name: 1 if q.resident else 10 if q.name == "h" and not p.h_shared else passes for q in p.queries}
        key = sum(q.points * 96 * (2 if q.name == "b_g2" else 1) * walks[q.name] for q in p.queries)
        per = 32 * nv                                            # w up
        if p.scalars_on_host:   # down: w, B's own selection (A covers more than half of w: picked from
            # w's span per piece on the device), H; up: A's span (all of w), B twice, L, H (H: where shared)
            assert 2 * da >= nv > da and 2 * db < nv
            h = n - 1 if p.h_shared else 0
            per += 32 * (nv + db + h) + 32 * (nv + 2 * db + aux + h)
        assert p.transfer_bytes == key + 10 * (per + arrays * n * 32), (gib, p.h_schedule)
    assert "split" in seen or "staged" in seen


def test_host_csr_bytes_in_the_streamed_widths():
    """The streamed matrices' host bytes (and each partition's bus bytes for them): uint32 row
    offsets below 2^32 entries, uint32 columns, uint16 coefficient ids for a table of at most 2^16
    (the PCE's ``ncoeffs`` given as ``coeffs``), uint32 ids when the table is not known; int64
    offsets from 2^32 entries. The 32 GiB partition with its 1,526 coefficients: the 5.9 GB its
    first lean sparse product moved over the bus on the H200
    (benchmarks/results/2026-12-04-h200-stop36/call4/limits.log, "spmv … bus 5.9 GB")."""
    st = {"constraints": 9, "nnz_a": 100, "nnz_b": 50, "nnz_c": 7}
    assert host_csr_bytes(st | {"coeffs": 1 << 16}) == 3 * 4 * 10 + 6 * 157
    assert host_csr_bytes(st | {"coeffs": (1 << 16) + 1}) == host_csr_bytes(st) == 3 * 4 * 10 + 8 * 157
    big = st | {"nnz_a": 1 << 32, "coeffs": 5}
    assert host_csr_bytes(big) == 8 * 10 + 2 * 4 * 10 + 6 * ((1 << 32) + 57)
    s32 = shape_by_name("porep-32GiB").stats()
    assert abs(host_csr_bytes(s32 | {"coeffs": 1526}) / 1e9 - 5.9) < 0.05


def test_own_h_walks_where_they_save_time():
    """Each partition's H MSM over its own walk of H's bases (``h_shared`` False) leaves no H
    scalars waiting on the host, so all 10 partitions of a 32 GiB sector share the other queries'
    walks (compact assignments, the PCE's 1,526 coefficients, host limit 40 GiB). At 24 GiB that
    moves fewer bytes but more of them are the key's: by bus seconds alone sharing looked faster,
    yet H's MSMs hide most of their walk's copies, and the planner's predicted seconds (written out
    here: each streamed walk the longer of its transfer at 10 GB/s and its MSMs, a resident query
    its MSMs, the other copies at 50 GB/s added) pick the own walks, as the H200 measured (2.22 s
    per proof against 2.29-2.51 shared, benchmarks/results/2026-12-04-h200-stop38/call2-3). At
    16 GiB the prediction keeps sharing (H's pieces half the size, nine in flight); measured cold,
    neither clearly wins (2.60 own against 2.53-2.72 shared). At 48 GiB H's bases fit on the
    device beside one partition's scalars only when none wait: own walks win and the host holds
    no H scalars."""
    stats = shape_by_name("porep-32GiB").stats() | {"coeffs": 1526}
    da, db = POREP_32_DENSITIES
    n, cw = stats["domain"], 86_709_551
    kw = {"host_limit": 40 * GIB, "compact_w": cw}
    own = plan_prove(stats, da, db, 10, 24 * GIB, **kw)
    shared = plan_prove(stats, da, db, 10, 24 * GIB, h_sharing=(True,), **kw)
    assert not own.h_shared and own.in_flight == 10 and shared.h_shared and shared.in_flight == 7
    assert own.peak <= 24 * GIB and own.parts["h_own"] > 0 == shared.parts["h_own"]
    assert own.transfer_bytes < shared.transfer_bytes and own.bus_seconds > shared.bus_seconds
    assert own.seconds < shared.seconds
    assert shared.host_bytes - own.host_bytes >= 7 * (n - 1) * 32
    nbytes = {q.name: q.points * 96 * (2 if q.name == "b_g2" else 1) for q in own.queries}
    key = sum(b * (10 if q == "h" else 1) for q, b in nbytes.items())
    assert own.h_phase == "lean" and own.h_schedule[0] == "lean"
    assert [q.name for q in own.queries if q.resident] == ["b_g1"]
    other = 10 * (cw + 4 * (da + 2 * db) + host_csr_bytes(stats))
    assert own.transfer_bytes == key + other
    assert own.bus_seconds == pytest.approx(key / 10e9 + other / 50e9)
    rate = {"h": 7.0e-9, "l": 0.5e-9, "a": 0.5e-9, "b_g1": 1.1e-9, "b_g2": 3.1e-9}   # s per point of one MSM
    pts = {q.name: q.points for q in own.queries}
    walks = 10 * max(nbytes["h"] / 10e9, pts["h"] * rate["h"]) + 10 * pts["b_g1"] * rate["b_g1"]
    walks += sum(max(nbytes[q] / 10e9, 10 * pts[q] * rate[q]) for q in ("l", "a", "b_g2"))
    assert own.seconds == pytest.approx(walks + other / 50e9)
    assert plan_prove(stats, da, db, 10, 16 * GIB, **kw).h_shared
    p48 = plan_prove(stats, da, db, 10, 48 * GIB, **kw)
    s48 = plan_prove(stats, da, db, 10, 48 * GIB, h_sharing=(True,), **kw)
    assert not p48.h_shared and p48.query("h").resident and p48.in_flight == 10 and p48.peak <= 48 * GIB
    assert p48.seconds < s48.seconds and s48.host_bytes - p48.host_bytes >= 7 * (n - 1) * 32
