# Stop 39, call 6 (fresh H200): the G1 window sweep again now that the sort runs ahead on a side
# stream (msm.OVERLAP_SORT): was c = 17 below 2^26 and 20 from 2^26 (plan.msm_window) chosen with
# the sort inline? cuzk bench msm at 2^24..2^27, widths 17..22 beside the default.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-04-h200-stop39/call6.sh
export OUT=${OUT:-/tmp/c6out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1
timeout 400 python -m cuzk.cli bench msm --group g1 --backend cuda --log-sizes 24,25,26,27 --windows 17,18,19,20,21,22 \
  --repeat 3 --json $OUT/msm-g1-windows.json > $OUT/windows.log 2>&1; echo "rc=$?" >> $OUT/windows.log
grep -v "^ " $OUT/windows.log | tail -12
