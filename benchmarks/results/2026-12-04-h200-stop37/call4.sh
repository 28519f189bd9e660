# Stop 37, call 4 (fresh H200): small mid-MSM reads through page-locked memory
# (runtime.PINNED_READS, DeviceRuntime.read_back). First benchmarks/stream_overlap/overlap.py
# (SWEEP=0 SPIN=1: the stream beside unrelated MSMs with pageable and pinned reads, and beside a
# spinning kernel with each kind of host wait); then the MSM GPU tests beside the 32 GiB inputs;
# then one cold 32 GiB sector's 10 partitions without a limit, at 24 GiB, 16 GiB (the planner's
# choices) and 24 GiB with each partition's own walk of H.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-04-h200-stop37/call4.sh
export OUT=${OUT:-/tmp/c4out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
PYTHONPATH=$PWD/src SWEEP=0 SPIN=1 timeout 150 python benchmarks/stream_overlap/overlap.py $OUT/overlap.json 26 25 5 > $OUT/overlap.log 2>&1
GPU_TESTS="tests/test_backend_cuda.py -k msm" \
  WAIT_TESTS=1 LIMITS="24 16 24+own" PARTS=10 HOST_LIMIT_GIB=40 LIMIT=${LIMIT:-400} \
  bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run.log 2>&1
cat $OUT/overlap.log; tail -3 $OUT/gpu-tests.log; grep -h "plan (compact\|pinned regions" $OUT/limits.log | cut -c1-200; grep -h '"s_per_proof"' $OUT/limits.log | cut -c1-130
