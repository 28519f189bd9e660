# Stop 32 (2026-12-03), call 10 (fresh H200), code as committed with this script.
# Beside the 32 GiB inputs (CPU): GPU tests of the radix-4/8 NTT variants (branch nttfast), the
# pinned memory and the GPU SHA-256 witness, then the NTT variants' benchmark (ntt_fast.json).
# Then one cold 32 GiB sector's 10 partitions without a limit and at 24 GiB with make_room's
# compaction on (the first limited point: call9's paid 2.6 s prepare and 2.75 s waiting for
# cold pinned buffers with 3.5 GiB of free 2 MiB blocks), 24 and 16 GiB (compaction off).
# Last, the 32 GiB partition's witness with synthesis_sha numpy against native (bench circuit).
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-03-h200/call10.sh
export OUT=${OUT:-/tmp/s20out}; mkdir -p $OUT
GPU_TESTS="tests/test_ntt_variants_gpu.py tests/test_pinned.py tests/test_sha_witness_gpu.py" \
  AFTER_TESTS="timeout 200 benchmarks/ntt_fast/run.sh $OUT/ntt_fast.json --budget 120" \
  WAIT_TESTS=1 LIMITS="24+compact 24 16" PARTS=10 HOST_LIMIT_GIB=40 LIMIT=${LIMIT:-470} \
  bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run.log 2>&1
PYTHONPATH=$PWD/src timeout 90 python -m cuzk.cli bench circuit --shapes porep-32GiB --workdir /tmp/s18 \
  --phases witness --sha numpy,native --json $OUT/sha_paths.json > $OUT/sha_paths.log 2>&1
echo "sha paths rc=$?" >> $OUT/sha_paths.log
