# Stop 53, call 4 (any H100/H200): the radix-4 pass with the next round's twiddles held in
# registers (r4pf-*) or prefetched into L1 (r4l1-*) against r4o3 at 2^19..2^27 and in the fused
# H step at 2^27 (h_variants.py, alternated); pf-128/pf-256 against old at 2^4..2^10; launch.py
# 2^11..2^21 with this tree's per-size choices; sppark 17278d7 (ad hoc harness, not committed:
# build/spk/ntt_bench) at 2^11..2^27 after. GPU tests of the new variants against the cpu backend first.
# One log (call.log) and at most 8 files come back.
# From the repository root, .whl and build/spk/ntt_bench carried:  bash benchmarks/results/2026-12-06-stop53/call4.sh
set -u
export OUT=${OUT:-/tmp/c4out}; mkdir -p $OUT; T0=$(date +%s)
exec > >(tee $OUT/call.log) 2>&1
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv
timeout 150 python -m pytest -q -x -p no:benchmark tests/test_ntt_variants_gpu.py -k "r4pf or r4l1 or pf" 2>&1 | tail -3
echo "after $(( $(date +%s) - T0 )) s"
timeout 60 benchmarks/ntt_fast/run.sh $OUT/small.json --log-sizes 4-10 --variants old,pf-256,pf-128 --repeat 7 --loop 400 --graph 200 --budget 50 2>&1 | grep -v "^gpu pool"
B=r4o3-256,r4o3-512,r4o3-512/7,r4pf-256,r4pf-512,r4pf-512/7,r4l1-256,r4l1-512,r4l1-512/7
timeout 90 benchmarks/ntt_fast/run.sh $OUT/mid.json --log-sizes 19-21 --variants $B --repeat 7 --loop 200 --graph 100 --budget 80 2>&1 | grep -v "^gpu pool"
timeout 150 benchmarks/ntt_fast/run.sh $OUT/big.json --log-sizes 22-27 --variants $B --repeat 5 --budget 140 2>&1 | grep -v "^gpu pool"
echo "after $(( $(date +%s) - T0 )) s"
timeout 100 python benchmarks/ntt_fast/h_variants.py $OUT/h.json --variants r4o3-512/7,r4l1-512/7,r4pf-512/7 --log 27 --repeat 5 2>&1 | tail -6
timeout 60 python benchmarks/ntt_fast/launch.py $OUT/launch.json --log-sizes 11-21 --repeat 7 --peer build/spk/ntt_bench 2>&1 | grep -v "^host us"
build/spk/ntt_bench 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 > $OUT/sppark.jsonl 2>/dev/null; grep '"NN"' $OUT/sppark.jsonl
echo "done after $(( $(date +%s) - T0 )) s"
