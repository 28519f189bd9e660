# Stop 48 call 2's kernel table (run by call2.sh beside the sector's CPU-bound input step).
K="python -m cuzk.cli bench"
T0=$(date +%s)
timeout 100 $K msm --group g1 --backend cuda --log-sizes 20,21,22,23 --shift 17,20 --repeat 5 --json $OUT/msm-g1-small.json > $OUT/kernels.log 2>&1
timeout 150 $K msm --group g1 --backend cuda --log-sizes 24,25,26,27 --shift 22 --repeat 3 --json $OUT/msm-g1-large.json >> $OUT/kernels.log 2>&1
timeout 60 $K msm --group g2 --backend cuda --log-sizes 20,22,24 --repeat 3 --json $OUT/msm-g2.json >> $OUT/kernels.log 2>&1
timeout 40 $K compute-h --backend cuda --log-sizes 27 --repeat 5 --json $OUT/compute-h.json >> $OUT/kernels.log 2>&1
timeout 120 bash benchmarks/ntt_fast/run.sh $OUT/ntt-fast.json --log-sizes 16-27 \
  --variants old,old-256,r4o3-256,r4o3-512,r4o3-512/7 --repeat 5 --loop 100 --graph 100 --budget 110 > $OUT/ntt-fast.log 2>&1
echo "kernels after $(( $(date +%s) - T0 )) s" >> $OUT/kernels.log
