# Stop 11, device run A (one H200): four synthetic 32 GiB sectors (40 partitions) through the whole
# workflow from cold (PCE, GPU setup writing the 47 GB key, per-partition synthesis, two batches of
# two sectors proved, verified, reported) under --resources mem_gb=64 gpu=1 on the 16-core,
# 128 GiB host. The machine's used memory is sampled beside it every second (free -b).
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-01-h200/stop11-a.sh
# (run C: CFG=benchmarks/configs/h200-32gib-2.yaml LIMIT=470 bash ...)
set -u
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema snakemake 2>&1 | tail -2
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1
R=/tmp/r32; mkdir -p $R
( while true; do echo "$(date +%s.%N) $(free -b | awk '/Mem:/{print $3, $6}') $(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits)"; sleep 1; done ) > $R/host-mem.txt 2>/dev/null &
SAMPLER=$!
T0=$(date +%s)
timeout ${LIMIT:-530} python -m snakemake --cores 16 --resources mem_gb=64 gpu=1 --keep-going \
  --configfile ${CFG:-benchmarks/configs/h200-32gib-batch.yaml} --config results=$R > $R/snakemake.log 2>&1
echo "snakemake rc=$? after $(( $(date +%s) - T0 )) s"
kill $SAMPLER
tail -5 $R/snakemake.log; cat $R/report/summary.md 2>/dev/null; ls -la $R/params $R/pce 2>/dev/null; df -h / | tail -1
if [ ! -f $R/report/summary.md ]; then
  python - <<'PY'
import glob
from cuzk.report import write_report
R = "/tmp/r32"
write_report(sorted(glob.glob(f"{R}/benchmarks/*/*.mem.json")), sorted(glob.glob(f"{R}/verify/*.json")),
             f"{R}/partial/steps.tsv", f"{R}/partial/summary.md", f"{R}/partial/memory", budget_gb=64)
print(open(f"{R}/partial/summary.md").read())
PY
fi
tar czf $OUT/run-32gib.tgz -C $R --exclude='*.wit' --exclude='*.params' --exclude='*.pce' --exclude='*.c1.json' . 2>/dev/null; ls -la $OUT
