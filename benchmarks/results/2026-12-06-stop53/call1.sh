# Stop 53, call 1 (kind nvidia-h200 named; any H100/H200): the radix-2 pass with each stage's
# twiddle loaded a stage ahead (ntt.cu ntt_pass_pf, variant pf-256) against old-256 and old at
# 2^11..2^18, checked against the cpu backend first (GPU tests) and against old's outputs (bench.py),
# back to back and as graph replays; sppark 17278d7 (ad hoc harness, not committed:
# build/spk/ntt_bench, now also timing a graph replay of its transforms) in the same call;
# launch.py 2^16..2^21; on an H200 also the kernel table (cuzk bench ntt, msm, compute-h).
# From the repository root, .whl and build/spk/ntt_bench carried:  bash benchmarks/results/2026-12-06-stop53/call1.sh
set -u
export OUT=${OUT:-/tmp/c1out}; mkdir -p $OUT; T0=$(date +%s)
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv | tee $OUT/gpu.txt
timeout 120 python -m pytest -q -x -p no:benchmark tests/test_ntt_variants_gpu.py -k "pf-256 or released" > $OUT/first-tests.log 2>&1
echo "pytest rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/first-tests.log; tail -3 $OUT/first-tests.log
timeout 150 benchmarks/ntt_fast/run.sh $OUT/variants.json --log-sizes 11-18 --variants old,old-256,pf-256,old@7:7,pf@7:7 --repeat 7 --loop 400 --graph 200 --budget 140 > $OUT/variants.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/variants.log; cat $OUT/variants.log
build/spk/ntt_bench 11 12 13 14 15 16 17 18 19 20 > $OUT/sppark.jsonl 2> $OUT/sppark.err; grep '"NN"' $OUT/sppark.jsonl
timeout 60 python benchmarks/ntt_fast/launch.py $OUT/launch.json --log-sizes 16-21 --repeat 7 --peer build/spk/ntt_bench 2>&1 | grep -v "^host us" > $OUT/launch.log
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/launch.log; cat $OUT/launch.log
if grep -q H200 $OUT/gpu.txt; then
  timeout 120 python -m cuzk.cli bench ntt --backend cuda --log-sizes 16-27 --json $OUT/bench-ntt.json > $OUT/bench-ntt.log 2>&1; tail -14 $OUT/bench-ntt.log
  timeout 60 python -m cuzk.cli bench compute-h --backend cuda --log-sizes 27 --repeat 5 --json $OUT/bench-h.json > $OUT/bench-h.log 2>&1; grep "2^27\|Error" $OUT/bench-h.log
  timeout 120 python -m cuzk.cli bench msm --backend cuda --log-sizes 27 --json $OUT/bench-msm.json > $OUT/bench-msm.log 2>&1; tail -4 $OUT/bench-msm.log
fi
timeout $(( 560 - $(date +%s) + T0 )) python -m pytest -q -rs -p no:benchmark tests/test_ntt_variants_gpu.py tests/test_driver_launch.py tests/test_gpu_memory_plan.py > $OUT/gpu-tests.log 2>&1
echo "pytest rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/gpu-tests.log; tail -4 $OUT/gpu-tests.log
