# Stop 39, call 4 (fresh H200): the Poseidon witness kernel (cuzk.backend.cuda.poseidon, GPU
# witness phase 2). Its GPU tests (and the SHA-256 kernel's), then
# benchmarks/witness_gpu/bench_poseidon.py: a 32 GiB WindowPoSt partition's worth of arity-8
# hashes on the GPU against the native core, and one WindowPoSt partition over 128 synthetic
# 32 GiB sectors synthesized with native and with the GPU core (files compared).
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-04-h200-stop39/call4.sh
export OUT=${OUT:-/tmp/c4out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1
T0=$(date +%s)
timeout 240 python -m pytest -q -rs --durations=5 -m "gpu or not gpu" tests/test_poseidon_gpu.py tests/test_poseidon_gpu_host.py \
  tests/test_sha_witness_gpu.py > $OUT/gpu-tests.log 2>&1; echo "pytest rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/gpu-tests.log
tail -3 $OUT/gpu-tests.log
timeout $(( ${BUDGET:-500} - ($(date +%s) - T0) )) python benchmarks/witness_gpu/bench_poseidon.py $OUT/bench_poseidon.json 234900 128 10 > $OUT/bench_poseidon.log 2>&1
echo "bench rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/bench_poseidon.log; cat $OUT/bench_poseidon.log
