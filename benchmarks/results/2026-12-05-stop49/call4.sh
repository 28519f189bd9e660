# Stop 49, call 4: the GPU tests again after the device code moved (the SHA kernel's launch and the
# fill now in cuda/computed.py, so the runtime imports no witness module): the SHA witness kernel,
# the prover file's device fill, the Poseidon inputs path, synthesis on the GPU, and the prover.
set -u
export OUT=${OUT:-/tmp/c4out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name --format=csv,noheader > $OUT/gpu.txt
timeout 500 python -m pytest -q -rs -m "gpu or not gpu" tests/test_sha_witness_gpu.py tests/test_witness_inputs_gpu.py tests/test_synthesis_gpu.py tests/test_prove_gpu.py > $OUT/gpu-tests.log 2>&1; echo "pytest rc=$?" >> $OUT/gpu-tests.log
tail -4 $OUT/gpu-tests.log
