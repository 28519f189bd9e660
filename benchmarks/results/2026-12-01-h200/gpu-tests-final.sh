# Stop 11, last device run (one H200): the GPU test files and their CPU tests on the final code
# (after the tidy-up, the streamed key and the 32 GiB workflow).
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-01-h200/gpu-tests-final.sh
set -u
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
export PYTHONPATH=$PWD/src
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
timeout 280 python -m pytest -q -rs --durations=10 -m "gpu or not gpu" tests/test_setup_resident.py tests/test_prove_gpu.py \
  tests/test_gpu_memory_plan.py tests/test_backend_cuda.py tests/test_gpus.py tests/test_ff_host.py tests/test_cuda_encoding.py tests/test_keyfiles.py > $OUT/gpu-tests-final.log 2>&1
echo "pytest rc=$?" >> $OUT/gpu-tests-final.log; tail -16 $OUT/gpu-tests-final.log
