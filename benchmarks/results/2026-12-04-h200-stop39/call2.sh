# Stop 39, call 2 (fresh H200): the G1 MSM's next window sorted on a side stream while the bucket
# sums run (msm.OVERLAP_SORT). The MSM GPU tests beside the 32 GiB inputs; then one cold 32 GiB
# sector's 10 partitions without a limit, the sort ahead on, off, on (AB_SORT=1); then
# benchmarks/msm_sort/ahead.py (G1 2^20..2^27, ahead against inline alternated).
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-04-h200-stop39/call2.sh
export OUT=${OUT:-/tmp/c2out}; mkdir -p $OUT
T0=$(date +%s)
GPU_TESTS="tests/test_backend_cuda.py -k msm" WAIT_TESTS=1 LIMITS="" AB_SORT=1 PARTS=10 LIMIT=${LIMIT:-300} \
  bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run.log 2>&1
tail -2 $OUT/gpu-tests.log; grep -h '"s_per_proof"' $OUT/limits.log | cut -c1-130; grep -h "after" $OUT/run.log
PYTHONPATH=$PWD/src timeout $(( ${BUDGET:-520} - ($(date +%s) - T0) )) python benchmarks/msm_sort/ahead.py $OUT/ahead.json 20,22,24,26,27 5 > $OUT/ahead.log 2>&1
echo "ahead rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/ahead.log; cat $OUT/ahead.log
