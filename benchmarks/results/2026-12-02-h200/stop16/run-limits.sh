# Stop 16, device call C (issue 14), on the machine calls A and B left warm: sector 101's ten
# partitions proved by the workflow's own prove step (pipeline.prove_batch: the key mapped from
# call A's .params file, the partitions' witness files, each proof verified before it is kept)
# under gpu_mem_limit_gb LIMITS (default "24 16"), mem_gb 64 (waiting scalars may take 32 GiB of
# host memory). Beside it, the default 2 KiB batch (config.yaml) through Snakemake with
# gpu_mem_limit_gb: 1 (its small GPU jobs share the device with the limited proofs).
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-02-h200/stop16/run-limits.sh
set -u
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema snakemake 2>&1 | tail -2
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1
S=/tmp/sw/shared; R=/tmp/s16; mkdir -p $R; T0=$(date +%s)
( timeout ${LIMIT_2K:-420} python -m snakemake --cores 6 --resources mem_gb=24 gpu=1 --keep-going \
    --config results=$R/default backend=cuda gpu_mem_limit_gb=1 > $R/default-2kib.log 2>&1
  echo "default batch rc=$? after $(( $(date +%s) - T0 )) s" >> $R/default-2kib.log ) &
for L in ${LIMITS:-24 16}; do
  timeout $(( ${LIMIT:-560} - ($(date +%s) - T0) - 10 )) python - $L <<'PY' 2>&1 | grep -v "MSM/s\]" | tee $R/l$L.log
import json, logging, sys, time
from cuzk.pipeline import prove_batch
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
S, R, L = "/tmp/sw/shared", "/tmp/s16", float(sys.argv[1])
t = time.perf_counter()
prove_batch(f"{S}/pce/porep-32GiB.pce", f"{S}/params/porep-32GiB.params", [f"{S}/c1/101.c1.json"], [f"{S}/witness/101"],
            f"{R}/proofs-l{L:g}", backend="cuda", threads=4, mem_json=f"{R}/l{L:g}.mem.json", mem_gb=64,
            gpu_mem_limit_gb=L, checked=[f"{S}/c1/101.checked.json"])
d = json.load(open(f"{R}/l{L:g}.mem.json"))
print(f"L={L:g} GiB: {time.perf_counter() - t:.1f} s, 10 partitions proved and verified;",
      {k: d.get(k) for k in ("seconds", "phase_seconds", "gpu_peak_bytes", "gpu_predicted_bytes", "rss_peak_bytes",
                              "rss_predicted_bytes", "staging_seconds")})
PY
done
wait; tail -5 $R/default-2kib.log; cat $R/default/report/summary.md 2>/dev/null | head -12
tar czf $OUT/limits.tgz -C $R --exclude='*.wit' --exclude='*.params' --exclude='*.pce' --exclude='*.c1.json' . 2>/dev/null; ls -la $OUT
