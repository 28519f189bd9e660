# Stop 31 (2026-12-03), call 8 (fresh H200), code as committed with this script: GPU tests of the
# pinned memory (pinned.filled: the matrices' host arrays filled before they are registered;
# HostBuffers made at once or one ahead) and of the limited prove (PIN_AHEAD off and on) before any
# timed point; then one cold 32 GiB sector's 10 partitions without a limit and at
# 24 (all first), 24 (one ahead), 16 (ahead), 48 (ahead), 24 (ahead), 24 (all first), same run.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-03-h200/call8.sh
export OUT=${OUT:-/tmp/s20out}; mkdir -p $OUT
GPU_TESTS="tests/test_pinned.py tests/test_gpu_limit.py tests/test_streamed.py tests/test_backend_cuda.py::test_host_selection_slices_and_msm_many" \
  WAIT_TESTS=1 LIMITS="24+all 24+ahead 16+ahead 48+ahead 24+ahead 24+all" PARTS=10 HOST_LIMIT_GIB=40 LIMIT=${LIMIT:-570} \
  bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run.log 2>&1
