# Stop 37, call 2 (fresh H200): side streams at the device's highest priority (runtime.SIDE_PRIORITY;
# "+lowprio" points without it) and the planner's choice by bus seconds (the key at 10 GB/s, pinned
# copies at 50: gpu_plan.bus_seconds). CuPy's stream priorities checked first; the limited-prover
# GPU tests beside the 32 GiB inputs; then one cold 32 GiB sector's 10 partitions without a limit,
# at 24 GiB own walks of H with and without the priority, 24 GiB shared with and without it, 48 GiB
# and 16 GiB (the planner's choices).
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-04-h200-stop37/call2.sh
export OUT=${OUT:-/tmp/c2out}; mkdir -p $OUT
python -c "
import cupy as cp
lo, hi = cp.cuda.runtime.deviceGetStreamPriorityRange(); s = cp.cuda.Stream(non_blocking=True, priority=hi)
print('stream priorities', lo, hi, 'made', s.priority)" > $OUT/priority.log 2>&1
GPU_TESTS="tests/test_gpu_limit.py tests/test_streamed.py" \
  WAIT_TESTS=1 LIMITS="24+own 24+own+lowprio 24+shared 24+shared+lowprio 48 16" PARTS=10 HOST_LIMIT_GIB=40 LIMIT=${LIMIT:-555} \
  bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run.log 2>&1
cat $OUT/priority.log; tail -3 $OUT/gpu-tests.log; grep -h "plan (compact\|pinned regions" $OUT/limits.log | cut -c1-200; grep -h '"s_per_proof"' $OUT/limits.log | cut -c1-130
