# Stop 53, call 11 (kind nvidia-h200 named; any H100/H200): cuzk bench ntt 2^10..2^21 with its
# back-to-back figure the median of 5 runs (kernels.B2B_RUNS), then sppark 17278d7 (ad hoc harness,
# not committed: build/spk/ntt_bench) 2^10..2^21 on the same card.
# From the repository root, .whl and build/spk/ntt_bench carried:  bash benchmarks/results/2026-12-06-stop53/call11.sh
set -u
export OUT=${OUT:-/tmp/c11out}; mkdir -p $OUT; T0=$(date +%s)
exec > >(tee $OUT/call.log) 2>&1
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv
sleep 20   # a fresh host's first minute is slow (calls 4, 9)
timeout 60 python -m cuzk.cli bench ntt --backend cuda --log-sizes $(seq -s, 10 21) --repeat 9 --json $OUT/bench-ntt.json 2>&1 | tail -13
build/spk/ntt_bench 10 11 12 13 14 15 16 17 18 19 20 21 > $OUT/sppark.jsonl 2>/dev/null; grep '"NN"' $OUT/sppark.jsonl | cut -c1-110
echo "done after $(( $(date +%s) - T0 )) s"
