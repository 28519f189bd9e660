# Stop 47, call 3: the NTT variants' GPU tests with the new *-256 variants (blocks of 2^8 elements,
# NTT_VARIANT_BY_LOG at 2^16..2^20; every variant against the cpu backend up to 2^20, split and
# coset transforms, compute_h); block sizes from 2^21 to 2^27 side by side (outputs checked against
# old's); the fused H step at 2^27.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-05-stop47/call3.sh
export OUT=${OUT:-/tmp/c3out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv | tee $OUT/gpu.txt
T0=$(date +%s)
timeout 200 python -m pytest -q -p no:benchmark -m gpu tests/test_ntt_variants_gpu.py > $OUT/gpu-tests.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/gpu-tests.log
tail -4 $OUT/gpu-tests.log
timeout 240 bash benchmarks/ntt_fast/run.sh $OUT/ntt-large.json --log-sizes 21,22,23,24,25,26,27 \
  --variants old,r4o3,r4o3-256,r4o3@9:9,r4o3@10:8,old-256 --repeat 7 --loop 50 --graph 50 --budget 230 \
  > $OUT/ntt-large.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/ntt-large.log
tail -30 $OUT/ntt-large.log
timeout $(( 575 - $(date +%s) + T0 )) python -m cuzk.cli bench compute-h --backend cuda --log-sizes 27 --repeat 5 \
  --json $OUT/h.json > $OUT/h.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/h.log
grep "2^27\|rc=" $OUT/h.log
