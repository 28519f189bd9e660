# Stop 53, call 10 (kind nvidia-h200 named; any H100/H200): the final tree (NTT_GRID_DEPEND from
# NTT_GRID_WAIT and NTT_GRID_LAUNCH: the same cubin); the driver-launch GPU test; launch.py
# 2^15..2^18 with sppark 17278d7 (ad hoc harness, not committed: build/spk/ntt_bench);
# cuzk bench ntt 2^15..2^18. A minute of the fresh host's start passes in the test first.
# From the repository root, .whl and build/spk/ntt_bench carried:  bash benchmarks/results/2026-12-06-stop53/call10.sh
set -u
export OUT=${OUT:-/tmp/c10out}; mkdir -p $OUT; T0=$(date +%s)
exec > >(tee $OUT/call.log) 2>&1
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv
timeout 100 python -m pytest -q -p no:benchmark tests/test_ntt_variants_gpu.py -k "driver or pass_buffer or released" 2>&1 | tail -2
echo "tests done after $(( $(date +%s) - T0 )) s"
timeout 60 python benchmarks/ntt_fast/launch.py $OUT/launch.json --log-sizes 15-18 --repeat 9 --peer build/spk/ntt_bench 2>&1 | grep -v "^host us"
timeout 40 python -m cuzk.cli bench ntt --backend cuda --log-sizes 15,16,17,18 --repeat 9 --json $OUT/bench-ntt.json 2>&1 | tail -5
echo "done after $(( $(date +%s) - T0 )) s"
