# Stop 35, call 3 (fresh H200): the ones of an MSM listed (msm_ones_list) and summed as one bucket
# by the chunked path, and the busy-scalar count fused into msm_prep. Beside the 32 GiB inputs:
# the MSM and memory-plan GPU tests, then the bit-MSM profile of call2 again (which also compiles
# the MSM kernels before any timed point). Then one cold 32 GiB sector's 10 partitions without a
# limit and twice at 24 GiB (as 2026-12-04-h200/call4).
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-04-h200-stop35/call3.sh
export OUT=${OUT:-/tmp/c3out}; mkdir -p $OUT
GPU_TESTS="tests/test_backend_cuda.py tests/test_gpu_memory_plan.py tests/test_streamed.py" \
  AFTER_TESTS="python benchmarks/msm_bits/profile.py $OUT/msm-bits.json 27 25 > $OUT/msm-bits.log 2>&1" \
  WAIT_TESTS=1 LIMITS="24 24" PARTS=10 HOST_LIMIT_GIB=40 LIMIT=${LIMIT:-540} \
  bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run.log 2>&1
tail -3 $OUT/gpu-tests.log; cat $OUT/msm-bits.log; grep -h '"s_per_proof"' $OUT/limits.log | cut -c1-160
