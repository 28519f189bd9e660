# Stop 12, device call A (one H200, 16 cores, 128 GiB, 64 GiB disk): four synthetic 32 GiB sectors
# (40 partitions, batches of two) through the whole workflow from cold under
# --resources mem_gb=64 gpu=1, into /tmp/sw/shared (the sweep's shared folder, so calls B and C
# reuse its PCE, key and checked C1 files). Beside it, while the PCE is extracted: the GPU tests of
# what changed (spmv from the mapped PCE in slices, witnesses expanded on the GPU, proofs equal to
# the CPU's). Machine memory sampled once a second (free -b, nvidia-smi).
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-01-h200/stop12/run-a.sh
set -u
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema snakemake 2>&1 | tail -2
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1
R=/tmp/sw/shared; mkdir -p $R
( while true; do echo "$(date +%s.%N) $(free -b | awk '/Mem:/{print $3, $6}') $(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits)"; sleep 1; done ) > $R/host-mem.txt 2>/dev/null &
SAMPLER=$!
python -m pytest -q -p no:cacheprovider tests/test_backend_cuda.py tests/test_prove_gpu.py -k "spmv or compact or equal" > $R/gpu-tests.log 2>&1 &
T0=$(date +%s)
timeout ${LIMIT:-555} python -m snakemake --cores 16 --resources mem_gb=64 gpu=1 --keep-going \
  --configfile benchmarks/configs/h200-32gib-batch.yaml --config results=$R > $R/snakemake.log 2>&1
echo "snakemake rc=$? after $(( $(date +%s) - T0 )) s"
kill $SAMPLER; wait
tail -3 $R/gpu-tests.log; tail -4 $R/snakemake.log; df -h / | tail -1
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
tar czf $OUT/run-a.tgz -C $R --exclude='*.wit' --exclude='*.params' --exclude='*.pce' --exclude='*.c1.json' . 2>/dev/null; ls -la $OUT
