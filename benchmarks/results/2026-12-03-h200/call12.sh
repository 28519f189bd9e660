# Stop 33 (2026-12-03), call 12 (fresh H200): a second replicate of call 9 (code as committed with
# this script, the same as call 11's but for records): the whole GPU test suite (-m gpu) before any
# timed point; then one cold 32 GiB sector's 10 partitions without a limit and at 24, 16, 48, 24 GiB
# (the order), same run.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-03-h200/call12.sh
export OUT=${OUT:-/tmp/s20out}; mkdir -p $OUT
GPU_TESTS="-m gpu tests" \
  WAIT_TESTS=1 LIMITS="24 16 48 24" PARTS=10 HOST_LIMIT_GIB=40 LIMIT=${LIMIT:-590} \
  bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run.log 2>&1
