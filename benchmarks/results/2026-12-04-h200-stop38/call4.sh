# Stop 38, call 4 (fresh H200): the planner by predicted seconds (gpu_plan.plan_seconds: each
# streamed walk the longer of its transfer and its MSMs) picks each partition's own H walk at 24
# and 48 GiB and the shared one at 16. tests/test_gpu_limit.py beside the 32 GiB inputs; then one
# cold 32 GiB sector's 10 partitions without a limit and at 24, 16 and 48 GiB (the planner's picks).
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-04-h200-stop38/call4.sh
export OUT=${OUT:-/tmp/c4out}; mkdir -p $OUT
GPU_TESTS="tests/test_gpu_limit.py" WAIT_TESTS=1 LIMITS="24 16 48" PARTS=10 HOST_LIMIT_GIB=40 LIMIT=${LIMIT:-420} \
  bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run.log 2>&1
tail -2 $OUT/gpu-tests.log; grep -h "plan (compact\|pinned regions" $OUT/limits.log | cut -c1-260
grep -h '"s_per_proof"' $OUT/limits.log | cut -c1-170; grep -h "after" $OUT/run.log
