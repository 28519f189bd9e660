# Stop 48, call 7: the window reduction with a longer first level (msm.SEG_FIRST 4/8/16/32), side
# by side: G1 over shifted bases at 2^24, 2^25 (c = 22, sorted by keys) and plain at 2^24, 2^27
# (benchmarks/msm_shift/reduce.py), after the GPU tests of the reduction and of shifted MSMs.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-05-stop48/call7.sh
export OUT=${OUT:-/tmp/c7out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv | tee $OUT/gpu.txt
T0=$(date +%s)
timeout 150 python -m pytest -q -p no:benchmark -m gpu tests/test_backend_cuda.py -k "msm_longer or msm_shifted" > $OUT/gpu-tests.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/gpu-tests.log; tail -3 $OUT/gpu-tests.log
timeout $(( 330 - $(date +%s) + T0 )) python benchmarks/msm_shift/reduce.py $OUT/reduce.json 24,25 24,27 5 4,8,16,32 > $OUT/reduce.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/reduce.log; cat $OUT/reduce.log
