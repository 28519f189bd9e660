# Stop 52, call 4 (any H100/H200): variant old-mix (old-256 with a last pass of 9 stages on blocks of
# 2^9: 2^16 and 2^17 in two passes) against old-256 at 2^16 and 2^17, back to back and as graph
# replays (benchmarks/ntt_fast/bench.py), with sppark 17278d7's NTT after (ad hoc harness, not
# committed: build/spk/ntt_bench); the variant's GPU tests against the cpu backend.
# From the repository root, .whl and build/spk/ntt_bench carried:  bash benchmarks/results/2026-12-06-stop52/call4.sh
set -u
export OUT=${OUT:-/tmp/c4out}; mkdir -p $OUT; T0=$(date +%s)
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv | tee $OUT/gpu.txt
for r in 1 2; do
  timeout 60 benchmarks/ntt_fast/run.sh $OUT/variants-$r.json --log-sizes 16,17 --variants old-256,old-mix --repeat 9 --loop 400 --graph 200 --budget 50 > $OUT/variants-$r.log 2>&1
  echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/variants-$r.log; cat $OUT/variants-$r.log
  timeout 30 build/spk/ntt_bench 16 17 > $OUT/sppark-$r.jsonl 2> $OUT/sppark-$r.err; cat $OUT/sppark-$r.jsonl
done
timeout 200 python -m pytest -q -rs -p no:benchmark tests/test_ntt_variants_gpu.py -k "old-mix or driver" > $OUT/gpu-tests.log 2>&1
echo "pytest rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/gpu-tests.log; tail -4 $OUT/gpu-tests.log
