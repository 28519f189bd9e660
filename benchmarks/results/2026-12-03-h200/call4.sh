# Stop 20, call 4 (fresh H200): call 1's GPU tests (kernels compiled before any timed point), then
# one cold 32 GiB sector's 10 partitions without a limit and at 24, 16 and 48 GiB, same run.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-03-h200/call4.sh
export OUT=${OUT:-/tmp/s20out}; mkdir -p $OUT
GPU_TESTS="tests/test_backend_cuda.py::test_spmv_ab_matches_cpu_and_finds_the_bad_row tests/test_backend_cuda.py::test_compute_h_ab_matches_cpu tests/test_backend_cuda.py::test_compute_h_host_staged_and_split_equal_compute_h tests/test_gpu_limit.py tests/test_pinned.py" \
  WAIT_TESTS=1 LIMITS="24 16 48" PARTS=10 HOST_LIMIT_GIB=40 LIMIT=${LIMIT:-500} \
  bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run.log 2>&1
