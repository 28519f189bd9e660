# Stop 49, call 5: msm.cu's signed-digit rule as one device function (signed_digit) for msm_hist,
# msm_scatter and msm_keys (the three copies of stop 48's review): the MSM GPU tests, then the G1
# MSM at 2^24 (plain and over shifted bases, c = 22: msm_keys) and 2^26 (plain: msm_hist and
# msm_scatter) with this checkout's kernels against HEAD's (build/old_msm, git archive of the
# commit before), alternated new, old, new, old, one process each.
set -u
export OUT=${OUT:-/tmp/c5out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name --format=csv,noheader > $OUT/gpu.txt
PYTHONPATH=$PWD/src:$PWD/tests timeout 300 python -m pytest -q -rs -m "gpu or not gpu" tests/test_backend_cuda.py -k msm > $OUT/gpu-tests.log 2>&1; echo "pytest rc=$?" >> $OUT/gpu-tests.log; tail -2 $OUT/gpu-tests.log
for r in 1 2; do
  for v in new old; do
    src=$PWD/src; [ $v = old ] && src=$PWD/build/old_msm/src
    PYTHONPATH=$src timeout 120 python -m cuzk.cli bench msm --group g1 --backend cuda --log-sizes 24,26 --shift 22 --repeat 5 --json $OUT/msm-$v-$r.json 2>&1 | grep "msm 2\|Error" | sed "s/^/$v $r: /"
  done
done
