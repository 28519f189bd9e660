# Stop 13, issue 14 (one H200, 16 cores, 128 GiB, 64 GiB disk): one synthetic 32 GiB PoRep sector's
# 10 partitions (partition 0's witness ten times, as `cuzk bench circuit` proves it) at
# gpu_mem_limit_gb L = unlimited, 48, 24, 16 in one process: s/proof, live GPU peak, host RSS,
# bytes over the bus per proof (measured and planned), every proof verified; JSON after each point.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-01-h200/stop13/run-smallgpu.sh
set -u
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1
R=/tmp/s13; mkdir -p $R
T0=$(date +%s)
python -m cuzk.cli bench circuit --shapes porep-32GiB --workdir $R --phases input,pce,witness --parallel > $R/inputs.log 2>&1 || tail -5 $R/inputs.log
echo "inputs after $(( $(date +%s) - T0 )) s"
timeout $(( ${LIMIT:-530} - ($(date +%s) - T0) )) python - <<'PY' 2>&1 | tee $R/smallgpu.log
import json, os, resource, time, warnings
import numpy as np
from cuzk.backend import get_backend
from cuzk.circuits.registry import family_of, shape_by_name
from cuzk.curve import G1, G2
from cuzk.field import from_limbs
from cuzk.groth16 import DevelopmentSetupWarning, Prover, setup_resident, verify
from cuzk.groth16.keys import ProvingKey
from cuzk.memory.gpu_plan import plan_prove
from cuzk.r1cs.pce import read_pce
from cuzk.r1cs.witness import read_witness_compact

R, P, GIB = "/tmp/s13", 10, 1 << 30
sh = shape_by_name("porep-32GiB"); fam = family_of(sh)
r1cs, _ = read_pce(f"{R}/porep-32GiB.pce", mapped=True)
cw = read_witness_compact(f"{R}/porep-32GiB.partition-0.wit")
pub = fam.public_inputs(json.load(open(f"{R}/porep-32GiB.c1.json")), 0)
rss = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
out = {"shape": sh.name, "partitions": P, "points": []}
def save():
    json.dump(out, open(f"{os.environ.get('OUT', R)}/smallgpu.json", "w"), indent=1)
def run(label, bk, prover, plan):
    times, ok = [], []
    b0, t0 = getattr(bk, "bus_bytes", 0), time.perf_counter()
    stage = lambda j: (pub, prover.stage_compact(cw, defer=plan is not None))
    done = lambda item: (times.append(item.seconds), ok.append(item.verified))
    check = lambda p, pb: verify(prover.key, p, pb)
    if plan is None:
        prover.prove_many(list(range(P)), stage, check, done)
    else:
        prover.prove_groups(list(range(P)), stage, check, done, plan)
    wall = time.perf_counter() - t0
    pt = {"limit_gib": label, "s_per_proof": wall / P, "verified": sum(ok), "gpu_peak_bytes": bk.gpu_peak_bytes,
          "host_rss_peak_bytes": rss(), "bus_bytes_per_proof_measured": (getattr(bk, "bus_bytes", 0) - b0) / P,
          "planned": None if plan is None else {"peak": plan.peak, "in_flight": plan.in_flight,
                     "bus_bytes_per_proof": plan.transfer_bytes_per_proof, "h_phase": plan.h_phase,
                     "scalars_on_host": plan.scalars_on_host, "resident": [q.name for q in plan.queries if q.resident],
                     "pieces": {q.name: q.piece for q in plan.queries}}}
    out["points"].append(pt); save()
    print(json.dumps(pt), flush=True)
with get_backend("cuda") as bk:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DevelopmentSetupWarning)
        t = time.perf_counter(); rk = setup_resident(r1cs, bk); print(f"setup {time.perf_counter() - t:.1f} s", flush=True)
    with Prover(rk, r1cs, bk) as pr:
        run(None, bk, pr, None)
        t = time.perf_counter()   # the key to host memory (as a params file would map it)
        arrays = {q: pr.ctx[q].encoded(0, pr.ctx[q].size) for q in ("h", "l", "a", "b_g1", "b_g2")}
        pk = ProvingKey(vk=rk.vk, **arrays); print(f"key to host {time.perf_counter() - t:.1f} s", flush=True)
for L in (48, 24, 16):
    plan = plan_prove(sh.stats(), len(pk.a), len(pk.b_g1), P, L * GIB, host_limit=100 * GIB)
    with get_backend("cuda", gpu_mem_limit=L * GIB) as bk, Prover(pk, r1cs, bk, plan=plan) as pr:
        run(L, bk, pr, plan)
PY
echo "done after $(( $(date +%s) - T0 )) s"; cp $R/*.log $R/*.json $OUT/ 2>/dev/null; ls -la $OUT
