# Stop 10 A/B on one H200: the kernels with the even/odd-chain Montgomery product (src/, this
# stop's ff.cuh) against the same tree with the previous product (ff-before.cuh), one after the
# other on the same GPU; then the GPU tests of the kernels on the new product.
# (The baseline ff.cuh is rebuilt from the final one with a patch; when this ran it was a
# committed copy of the file.) From the repository root, .whl carried:  bash benchmarks/results/2026-11-30-h200/stop10/fp-mul-ab.sh
set -u
HERE=benchmarks/results/2026-11-30-h200/stop10
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
rm -rf /tmp/src_before && cp -r src /tmp/src_before && patch -s /tmp/src_before/cuzk/backend/cuda/ff.cuh < $HERE/ff-before.patch
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
ARGS="--ntt 20,24,26 --msm 20,22,24 --msm-g2 20,22 --fixed-base 20"
PYTHONPATH=/tmp/src_before timeout 150 python benchmarks/bench_cuda.py --json $OUT/bench-before.json $ARGS > $OUT/bench-before.log 2>&1
echo "before rc=$?"; grep -E "NTT 2|MSM 2" $OUT/bench-before.log
PYTHONPATH=$PWD/src timeout 150 python benchmarks/bench_cuda.py --json $OUT/bench-evenodd.json $ARGS > $OUT/bench-evenodd.log 2>&1
echo "even/odd rc=$?"; grep -E "NTT 2|MSM 2" $OUT/bench-evenodd.log
PYTHONPATH=$PWD/src timeout 200 python -m pytest -q -x -m gpu tests/test_backend_cuda.py tests/test_setup_resident.py tests/test_prove_gpu.py > $OUT/gpu-tests-evenodd.log 2>&1
echo "pytest rc=$?" >> $OUT/gpu-tests-evenodd.log; tail -3 $OUT/gpu-tests-evenodd.log
