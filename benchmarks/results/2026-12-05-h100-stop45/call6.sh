# Stop 45, call 6: call 5's sector point again, with the Poseidon witness module compiled before the
# timed batch. limits.py times its batch without a warm-up proof; in call 5 no GPU test before it
# had used poseidon_witness.cu (whose sources are now in the CuPy cache key), so its first compile
# fell inside the batch: stage 0.753 s and a 0.54 s wait per proof. Here the inputs-witness GPU
# tests (which stage inputs-form files through that kernel) run beside the CPU-bound input step.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-05-h100-stop45/call6.sh
export OUT=${OUT:-/tmp/c6out}; mkdir -p $OUT
GPU_TESTS="tests/test_witness_inputs_gpu.py" WAIT_TESTS=1 LIMITS="${LIMITS:- }" PARTS=10 LIMIT=${LIMIT:-330} \
  bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run.log 2>&1
rm -f $OUT/inputs.log; tail -3 $OUT/gpu-tests.log; grep -h "after" $OUT/run.log
python3 -c "
import json; d = json.load(open('$OUT/limits.json'))
for x in d['points']: print(x['limit_gib'], round(x['s_per_proof'], 3), x['proofs'], x['verified'], x.get('error', '')[:60], round(x['gpu_peak_bytes'] / 2**30, 1), round(x['host_rss_peak_bytes'] / 2**30, 1), x['prove_wait_verify_per_proof'], x['phases_per_proof'])"
