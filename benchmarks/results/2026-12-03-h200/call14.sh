# Stop 33 (2026-12-03), call 14 (fresh H200): call 11's GPU tests (they compile the MSM kernels
# before the unlimited point, which call 13 lacked), then on the host (after the tests, before any
# timed point) the witness of one 32 GiB PoRep partition with synthesis_poseidon python and native
# (branch natpos) and the WindowPoSt slice script; then one cold 32 GiB sector's 10 partitions without
# a limit and at 24, 16, 48, 24 GiB with the H buffers pinned on two threads (runtime.PIN_THREADS 2).
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-03-h200/call14.sh
export OUT=${OUT:-/tmp/s20out}; mkdir -p $OUT
AFTER='mkdir -p /tmp/pw && for i in $(seq 90); do grep -qs "input " /tmp/s18/inputs.log && break; sleep 2; done;
cp /tmp/s18/porep-32GiB.c1.json /tmp/pw/ &&
python -m cuzk.cli bench circuit --shapes porep-32GiB --workdir /tmp/pw --phases witness --sha native --poseidon python,native --json $OUT/poseidon_paths.json;
python benchmarks/results/2026-12-03-local/natpos/post_witness.py 128 10 2 $OUT/window-post-32GiB-128x10.json'
GPU_TESTS="tests/test_pinned.py tests/test_gpu_limit.py tests/test_streamed.py tests/test_sha_witness_gpu.py" \
  AFTER_TESTS="$AFTER" WAIT_TESTS=1 LIMITS="24 16 48 24" PARTS=10 HOST_LIMIT_GIB=40 LIMIT=${LIMIT:-590} \
  bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run.log 2>&1
