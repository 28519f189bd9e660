# Stop 48, call 1: MSMs over shifted bases with several bucket sets (set g + 1 sorted on a side
# stream while set g's buckets are summed): the GPU tests, then the G1 MSM at 2^22..2^25, shifted
# to c = 20 and 22 with 1..4 sets; `cuzk bench ntt` (its back-to-back timing, never run on a
# device); then GPU tests not run in stop 47 (prove, Poseidon, synthesis, NTT variants).
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-05-stop48/call1.sh
export OUT=${OUT:-/tmp/c1out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv | tee $OUT/gpu.txt
T0=$(date +%s)
timeout 150 python -m pytest -q -p no:benchmark -m gpu tests/test_backend_cuda.py -k "msm_shifted or scatter" > $OUT/gpu-tests.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/gpu-tests.log
tail -4 $OUT/gpu-tests.log
timeout 240 python -m cuzk.cli bench msm --group g1 --backend cuda --log-sizes 22,23,24,25 \
  --shift 20,22 --shift-sets 2,3,4 --repeat 5 --json $OUT/msm-sets.json > $OUT/msm-sets.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/msm-sets.log
grep "msm 2\|rc=\|Error" $OUT/msm-sets.log
timeout 90 python -m cuzk.cli bench ntt --backend cuda --log-sizes 16,18,20,22,24,26,27 --repeat 5 \
  --json $OUT/ntt.json > $OUT/ntt.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/ntt.log
tail -12 $OUT/ntt.log
timeout $(( 585 - $(date +%s) + T0 )) python -m pytest -q -p no:benchmark -m gpu tests/test_prove_gpu.py \
  tests/test_poseidon_gpu.py tests/test_synthesis_gpu.py tests/test_ntt_variants_gpu.py > $OUT/gpu-tests-2.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/gpu-tests-2.log
tail -4 $OUT/gpu-tests-2.log
