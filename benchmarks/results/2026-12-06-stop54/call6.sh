# Stop 54, call 6 (kind nvidia-h200 named; any H100/H200): the final tree (2^16's first pass
# launched plainly: ntt.NTT_OVERLAP_FIRST_LOGS): NTT/launch/memory GPU tests; launch.py 2^10..2^21
# with sppark 17278d7 (ad hoc harness, not committed: build/spk/ntt_bench); cuzk bench ntt
# 2^10..2^27 twice (two processes), compute-h 2^27.
# From the repository root, .whl and build/spk/ntt_bench carried:  bash benchmarks/results/2026-12-06-stop54/call6.sh
set -u
export OUT=${OUT:-/tmp/c6out}; mkdir -p $OUT; T0=$(date +%s)
exec > >(tee $OUT/call.log) 2>&1
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv
timeout 200 python -m pytest -q -p no:benchmark tests/test_ntt_variants_gpu.py tests/test_driver_launch.py tests/test_gpu_memory_plan.py 2>&1 | tail -2
echo "tests done after $(( $(date +%s) - T0 )) s"
timeout 100 python benchmarks/ntt_fast/launch.py $OUT/launch.json --log-sizes 10-21 --repeat 7 --peer build/spk/ntt_bench 2>&1 | grep -v "^host us" | tail -15
for r in 1 2; do
  timeout 90 python -m cuzk.cli bench ntt --backend cuda --log-sizes $(seq -s, 10 27) --json $OUT/bench-ntt$r.json 2>&1 | tail -19 | cut -c1-150
done
timeout 60 python -m cuzk.cli bench compute-h --backend cuda --log-sizes 27 --repeat 5 --json $OUT/bench-h.json 2>&1 | tail -2
echo "done after $(( $(date +%s) - T0 )) s"
