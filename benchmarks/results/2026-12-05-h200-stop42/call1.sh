# Stop 42, call 1 (planned; stops 41 and 42 were lent no device, so this has NOT run yet). Stop
# 41's call 1 with stop 42's GPU test added to (a). (a) the
# device-untested commits: the GPU synthesis paths through the value store's direct writes (stop
# 40) and its runs (stop 41), the GPU SHA/Poseidon kernels, and the MSM tests (the
# affine levels' offsets made once, the caches declared up front); (b) an NTT plan sweep (blocks
# 2^B, at most T stages per pass: variant@B:T) with back-to-back timing beside the single-call
# timing, to split launch overhead from kernel time; (c) ncu warp-stall sections of a 2^24 NTT's
# passes; (d) the WindowPoSt step, native with 16 workers against gpu Poseidon, 200 distinct sectors.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-05-h200-stop42/call1.sh
export OUT=${OUT:-/tmp/c1out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > $OUT/smi.txt 2>&1
timeout 170 python -m pytest -q -rs -m "gpu or not gpu" tests/test_synthesis_gpu.py tests/test_poseidon_gpu.py \
  tests/test_sha_witness_gpu.py tests/test_witness_inputs_gpu.py tests/test_backend_cuda.py \
  -k "synthesis or poseidon or sha or msm or affine or inputs or device or runs or proof" \
  > $OUT/gpu-tests.log 2>&1; echo "pytest rc=$?" >> $OUT/gpu-tests.log
tail -3 $OUT/gpu-tests.log
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
DISTINCT=200 GPU_FIRST=1 timeout 200 python benchmarks/witness_gpu/bench_steps.py /dev/shm/bs $OUT/steps.json window-post-32GiB 1 16 \
  > $OUT/steps.log 2>&1; echo "rc=$?" >> $OUT/steps.log
tail -12 $OUT/steps.log
