# Stop 14, device call U (one H200, 16 cores, 128 GiB, 64 GiB disk): one synthetic 32 GiB SnapDeals
# update (shape update-32GiB, 16 partitions of 81,049,499 constraints) through the whole workflow from cold under
# --resources mem_gb=64 gpu=1: update_vanilla, check, its own PCE and key, 16 synthesis jobs, one prove job, verify.
# Beside it, while the PCE is extracted: the GPU tests named in $GPU_TESTS (default: the ones
# whose code changed since they last ran on a GPU). Machine memory sampled once a second.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-02-h200/stop14/run-update.sh
set -u
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema snakemake 2>&1 | tail -2
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1
R=${R:-/tmp/rup}; mkdir -p $R
df -h / | tail -1
( while true; do echo "$(date +%s.%N) $(free -b | awk '/Mem:/{print $3, $6}') $(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits)"; sleep 1; done ) > $R/host-mem.txt 2>/dev/null &
SAMPLER=$!
python -m pytest -q -p no:cacheprovider ${GPU_TESTS:-tests/test_prove_gpu.py -k compact} > $R/gpu-tests.log 2>&1 &
T0=$(date +%s)
timeout ${LIMIT:-520} python -m snakemake --cores 16 --resources mem_gb=64 gpu=1 --keep-going \
  --configfile benchmarks/configs/h200-32gib-update.yaml --config results=$R > $R/snakemake.log 2>&1
echo "snakemake rc=$? after $(( $(date +%s) - T0 )) s"
kill $SAMPLER; wait
tail -3 $R/gpu-tests.log; tail -4 $R/snakemake.log; df -h / | tail -1; ls -la $R/pce $R/params 2>/dev/null
python - <<'PY'
import glob, json, os
R = os.environ.get("R", "/tmp/rup")
times = {os.path.relpath(p, f"{R}/proofs"): os.path.getmtime(p) for p in glob.glob(f"{R}/proofs/*/*.proof")}
sizes = {os.path.relpath(p, R): os.path.getsize(p) for p in glob.glob(f"{R}/*/*") if p.endswith((".pce", ".params", ".wit"))}
sizes.update({os.path.relpath(p, R): os.path.getsize(p) for p in glob.glob(f"{R}/witness/*/*.wit")})
json.dump({"about": "proof mtimes (Unix s) and file sizes (bytes) as the device wrote them", "proofs": times,
           "sizes": sizes}, open(f"{R}/files.json", "w"), indent=1)
PY
cat $R/report/summary.md 2>/dev/null | head -30
tar czf $OUT/run-update.tgz -C $R --exclude='*.wit' --exclude='*.params' --exclude='*.pce' --exclude='*.c1.json' --exclude='*.update.json' . 2>/dev/null; ls -la $OUT
