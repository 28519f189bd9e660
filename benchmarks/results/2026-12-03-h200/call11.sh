# Stop 32 (2026-12-03), call 11 (fresh H200), a replicate of call 9, code as committed with this script (PIN_AHEAD on by
# default, pinned.HUGE_PAGES "auto"): GPU tests of the pinned memory, the limited prove, the
# streamed key and the GPU SHA-256 witness before any timed point; then one cold 32 GiB sector's
# 10 partitions without a limit and at 24, 16, 48, 24 GiB (the order, default pinning:
# one ahead), same run.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-03-h200/call11.sh
export OUT=${OUT:-/tmp/s20out}; mkdir -p $OUT
GPU_TESTS="tests/test_pinned.py tests/test_gpu_limit.py tests/test_streamed.py tests/test_sha_witness_gpu.py" \
  WAIT_TESTS=1 LIMITS="24 16 48 24" PARTS=10 HOST_LIMIT_GIB=40 LIMIT=${LIMIT:-570} \
  bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run.log 2>&1
