# Stop 34, call 2 (fresh H200): bucket sums chosen per window (a wide c's crowded top window alone
# on the chunked path): the MSM GPU tests, then the window sweep of call 1 again.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-04-h200/call2.sh
set -u
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1 OUT=${OUT:-/tmp/c2out}; mkdir -p $OUT
timeout 200 python -m pytest -q -rs -x -m gpu tests/test_backend_cuda.py -k "msm" > $OUT/gpu-tests.log 2>&1; echo "pytest rc=$?" >> $OUT/gpu-tests.log; tail -3 $OUT/gpu-tests.log
python -m cuzk.cli bench msm --group g1 --backend cuda --log-sizes 22,24,25,26,27 --windows 16,18,19,20,21,22 --repeat 3 --json $OUT/msm-g1-windows.json > $OUT/msm-g1.log 2>&1
python -m cuzk.cli bench msm --group g2 --backend cuda --log-sizes 22,24 --windows 16,18,19,20 --repeat 3 --json $OUT/msm-g2-windows.json > $OUT/msm-g2.log 2>&1
grep -h "msm 2\^" $OUT/msm-g*.log
