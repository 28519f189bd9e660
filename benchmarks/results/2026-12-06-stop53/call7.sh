# Stop 53, call 7 (kind nvidia-h200 named; any H100/H200): with dependent launches at every size,
# each pass allowing the next one's launch at its start (pf-128, pf-256, r4o3-256: as committed)
# or only as each block ends (the *L kernels), 2^11..2^21, twice; the NTT GPU tests on this tree
# (every variant against the cpu backend, the pass buffer, the launches) first.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-06-stop53/call7.sh
set -u
export OUT=${OUT:-/tmp/c7out}; mkdir -p $OUT; T0=$(date +%s)
exec > >(tee $OUT/call.log) 2>&1
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv
timeout 240 python -m pytest -q -p no:benchmark tests/test_ntt_variants_gpu.py tests/test_driver_launch.py 2>&1 | tail -3
echo "tests done after $(( $(date +%s) - T0 )) s"
V="pf-128,pf-128L,pf-256,pf-256L,r4o3-256,r4o3-256L"
for run in a b; do
timeout 100 python -c "
import runpy, sys
import cuzk.backend.cuda.ntt as m
m.NTT_OVERLAP_LOGS = frozenset(range(11, 28))
sys.argv = ['bench.py', '$OUT/late-$run.json', '--log-sizes', '11-21', '--variants', '$V', '--repeat', '7', '--loop', '400', '--graph', '200', '--budget', '90']
runpy.run_path('benchmarks/ntt_fast/bench.py', run_name='__main__')" 2>&1 | sed -n '/back to back/,$p'
done
echo "done after $(( $(date +%s) - T0 )) s"
