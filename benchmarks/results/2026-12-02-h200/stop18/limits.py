"""Stop 18's limited-prove points (run by run-limits.sh beside it, which says what it measures)."""
import cProfile, gc, json, os, pstats, time, traceback, warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from cuzk import fileio
from cuzk.backend import get_backend
from cuzk.circuits.registry import family_of, shape_by_name
from cuzk.groth16 import DevelopmentSetupWarning, Prover, resident_to_host, setup_resident, verify
from cuzk.groth16.keys import ProvingKey, read_vk, write_vk
from cuzk.memory.gpu_plan import plan_prove
from cuzk.r1cs.pce import read_pce
from cuzk.r1cs.witness import read_witness_compact

R, GIB = "/tmp/s18", 1 << 30
OUT, KEYDIR, DEADLINE = os.environ.get("OUT", R), os.environ["KEYDIR"], int(os.environ["DEADLINE"])
PARTS = int(os.environ.get("PARTS", "10"))
# "L", "L:phase,...", either with "/limbs": w's limbs selected and offloaded (stop 17's way) instead
# of w kept compact on the device (plan_prove's compact_w)
# (stop 21) any of them ending in "@MB": the key's staging buffers of MB MiB (pieces.STAGING_BYTES)
# (stop 31) any of them ending in "+ahead": the H buffers pinned one ahead (prover.PIN_AHEAD), "+all": all first
# (stop 32) and/or "+compact": pinned.COMPACT on for that point (make_room may compact the host's memory)
PINS = {"ahead": True, "all": False}
_RAW = os.environ.get("LIMITS", "24 16").split()
# (stop 37) and/or "+shared" or "+own": plan_prove's h_sharing (the group's H MSMs share a walk, or each its own)
COMPACTS = ["+compact" in x for x in _RAW]
SHARING = [(True,) if "+shared" in x else (False,) if "+own" in x else None for x in _RAW]
# (stop 37, call 2 only) "+lowprio" named points meant to run without a side-stream priority
# that CuPy 14 never gave: every point of that call ran on CuPy's plain streams (read, ignored)
_RAW = [x.replace("+shared", "").replace("+own", "").replace("+lowprio", "") for x in _RAW]
_POINTS = [(x.split("+")[0], PINS[x.split("+")[1]] if "+" in x else None) for x in (y.replace("+compact", "") for y in _RAW)]
STAGING = {x: int(x.split("@")[1]) << 20 for x, _ in _POINTS if "@" in x}
LIMITS = [(float(x.split("/")[0].split(":")[0]), tuple(x.split("/")[0].split(":")[1].split(",")) if ":" in x else None,
           not x.endswith("/limbs"), STAGING.get(x0), pin) for x0, pin in _POINTS for x in [x0.split("@")[0]]]
HOST_LIMIT = float(os.environ.get("HOST_LIMIT_GIB", "40")) * GIB
# (stop 38) WARM=1: each point's batch twice on the same backend and Prover, the second labelled
# "+warm": the H phase's matrices converted and the key's staging buffers pinned already (what a
# long-lived prover would not pay per batch; the H buffers are pinned again). The unlimited point's
# first batch is warm already: setup left its key and matrices resident.
WARM = os.environ.get("WARM") == "1"
# (stop 38) COLD=1: after the resident key is freed, an unlimited point "none-cold" on a fresh
# backend and a Prover over the key's host files: its construction uploads the whole key (the
# point's "load_seconds", as each limited point's is its resident queries' upload) and its first
# spmv the matrices (timed, as a limited point's "prepare"): a prove job's own costs, both sides
COLD = os.environ.get("COLD") == "1"
T0 = time.perf_counter()

def status(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    return 0

def reset_peak():
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False

def mark(what):
    print(f"[{time.perf_counter() - T0:6.1f} s] {what}; host RSS {status('VmRSS') / GIB:.2f} GiB "
          f"(peak {status('VmHWM') / GIB:.2f})", flush=True)

TRIM_PROBE = os.environ.get("TRIM_PROBE") == "1"


def trimmed_at_start(bk, *ops):
    """(live, held) bytes of the pool after ``free_all_blocks`` each time one of ``ops`` starts
    (stop 20, TRIM_PROBE=1): held − live is then what the pool cannot release (fragments).
    Installed before ``live_at_start``, whose wrapper (outside this one) sees the untrimmed pool."""
    pool, seen = bk._pool(), []
    for name in ops:
        inner = getattr(bk, name)
        def wrapped(*a, _f=inner, **k):
            pool.free_all_blocks()
            seen.append((int(pool.used_bytes()), int(pool.total_bytes())))
            return _f(*a, **k)
        setattr(bk, name, wrapped)
    return seen


class OutOfTime(Exception):
    pass

sh = shape_by_name("porep-32GiB"); fam = family_of(sh); st = sh.stats()
r1cs, _ = read_pce(f"{R}/porep-32GiB.pce", mapped=True)
cw = read_witness_compact(f"{R}/porep-32GiB.partition-0.wit")
pub = fam.public_inputs(json.load(open(f"{R}/porep-32GiB.c1.json")), 0)
mark("inputs read (PCE mapped)")
out = {"shape": sh.name, "host_limit_bytes": HOST_LIMIT, "key_dir": KEYDIR, "points": []}
save = lambda: json.dump(out, open(f"{OUT}/limits.json", "w"), indent=1)

def traced(prover, bk):   # every phase as it is added: name, seconds, bus GB so far
    add = prover.times.add
    if getattr(add, "traced", False):   # (stop 38) a second batch on the same Prover
        return
    def add_traced(phase, dt):
        add(phase, dt)
        print(f"    [{time.perf_counter() - T0:6.1f} s] {phase} {dt:.2f} s, bus {bk.bus_bytes / 1e9:.1f} GB, "
              f"gpu live {bk.gpu_peak_bytes / GIB:.1f} GiB peak", flush=True)
    add_traced.traced = True
    prover.times.add = add_traced

def copy_rates(path):
    """GB/s of filling 64 MiB pinned buffers from the mapped key file: np.copyto through the
    mapping (page faults, pages handed back) against pread (``fileio.read_rows``), by threads."""
    import cupyx
    arr = np.frombuffer(fileio.map_readonly(path), dtype=np.uint8)
    total = min(arr.shape[0], 8 << 30) // (64 << 20) * (64 << 20)
    res = {}
    for how in ("copyto", "pread"):
        for threads in (1, 4, 8):
            bufs = [cupyx.empty_pinned((64 << 20) // threads, dtype=np.uint8) for _ in range(threads)]
            step = (64 << 20) // threads
            def one(i, lo):
                src = arr[lo + i * step: lo + (i + 1) * step]
                if how == "pread":
                    assert fileio.read_rows(bufs[i], src)
                else:
                    np.copyto(bufs[i], src)
                    fileio.release_pages(src)
            t = time.perf_counter()
            with ThreadPoolExecutor(threads) as ex:
                for lo in range(0, total, 64 << 20):
                    list(ex.map(lambda i: one(i, lo), range(threads)))
            res[f"{how}_{threads}"] = round(total / (time.perf_counter() - t) / 1e9, 2)
    print("copy rates GB/s (key file in /dev/shm into pinned buffers):", res, flush=True)
    return res


def stream_rates(pk):
    """GB/s of streaming the L query (12.5 GB) through msm_many with all-zero device scalars (no
    MSM work to speak of) in pieces of 2^25 points, with the thread switch interval during the
    stream at Python's 5 ms and at ``pieces.STREAM_SWITCH_INTERVAL`` (stop 17, call 4)."""
    from cuzk.backend.cuda import msm as msm_mod, pieces
    from cuzk.curve import G1
    res = {}
    with get_backend("cuda") as bk:
        z = bk.cp.zeros((pk.l.shape[0], 4), dtype=bk.cp.uint64)
        with bk.msm_context(G1, pk.l, resident=False) as ctx:
            for label, iv in (("switch_5ms", 0.005), ("switch_short", pieces.STREAM_SWITCH_INTERVAL)):
                msm_mod.gil_switch = lambda iv=iv: pieces.gil_switch(iv)
                t = time.perf_counter()
                ctx.msm_many([z, z, z], piece=1 << 25)
                res[label] = round(pk.l.nbytes / (time.perf_counter() - t) / 1e9, 2)
            msm_mod.gil_switch = pieces.gil_switch
            s0 = pieces.STAGING_BYTES
            for mb in (64, 128, 256, 512, 1024):   # stop 21: staging buffers' size
                pieces.STAGING_BYTES = mb << 20
                t = time.perf_counter()
                ctx.msm_many([z, z, z], piece=1 << 25)
                res[f"staging_{mb}MB"] = round(pk.l.nbytes / (time.perf_counter() - t) / 1e9, 2)
            pieces.STAGING_BYTES = s0
        msm_mod.gil_switch = pieces.gil_switch
    print("L query streamed (GB/s):", res, flush=True)
    return res


# (stop 39) AB_SORT=1 (or AB=sort): the unlimited point three times, the G1 MSMs' sort ahead on a
# side stream (msm.OVERLAP_SORT) on, off ("none-sort-inline"), on ("none-again"): the ratio side by
# side. AB=select: the same with the Prover's device selections (Prover._selections) on, off
# ("none-select-host": the host masks, counted and uploaded per proof as before), on.
# (stop 40) AB=affine: the G1 MSMs' batch-affine pair levels (msm.AFFINE) from 2^20 points on, off
# ("none-xyzz"), on.
AB = os.environ.get("AB", "sort" if os.environ.get("AB_SORT") == "1" else "")
_AB_OFF = {"sort": "sort-inline", "select": "select-host", "affine": "xyzz"}


def _toggle(what, on):
    """Turn AB's feature on or off (off: what the code did before it)."""
    if what == "sort":
        from cuzk.backend.cuda import msm as msm_mod
        if not hasattr(_toggle, "sort"):
            _toggle.sort = dict(msm_mod.OVERLAP_SORT)
        msm_mod.OVERLAP_SORT.update(_toggle.sort if on else {g: 0 for g in _toggle.sort})
    elif what == "select":
        if not hasattr(_toggle, "select"):
            _toggle.select = Prover._selections
        Prover._selections = _toggle.select if on else (lambda self: {"a": self.dens_a, "b": self.dens_b})
    elif what == "affine":
        from cuzk.backend.cuda import msm as msm_mod
        msm_mod.AFFINE["G1"] = (1 << 20) if on else 0


def run(label, bk, prover, plan, vk, points_left):
    if AB and label is None:
        if AB == "affine":
            _toggle(AB, True)
        one_batch(None, bk, prover, plan, vk, points_left + 2)
        _toggle(AB, False)
        one_batch(f"none-{_AB_OFF[AB]}", bk, prover, plan, vk, points_left + 1)
        _toggle(AB, True)
        return one_batch("none-again", bk, prover, plan, vk, points_left)
    if WARM:   # points_left counts points: two batches each
        one_batch(label, bk, prover, plan, vk, 2 * points_left)
        return one_batch("none+warm" if label is None else f"{label}+warm", bk, prover, plan, vk, 2 * points_left - 1)
    return one_batch(label, bk, prover, plan, vk, points_left)


def one_batch(label, bk, prover, plan, vk, points_left):
    until = time.time() + (DEADLINE - time.time()) / points_left
    # (stop 38) the backend's probes installed once (WARM: a second batch on the same backend), each
    # batch's entries sliced off the lists they append to
    if plan is not None and not hasattr(bk, "_limits_probes"):
        bk._limits_probes = (trimmed_at_start(bk, "compute_h", "compute_h_host", "compute_h_ab") if TRIM_PROBE else [],
                             bk.live_at_start("compute_h", "compute_h_host", "compute_h_ab"))
    frag_all, seen_all = getattr(bk, "_limits_probes", ([], []))
    f0, s0 = len(frag_all), len(seen_all)
    ok = []
    reset = reset_peak(); traced(prover, bk)
    b0, t0, phases0 = bk.bus_bytes, time.perf_counter(), dict(prover.times.seconds)
    walls = []   # (stop 39) per proof: prove's wall, its wait for the stager, check (verify) seconds
    def done(item):
        ok.append(item.verified)
        if hasattr(item, "verify_seconds"):
            walls.append((item.seconds, item.waited_seconds, item.verify_seconds))
        if time.time() > until and len(ok) < PARTS:
            raise OutOfTime(f"stopped after {len(ok)} proofs: this point's share of the call's time")
    args = (list(range(PARTS)), lambda j: (pub, prover.stage_compact(cw, defer=plan is not None)),
            lambda p, pb: verify(vk, p, pb), done)
    pt = {"limit_gib": label, "partitions_asked": PARTS,
          "load_seconds": round(prover.times.seconds.get("load_bases", 0.0), 3)}   # the Prover's construction
    if plan is not None:
        p = plan.parts
        pt["planned"] = {"compact_w": plan.compact_w, "peak": plan.peak, "in_flight": plan.in_flight, "h_phase": plan.h_phase,
                         "h_shared": plan.h_shared, "h_schedule": list(plan.h_schedule), "scalars_on_host": plan.scalars_on_host,
                         "bus_bytes_per_proof": plan.transfer_bytes_per_proof, "host_bytes": plan.host_bytes,
                         "resident": [q.name for q in plan.queries if q.resident],
                         "pieces": {q.name: q.piece for q in plan.queries}, "parts": dict(p)}
    prof = cProfile.Profile() if os.environ.get("PROFILE") == "1" and plan is not None else None   # stop 20
    try:
        if prof is not None:
            prof.enable()
        prover.prove_many(*args) if plan is None else prover.prove_groups(*args, plan)
    except OutOfTime as e:
        pt["stopped"] = str(e)
    except Exception as e:
        pt["error"] = f"{type(e).__name__}: {e}"
        traceback.print_exc()
    if prof is not None:
        prof.disable()
        with open(f"{OUT}/profile-{str(label).replace(':', '_')}.txt", "w") as f:
            pstats.Stats(prof, stream=f).sort_stats("cumulative").print_stats(60)
    gc.collect()
    wall = time.perf_counter() - t0
    pt.update({"seconds": wall, "s_per_proof": wall / max(1, len(ok)), "proofs": len(ok), "verified": sum(ok),
               "gpu_peak_bytes": bk.gpu_peak_bytes, "live_held_at_h_bytes": seen_all[s0:],
               "live_held_trimmed_at_h_bytes": frag_all[f0:],
               "host_rss_peak_bytes": status("VmHWM"), "host_rss_peak_reset": reset,
               "bus_bytes_per_proof_measured": (bk.bus_bytes - b0) / max(1, len(ok)),
               "prove_wait_verify_per_proof": [round(sum(w[i] for w in walls) / max(1, len(walls)), 4) for i in range(3)],
               "phases_per_proof": {k: round((v - phases0.get(k, 0)) / max(1, len(ok)), 3)
                                     for k, v in prover.times.seconds.items()}})
    out["points"].append(pt); save()
    print(json.dumps({k: v for k, v in pt.items() if k != "planned"}), flush=True)
    mark(f"point {label} done")

QUERY_WIDTH = {"h": 96, "l": 96, "a": 96, "b_g1": 96, "b_g2": 192}
if (Path(KEYDIR) / "vk").exists():   # a second call: the key files of the first
    pk = ProvingKey(read_vk(f"{KEYDIR}/vk"), **{q: np.frombuffer(fileio.map_readonly(f"{KEYDIR}/{q}.bases"), dtype=np.uint8)
                                                .reshape(-1, w) for q, w in QUERY_WIDTH.items()})
    out["key_reused"] = True
    mark("key files of the first call mapped")
    with get_backend("cuda") as bk, Prover(pk, r1cs, bk) as pr:
        run(None, bk, pr, None, pk.vk, len(LIMITS) + 1)
else:
    with get_backend("cuda") as bk:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DevelopmentSetupWarning)
            t = time.perf_counter(); rk = setup_resident(r1cs, bk); out["setup_seconds"] = time.perf_counter() - t
        mark(f"setup_resident {out['setup_seconds']:.1f} s")
        if LIMITS or COLD:   # (stop 39) only the limited and cold points read the key's host files
            t = time.perf_counter(); pk = resident_to_host(rk, KEYDIR); out["key_to_host_seconds"] = time.perf_counter() - t
            write_vk(f"{KEYDIR}/vk", rk.vk)
            out["key_bytes"] = sum(getattr(pk, q).nbytes for q in ("h", "l", "a", "b_g1", "b_g2")); save()
            mark(f"key in host files ({out['key_bytes'] / 1e9:.1f} GB, {out['key_to_host_seconds']:.1f} s)")
        with Prover(rk, r1cs, bk) as pr:
            run(None, bk, pr, None, rk.vk, len(LIMITS) + 1 + COLD)
        rk.close(); del rk
    mark("resident key freed")
    if COLD:
        with get_backend("cuda") as bk, Prover(pk, r1cs, bk) as pr:
            mark(f"none-cold: prover ready (key uploaded in {pr.times.seconds.get('load_bases', 0):.1f} s)")
            run("none-cold", bk, pr, None, pk.vk, len(LIMITS) + 1)
if LIMITS or COLD:
    out["copy_rates_gbps"] = copy_rates(f"{KEYDIR}/l.bases"); save()
if os.environ.get("STREAM_CHECK") == "1":
    out["stream_rates_gbps"] = stream_rates(pk); save()
from cuzk.backend.cuda import pieces as _pieces
_STAGING0 = _pieces.STAGING_BYTES
from cuzk.groth16 import prover as _prover
from cuzk.backend.cuda import pinned as _pinned
_AHEAD0 = _prover.PIN_AHEAD
for i, (L, phases, compact, staging, pin) in enumerate(LIMITS):
    kw = {} if phases is None else {"h_phases": phases}
    if SHARING[i] is not None:
        kw["h_sharing"] = SHARING[i]
    _pieces.STAGING_BYTES = staging or _STAGING0
    _prover.PIN_AHEAD = _AHEAD0 if pin is None else pin
    _pinned.COMPACT = COMPACTS[i]
    plan = plan_prove(st, len(pk.a), len(pk.b_g1), PARTS, int(L * GIB), host_limit=HOST_LIMIT,
                      compact_w=cw.nbytes if compact else None, **kw)
    print(f"L={L:g} GiB plan (compact w {plan.compact_w}): in flight {plan.in_flight}, h {plan.h_phase} {plan.h_schedule} "
          f"{'shared' if plan.h_shared else 'own'}, scalars on host "
          f"{plan.scalars_on_host}, resident {[q.name for q in plan.queries if q.resident]}, pieces "
          f"{ {q.name: q.piece for q in plan.queries} }, peak {plan.peak / GIB:.2f} GiB, host {plan.host_bytes / GIB:.2f} GiB, "
          f"bus {plan.transfer_bytes_per_proof / 1e9:.1f} GB/proof, predicted {getattr(plan, 'seconds', 0):.1f} s "
          f"(bus alone {plan.bus_seconds:.1f} s)", flush=True)
    with get_backend("cuda", gpu_mem_limit=int(L * GIB)) as bk, Prover(pk, r1cs, bk, plan=plan) as pr:
        mem = {ln.split(":")[0]: int(ln.split()[1]) << 10 for ln in open("/proc/meminfo")}
        mark(f"L={L:g}: prover ready; free 2 MiB blocks {_pinned.free_huge_bytes(open('/proc/buddyinfo').read()) / GIB:.1f} GiB, "
             f"MemFree {mem['MemFree'] / GIB:.1f} GiB, Cached {mem['Cached'] / GIB:.1f} GiB, Shmem {mem['Shmem'] / GIB:.1f} GiB")
        label = (L if phases is None else f"{L:g}:{','.join(phases)}") if compact else f"{L:g}/limbs"
        if staging:
            label = f"{L:g}@{staging >> 20}"
        if pin is not None:
            label = f"{label}+{'ahead' if pin else 'all'}"
        if COMPACTS[i]:
            label = f"{label}+compact"
        if SHARING[i] is not None:
            label = f"{label}+{'shared' if SHARING[i][0] else 'own'}"
        getattr(_pinned, "regions", []).clear()
        run(label, bk, pr, plan, pk.vk, len(LIMITS) - i)
        # (stop 33) each new pinned region: seconds faulting in, registering, huge pages asked
        print(f"pinned regions (touch s, register s, huge): "
              f"{[(round(a, 2), round(b, 2), h) for a, b, h in getattr(_pinned, 'regions', [])]}", flush=True)
        if COMPACTS[i]:
            print(f"compactions (seconds, free 2 MiB blocks GiB before, after): "
                  f"{[(round(t, 2), round(b / GIB, 1), round(a / GIB, 1)) for t, b, a in _pinned.compactions]}", flush=True)

def first_probe():
    """(stop 21) Where a limited point's first partition's extra second goes (its "spmv" phase
    counts from when the prover began to wait for w): in a fresh backend under 24 GiB, each step
    timed between synchronizes, twice: three domain arrays from an emptied pool (cudaMalloc) and
    from its cache, w's deferred upload and expansion, the lean spmv_ab; and pinning a 4.3 GB
    region with and without MADV_HUGEPAGE (THP settings printed)."""
    import mmap as _mmap
    from cuzk.backend.cuda import pieces as pc
    res = {"thp": {f: open(f"/sys/kernel/mm/transparent_hugepage/{f}").read().strip() for f in ("enabled", "defrag")}}
    plan = plan_prove(st, len(pk.a), len(pk.b_g1), PARTS, 24 * GIB, host_limit=HOST_LIMIT, compact_w=cw.nbytes)
    with get_backend("cuda", gpu_mem_limit=24 * GIB) as bk:
        cp, pool = bk.cp, bk.cp.get_default_memory_pool()
        def timed(name, fn):
            cp.cuda.Device().synchronize(); t = time.perf_counter(); r = fn(); cp.cuda.Device().synchronize()
            res[name] = round(time.perf_counter() - t, 3); return r
        n = 1 << 27
        for k in range(2):
            pool.free_all_blocks()
            a = timed(f"alloc3_fresh_{k}", lambda: [cp.empty((n, 4), dtype=cp.uint64) for _ in range(3)]); del a
            a = timed(f"alloc3_cached_{k}", lambda: [cp.empty((n, 4), dtype=cp.uint64) for _ in range(3)]); del a
        pool.free_all_blocks()
        for m in (r1cs.A, r1cs.B, r1cs.C):
            timed(f"prepare_blocks_{len(res)}", lambda m=m: bk.prepare_blocks(m))
        for k in range(3):
            up = bk.compact_to_device_async(cw, stream=cp.cuda.get_current_stream(), defer=True)
            wd = timed(f"w_ready_{k}", up.ready)
            ab = timed(f"spmv_ab_{k}", lambda wd=wd: bk.spmv_ab((r1cs.A, r1cs.B, r1cs.C), wd, plan.spmv_rows, plan.spmv_block_nnz, n))
            del up, wd, ab
        for huge in (True, False, True, False):
            t = time.perf_counter()
            mm = _mmap.mmap(-1, 4300 << 20, flags=_mmap.MAP_PRIVATE | _mmap.MAP_ANONYMOUS)
            if huge:
                mm.madvise(_mmap.MADV_HUGEPAGE)
            v = np.frombuffer(mm, dtype=np.uint8)
            pc.run_threaded(lambda a, v=v: v[a: a + (64 << 20)].fill(0), range(0, v.shape[0], 64 << 20))
            t1 = time.perf_counter()
            cp.cuda.runtime.hostRegister(v.ctypes.data, v.shape[0], 1)
            t2 = time.perf_counter()
            cp.cuda.runtime.hostUnregister(v.ctypes.data)
            res.setdefault(f"pin_4.3GB_{'huge' if huge else 'small'}", []).append([round(t1 - t, 3), round(t2 - t1, 3)])
            del v; mm.close()
    print("first-partition probe (s):", res, flush=True)
    out["first_probe"] = res; save()


if os.environ.get("PROBE_FIRST") == "1":
    try:
        first_probe()
    except Exception:
        traceback.print_exc()

