# Stop 34, call 5 (fresh H200, the session's last device time): call4's code with the MSM kernels
# compiled before the timed points (call4's unlimited point paid a 10.4 s compile), then one cold
# 32 GiB sector's 10 partitions without a limit and at 24 GiB only.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-04-h200/call5.sh
export OUT=${OUT:-/tmp/s20out}; mkdir -p $OUT
AFTER='for g in g1 g2; do python -m cuzk.cli bench msm --group $g --backend cuda --log-sizes 12 --repeat 1; done'
GPU_TESTS="tests/test_gpu_memory_plan.py" AFTER_TESTS="$AFTER" \
  WAIT_TESTS=1 LIMITS="24" PARTS=10 HOST_LIMIT_GIB=40 LIMIT=${LIMIT:-275} \
  bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run.log 2>&1
grep -h '"s_per_proof"' $OUT/limits.log | cut -c1-160
