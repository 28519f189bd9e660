# Stop 10, second A/B on one H200: the Montgomery product with two position arrays (src/, ff.cuh
# v2) against the first even/odd version (ff-evenodd-v1.patch applied to the final ff.cuh; when this ran it was a committed copy), same GPU, one after the other; then
# the GPU tests on v2.  From the repository root, .whl carried.
set -u
HERE=benchmarks/results/2026-11-30-h200/stop10
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
rm -rf /tmp/src_v1 && cp -r src /tmp/src_v1 && patch -s /tmp/src_v1/cuzk/backend/cuda/ff.cuh < $HERE/ff-evenodd-v1.patch
PYTHONPATH=/tmp/src_v1 timeout 120 python benchmarks/bench_cuda.py --json $OUT/bench-evenodd-v1.json --ntt 20,24,26 --msm 20,22,24 --msm-g2 20,22 --fixed-base "" > $OUT/bench-evenodd-v1.log 2>&1
echo "v1 rc=$?"; grep -E "NTT 2|MSM 2" $OUT/bench-evenodd-v1.log
PYTHONPATH=$PWD/src timeout 120 python benchmarks/bench_cuda.py --json $OUT/bench-evenodd-v2.json --ntt 20,24,26 --msm 20,22,24 --msm-g2 20,22 --fixed-base "" > $OUT/bench-evenodd-v2.log 2>&1
echo "v2 rc=$?"; grep -E "NTT 2|MSM 2" $OUT/bench-evenodd-v2.log
PYTHONPATH=$PWD/src timeout 240 python -m pytest -q -m "gpu or not gpu" tests/test_backend_cuda.py tests/test_setup_resident.py tests/test_prove_gpu.py tests/test_gpu_memory_plan.py tests/test_gpus.py tests/test_ff_host.py > $OUT/gpu-tests-v2.log 2>&1
echo "pytest rc=$?" >> $OUT/gpu-tests-v2.log; tail -3 $OUT/gpu-tests-v2.log
