# Stop 52, call 3 (any H100/H200): after call 2, the pool allocator skips its walk over the open
# backends below their lowest live peak (_PoolAllocator.floor), and launch.py's peer table fixed.
# benchmarks/ntt_fast/launch.py 2^16..2^20 with sppark 17278d7's NTT (ad hoc harness, not committed:
# build/spk/ntt_bench); the pass variants at 2^16..2^18 back to back and as graph replays
# (benchmarks/ntt_fast/bench.py); the GPU tests of memory peaks and limits, the prover and the
# driver launches.
# From the repository root, .whl and build/spk/ntt_bench carried:  bash benchmarks/results/2026-12-06-stop52/call3.sh
set -u
export OUT=${OUT:-/tmp/c3out}; mkdir -p $OUT; T0=$(date +%s)
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv | tee $OUT/gpu.txt
timeout 120 python benchmarks/ntt_fast/launch.py $OUT/launch.json --log-sizes 16-20 --repeat 7 --peer build/spk/ntt_bench > $OUT/launch.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/launch.log; cat $OUT/launch.log
timeout 120 benchmarks/ntt_fast/run.sh $OUT/variants.json --log-sizes 16,17,18 --variants old-256,old@9:9,old@9:8,r4o3-256,r4o3-512,r4o3@9:8 --repeat 7 --loop 400 --graph 200 --budget 110 > $OUT/variants.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/variants.log; cat $OUT/variants.log
timeout 300 python -m pytest -q -rs -p no:benchmark tests/test_driver_launch.py tests/test_gpu_limit.py tests/test_gpu_memory_plan.py tests/test_prove_gpu.py tests/test_ntt_variants_gpu.py -k "not variant_ntt_matches and not variant_split and not variant_coset" > $OUT/gpu-tests.log 2>&1
echo "pytest rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/gpu-tests.log; tail -4 $OUT/gpu-tests.log
