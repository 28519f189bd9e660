# Stop 20, call 1 (fresh H200): the GPU tests of the changed code beside the CPU-bound input step
# (and before any timed point: WAIT_TESTS=1), then one cold 32 GiB sector's 10 partitions without a
# limit and at 24, 16 (lean H phase now), 48 and 16 GiB with the "host" H phase, the pool trimmed
# and measured at each H phase's start (TRIM_PROBE=1: what it cannot release); then the NTT
# kernels' table with 2-stage rx variants, in what time is left.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-02-h200/stop20/call1.sh
export OUT=${OUT:-/tmp/s20out}; mkdir -p $OUT
T0=$(date +%s)
GPU_TESTS="tests/test_backend_cuda.py::test_spmv_ab_matches_cpu_and_finds_the_bad_row tests/test_backend_cuda.py::test_compute_h_ab_matches_cpu tests/test_backend_cuda.py::test_compute_h_host_staged_and_split_equal_compute_h tests/test_gpu_limit.py tests/test_pinned.py" \
  WAIT_TESTS=1 TRIM_PROBE=1 LIMITS="24 16 48 16:host" PARTS=10 HOST_LIMIT_GIB=40 LIMIT=${LIMIT:-500} \
  bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run.log 2>&1
echo "limits done after $(( $(date +%s) - T0 )) s" >> $OUT/run.log
LEFT=$(( ${TOTAL:-585} - ($(date +%s) - T0) ))
[ $LEFT -gt 40 ] && timeout $LEFT python -m cuzk.bench.ntt_kernels --sizes 20-26 --repeat 3 --h-log 27 --h-repeat 2 \
  --json $OUT/ntt-kernels.json --variants rx-2-256-2,rx-2-128-4,rx-3-256-2 > $OUT/ntt-kernels.log 2>&1
echo "all done after $(( $(date +%s) - T0 )) s" >> $OUT/run.log
