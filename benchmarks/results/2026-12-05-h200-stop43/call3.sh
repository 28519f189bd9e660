# Stop 43, call 3: witness_poseidon's new default (inputs) on the device. The GPU tests of the files
# whose synthesis takes the default (beside the CPU-bound input step), then one cold synthetic
# 32 GiB PoRep sector (`cuzk bench circuit` now writes partition 0's witness as the synthesize step
# does: its Poseidon inputs, the values made on the device by the compact upload) proved 10 times
# without a limit and at 24 GiB, every proof verified.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-05-h200-stop43/call3.sh
export OUT=${OUT:-/tmp/c3out}; mkdir -p $OUT
GPU_TESTS="tests/test_witness_inputs_gpu.py tests/test_synthesis_gpu.py tests/test_prove_gpu.py tests/test_gpu_limit.py tests/test_filecoin_c1.py tests/test_update_circuit.py tests/test_setup_resident.py" \
  WAIT_TESTS=1 LIMITS="24" PARTS=10 HOST_LIMIT_GIB=40 LIMIT=${LIMIT:-540} \
  bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run.log 2>&1
tail -3 $OUT/gpu-tests.log; grep -h "witness_poseidon\|poseidon" $OUT/inputs.log | head -3
grep -h "after" $OUT/run.log
python3 -c "
import json; d = json.load(open('$OUT/limits.json'))
for x in d['points']: print(x['limit_gib'], round(x['s_per_proof'], 3), x['proofs'], x['verified'], x.get('stopped', ''), round(x['gpu_peak_bytes'] / 2**30, 1), round(x['host_rss_peak_bytes'] / 2**30, 1), round(x['bus_bytes_per_proof_measured'] / 1e9, 1), x['phases_per_proof'])"
