# 2026-12-03, call 7 (fresh H200; the session's last device seconds): the GPU SHA-256 witness
# (branch gpuwit, issue 17): its GPU test, then its benchmark on one synthetic 32 GiB partition.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-03-h200/call7.sh
export OUT=${OUT:-/tmp/c7}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > $OUT/pip.log 2>&1
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1
timeout 60 python -m pytest -q -rs --durations=5 tests/test_sha_witness_gpu.py > $OUT/gpu-tests.log 2>&1; echo "pytest rc=$?" >> $OUT/gpu-tests.log
timeout 100 python benchmarks/witness_gpu/bench_sha.py porep-32GiB /tmp/gpuwit-32GiB $OUT/sha-32GiB.json --repeat 3 > $OUT/bench.log 2>&1; echo "bench rc=$?" >> $OUT/bench.log
