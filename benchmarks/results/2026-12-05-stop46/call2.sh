# Stop 46, call 2 (H100, after call 1): the other GPU tests of ff.cuh's frame-shifted rows (fp_mul):
# the backend's kernels and MSMs against the CPU, the prover, the Poseidon kernel.
# From the repository root, .whl and build carried:  bash benchmarks/results/2026-12-05-stop46/call2.sh
export OUT=${OUT:-/tmp/c2out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
T0=$(date +%s)
timeout 570 python -m pytest -q -p no:benchmark -m gpu tests/test_poseidon_gpu.py tests/test_backend_cuda.py tests/test_prove_gpu.py \
  > $OUT/gpu-tests.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/gpu-tests.log
tail -4 $OUT/gpu-tests.log
