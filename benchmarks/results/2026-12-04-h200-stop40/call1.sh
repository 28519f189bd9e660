# Stop 40, call 1 (fresh H200): stop 39's last three commits (b637f6a, b586072, 718118c: named
# streams per backend, the error-path waits, the guarded selection, Prover.close) had not run on a
# device. Their GPU tests first, then one cold 32 GiB sector unlimited and at 24 and 16 GiB.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-04-h200-stop40/call1.sh
export OUT=${OUT:-/tmp/c1out}; mkdir -p $OUT
GPU_TESTS="tests/test_backend_cuda.py tests/test_streamed.py tests/test_gpu_limit.py tests/test_poseidon_gpu.py tests/test_prove_gpu.py" \
  WAIT_TESTS=1 LIMITS="24 16" PARTS=10 HOST_LIMIT_GIB=40 LIMIT=${LIMIT:-560} \
  bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run.log 2>&1
tail -3 $OUT/gpu-tests.log; grep -h "plan (compact" $OUT/limits.log | cut -c1-200
grep -h "after" $OUT/run.log
python3 -c "
import json; d = json.load(open('$OUT/limits.json'))
for x in d['points']: print(x['limit_gib'], round(x['s_per_proof'], 3), x['proofs'], x['verified'], x.get('stopped', ''), round(x['gpu_peak_bytes'] / 2**30, 1), round(x['host_rss_peak_bytes'] / 2**30, 1), round(x['bus_bytes_per_proof_measured'] / 1e9, 1), x['phases_per_proof'])"
