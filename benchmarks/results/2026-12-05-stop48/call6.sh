# Stop 48, call 6: shifted MSMs sorted by 64-bit keys with the offsets read off the sorted keys (no
# histogram): the MSM GPU tests, then scatter against keys side by side at 2^24 and 2^25
# (benchmarks/msm_shift/sort.py), then `cuzk bench msm` at 2^24 with its defaults (keys from 2^24).
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-05-stop48/call6.sh
export OUT=${OUT:-/tmp/c6out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv | tee $OUT/gpu.txt
T0=$(date +%s)
timeout 200 python -m pytest -q -p no:benchmark -m gpu tests/test_backend_cuda.py -k "msm" > $OUT/gpu-tests.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/gpu-tests.log; tail -3 $OUT/gpu-tests.log
timeout 150 python benchmarks/msm_shift/sort.py $OUT/sort.json 24,25 7 > $OUT/sort.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/sort.log; cat $OUT/sort.log
timeout $(( 420 - $(date +%s) + T0 )) python -m cuzk.cli bench msm --group g1 --backend cuda --log-sizes 24 --shift 22 \
  --repeat 7 --json $OUT/msm.json > $OUT/msm.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/msm.log; grep "msm 2\|rc=\|Error" $OUT/msm.log
