# Issue 14 on one H200 (16 cores, 128 GiB host, 64 GiB disk): one synthetic 32 GiB PoRep sector's
# 10 partitions (partition 0's witness ten times, as `cuzk bench circuit` proves it) at
# gpu_mem_limit_gb L = unlimited, 48, 16, 24 in one process. Per point, JSON as soon as it ends:
# s/proof, live GPU peak, host RSS (now and the peak of the point: VmHWM reset per point), bus bytes
# per proof (measured and planned), the plan, verified count.
# Fixed since stop 13 (run-d died of host OOM after "key to host"): the key is written once from
# the resident setup as a .params file (in /dev/shm when it has room, else on disk) and the limited
# points read it mapped (read_params): streamed queries are decoded on the GPU piece by piece from
# the mapping through two 64 MiB pinned buffers, never copied whole to the host; the resident key
# is freed first; the waiting scalars are bounded by HOST_LIMIT_GIB (default 40) of host memory.
# Last (if time is left): the setup's transposed product of the 32 GiB A matrix in blocks under a
# 16 GiB limit against the unblocked one.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-02-h200/run-smallgpu.sh
set -u
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1
R=/tmp/s14; mkdir -p $R
T0=$(date +%s)
if [ ! -f $R/porep-32GiB.partition-0.wit ]; then
  python -m cuzk.cli bench circuit --shapes porep-32GiB --workdir $R --phases input,pce,witness --parallel > $R/inputs.log 2>&1 || tail -5 $R/inputs.log
fi
echo "inputs after $(( $(date +%s) - T0 )) s"
# the key file (47.3 GB): /dev/shm when it has 50 GB free (no disk reads per pass), else /tmp
KEYDIR=$R; [ "$(df --output=avail -B1 /dev/shm 2>/dev/null | tail -1)" -gt 50000000000 ] 2>/dev/null && KEYDIR=/dev/shm/s14
mkdir -p $KEYDIR; export KEYDIR; df -h /dev/shm $R | tail -2; free -g | head -2
export DEADLINE=$(( T0 + ${LIMIT:-560} ))
timeout $(( ${LIMIT:-560} - ($(date +%s) - T0) )) python - <<'PY' 2>&1 | tee $R/smallgpu.log
import json, os, time, warnings
from cuzk.backend import get_backend
from cuzk.circuits.registry import family_of, shape_by_name
from cuzk.groth16 import DevelopmentSetupWarning, Prover, read_params, setup_resident, verify
from cuzk.groth16.keys import ResidentKey, write_resident_params
from cuzk.memory.gpu_plan import plan_prove, plan_setup
from cuzk.r1cs.pce import read_pce
from cuzk.r1cs.witness import read_witness_compact

R, P, GIB = "/tmp/s14", 10, 1 << 30
KEY = os.path.join(os.environ["KEYDIR"], "porep-32GiB.params")
HOST_LIMIT = float(os.environ.get("HOST_LIMIT_GIB", "40")) * GIB
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
out = {"shape": sh.name, "partitions": P, "host_limit_bytes": HOST_LIMIT, "key_file": KEY, "points": []}

def save():
    json.dump(out, open(f"{OUT}/smallgpu.json", "w"), indent=1)

def run(label, bk, prover, plan, key_vk):
    ok = []
    reset = reset_peak()
    b0, t0 = bk.bus_bytes, time.perf_counter()
    args = (list(range(P)), lambda j: (pub, prover.stage_compact(cw, defer=plan is not None)),
            lambda p, pb: verify(key_vk, p, pb), lambda item: ok.append(item.verified))
    prover.prove_many(*args) if plan is None else prover.prove_groups(*args, plan)   # grouped under a limit
    wall = time.perf_counter() - t0
    pt = {"limit_gib": label, "s_per_proof": wall / P, "verified": sum(ok), "gpu_peak_bytes": bk.gpu_peak_bytes,
          "host_rss_peak_bytes": status("VmHWM"), "host_rss_peak_reset": reset, "host_rss_end_bytes": status("VmRSS"),
          "bus_bytes_per_proof_measured": (bk.bus_bytes - b0) / P,
          "phases_per_proof": {k: round(v / P, 3) for k, v in prover.times.seconds.items()},
          "planned": None if plan is None else {
              "peak": plan.peak, "in_flight": plan.in_flight, "passes": plan.passes,
              "bus_bytes_per_proof": plan.transfer_bytes_per_proof, "host_bytes": plan.host_bytes,
              "h_phase": plan.h_phase, "h_schedule": list(plan.h_schedule), "scalars_on_host": plan.scalars_on_host,
              "resident": [q.name for q in plan.queries if q.resident], "pieces": {q.name: q.piece for q in plan.queries}}}
    out["points"].append(pt); save()
    print(json.dumps(pt), flush=True)
    mark(f"point {label} done")

# 1. the key on the GPU (development setup), the unlimited point, the key written out, all freed
with get_backend("cuda") as bk:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DevelopmentSetupWarning)
        t = time.perf_counter(); rk = setup_resident(r1cs, bk); out["setup_seconds"] = time.perf_counter() - t
    mark(f"setup_resident {out['setup_seconds']:.1f} s")
    vk = rk.vk
    with Prover(rk, r1cs, bk) as pr:
        run(None, bk, pr, None, vk)
        t = time.perf_counter()
        write_resident_params(KEY, ResidentKey(vk, pr.ctx))
        out["key_write_seconds"] = time.perf_counter() - t; out["key_bytes"] = os.path.getsize(KEY); save()
        mark(f"key written ({out['key_bytes'] / 1e9:.1f} GB, {out['key_write_seconds']:.1f} s)")
    del rk
mark("resident key freed")

# 2. the limited points from the mapped key file
t = time.perf_counter(); pk = read_params(KEY); mark(f"key mapped in {time.perf_counter() - t:.1f} s")
for L in (48, 16, 24):   # 16 before 24: the tightest point is measured first if time runs short
    plan = plan_prove(st, len(pk.a), len(pk.b_g1), P, L * GIB, host_limit=HOST_LIMIT)
    print(f"L={L} GiB plan: in flight {plan.in_flight}, h {plan.h_phase}, scalars on host {plan.scalars_on_host}, "
          f"resident {[q.name for q in plan.queries if q.resident]}, peak {plan.peak / GIB:.2f} GiB, "
          f"host {plan.host_bytes / GIB:.2f} GiB", flush=True)
    with get_backend("cuda", gpu_mem_limit=L * GIB) as bk, Prover(pk, r1cs, bk, plan=plan) as pr:
        mark(f"L={L}: prover ready")
        run(L, bk, pr, plan, pk.vk)

# 3. if time is left: setup's Aᵀ·L in blocks at 16 GiB against the unblocked product
if time.time() < int(os.environ["DEADLINE"]) - 60:
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
echo "done after $(( $(date +%s) - T0 )) s"; rm -f $KEYDIR/porep-32GiB.params; rm -rf /dev/shm/s14
cp $R/*.log ${OUT:-/tmp} 2>/dev/null; ls -la ${OUT:-/tmp}
