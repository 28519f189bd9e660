# Stop 47, call 8: NTT_VARIANT_BY_LOG[27] = r4o3-512/7 (call 7): the NTT variants' GPU tests (every
# variant against the cpu backend up to 2^20, split and coset transforms, compute_h) and the fused H
# step at 2^27 as `cuzk bench compute-h` runs it (the product's path).
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-05-stop47/call8.sh
export OUT=${OUT:-/tmp/c8out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv | tee $OUT/gpu.txt
T0=$(date +%s)
timeout 170 python -m pytest -q -p no:benchmark -m gpu tests/test_ntt_variants_gpu.py > $OUT/gpu-tests.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/gpu-tests.log
tail -3 $OUT/gpu-tests.log
timeout 50 python -m cuzk.cli bench compute-h --backend cuda --log-sizes 27 --repeat 5 --json $OUT/h.json > $OUT/h.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/h.log
grep "2^27\|rc=" $OUT/h.log
