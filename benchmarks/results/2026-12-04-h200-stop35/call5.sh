# Stop 35, call 5 (fresh H200): the first H buffers pinned from the start of a group (prove_group: make_ahead(0));
# otherwise as call4 (its narrowed matrices included). Beside the 32 GiB inputs: GPU tests of the
# limited, streamed and pinned paths; MSM kernels compiled before the
# first point. Then one cold 32 GiB sector's 10 partitions without a limit, twice at 24 GiB.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-04-h200-stop35/call5.sh
export OUT=${OUT:-/tmp/c5out}; mkdir -p $OUT
GPU_TESTS="tests/test_gpu_limit.py tests/test_streamed.py tests/test_pinned.py" \
  AFTER_TESTS="python -m cuzk.cli bench msm --group g1 --backend cuda --log-sizes 12 --repeat 1 > $OUT/warm.log 2>&1; python -m cuzk.cli bench msm --group g2 --backend cuda --log-sizes 12 --repeat 1 >> $OUT/warm.log 2>&1" \
  WAIT_TESTS=1 LIMITS="24 24" PARTS=10 HOST_LIMIT_GIB=40 LIMIT=${LIMIT:-560} \
  bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run.log 2>&1
tail -3 $OUT/gpu-tests.log; grep -h '"s_per_proof"' $OUT/limits.log | cut -c1-160
