# Stop 45, call 5: the radix-4 pass (r4o3) as the default from 2^20 (ntt.py NTT_VARIANT_BY_LOG).
# GPU tests of the NTT / compute_h and the prover; fused H of 2^27 with r4o3 against old side by
# side; cuzk bench ntt and compute-h; the 32 GiB PoRep sector (inputs of call 2's kind, made again
# on a fresh machine), 10 proofs each verified: unlimited on an H200 (LIMITS=" "), at 72 GiB on an
# H100 (LIMITS="72"; the unlimited point's resident key does not fit 80 GB: call 2).
# From the repository root, .whl carried:  LIMITS=" " bash benchmarks/results/2026-12-05-h100-stop45/call5.sh
export OUT=${OUT:-/tmp/c5out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
timeout 100 python benchmarks/fr_m0/bench.py $OUT/fused_h.json 0 27 r4o3,old > $OUT/fused_h.log 2>&1; echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/fused_h.log; cat $OUT/fused_h.log
K="python -m cuzk.cli bench"
timeout 60 $K ntt --backend cuda --log-sizes 16,20,24,27 --repeat 5 --json $OUT/ntt.json > $OUT/kernels.log 2>&1
timeout 60 $K compute-h --backend cuda --log-sizes 24,27 --repeat 3 --json $OUT/compute-h.json >> $OUT/kernels.log 2>&1
grep -v "^ " $OUT/kernels.log | tail -8
GPU_TESTS="tests/test_prove_gpu.py tests/test_backend_cuda.py" \
  WAIT_TESTS=1 LIMITS="${LIMITS:- }" PARTS=10 LIMIT=$(( 560 - ($(date +%s) - T0) )) \
  bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run.log 2>&1
tail -3 $OUT/gpu-tests.log; grep -h "after" $OUT/run.log
python3 -c "
import json; d = json.load(open('$OUT/limits.json'))
for x in d['points']: print(x['limit_gib'], round(x['s_per_proof'], 3), x['proofs'], x['verified'], x.get('error', '')[:60], round(x['gpu_peak_bytes'] / 2**30, 1), round(x['host_rss_peak_bytes'] / 2**30, 1), x['phases_per_proof'])"
