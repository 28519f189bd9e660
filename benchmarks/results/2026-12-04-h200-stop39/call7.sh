# Stop 39, call 7 (fresh H200): this stop's code in one cold 32 GiB sector run, the planner's picks
# without a limit and at 24, 16 and 48 GiB (one prover per point), with the planner and limit
# tests beside the inputs.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-04-h200-stop39/call7.sh
export OUT=${OUT:-/tmp/c7out}; mkdir -p $OUT
GPU_TESTS="tests/test_gpu_limit.py tests/test_gpu_memory_plan.py tests/test_gpu_plan.py" WAIT_TESTS=1 LIMITS="24 16 48" \
  PARTS=10 HOST_LIMIT_GIB=40 LIMIT=${LIMIT:-430} bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run.log 2>&1
tail -2 $OUT/gpu-tests.log; grep -h "plan (compact" $OUT/limits.log | cut -c1-200
grep -h "after" $OUT/run.log
python3 -c "
import json; d = json.load(open('$OUT/limits.json'))
for x in d['points']: print(x['limit_gib'], round(x['s_per_proof'], 3), x['proofs'], x['verified'], x.get('stopped', ''), round(x['gpu_peak_bytes'] / 2**30, 1), round(x['host_rss_peak_bytes'] / 2**30, 1), round(x['bus_bytes_per_proof_measured'] / 1e9, 1), x['phases_per_proof'])"
