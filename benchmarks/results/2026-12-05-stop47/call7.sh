# Stop 47, call 7: pass plans at 2^26 and 2^27 with runs of 2..16 contiguous elements in every pass
# (r4o3@B:T, blocks of 2^B, at most T stages a pass; outputs checked against old's), and the fused H
# step at 2^27 with its transforms run by each (benchmarks/ntt_fast/h_variants.py: equal H, H·Z
# checked, alternated).
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-05-stop47/call7.sh
export OUT=${OUT:-/tmp/c7out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv | tee $OUT/gpu.txt
T0=$(date +%s)
V=r4o3,r4o3-256,r4o3@9:7,r4o3@10:7,r4o3@9:6,r4o3@8:7,r4o3@10:6
timeout 150 bash benchmarks/ntt_fast/run.sh $OUT/ntt.json --log-sizes 26,27 --variants old,$V --repeat 5 --loop 30 \
  --budget 140 > $OUT/ntt.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/ntt.log
tail -12 $OUT/ntt.log
timeout $(( 330 - $(date +%s) + T0 )) python benchmarks/ntt_fast/h_variants.py $OUT/h.json --variants $V --repeat 5 > $OUT/h.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/h.log
cat $OUT/h.log
