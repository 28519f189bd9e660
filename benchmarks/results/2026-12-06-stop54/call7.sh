# Stop 54, call 7 (kind nvidia-h200 named, for an H200 record of the final kernels; any H100/H200):
# the NTT GPU tests; launch.py 2^15..2^21 with sppark 17278d7 (ad hoc harness, not committed:
# build/spk/ntt_bench); sppark 2^22..2^27; cuzk bench ntt 2^10..2^27; compute-h 2^27.
# From the repository root, .whl and build/spk/ntt_bench carried:  bash benchmarks/results/2026-12-06-stop54/call7.sh
set -u
export OUT=${OUT:-/tmp/c7out}; mkdir -p $OUT; T0=$(date +%s)
exec > >(tee $OUT/call.log) 2>&1
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv
timeout 120 python -m pytest -q -p no:benchmark tests/test_ntt_variants_gpu.py 2>&1 | tail -1
echo "tests done after $(( $(date +%s) - T0 )) s"
timeout 60 python benchmarks/ntt_fast/launch.py $OUT/launch.json --log-sizes 15-21 --repeat 5 --peer build/spk/ntt_bench 2>&1 | grep -v "^host us" | tail -10
build/spk/ntt_bench 22 23 24 25 26 27 > $OUT/sppark.jsonl 2>/dev/null; grep '"NN"' $OUT/sppark.jsonl | cut -c1-100
timeout 90 python -m cuzk.cli bench ntt --backend cuda --log-sizes $(seq -s, 10 27) --json $OUT/bench-ntt.json 2>&1 | tail -19 | cut -c1-150
timeout 60 python -m cuzk.cli bench compute-h --backend cuda --log-sizes 27 --repeat 5 --json $OUT/bench-h.json 2>&1 | tail -2
echo "done after $(( $(date +%s) - T0 )) s"
