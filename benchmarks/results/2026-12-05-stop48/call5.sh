# Stop 48, call 5: the shifted MSM's sort, counting sort (scatter) against a library radix sort of
# 64-bit keys (sort64), side by side at 2^22..2^25 (benchmarks/msm_shift/sort.py), after the GPU
# test of shifted MSMs (both sorts).
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-05-stop48/call5.sh
export OUT=${OUT:-/tmp/c5out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv | tee $OUT/gpu.txt
T0=$(date +%s)
timeout 150 python -m pytest -q -p no:benchmark -m gpu tests/test_backend_cuda.py -k "msm_shifted" > $OUT/gpu-tests.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/gpu-tests.log; tail -3 $OUT/gpu-tests.log
timeout 200 python benchmarks/msm_shift/sort.py $OUT/sort.json 22,23,24,25 5 > $OUT/sort.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/sort.log; cat $OUT/sort.log
