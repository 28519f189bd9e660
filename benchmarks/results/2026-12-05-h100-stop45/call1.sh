# Stop 45, call 1: Fr's M0 from constant memory (fr.cuh) and Fq squares as their own function
# (ff.cuh fp_sqr, fq.cuh). GPU tests (the synthesis test fixed at the end of stop 44, every NTT
# variant with "fold" = the old immediate, the Poseidon kernel, the MSMs against the CPU); the NTT
# sweep old / fold / r4o3; the Poseidon kernel and fused H new against fold; G1 MSMs with fp_sqr
# against squares as products.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-05-h100-stop45/call1.sh
export OUT=${OUT:-/tmp/c1out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv > $OUT/gpu.txt 2>&1
timeout 150 python -m pytest -q -m gpu tests/test_synthesis_gpu.py tests/test_ntt_variants_gpu.py tests/test_poseidon_gpu.py \
  > $OUT/gpu-tests.log 2>&1; echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/gpu-tests.log
timeout 100 python -m pytest -q -m gpu tests/test_backend_cuda.py -k "msm or fixed or point" > $OUT/gpu-tests-msm.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/gpu-tests-msm.log; tail -3 $OUT/gpu-tests.log $OUT/gpu-tests-msm.log
timeout 150 benchmarks/ntt_fast/run.sh $OUT/ntt_sweep.json --log-sizes 16,18,20,22,24,26,27 --repeat 5 --loop 10 --budget 130 \
  --variants old,fold,r4o3 > $OUT/ntt_sweep.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/ntt_sweep.log; tail -14 $OUT/ntt_sweep.log
timeout 100 python benchmarks/fr_m0/bench.py $OUT/fr_m0.json > $OUT/fr_m0.log 2>&1; echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/fr_m0.log; cat $OUT/fr_m0.log
timeout 120 python benchmarks/fq_sqr/bench.py $OUT/fq_sqr.json 24,27 3 > $OUT/fq_sqr.log 2>&1; echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/fq_sqr.log; cat $OUT/fq_sqr.log
