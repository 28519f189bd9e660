# Stop 38, call 1 (fresh H200): streamed pieces decoded on the caller's stream (copies alone on the
# side stream). First benchmarks/stream_overlap/overlap.py (pieces 2^25 of 2^26 bases, 1 and 5
# vectors; the stream beside unrelated MSMs with each staging step timed); then the streamed-key and
# limit GPU tests beside the 32 GiB inputs; then one cold 32 GiB sector's 10 partitions without a
# limit and at 24, 16 and 48 GiB, each point's batch twice on its Prover (WARM=1).
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-04-h200-stop38/call1.sh
export OUT=${OUT:-/tmp/c1out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
T0=$(date +%s)
PYTHONPATH=$PWD/src SWEEP=1 CONC=1 SPIN=0 timeout 120 python benchmarks/stream_overlap/overlap.py $OUT/overlap.json 26 25 1,5 > $OUT/overlap.log 2>&1
echo "overlap rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/overlap.log
GPU_TESTS="tests/test_backend_cuda.py -k msm tests/test_streamed.py tests/test_gpu_stream_key.py tests/test_gpu_limit.py" \
  WAIT_TESTS=1 WARM=1 LIMITS="24 16 48" PARTS=10 HOST_LIMIT_GIB=40 LIMIT=$(( ${BUDGET:-560} - ($(date +%s) - T0) )) \
  bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run.log 2>&1
cat $OUT/overlap.log; tail -3 $OUT/gpu-tests.log; grep -h "plan (compact\|pinned regions" $OUT/limits.log | cut -c1-200
grep -h '"s_per_proof"' $OUT/limits.log | cut -c1-130; grep -h "after" $OUT/run.log
