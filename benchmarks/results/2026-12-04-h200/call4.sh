# Stop 34, call 4 (fresh H200): the wide window (c = 20) only for G1 MSMs with 2^26 or more scalars
# outside {0, 1} (call3 gave it to the mostly-bit L and A MSMs too: 0.135/0.133 s against 0.089/0.094).
# Beside the inputs the plan and streamed GPU tests; then one cold 32 GiB sector's 10 partitions
# without a limit and at 24, 16, 48, 24 GiB (as call3).
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-04-h200/call4.sh
export OUT=${OUT:-/tmp/s20out}; mkdir -p $OUT
GPU_TESTS="tests/test_gpu_memory_plan.py tests/test_streamed.py" \
  WAIT_TESTS=1 LIMITS="24 16 48 24" PARTS=10 HOST_LIMIT_GIB=40 LIMIT=${LIMIT:-500} \
  bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run.log 2>&1
tail -3 $OUT/gpu-tests.log; grep -h '"s_per_proof"' $OUT/limits.log | cut -c1-160
