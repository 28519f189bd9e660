# Stop 36, call 1 (fresh H200): MADV_POPULATE_WRITE in pinned._touch (stop 35, not yet measured
# here) on the cold first limited point (issue 14). Fault-in rates on the fresh host and after the
# points (popbench.py); pinned-memory GPU tests beside the 32 GiB inputs; MSM kernels compiled
# before the first point. One cold 32 GiB sector's 10 partitions without a limit, at 24, 16, 24 GiB.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-04-h200-stop36/call1.sh
export OUT=${OUT:-/tmp/c1out}; mkdir -p $OUT
D=benchmarks/results/2026-12-04-h200-stop36
PYTHONPATH=src python $D/popbench.py > $OUT/popbench-fresh.txt 2>&1
GPU_TESTS="tests/test_pinned.py tests/test_gpu_limit.py" \
  AFTER_TESTS="python -m cuzk.cli bench msm --group g1 --backend cuda --log-sizes 12 --repeat 1 > $OUT/warm.log 2>&1; python -m cuzk.cli bench msm --group g2 --backend cuda --log-sizes 12 --repeat 1 >> $OUT/warm.log 2>&1" \
  WAIT_TESTS=1 LIMITS="24 16 24" PARTS=10 HOST_LIMIT_GIB=40 LIMIT=${LIMIT:-540} \
  bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run.log 2>&1
PYTHONPATH=src python $D/popbench.py > $OUT/popbench-after.txt 2>&1
tail -3 $OUT/gpu-tests.log; grep -h '"s_per_proof"' $OUT/limits.log | cut -c1-160; grep -h "pinned regions" $OUT/limits.log | cut -c1-300; cat $OUT/popbench-*.txt
