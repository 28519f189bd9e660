# Stop 33 (2026-12-03), call 13 (fresh H200): call 12 again with the H buffers pinned on two threads (runtime.PIN_THREADS 2; code as committed with
# this script; each new pinned region's fault-in and registration seconds logged): tests/test_pinned.py before any
# timed point; then one cold 32 GiB sector's 10 partitions without a limit and at 24, 16, 48, 24 GiB
# (the order), same run.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-03-h200/call13.sh
export OUT=${OUT:-/tmp/s20out}; mkdir -p $OUT
GPU_TESTS="tests/test_pinned.py" \
  WAIT_TESTS=1 LIMITS="24 16 48 24" PARTS=10 HOST_LIMIT_GIB=40 LIMIT=${LIMIT:-590} \
  bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run.log 2>&1
