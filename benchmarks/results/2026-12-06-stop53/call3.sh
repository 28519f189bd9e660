# Stop 53, call 3 (any H100/H200): pf-256 and pf-128 (ntt_pass_pf on blocks of 2^8 and 2^7) against
# the current per-size choices (old-256 to 2^17, r4o3-256 at 2^18..2^20) at 2^15..2^21, twice in
# one call, without and then with programmatic dependent launches at every size; GPU tests of the
# variants first; sppark 17278d7 (ad hoc harness, not committed) after.
# From the repository root, .whl and build/spk/ntt_bench carried:  bash benchmarks/results/2026-12-06-stop53/call3.sh
set -u
export OUT=${OUT:-/tmp/c3out}; mkdir -p $OUT; T0=$(date +%s)
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv | tee $OUT/gpu.txt
timeout 150 python -m pytest -q -x -p no:benchmark tests/test_ntt_variants_gpu.py -k "pf" > $OUT/first-tests.log 2>&1
echo "pytest rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/first-tests.log; tail -3 $OUT/first-tests.log
V="old-256,pf-256,pf-128,r4o3-256"
for run in a b; do for pdl in none all; do
timeout 100 python -c "
import runpy, sys
import cuzk.backend.cuda.ntt as m
m.NTT_OVERLAP_LOGS = frozenset(range(11, 28)) if '$pdl' == 'all' else frozenset()
sys.argv = ['bench.py', '$OUT/variants-$run-$pdl.json', '--log-sizes', '15-21', '--variants', '$V', '--repeat', '7', '--loop', '400', '--graph', '200', '--budget', '90']
runpy.run_path('benchmarks/ntt_fast/bench.py', run_name='__main__')" > $OUT/variants-$run-$pdl.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/variants-$run-$pdl.log; echo "== run $run, PDL $pdl"; sed -n '/back to back/,$p' $OUT/variants-$run-$pdl.log
done; done
build/spk/ntt_bench 15 16 17 18 19 20 21 > $OUT/sppark.jsonl 2> $OUT/sppark.err; grep '"NN"' $OUT/sppark.jsonl
