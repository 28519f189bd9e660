# Stop 46, call 1 (H100): GPU tests of ntt_pass_r4o3's move into ntt.cu after stop 45's calls, of
# ff.cuh's frame-shifted Montgomery rows (fp_mul) and the NTT's lazy differences (fp_sub_lazy), and
# of the GPU witness kernels that use them. From the repository root, .whl carried:
#   bash benchmarks/results/2026-12-05-stop46/call1.sh
export OUT=${OUT:-/tmp/c1out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > $OUT/pip.log 2>&1
python -m pip install -q --no-deps --no-build-isolation -e . >> $OUT/pip.log 2>&1
nvidia-smi --query-gpu=name,memory.total --format=csv > $OUT/gpu.txt
export PYTHONPATH=$PWD/src:$PWD/tests
python -m pytest -q -p no:benchmark -m gpu tests/test_ntt_variants_gpu.py tests/test_sha_witness_gpu.py \
  tests/test_witness_inputs_gpu.py tests/test_synthesis_gpu.py > $OUT/gpu-tests.log 2>&1
tail -3 $OUT/gpu-tests.log
