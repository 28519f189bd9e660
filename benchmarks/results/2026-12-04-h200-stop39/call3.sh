# Stop 39, call 3 (fresh H200): the Prover's density masks kept on the device
# (Backend.selection, Prover._selections; "select" phase). GPU tests (test_backend_cuda.py whole,
# test_prove_gpu.py) beside the 32 GiB inputs; then one cold 32 GiB sector's 10 partitions without
# a limit, selections on, off (host masks per proof), on (AB=select), each proof's prove / wait /
# verify seconds; then at 24 GiB (the planner's pick: streamed H, whose MSMs now sort ahead).
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-04-h200-stop39/call3.sh
export OUT=${OUT:-/tmp/c3out}; mkdir -p $OUT
GPU_TESTS="tests/test_backend_cuda.py tests/test_prove_gpu.py" WAIT_TESTS=1 LIMITS="24" AB=select PARTS=10 \
  HOST_LIMIT_GIB=40 LIMIT=${LIMIT:-470} bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run.log 2>&1
tail -2 $OUT/gpu-tests.log; grep -h "plan (compact" $OUT/limits.log | cut -c1-200
grep -h '"s_per_proof"' $OUT/limits.log | cut -c1-130; grep -h "after" $OUT/run.log
python3 -c "
import json; d = json.load(open('$OUT/limits.json'))
for x in d['points']: print(x['limit_gib'], round(x['s_per_proof'], 3), x['verified'], x.get('prove_wait_verify_per_proof'), x['phases_per_proof'])"
