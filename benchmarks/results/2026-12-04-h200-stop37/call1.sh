# Stop 37, call 1 (fresh H200): each partition's H MSM over its own walk of H's bases right after
# its quotient (ProvePlan.h_shared False; no H scalars pinned on the host, all 10 partitions share
# the other queries' walks). GPU tests of the limited prover (both sharings, proof bytes against
# the unlimited prover) beside the 32 GiB inputs; then one cold 32 GiB sector's 10 partitions
# without a limit, at 24 GiB (the planner's choice: own), 24 GiB shared, 16 GiB (planner: shared),
# 48 GiB (planner: own, H resident) and 24 GiB own again.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-04-h200-stop37/call1.sh
export OUT=${OUT:-/tmp/c1out}; mkdir -p $OUT
GPU_TESTS="tests/test_gpu_limit.py tests/test_streamed.py" \
  WAIT_TESTS=1 LIMITS="24 24+shared 16 48 24" PARTS=10 HOST_LIMIT_GIB=40 LIMIT=${LIMIT:-540} \
  bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run.log 2>&1
tail -3 $OUT/gpu-tests.log; grep -h "plan (compact\|pinned regions" $OUT/limits.log | cut -c1-220; grep -h '"s_per_proof"' $OUT/limits.log | cut -c1-160
