set -u
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
export PYTHONPATH=$PWD/src
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
timeout 200 python -m pytest -q -rs -m "gpu or not gpu" tests/test_setup_resident.py tests/test_prove_gpu.py tests/test_gpu_memory_plan.py tests/test_backend_cuda.py > $OUT/gpu-tests-v9.log 2>&1
echo "pytest rc=$?" >> $OUT/gpu-tests-v9.log; tail -4 $OUT/gpu-tests-v9.log
