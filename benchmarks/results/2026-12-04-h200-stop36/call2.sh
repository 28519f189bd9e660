# Stop 36, call 2 (fresh H200): the MSM's counting sort by windows per launch (issue 17). MSM GPU
# tests (with the new test_msm_scatter_by_windows), then benchmarks/msm_sort/scatter.py at G1 2^27,
# G1 2^24, G2 2^25 over HIST:SCATTER[:C] entries.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-04-h200-stop36/call2.sh
set -u
OUT=${OUT:-/tmp/c2out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1
timeout 200 python -m pytest -q -rs -m "gpu or not gpu" tests/test_backend_cuda.py -k msm > $OUT/gpu-tests.log 2>&1; echo "pytest rc=$?" >> $OUT/gpu-tests.log
tail -3 $OUT/gpu-tests.log
timeout 330 python benchmarks/msm_sort/scatter.py $OUT/scatter.json G1:27,G1:24,G2:25 0:0,0:1,1:1,0:2,2:2,1:1:21,1:1:22,0:0:22 2>&1 | tee $OUT/scatter.log
