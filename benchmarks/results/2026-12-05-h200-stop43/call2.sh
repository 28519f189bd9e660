# Stop 43, call 2: stop 41's NTT plan sweep (blocks 2^B, at most T stages per pass: variant@B:T;
# back-to-back timing beside single calls, to split launch overhead from kernel time), ncu
# warp-stall sections of a 2^24 NTT's passes, then bench_inputs.py at 600 distinct sectors.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-05-h200-stop43/call2.sh
export OUT=${OUT:-/tmp/c2out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
timeout 170 benchmarks/ntt_fast/run.sh $OUT/ntt_sweep.json --log-sizes 16-27 --repeat 5 --loop 10 --budget 160 \
  --variants old,old@10:10,old@11:9,old@11:11,old@12:12,old@9:9,r4,r4@10:10,r4@12:12 > $OUT/ntt_sweep.log 2>&1
echo "rc=$?" >> $OUT/ntt_sweep.log; tail -32 $OUT/ntt_sweep.log
cat > /tmp/ntt24.py <<'PY'
import cupy as cp
from cuzk.backend.cuda import CUDABackend
b = CUDABackend(); n = 1 << 24
x = cp.zeros((n, 4), dtype=cp.uint64); x[:, 0] = cp.arange(n, dtype=cp.uint64)
out, tmp = cp.empty_like(x), cp.empty_like(x)
for _ in range(2): b._ntt(x, False, out=out, tmp=tmp)
cp.cuda.Device().synchronize()
PY
timeout 90 ncu --clock-control none -k regex:ntt_pass -s 3 -c 3 --section SpeedOfLight --section Occupancy \
  --section WarpStateStats --section ComputeWorkloadAnalysis --section LaunchStats --section MemoryWorkloadAnalysis \
  python /tmp/ntt24.py > $OUT/ncu_ntt24.txt 2>&1; echo "ncu rc=$?" >> $OUT/ncu_ntt24.txt
grep -E "ncu rc|Duration|Stall|Warp Cycles|Achieved Occupancy|Registers|Issue Slots|Compute \(SM\)|Memory Through" $OUT/ncu_ntt24.txt | head -40
DISTINCT=600 timeout 200 python benchmarks/witness_gpu/bench_inputs.py /dev/shm/bi6 $OUT/inputs600.json window-post-32GiB 1 16 \
  > $OUT/inputs600.log 2>&1; echo "rc=$?" >> $OUT/inputs600.log; tail -5 $OUT/inputs600.log
