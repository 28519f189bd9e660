# Stop 40, call 4 (fresh H200): synthesis_sha / synthesis_poseidon gpu as workflow choices. Their
# GPU tests (tests/test_synthesis_gpu.py through the pipeline's steps; the kernels' own tests), then
# benchmarks/witness_gpu/bench_steps.py: each step a fresh process as a job is, native against gpu,
# a synthetic 32 GiB PoRep sector's partition 0 and a 32 GiB WindowPoSt target over 2,349
# synthetic sectors (native with 16 workers, gpu in the step's process), twice each, alternated.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-04-h200-stop40/call4.sh
export OUT=${OUT:-/tmp/c4out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
timeout 200 python -m pytest -q -rs -m "gpu or not gpu" tests/test_synthesis_gpu.py tests/test_poseidon_gpu.py \
  tests/test_sha_witness_gpu.py > $OUT/gpu-tests.log 2>&1; echo "pytest rc=$?" >> $OUT/gpu-tests.log
tail -3 $OUT/gpu-tests.log
timeout 420 python benchmarks/witness_gpu/bench_steps.py /dev/shm/bs $OUT/steps.json porep-32GiB,window-post-32GiB 2 16 \
  > $OUT/steps.log 2>&1; echo "rc=$?" >> $OUT/steps.log
cat $OUT/steps.log | tail -20
