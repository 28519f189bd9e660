# Stop 16, device call A (one H200, 16 cores, 128 GiB, 64 GiB disk): four synthetic 32 GiB sectors
# (40 partitions) through the whole workflow from cold under --resources mem_gb=64 gpu=1, all four in
# one prove batch (BATCH, default 4), with stop 15's synthesis (about 4x cheaper) and the GPU select
# (no host flatnonzero). Into /tmp/sw/shared, so a later call on the warm machine reuses its PCE,
# key and checked C1 files. Beside it: the GPU tests of the select kernels and the prover.
# Machine memory sampled once a second (free -b, nvidia-smi).
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-02-h200/stop16/run-batch.sh
set -u
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema snakemake 2>&1 | tail -2
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1
R=/tmp/sw/shared; mkdir -p $R
( while true; do echo "$(date +%s.%N) $(free -b | awk '/Mem:/{print $3, $6}') $(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits)"; sleep 1; done ) > $R/host-mem.txt 2>/dev/null &
SAMPLER=$!
GPU_TESTS=${GPU_TESTS:-tests/test_backend_cuda.py tests/test_prove_gpu.py}
[ "$GPU_TESTS" != none ] && { timeout 300 python -m pytest -q -rs --durations=5 -m "gpu or not gpu" $GPU_TESTS > $R/gpu-tests.log 2>&1; echo "pytest rc=$?" >> $R/gpu-tests.log; } &
T0=$(date +%s)
timeout ${LIMIT:-540} python -m snakemake --cores 16 --resources mem_gb=${MEM:-64} gpu=1 --keep-going \
  --configfile benchmarks/configs/h200-32gib-batch.yaml --config results=$R max_batch_size=${BATCH:-4} > $R/snakemake.log 2>&1
echo "snakemake rc=$? after $(( $(date +%s) - T0 )) s"
kill $SAMPLER; wait
tail -3 $R/gpu-tests.log; tail -4 $R/snakemake.log; df -h / | tail -1
cat $R/logs/prove/*.log 2>/dev/null | grep -v "^$" | tail -12
python - <<'PY'
import glob, json
for f in sorted(glob.glob("/tmp/sw/shared/benchmarks/*/*.mem.json")):
    d = json.load(open(f))
    print(f.split("/")[-1], d.get("seconds"), round(d.get("rss_peak_bytes", 0) / 2**30, 2), "GiB", d.get("phase_seconds", ""))
PY
if [ ! -f $R/report/summary.md ]; then
  python - <<'PY'
import glob
from cuzk.report import write_report
R = "/tmp/sw/shared"
write_report(sorted(glob.glob(f"{R}/benchmarks/*/*.mem.json")), sorted(glob.glob(f"{R}/verify/*.json")),
             f"{R}/partial/steps.tsv", f"{R}/partial/summary.md", f"{R}/partial/memory", budget_gb=64)
PY
fi
cat $R/report/summary.md $R/partial/summary.md 2>/dev/null | head -40
tar czf $OUT/run-a.tgz -C $R --exclude='*.wit' --exclude='*.params' --exclude='*.pce' --exclude='*.c1.json' --exclude='*.vk' . 2>/dev/null; ls -la $OUT
