# Stop 45, call 2: the 32 GiB PoRep sector after fr.cuh's constant-memory M0 (the NTTs of H, the
# SpMV and the Poseidon values now take one IMAD.WIDE a product): partition 0's witness (inputs
# form) proved 10 times without a limit, every proof verified; beside the CPU-bound input step the
# GPU prove and witness-file tests.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-05-h100-stop45/call2.sh
export OUT=${OUT:-/tmp/c2out}; mkdir -p $OUT
GPU_TESTS="tests/test_prove_gpu.py tests/test_witness_inputs_gpu.py tests/test_synthesis_gpu.py" \
  WAIT_TESTS=1 LIMITS=" " PARTS=10 LIMIT=${LIMIT:-500} \
  bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run.log 2>&1
tail -3 $OUT/gpu-tests.log; grep -h "after" $OUT/run.log
python3 -c "
import json; d = json.load(open('$OUT/limits.json'))
for x in d['points']: print(x['limit_gib'], round(x['s_per_proof'], 3), x['proofs'], x['verified'], x.get('stopped', ''), round(x['gpu_peak_bytes'] / 2**30, 1), round(x['host_rss_peak_bytes'] / 2**30, 1), x['phases_per_proof'])"
