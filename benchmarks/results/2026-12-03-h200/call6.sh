# Stop 21 (2026-12-03), call 6 (fresh H200), code as committed with this script: GPU tests (the NTT
# without the rx pass, the limited prove) and the fused H step timed (cuzk bench compute-h) before any
# timed point; then one cold 32 GiB sector's 10 partitions without a limit and at 24, 16, 48 and again
# 24 GiB, same run (staging buffers 512 MiB, H buffers pinned after prepare); then the
# first-partition probe (PROBE_FIRST: pool allocations, w's deferred upload, lean spmv, pinning with
# and without huge pages).
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-03-h200/call6.sh
export OUT=${OUT:-/tmp/s20out}; mkdir -p $OUT
GPU_TESTS="tests/test_backend_cuda.py::test_ntt_pass_flags_and_rows tests/test_backend_cuda.py::test_compute_h_matches_cpu tests/test_backend_cuda.py::test_compute_h_ab_matches_cpu tests/test_backend_cuda.py::test_compute_h_schedules_under_a_limit tests/test_gpu_limit.py tests/test_streamed.py tests/test_pinned.py tests/test_ntt_host.py" \
  AFTER_TESTS="python -m cuzk.cli bench compute-h --backend cuda --log-sizes 24,27 --repeat 3 --json $OUT/compute-h.json" \
  WAIT_TESTS=1 PROBE_FIRST=1 LIMITS="24 16 48 24" PARTS=10 HOST_LIMIT_GIB=40 LIMIT=${LIMIT:-570} \
  bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run.log 2>&1
