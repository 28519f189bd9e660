# Stop 53, call 9 (kind nvidia-h200 named; any H100/H200): the product call's host path after
# _ntt(checked=k): NTT and launch GPU tests; launch.py 2^10..2^18 with sppark 17278d7 (ad hoc
# harness, not committed: build/spk/ntt_bench); cuzk bench ntt 2^10..2^20.
# From the repository root, .whl and build/spk/ntt_bench carried:  bash benchmarks/results/2026-12-06-stop53/call9.sh
set -u
export OUT=${OUT:-/tmp/c9out}; mkdir -p $OUT; T0=$(date +%s)
exec > >(tee $OUT/call.log) 2>&1
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv
timeout 150 python -m pytest -q -p no:benchmark tests/test_ntt_variants_gpu.py tests/test_driver_launch.py 2>&1 | tail -3
echo "tests done after $(( $(date +%s) - T0 )) s"
timeout 80 python benchmarks/ntt_fast/launch.py $OUT/launch.json --log-sizes 10-18 --repeat 7 --peer build/spk/ntt_bench 2>&1 | grep -v "^host us"
timeout 60 python -m cuzk.cli bench ntt --backend cuda --log-sizes $(seq -s, 10 20) --json $OUT/bench-ntt.json 2>&1 | tail -12
echo "done after $(( $(date +%s) - T0 )) s"
