# Stop 54, call 4 (kind nvidia-h200 named; any H100/H200): is a slow small-NTT process the CLI's
# doing or chance? Three rounds of three fresh processes each timing the product call at 2^14..2^16:
# `cuzk bench ntt` through the CLI, the same bench_kernels call from `python -c` (no CLI imports),
# and sampler.py (its no-sampler blocks; 1 round of 5 runs). Each process prints the CPU it ended on.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-06-stop54/call4.sh
set -u
export OUT=${OUT:-/tmp/c4out}; mkdir -p $OUT; T0=$(date +%s)
exec > >(tee $OUT/call.log) 2>&1
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv
timeout 100 python -m pytest -q -p no:benchmark tests/test_ntt_variants_gpu.py -k "driver or pass_buffer" 2>&1 | tail -1
CPU='import atexit, psutil; atexit.register(lambda: print("ended on cpu", psutil.Process().cpu_num()))'
for r in 1 2 3; do
  echo "== round $r, $(( $(date +%s) - T0 )) s"
  python -c "$CPU; import sys, runpy; sys.argv = ['cuzk', 'bench', 'ntt', '--backend', 'cuda', '--log-sizes', '14,15,16', '--json', '$OUT/cli$r.json']; runpy.run_module('cuzk.cli', run_name='__main__')" 2>&1 | grep -E "back to back|cpu" | sed 's/^/cli    /' | cut -c1-90
  python -c "$CPU; from cuzk.bench.kernels import bench_kernels; bench_kernels('ntt', [14, 15, 16], 'cuda', json_path='$OUT/direct$r.json')" 2>&1 | grep -E "back to back|cpu" | sed 's/^/direct /' | cut -c1-90
  python -c "$CPU; import sys, runpy; sys.argv = ['s', '$OUT/sampler$r.json', '--log-sizes', '14-16', '--rounds', '1', '--runs', '5']; runpy.run_path('benchmarks/ntt_fast/sampler.py', run_name='__main__')" 2>&1 | grep -E "b2b|cpu" | sed 's/^/script /'
done
echo "done after $(( $(date +%s) - T0 )) s"
