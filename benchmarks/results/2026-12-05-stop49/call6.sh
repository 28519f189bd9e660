# Stop 49, call 6: the SHA witness GPU tests with the new end-to-end one (a one-layer 256 B PoRep
# sector proved by prove_batch on the cuda backend from a synthesis_sha: prover witness, verified):
# what the workflow's auto now does with a cuda prover.
set -u
export OUT=${OUT:-/tmp/c6out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name --format=csv,noheader > $OUT/gpu.txt
timeout 400 python -m pytest -q -rs --durations=5 -m "gpu or not gpu" tests/test_sha_witness_gpu.py > $OUT/gpu-tests.log 2>&1; echo "pytest rc=$?" >> $OUT/gpu-tests.log
tail -12 $OUT/gpu-tests.log
