# Stop 38, call 2 (fresh H200): the streamed-key and limit GPU tests (call 1's "-k msm" filtered
# these files out) beside the 32 GiB inputs; then one cold 32 GiB sector's 10 partitions without
# a limit (the resident key setup left, then "none-cold": a fresh backend uploading the key from
# its host files, COLD=1) and at 24 and 16 GiB, each point's batch twice on its Prover (WARM=1).
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-04-h200-stop38/call2.sh
export OUT=${OUT:-/tmp/c2out}; mkdir -p $OUT
GPU_TESTS="tests/test_streamed.py tests/test_gpu_stream_key.py tests/test_gpu_limit.py tests/test_pieces.py" \
  WAIT_TESTS=1 WARM=1 COLD=1 LIMITS="24 16" PARTS=10 HOST_LIMIT_GIB=40 LIMIT=${LIMIT:-540} \
  bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run.log 2>&1
tail -3 $OUT/gpu-tests.log; grep -h "plan (compact\|pinned regions\|prover ready" $OUT/limits.log | cut -c1-200
grep -h '"s_per_proof"' $OUT/limits.log | cut -c1-170; grep -h "after" $OUT/run.log
