# Issue 14, stop 15, on one H200: one synthetic 32 GiB PoRep sector's partitions (partition 0's
# witness proved PARTS times, as `cuzk bench circuit` proves it) without a limit, then at each of
# LIMITS (default "48 24 16") GiB, the key streamed from host files in /dev/shm (resident_to_host).
# Differences from ../run-smallgpu.sh (tries 1-3): a live trace of every prover phase (seconds,
# bus bytes so far) so a slow point shows where its time goes; each point gets an equal share of
# the time left and stops after the proof that passes it (recorded, verified count included);
# the GPU tests (GPU_TESTS: files, or none) run beside the CPU-bound input step.
# From the repository root, .whl carried:  LIMIT=560 bash benchmarks/results/2026-12-02-h200/stop15/run-limits.sh
set -u
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1
R=/tmp/s14; mkdir -p $R; OUT=${OUT:-$R}
T0=$(date +%s)
GPU_TESTS=${GPU_TESTS:-tests/test_gpu_stream_key.py tests/test_gpu_limit.py tests/test_backend_cuda.py tests/test_prove_gpu.py tests/test_setup_resident.py tests/test_gpu_memory_plan.py tests/test_pieces.py tests/test_spmv_t_blocks.py tests/test_streamed.py}
[ "$GPU_TESTS" != none ] && { timeout 420 python -m pytest -q -rs --durations=10 -m "gpu or not gpu" $GPU_TESTS > $OUT/gpu-tests.log 2>&1; echo "pytest rc=$?" >> $OUT/gpu-tests.log; } &
if [ ! -f $R/porep-32GiB.partition-0.wit ]; then
  python -m cuzk.cli bench circuit --shapes porep-32GiB --workdir $R --phases input,pce,witness --parallel > $R/inputs.log 2>&1 || tail -5 $R/inputs.log
fi
echo "inputs after $(( $(date +%s) - T0 )) s"
KEYDIR=/dev/shm/s14; mkdir -p $KEYDIR; export KEYDIR; df -h /dev/shm $R | tail -2; free -g | head -2
export DEADLINE=$(( T0 + ${LIMIT:-560} - 15 ))
timeout $(( ${LIMIT:-560} - ($(date +%s) - T0) - 5 )) python - <<'PY' 2>&1 | tee $OUT/limits.log
import gc, json, os, time, traceback, warnings
from cuzk.backend import get_backend
from cuzk.circuits.registry import family_of, shape_by_name
from cuzk.groth16 import DevelopmentSetupWarning, Prover, resident_to_host, setup_resident, verify
from cuzk.memory.gpu_plan import plan_prove
from cuzk.r1cs.pce import read_pce
from cuzk.r1cs.witness import read_witness_compact

R, GIB = "/tmp/s14", 1 << 30
OUT, KEYDIR, DEADLINE = os.environ.get("OUT", R), os.environ["KEYDIR"], int(os.environ["DEADLINE"])
PARTS = int(os.environ.get("PARTS", "10"))
LIMITS = [float(x) for x in os.environ.get("LIMITS", "48 24 16").split()]
HOST_LIMIT = float(os.environ.get("HOST_LIMIT_GIB", "40")) * GIB
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
    def add_traced(phase, dt):
        add(phase, dt)
        print(f"    [{time.perf_counter() - T0:6.1f} s] {phase} {dt:.2f} s, bus {bk.bus_bytes / 1e9:.1f} GB, "
              f"gpu live {bk.gpu_peak_bytes / GIB:.1f} GiB peak", flush=True)
    prover.times.add = add_traced

def run(label, bk, prover, plan, vk, points_left):
    until = time.time() + (DEADLINE - time.time()) / points_left
    ok, seen = [], (bk.live_at_start("compute_h", "compute_h_host") if plan is not None else [])
    reset = reset_peak(); traced(prover, bk)
    b0, t0 = bk.bus_bytes, time.perf_counter()
    def done(item):
        ok.append(item.verified)
        if time.time() > until and len(ok) < PARTS:
            raise OutOfTime(f"stopped after {len(ok)} proofs: this point's share of the call's time")
    args = (list(range(PARTS)), lambda j: (pub, prover.stage_compact(cw, defer=plan is not None)),
            lambda p, pb: verify(vk, p, pb), done)
    pt = {"limit_gib": label, "partitions_asked": PARTS}
    if plan is not None:
        p = plan.parts
        pt["planned"] = {"peak": plan.peak, "in_flight": plan.in_flight, "h_phase": plan.h_phase,
                         "h_schedule": list(plan.h_schedule), "scalars_on_host": plan.scalars_on_host,
                         "bus_bytes_per_proof": plan.transfer_bytes_per_proof, "host_bytes": plan.host_bytes,
                         "resident": [q.name for q in plan.queries if q.resident],
                         "pieces": {q.name: q.piece for q in plan.queries}, "parts": dict(p)}
    try:
        prover.prove_many(*args) if plan is None else prover.prove_groups(*args, plan)
    except OutOfTime as e:
        pt["stopped"] = str(e)
    except Exception as e:
        pt["error"] = f"{type(e).__name__}: {e}"
        traceback.print_exc()
    gc.collect()
    wall = time.perf_counter() - t0
    pt.update({"seconds": wall, "s_per_proof": wall / max(1, len(ok)), "proofs": len(ok), "verified": sum(ok),
               "gpu_peak_bytes": bk.gpu_peak_bytes, "live_held_at_h_bytes": seen,
               "host_rss_peak_bytes": status("VmHWM"), "host_rss_peak_reset": reset,
               "bus_bytes_per_proof_measured": (bk.bus_bytes - b0) / max(1, len(ok)),
               "phases_per_proof": {k: round(v / max(1, len(ok)), 3) for k, v in prover.times.seconds.items()}})
    out["points"].append(pt); save()
    print(json.dumps({k: v for k, v in pt.items() if k != "planned"}), flush=True)
    mark(f"point {label} done")

with get_backend("cuda") as bk:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DevelopmentSetupWarning)
        t = time.perf_counter(); rk = setup_resident(r1cs, bk); out["setup_seconds"] = time.perf_counter() - t
    mark(f"setup_resident {out['setup_seconds']:.1f} s")
    t = time.perf_counter(); pk = resident_to_host(rk, KEYDIR); out["key_to_host_seconds"] = time.perf_counter() - t
    out["key_bytes"] = sum(getattr(pk, q).nbytes for q in ("h", "l", "a", "b_g1", "b_g2")); save()
    mark(f"key in host files ({out['key_bytes'] / 1e9:.1f} GB, {out['key_to_host_seconds']:.1f} s)")
    with Prover(rk, r1cs, bk) as pr:
        run(None, bk, pr, None, rk.vk, len(LIMITS) + 1)
    rk.close(); del rk
mark("resident key freed")
for i, L in enumerate(LIMITS):
    plan = plan_prove(st, len(pk.a), len(pk.b_g1), PARTS, int(L * GIB), host_limit=HOST_LIMIT)
    print(f"L={L:g} GiB plan: in flight {plan.in_flight}, h {plan.h_phase} {plan.h_schedule}, scalars on host "
          f"{plan.scalars_on_host}, resident {[q.name for q in plan.queries if q.resident]}, pieces "
          f"{ {q.name: q.piece for q in plan.queries} }, peak {plan.peak / GIB:.2f} GiB, host {plan.host_bytes / GIB:.2f} GiB, "
          f"bus {plan.transfer_bytes_per_proof / 1e9:.1f} GB/proof", flush=True)
    with get_backend("cuda", gpu_mem_limit=int(L * GIB)) as bk, Prover(pk, r1cs, bk, plan=plan) as pr:
        mark(f"L={L:g}: prover ready")
        run(L, bk, pr, plan, pk.vk, len(LIMITS) - i)
PY
echo "done after $(( $(date +%s) - T0 )) s"; rm -rf $KEYDIR
wait; cp $R/*.log $OUT/ 2>/dev/null; tail -4 $OUT/gpu-tests.log 2>/dev/null; ls -la $OUT
