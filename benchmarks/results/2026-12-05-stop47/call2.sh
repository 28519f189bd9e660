# Stop 47, call 2: the two GPU tests call 1 failed (test spies' signatures, a memory limit below
# one chunk) and the MSM tests again; NTT block sizes for 2^16..2^19 (variant NAME@B:T: blocks of
# 2^B elements, at most T stages a pass; outputs checked against old's) Python-launched, back to
# back and as CUDA graph replays; the G1 MSM over shifted bases at 2^21, 2^23, 2^25.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-05-stop47/call2.sh
export OUT=${OUT:-/tmp/c2out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv | tee $OUT/gpu.txt
T0=$(date +%s)
timeout 150 python -m pytest -q -p no:benchmark -m gpu tests/test_backend_cuda.py -k "msm" > $OUT/gpu-tests.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/gpu-tests.log
tail -4 $OUT/gpu-tests.log
timeout 150 bash benchmarks/ntt_fast/run.sh $OUT/ntt-small.json --log-sizes 16,17,18,19,20 \
  --variants old,old@8:8,old@9:9,old@9:7,r4o3@9:9,r4o3@10:8,r4o3@8:8 --repeat 7 --loop 200 --graph 200 --budget 140 \
  > $OUT/ntt-small.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/ntt-small.log
tail -30 $OUT/ntt-small.log
timeout $(( 570 - $(date +%s) + T0 )) python -m cuzk.cli bench msm --group g1 --backend cuda --log-sizes 21,23,25 \
  --shift 17,20,22 --repeat 5 --json $OUT/msm-shift.json > $OUT/msm-shift.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/msm-shift.log
grep "msm 2\|rc=\|Error" $OUT/msm-shift.log
