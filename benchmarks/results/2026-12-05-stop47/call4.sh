# Stop 47, call 4: NTT_VARIANT_BY_LOG as chosen from calls 2 and 3 (old-256, r4o3-256, r4o3-512,
# r4o3): the NTT variants' GPU tests (r4o3-512 new); every size 2^16..2^27 for the chosen variants
# and old side by side (outputs checked against old's); the fused H step at 2^27; the G1 MSM at
# 2^24 and 2^27, plain and over shifted bases (c = 22; at 2^27 the table does not fit).
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-05-stop47/call4.sh
export OUT=${OUT:-/tmp/c4out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv | tee $OUT/gpu.txt
T0=$(date +%s)
timeout 200 python -m pytest -q -p no:benchmark -m gpu tests/test_ntt_variants_gpu.py > $OUT/gpu-tests.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/gpu-tests.log
tail -3 $OUT/gpu-tests.log
timeout 200 bash benchmarks/ntt_fast/run.sh $OUT/ntt.json --log-sizes 16-27 \
  --variants old,old-256,r4o3-256,r4o3-512,r4o3 --repeat 5 --loop 50 --graph 50 --budget 190 > $OUT/ntt.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/ntt.log
tail -33 $OUT/ntt.log
timeout 60 python -m cuzk.cli bench compute-h --backend cuda --log-sizes 27 --repeat 5 --json $OUT/h.json > $OUT/h.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/h.log
grep "2^27\|rc=" $OUT/h.log
timeout $(( 580 - $(date +%s) + T0 )) python -m cuzk.cli bench msm --group g1 --backend cuda --log-sizes 24,27 --shift 22 \
  --repeat 5 --json $OUT/msm.json > $OUT/msm.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/msm.log
grep "msm 2\|rc=\|Error" $OUT/msm.log
