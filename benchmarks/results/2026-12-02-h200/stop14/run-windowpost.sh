# Stop 14, device call W (one H200, 16 cores, 128 GiB, 64 GiB disk): one 32 GiB WindowPoSt
# partition (shape window-post-32GiB: 2,349 sector slots, 125,279,217 circuit constraints) over a
# synthetic 32 GiB sector, through the workflow's PoSt rules from cold under
# --resources mem_gb=64 gpu=1 (benchmarks/configs/h200-32gib-windowpost.yaml). PCE (9.9 GB),
# key (55.0 GB) and witness (4.0 GB) together are over the 64 GiB disk: the PCE and witness
# folders are links into /dev/shm (host memory). Beside it, while the PCE is extracted: the GPU
# tests ($GPU_TESTS). Machine memory sampled once a second. New since stop 13: the partition is
# synthesized in 8 worker processes (config threads: 8; cuzk.r1cs.parallel), its values kept as limbs.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-02-h200/stop14/run-windowpost.sh
set -u
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema snakemake 2>&1 | tail -2
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1
R=${R:-/tmp/rw}; S=/dev/shm/rw; mkdir -p $R $S/pce $S/witness
ln -sfn $S/pce $R/pce; ln -sfn $S/witness $R/witness
df -h / /dev/shm | tail -2
( while true; do echo "$(date +%s.%N) $(free -b | awk '/Mem:/{print $3, $6}') $(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits)"; sleep 1; done ) > $R/host-mem.txt 2>/dev/null &
SAMPLER=$!
( timeout 400 python -m pytest -q -p no:cacheprovider -m gpu -rs ${GPU_TESTS:-tests/test_gpu_limit.py tests/test_update_circuit.py tests/test_prove_gpu.py} > $R/gpu-tests.log 2>&1 ) &
TESTS=$!
T0=$(date +%s)
timeout ${LIMIT:-540} python -m snakemake --cores 16 --resources mem_gb=64 gpu=1 --keep-going \
  --configfile benchmarks/configs/h200-32gib-windowpost.yaml --config results=$R > $R/snakemake.log 2>&1
echo "snakemake rc=$? after $(( $(date +%s) - T0 )) s"
kill $SAMPLER; wait $TESTS
tail -3 $R/gpu-tests.log; tail -4 $R/snakemake.log; df -h / /dev/shm | tail -2
python - <<'PY'
import glob, json, os
R = os.environ.get("R", "/tmp/rw")
times = {os.path.relpath(p, f"{R}/proofs"): os.path.getmtime(p) for p in glob.glob(f"{R}/proofs/*/*.proof")}
sizes = {os.path.relpath(p, R): os.path.getsize(p) for p in glob.glob(f"{R}/**/*", recursive=True)
         if p.endswith((".pce", ".params", ".vk", ".wit", ".json")) and os.path.getsize(p) > 10**6}
json.dump({"about": "proof mtimes (Unix s) and sizes (bytes) of files over 1 MB as the device wrote them",
           "proofs": times, "sizes": sizes}, open(f"{R}/files.json", "w"), indent=1)
PY
cat $R/report/summary.md 2>/dev/null | head -30
tar czf $OUT/run-windowpost.tgz -C $R --exclude='*.wit' --exclude='*.params' --exclude='*.pce' --exclude='pce' \
  --exclude='witness' --exclude='*.vanilla.json' --exclude='*.c1.json' . 2>/dev/null; ls -la $OUT
