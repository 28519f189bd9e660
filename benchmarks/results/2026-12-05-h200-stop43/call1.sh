# Stop 43, call 1: the GPU tests of the device-untested work of stops 40-42 (value-store writes and
# runs, witness_poseidon: inputs), then benchmarks/witness_gpu/bench_inputs.py (values vs inputs,
# 32 GiB WindowPoSt over 200 distinct synthetic sectors) and bench_steps.py's WindowPoSt step
# (native, 16 workers, against gpu Poseidon).
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-05-h200-stop43/call1.sh
export OUT=${OUT:-/tmp/c1out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > $OUT/smi.txt 2>&1
timeout 220 python -m pytest -q -rs --durations=8 -m "gpu or not gpu" tests/test_witness_inputs_gpu.py \
  tests/test_synthesis_gpu.py tests/test_poseidon_gpu.py tests/test_sha_witness_gpu.py tests/test_backend_cuda.py \
  -k "inputs or synthesis or poseidon or sha or msm or affine" > $OUT/gpu-tests.log 2>&1
echo "pytest rc=$?" >> $OUT/gpu-tests.log; grep -E "passed|failed|FAILED|Error" $OUT/gpu-tests.log | tail -12
DISTINCT=200 timeout 190 python benchmarks/witness_gpu/bench_inputs.py /dev/shm/bi $OUT/inputs200.json window-post-32GiB 2 16 \
  > $OUT/inputs200.log 2>&1; echo "rc=$?" >> $OUT/inputs200.log; tail -10 $OUT/inputs200.log
rm -rf /dev/shm/bi
DISTINCT=200 GPU_FIRST=1 timeout 130 python benchmarks/witness_gpu/bench_steps.py /dev/shm/bs $OUT/steps.json window-post-32GiB 1 16 \
  > $OUT/steps.log 2>&1; echo "rc=$?" >> $OUT/steps.log; tail -8 $OUT/steps.log
