# Stop 54, call 5 (kind nvidia-h200 named; any H100/H200): the NTT GPU tests with the first pass's
# launch now optional (ntt.NTT_OVERLAP_FIRST_LOGS); benchmarks/ntt_fast/first_pass.py 2^14..2^18,
# then again at 2^15..2^17 in a second process; launch.py 2^15..2^17 with sppark 17278d7 (ad hoc
# harness, not committed: build/spk/ntt_bench).
# From the repository root, .whl and build/spk/ntt_bench carried:  bash benchmarks/results/2026-12-06-stop54/call5.sh
set -u
export OUT=${OUT:-/tmp/c5out}; mkdir -p $OUT; T0=$(date +%s)
exec > >(tee $OUT/call.log) 2>&1
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv
timeout 150 python -m pytest -q -p no:benchmark tests/test_ntt_variants_gpu.py tests/test_driver_launch.py 2>&1 | tail -2
echo "tests done after $(( $(date +%s) - T0 )) s"
timeout 120 python benchmarks/ntt_fast/first_pass.py $OUT/first1.json --log-sizes 14-18
timeout 100 python benchmarks/ntt_fast/first_pass.py $OUT/first2.json --log-sizes 15-17
timeout 60 python benchmarks/ntt_fast/launch.py $OUT/launch.json --log-sizes 15-17 --repeat 5 --peer build/spk/ntt_bench 2>&1 | grep -v "^host us" | tail -6
echo "done after $(( $(date +%s) - T0 )) s"
