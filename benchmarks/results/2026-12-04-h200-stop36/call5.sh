# Stop 36, call 5 (fresh H200): call4's code with the sort by windows only where at least a quarter
# of the scalars are busy (msm.SCATTER_BUSY; call4's mixed 2^27 MSM sorted in 22 ms against 7).
# MSM GPU tests, then the phases of random, bit-valued and mixed MSMs (G1 2^27, G2 2^25).
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-04-h200-stop36/call5.sh
set -u
OUT=${OUT:-/tmp/c5out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1
timeout 100 python -m pytest -q -rs -m "gpu or not gpu" tests/test_backend_cuda.py -k msm > $OUT/gpu-tests.log 2>&1; echo "pytest rc=$?" >> $OUT/gpu-tests.log
tail -3 $OUT/gpu-tests.log
timeout 100 python benchmarks/msm_bits/profile.py $OUT/msm-bits.json 27 25 2>&1 | tee $OUT/msm-bits.log
