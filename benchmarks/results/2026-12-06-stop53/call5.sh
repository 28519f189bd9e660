# Stop 53, call 5 (kind nvidia-h200 named; any H100/H200): issue 17's kernel table on this tree:
# cuzk bench ntt 2^10..2^27, compute-h 2^27, msm 2^27 and 2^24, launch.py 2^10..2^21 (product call,
# preallocated buffers, graph replay), sppark 17278d7 (ad hoc harness, not committed:
# build/spk/ntt_bench) 2^10..2^27 in the same call; GPU tests of the NTTs, launches, memory plans
# and prover first. A minute of host warm-up first (a fresh machine's host was slow in call 4's
# first minute). One log (call.log) and at most 8 files come back.
# From the repository root, .whl and build/spk/ntt_bench carried:  bash benchmarks/results/2026-12-06-stop53/call5.sh
set -u
export OUT=${OUT:-/tmp/c5out}; mkdir -p $OUT; T0=$(date +%s)
exec > >(tee $OUT/call.log) 2>&1
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv
timeout 280 python -m pytest -q -p no:benchmark tests/test_ntt_variants_gpu.py tests/test_driver_launch.py tests/test_gpu_memory_plan.py tests/test_prove_gpu.py tests/test_backend_cuda.py -k "ntt or compute_h or driver or prove or plan or memory or h_" 2>&1 | tail -3
echo "tests done after $(( $(date +%s) - T0 )) s"
timeout 90 python benchmarks/ntt_fast/launch.py $OUT/launch.json --log-sizes 10-21 --repeat 7 --peer build/spk/ntt_bench 2>&1 | grep -v "^host us"
build/spk/ntt_bench 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 > $OUT/sppark.jsonl 2>/dev/null; grep '"NN"' $OUT/sppark.jsonl
timeout 90 python -m cuzk.cli bench ntt --backend cuda --log-sizes $(seq -s, 10 27) --json $OUT/bench-ntt.json 2>&1 | tail -22
timeout 60 python -m cuzk.cli bench compute-h --backend cuda --log-sizes 27 --repeat 5 --json $OUT/bench-h.json 2>&1 | tail -4
timeout 150 python -m cuzk.cli bench msm --backend cuda --log-sizes 24,27 --json $OUT/bench-msm.json 2>&1 | tail -6
echo "done after $(( $(date +%s) - T0 )) s"
