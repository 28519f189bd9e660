# Stop 52, call 2 (any H100/H200): call 1's fused kernels removed (slower on the device); the NTT's
# passes launched through the driver with argument blocks built once per shape
# (ntt.NTT_DRIVER_LAUNCH, launch.DriverLaunch) against CuPy's RawKernel call, with sppark 17278d7's
# NTT on the same card (ad hoc harness, not committed: build/spk/ntt_bench):
# benchmarks/ntt_fast/launch.py 2^16..2^27; then the GPU tests of the NTTs, compute_h and the prover.
# From the repository root, .whl and build/spk/ntt_bench carried:  bash benchmarks/results/2026-12-06-stop52/call2.sh
set -u
export OUT=${OUT:-/tmp/c2out}; mkdir -p $OUT; T0=$(date +%s)
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv | tee $OUT/gpu.txt
timeout 200 python benchmarks/ntt_fast/launch.py $OUT/launch.json --log-sizes 16-27 --repeat 5 --peer build/spk/ntt_bench > $OUT/launch.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/launch.log; cat $OUT/launch.log
timeout 300 python -m pytest -q -rs -p no:benchmark tests/test_driver_launch.py tests/test_ntt_variants_gpu.py tests/test_prove_gpu.py tests/test_backend_cuda.py -k "driver or ntt or compute_h or prove or h_" > $OUT/gpu-tests.log 2>&1
echo "pytest rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/gpu-tests.log; tail -4 $OUT/gpu-tests.log
