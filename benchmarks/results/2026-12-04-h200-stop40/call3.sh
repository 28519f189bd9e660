# Stop 40, call 3 (fresh H200): the batch-affine levels again, each slot now asking L2 for the
# entries AFFINE_AHEAD = 4 slots on (call 2: 1.19x the XYZZ sums' time at 2^27, their dependent
# random reads too few in flight). The affine GPU test, then benchmarks/msm_affine/affine.py at
# 2^24, 2^26, 2^27 (configs (K, fewest threads) 512/2^15, 512/2^14, 1024/2^13).
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-04-h200-stop40/call3.sh
export OUT=${OUT:-/tmp/c3out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1
timeout 200 python -m pytest -q -rs -m "gpu or not gpu" tests/test_backend_cuda.py -k "affine or sort_ahead or skewed" > $OUT/gpu-tests.log 2>&1; echo "pytest rc=$?" >> $OUT/gpu-tests.log
tail -2 $OUT/gpu-tests.log
timeout 300 python benchmarks/msm_affine/affine.py $OUT/affine.json 24,26,27 3 > $OUT/affine.log 2>&1; echo "rc=$?" >> $OUT/affine.log
cat $OUT/affine.log
