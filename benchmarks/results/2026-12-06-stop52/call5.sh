# Stop 52, call 5 (any H100/H200): each NTT pass launched to begin before the one ahead of it ends
# (programmatic dependent launch: ntt.NTT_OVERLAP, launch.DriverLaunch.after, ntt.cuh
# NTT_GRID_DEPEND) against driver launches without it and CuPy's RawKernel call, 2^16..2^27, with
# sppark 17278d7's NTT (ad hoc harness, not committed: build/spk/ntt_bench); cuzk bench compute-h
# 2^27; the GPU tests of the NTTs (every launch mode), compute_h and the prover.
# From the repository root, .whl and build/spk/ntt_bench carried:  bash benchmarks/results/2026-12-06-stop52/call5.sh
set -u
export OUT=${OUT:-/tmp/c5out}; mkdir -p $OUT; T0=$(date +%s)
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv | tee $OUT/gpu.txt
timeout 60 python -m pytest -q -x -p no:benchmark tests/test_driver_launch.py tests/test_ntt_variants_gpu.py -k "driver" > $OUT/first-tests.log 2>&1
echo "pytest rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/first-tests.log; tail -3 $OUT/first-tests.log
timeout 200 python benchmarks/ntt_fast/launch.py $OUT/launch.json --log-sizes 16-27 --repeat 5 --peer build/spk/ntt_bench > $OUT/launch.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/launch.log; cat $OUT/launch.log
timeout 40 python -m cuzk.cli bench compute-h --backend cuda --log-sizes 27 --repeat 5 --json $OUT/bench-h.json > $OUT/bench-h.log 2>&1; grep "2^27\|Error" $OUT/bench-h.log
timeout $(( 570 - $(date +%s) + T0 )) python -m pytest -q -rs -p no:benchmark tests/test_ntt_variants_gpu.py tests/test_prove_gpu.py tests/test_backend_cuda.py -k "ntt or compute_h or prove or h_ or driver" > $OUT/gpu-tests.log 2>&1
echo "pytest rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/gpu-tests.log; tail -4 $OUT/gpu-tests.log
