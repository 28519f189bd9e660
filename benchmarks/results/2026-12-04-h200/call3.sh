# Stop 34, call 3 (fresh H200): msm_window's wide G1 rule (c = 20 from 2^26 points: the H MSM of a
# 32 GiB partition) and per-window bucket paths. Beside the inputs: the MSM and limit GPU tests,
# then the window sweep's phases (sort, buckets, reduce) at 2^24 and 2^27; then one cold 32 GiB
# sector's 10 partitions without a limit and at 24, 16, 48, 24 GiB (as call14).
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-04-h200/call3.sh
export OUT=${OUT:-/tmp/s20out}; mkdir -p $OUT
AFTER='python -m cuzk.cli bench msm --group g1 --backend cuda --log-sizes 24,27 --windows 17,18,20,22 --repeat 3 --json $OUT/msm-g1-phases.json'
GPU_TESTS="tests/test_backend_cuda.py tests/test_gpu_memory_plan.py tests/test_streamed.py tests/test_gpu_limit.py tests/test_pinned.py" \
  AFTER_TESTS="$AFTER" WAIT_TESTS=1 LIMITS="24 16 48 24" PARTS=10 HOST_LIMIT_GIB=40 LIMIT=${LIMIT:-580} \
  bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run.log 2>&1
tail -3 $OUT/gpu-tests.log; grep -h "msm 2\^" $OUT/after-tests.log; grep -h '"s_per_proof"' $OUT/limits.log | cut -c1-160
