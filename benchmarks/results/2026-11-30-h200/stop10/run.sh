# Stop 10 on the H200: GPU tests of the live-peak allocator, then the kernel benchmark with the
# G1 MSM timed at several window widths. Run from the repository root with .whl carried.
set -u
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
export PYTHONPATH=$PWD/src
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee $OUT/gpu.txt
timeout 240 python -m pytest -q -rs -m "gpu or not gpu" tests/test_setup_resident.py tests/test_prove_gpu.py \
  tests/test_gpu_memory_plan.py tests/test_backend_cuda.py > $OUT/gpu-tests.log 2>&1
echo "pytest rc=$?" >> $OUT/gpu-tests.log; tail -3 $OUT/gpu-tests.log
timeout 300 python benchmarks/bench_cuda.py --json $OUT/bench-cuda.json --windows 16,19,20,22 > $OUT/bench.log 2>&1
echo "bench rc=$?" >> $OUT/bench.log; grep -E "NTT|MSM|msm 2\^2[024] c=|peak|rc=" $OUT/bench.log
