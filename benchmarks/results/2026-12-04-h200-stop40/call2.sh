# Stop 40, call 2 (fresh H200): the MSM's batch-affine pair levels (msm.AFFINE, msm_affine.cuh).
# The MSM GPU tests (test_msm_batch_affine_levels forces them on), then benchmarks/msm_affine/affine.py
# (xyzz against four affine configurations, 2^20..2^27, side by side) beside the 32 GiB inputs;
# then one cold 32 GiB sector's 10 partitions unlimited with the levels on (from 2^20 points), off
# ("none-xyzz"), on (AB=affine), every proof verified.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-04-h200-stop40/call2.sh
export OUT=${OUT:-/tmp/c2out}; mkdir -p $OUT
GPU_TESTS="tests/test_backend_cuda.py -k msm" WAIT_TESTS=1 LIMITS="" AB=affine PARTS=10 HOST_LIMIT_GIB=40 \
  AFTER_TESTS="python benchmarks/msm_affine/affine.py $OUT/affine.json 20,22,24,26,27 3 > $OUT/affine.log 2>&1" \
  LIMIT=${LIMIT:-560} bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run.log 2>&1
tail -3 $OUT/gpu-tests.log; grep -v "^ " $OUT/affine.log | tail -32
grep -h "after" $OUT/run.log
python3 -c "
import json; d = json.load(open('$OUT/limits.json'))
for x in d['points']: print(x['limit_gib'], round(x['s_per_proof'], 3), x['proofs'], x['verified'], round(x['gpu_peak_bytes'] / 2**30, 1), x['phases_per_proof'])"
