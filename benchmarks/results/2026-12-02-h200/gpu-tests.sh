# Issue 14's GPU tests on one H200: the points_decode kernel and streamed pieces from a mapped file,
# spmv_t in blocks against the unchunked product, every step under limits (60-512 MiB) giving the
# unlimited key and proofs, and the GPU test files the streamed contexts touch.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-02-h200/gpu-tests.sh
set -u
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
export PYTHONPATH=$PWD/src
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
timeout 400 python -m pytest -q -rs --durations=10 -m "gpu or not gpu" tests/test_gpu_stream_key.py tests/test_gpu_limit.py \
  tests/test_backend_cuda.py tests/test_prove_gpu.py tests/test_setup_resident.py tests/test_gpu_memory_plan.py \
  tests/test_pieces.py tests/test_spmv_t_blocks.py > ${OUT:-/tmp}/gpu-tests.log 2>&1
echo "pytest rc=$?" >> ${OUT:-/tmp}/gpu-tests.log; tail -20 ${OUT:-/tmp}/gpu-tests.log
