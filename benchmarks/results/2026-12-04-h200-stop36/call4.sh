# Stop 36, call 4 (fresh H200): call3's code plus zero scalars flagged by msm_prep and skipped by
# the sort without reading their words (call3: one scatter launch per window read all n scalars
# per window, and the bit-valued A, B, L MSMs of a partition got 0.06 s slower). MSM GPU tests
# beside the 32 GiB inputs; then the phases of random, bit-valued and mixed MSMs
# (benchmarks/msm_bits/profile.py, G1 2^27, G2 2^25); then one cold 32 GiB sector's 10 partitions
# without a limit, at 24, 16 and 24 GiB.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-04-h200-stop36/call4.sh
export OUT=${OUT:-/tmp/c4out}; mkdir -p $OUT
GPU_TESTS="tests/test_backend_cuda.py" \
  AFTER_TESTS="python benchmarks/msm_bits/profile.py $OUT/msm-bits.json 27 25 > $OUT/msm-bits.log 2>&1" \
  WAIT_TESTS=1 LIMITS="24 16 24" PARTS=10 HOST_LIMIT_GIB=40 LIMIT=${LIMIT:-470} \
  bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run.log 2>&1
tail -3 $OUT/gpu-tests.log; cat $OUT/msm-bits.log; grep -h '"s_per_proof"' $OUT/limits.log | cut -c1-160
