# Stop 13, device call D (one H200): every GPU test (marker gpu: cuda backend, GPU proofs, the
# device-limit tests of issue 14, the Filecoin fixtures on the GPU) in the background, beside
# run-smallgpu.sh (the 32 GiB sector at L = unlimited, 48, 24, 16 GiB) in the foreground.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-01-h200/stop13/run-d.sh
set -u
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1
( timeout 540 python -m pytest -q -p no:cacheprovider -m gpu -rs --durations=15 tests/test_backend_cuda.py \
    tests/test_prove_gpu.py tests/test_gpu_limit.py tests/test_setup_resident.py tests/test_filecoin_c1.py \
    > $OUT/gpu-tests.log 2>&1 ) &
TESTS=$!
LIMIT=${LIMIT:-520} bash benchmarks/results/2026-12-01-h200/stop13/run-smallgpu.sh
wait $TESTS; tail -30 $OUT/gpu-tests.log
