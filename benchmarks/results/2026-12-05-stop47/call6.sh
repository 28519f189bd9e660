# Stop 47, call 6: call 5 again with msm_scatter_coarse counting per block in shared memory (one global
# atomic per bin and block, not per entry: call 5's two-level sort was slower) (msm_scatter_coarse + msm_scatter_fine,
# SHIFT_TWO_LEVEL_FROM): the MSM GPU tests (the shifted test in both sorts), then one level against
# two side by side on the same table and scalars (benchmarks/msm_shift/two_level.py), G1 2^22, 2^24,
# 2^25 at c = 20 and 22, the plain MSM as reference.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-05-stop47/call6.sh
export OUT=${OUT:-/tmp/c6out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv | tee $OUT/gpu.txt
T0=$(date +%s)
timeout 200 python -m pytest -q -p no:benchmark -m gpu tests/test_backend_cuda.py -k "msm" > $OUT/gpu-tests.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/gpu-tests.log
tail -3 $OUT/gpu-tests.log
timeout $(( 560 - $(date +%s) + T0 )) python benchmarks/msm_shift/two_level.py $OUT/two-level.json --log-sizes 22,24,25 \
  --widths 20,22 --repeat 5 > $OUT/two-level.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/two-level.log
cat $OUT/two-level.log
