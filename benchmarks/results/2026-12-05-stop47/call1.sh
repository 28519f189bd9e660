# Stop 47, call 1: shifted bases (CUDAMSMContext.shift, msm_shift_bases) on the device. The GPU
# tests of the MSMs (test_backend_cuda.py -k msm, with the new test_msm_shifted_bases) and of
# seeded_device, then the G1 MSM at 2^20, 2^22, 2^24: plain and over shifted bases at c = 17, 20,
# 22, 24 (same bases and scalars, results compared); then the card's NTT (Python-launched, back to
# back, and as a CUDA graph replay) and fused H figures.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-05-stop47/call1.sh
export OUT=${OUT:-/tmp/c1out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv | tee $OUT/gpu.txt
T0=$(date +%s)
timeout 240 python -m pytest -q -p no:benchmark -m gpu tests/test_backend_cuda.py -k "msm or fixed_base" \
  tests/test_bench_seeded_gpu.py > $OUT/gpu-tests.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/gpu-tests.log
tail -4 $OUT/gpu-tests.log
timeout $(( 470 - $(date +%s) + T0 )) python -m cuzk.cli bench msm --group g1 --backend cuda --log-sizes 20,22,24 \
  --shift 17,20,22,24 --repeat 5 --json $OUT/msm-shift.json > $OUT/msm-shift.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/msm-shift.log
grep "msm 2\|rc=\|Error" $OUT/msm-shift.log
timeout 90 bash benchmarks/ntt_fast/run.sh $OUT/ntt.json --log-sizes 16,18,20,22,24 --variants old,r4o3 --repeat 7 \
  --loop 200 --graph 200 --budget 80 > $OUT/ntt.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/ntt.log
tail -22 $OUT/ntt.log
timeout $(( 575 - $(date +%s) + T0 )) python -m cuzk.cli bench compute-h --backend cuda --log-sizes 27 --repeat 5 \
  --json $OUT/h.json > $OUT/h.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/h.log
grep "2^27\|rc=" $OUT/h.log
