# Stop 21 (2026-12-03), call 5 (fresh H200): GPU tests of the limited prove first (kernels compiled
# before any timed point), the key's streaming rate by staging-buffer size (STREAM_CHECK), then one
# cold 32 GiB sector's 10 partitions without a limit, at 24 GiB with 128 MiB staging buffers (the
# default) and at 24, 16 and 48 GiB with 512 MiB ones, same run; the H buffers pinned after prepare.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-03-h200/call5.sh
export OUT=${OUT:-/tmp/s20out}; mkdir -p $OUT
GPU_TESTS="tests/test_gpu_limit.py tests/test_streamed.py tests/test_pinned.py tests/test_pieces.py" \
  WAIT_TESTS=1 STREAM_CHECK=1 LIMITS="24 24@512 16@512 48@512" PARTS=10 HOST_LIMIT_GIB=40 LIMIT=${LIMIT:-560} \
  bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run.log 2>&1
