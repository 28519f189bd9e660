# Issue 14 on one H200 (16 cores, 128 GiB host, 64 GiB disk): one synthetic 32 GiB PoRep sector's
# 10 partitions (partition 0's witness ten times, as `cuzk bench circuit` proves it) at
# gpu_mem_limit_gb L = unlimited (skipped with SKIP_UNLIMITED=1), then LIMITS (default "48 24 16")
# in one process. Per point, JSON as soon as it ends (a failed point is recorded with its error
# and the next one runs): s/proof, live GPU peak, the pool's live and held bytes as each compute_h
# started (the live ones against the plan's count of them), host RSS (now and the peak of the point: VmHWM reset per
# point), bus bytes per proof (measured and planned), the plan (parts included), verified count.
# The key: the resident development setup's queries copied to host files in /dev/shm (when it has
# 50 GB free, else /tmp) and mapped read-only (resident_to_host: no .params layout, no SHA-256;
# try2 spent 77 s writing and hashing the .params file); the limited points stream the mapped
# queries to the GPU piece by piece through two 64 MiB pinned buffers; the resident key is freed
# first; the waiting scalars are bounded by HOST_LIMIT_GIB (default 40) of host memory.
# Last (if time is left): the setup's transposed product of the 32 GiB A matrix in blocks under a
# 16 GiB limit against the unblocked one. LIMIT (default 560) bounds the whole run in seconds.
# From the repository root, .whl carried:
#   SKIP_UNLIMITED=1 LIMIT=330 bash benchmarks/results/2026-12-02-h200/run-smallgpu.sh
set -u
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1
R=/tmp/s14; mkdir -p $R
T0=$(date +%s)
if [ ! -f $R/porep-32GiB.partition-0.wit ]; then
  python -m cuzk.cli bench circuit --shapes porep-32GiB --workdir $R --phases input,pce,witness --parallel > $R/inputs.log 2>&1 || tail -5 $R/inputs.log
fi
echo "inputs after $(( $(date +%s) - T0 )) s"
# the key's host files (47.3 GB): /dev/shm when it has 50 GB free (no disk reads per pass), else /tmp
KEYDIR=$R/key; [ "$(df --output=avail -B1 /dev/shm 2>/dev/null | tail -1)" -gt 50000000000 ] 2>/dev/null && KEYDIR=/dev/shm/s14
mkdir -p $KEYDIR; export KEYDIR; df -h /dev/shm $R | tail -2; free -g | head -2
export DEADLINE=$(( T0 + ${LIMIT:-560} ))
timeout $(( ${LIMIT:-560} - ($(date +%s) - T0) )) python - <<'PY' 2>&1 | tee $R/smallgpu.log
import gc, json, os, time, traceback, warnings
from cuzk.backend import get_backend
from cuzk.circuits.registry import family_of, shape_by_name
from cuzk.groth16 import DevelopmentSetupWarning, Prover, resident_to_host, setup_resident, verify
from cuzk.memory.gpu_plan import plan_prove, plan_setup
from cuzk.r1cs.pce import read_pce
from cuzk.r1cs.witness import read_witness_compact

R, P, GIB = "/tmp/s14", 10, 1 << 30
KEYDIR = os.environ["KEYDIR"]
HOST_LIMIT = float(os.environ.get("HOST_LIMIT_GIB", "40")) * GIB
LIMITS = [float(x) for x in os.environ.get("LIMITS", "48 24 16").split()]
SKIP_UNLIMITED = os.environ.get("SKIP_UNLIMITED", "0") == "1"
DEADLINE = int(os.environ["DEADLINE"])
OUT = os.environ.get("OUT", R)
T0 = time.perf_counter()

def status(field):   # bytes of a /proc/self/status line (VmRSS: now, VmHWM: peak since the last reset)
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    return 0

def reset_peak():   # VmHWM back to VmRSS (Linux ≥ 4.0); where refused, peaks are since the start
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False

def mark(what):
    print(f"[{time.perf_counter() - T0:6.1f} s] {what}; host RSS {status('VmRSS') / GIB:.2f} GiB "
          f"(peak {status('VmHWM') / GIB:.2f})", flush=True)

sh = shape_by_name("porep-32GiB"); fam = family_of(sh); st = sh.stats()
r1cs, _ = read_pce(f"{R}/porep-32GiB.pce", mapped=True)
cw = read_witness_compact(f"{R}/porep-32GiB.partition-0.wit")
pub = fam.public_inputs(json.load(open(f"{R}/porep-32GiB.c1.json")), 0)
mark("inputs read (PCE mapped)")
out = {"shape": sh.name, "partitions": P, "host_limit_bytes": HOST_LIMIT, "key_dir": KEYDIR, "points": []}

def save():
    json.dump(out, open(f"{OUT}/smallgpu.json", "w"), indent=1)

def run(label, bk, prover, plan, key_vk):
    ok, seen = [], (bk.live_at_start("compute_h", "compute_h_host") if plan is not None else [])
    reset = reset_peak()
    b0, t0 = bk.bus_bytes, time.perf_counter()
    args = (list(range(P)), lambda j: (pub, prover.stage_compact(cw, defer=plan is not None)),
            lambda p, pb: verify(key_vk, p, pb), lambda item: ok.append(item.verified))
    pt = {"limit_gib": label}
    if plan is not None:
        pt["planned"] = {
            "peak": plan.peak, "in_flight": plan.in_flight, "passes": plan.passes,
            "bus_bytes_per_proof": plan.transfer_bytes_per_proof, "host_bytes": plan.host_bytes,
            "h_phase": plan.h_phase, "h_schedule": list(plan.h_schedule), "scalars_on_host": plan.scalars_on_host,
            "resident": [q.name for q in plan.queries if q.resident], "pieces": {q.name: q.piece for q in plan.queries},
            "parts": dict(plan.parts)}
        p = plan.parts
        pt["planned_live_at_quotient"] = p["resident"] + p["scalars"] + p["twiddles"] + p["h_held_at_quotient"] + p["slack"]
    try:
        prover.prove_many(*args) if plan is None else prover.prove_groups(*args, plan)   # grouped under a limit
    except Exception as e:   # recorded; the next point still runs
        pt["error"] = f"{type(e).__name__}: {e}"
        traceback.print_exc()
    gc.collect()   # a failed point's frames (and their device arrays) gone before the next limit
    wall = time.perf_counter() - t0
    pt.update({"s_per_proof": wall / max(1, len(ok)), "proofs": len(ok), "verified": sum(ok),
               "gpu_peak_bytes": bk.gpu_peak_bytes, "live_held_at_quotient_bytes": seen,
               "host_rss_peak_bytes": status("VmHWM"), "host_rss_peak_reset": reset, "host_rss_end_bytes": status("VmRSS"),
               "bus_bytes_per_proof_measured": (bk.bus_bytes - b0) / max(1, len(ok)),
               "phases_per_proof": {k: round(v / max(1, len(ok)), 3) for k, v in prover.times.seconds.items()}})
    out["points"].append(pt); save()
    print(json.dumps(pt), flush=True)
    mark(f"point {label} done")

# 1. the key on the GPU (development setup), the unlimited point unless skipped, the key copied
#    to host files, all freed
with get_backend("cuda") as bk:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DevelopmentSetupWarning)
        t = time.perf_counter(); rk = setup_resident(r1cs, bk); out["setup_seconds"] = time.perf_counter() - t
    mark(f"setup_resident {out['setup_seconds']:.1f} s")
    t = time.perf_counter()
    pk = resident_to_host(rk, KEYDIR)
    out["key_to_host_seconds"] = time.perf_counter() - t
    out["key_bytes"] = sum(getattr(pk, q).nbytes for q in ("h", "l", "a", "b_g1", "b_g2")); save()
    mark(f"key in host files ({out['key_bytes'] / 1e9:.1f} GB, {out['key_to_host_seconds']:.1f} s)")
    if not SKIP_UNLIMITED:
        with Prover(rk, r1cs, bk) as pr:   # closes the resident key's contexts on exit
            run(None, bk, pr, None, rk.vk)
    rk.close(); del rk
mark("resident key freed")

# 2. the limited points from the mapped host files, largest limit first
for L in LIMITS:
    plan = plan_prove(st, len(pk.a), len(pk.b_g1), P, int(L * GIB), host_limit=HOST_LIMIT)
    print(f"L={L:g} GiB plan: in flight {plan.in_flight}, h {plan.h_phase} {plan.h_schedule}, scalars on host "
          f"{plan.scalars_on_host}, resident {[q.name for q in plan.queries if q.resident]}, peak "
          f"{plan.peak / GIB:.2f} GiB, host {plan.host_bytes / GIB:.2f} GiB, bus {plan.transfer_bytes_per_proof / 1e9:.1f} GB/proof",
          flush=True)
    with get_backend("cuda", gpu_mem_limit=int(L * GIB)) as bk, Prover(pk, r1cs, bk, plan=plan) as pr:
        mark(f"L={L:g}: prover ready")
        run(L, bk, pr, plan, pk.vk)

# 3. if time is left: setup's Aᵀ·L in blocks at 16 GiB against the unblocked product
if time.time() < DEADLINE - 60:
    import numpy as np
    sp = plan_setup(st, 16 * GIB)
    tau = 0x1234567
    with get_backend("cuda") as bk:
        lag = bk.slice(bk.lagrange_basis(tau, st["domain"]), 0, r1cs.num_constraints)
        want = bk.offload(bk.spmv_t(r1cs.A, lag)).mont
        lag_h = bk.offload(lag); del lag
        bk.drop_cached(r1cs.A)
    with get_backend("cuda", gpu_mem_limit=16 * GIB) as bk:
        t = time.perf_counter()
        got = bk.spmv_t_blocks(r1cs.A, lag_h, sp.spmv_rows, sp.spmv_nnz, sp.spmv_cols).mont
        res = {"spmv_t_blocks_seconds": time.perf_counter() - t, "equal": bool(np.array_equal(got, want)),
               "gpu_peak_bytes": bk.gpu_peak_bytes, "planned_peak": sp.peak, "planned_spmv_t": sp.parts["spmv_t"],
               "blocks": [sp.spmv_rows, sp.spmv_nnz, sp.spmv_cols], "limit_bytes": 16 * GIB}
    out["setup_spmv_t_16gib"] = res; save()
    print(json.dumps(res), flush=True)
    mark("spmv_t blocks checked")
PY
echo "done after $(( $(date +%s) - T0 )) s"; rm -rf $KEYDIR /dev/shm/s14
cp $R/*.log ${OUT:-/tmp} 2>/dev/null; ls -la ${OUT:-/tmp}
