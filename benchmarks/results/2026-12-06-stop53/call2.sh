# Stop 53, call 2 (call 1's machine if still warm): call 1's variant table, which stopped at an
# unknown name (pf@7:7; the spec is NAME@B:T of a known NAME: pf-256@7:7), then the same with every
# size's passes launched as programmatic dependent launches (NTT_OVERLAP_LOGS set to 2^11..2^18).
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-06-stop53/call2.sh
set -u
export OUT=${OUT:-/tmp/c2out}; mkdir -p $OUT; T0=$(date +%s)
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv | tee $OUT/gpu.txt
V="old,old-256,pf-256,old@7:7,pf-256@7:7"
timeout 200 benchmarks/ntt_fast/run.sh $OUT/variants.json --log-sizes 11-18 --variants $V --repeat 7 --loop 400 --graph 200 --budget 190 > $OUT/variants.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/variants.log; cat $OUT/variants.log
timeout 200 python -c "
import runpy, sys
import cuzk.backend.cuda.ntt as m
m.NTT_OVERLAP_LOGS = frozenset(range(11, 19))
sys.argv = ['bench.py', '$OUT/variants-pdl.json', '--log-sizes', '11-18', '--variants', '$V', '--repeat', '7', '--loop', '400', '--graph', '200', '--budget', '190']
runpy.run_path('benchmarks/ntt_fast/bench.py', run_name='__main__')" > $OUT/variants-pdl.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/variants-pdl.log; cat $OUT/variants-pdl.log
