# Stop 45, call 1: Fr's M0 from constant memory (fr.cuh). GPU tests (the synthesis test fixed at the
# end of stop 44, every NTT variant with "fold" = the old immediate, the Poseidon kernel), the NTT
# sweep old / fold / r4o3 2^16..2^27, and the Poseidon kernel and fused H new against fold.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-05-h200-stop45/call1.sh
export OUT=${OUT:-/tmp/c1out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv > $OUT/gpu.txt 2>&1
timeout 180 python -m pytest -q -m gpu tests/test_synthesis_gpu.py tests/test_ntt_variants_gpu.py tests/test_poseidon_gpu.py \
  > $OUT/gpu-tests.log 2>&1; echo "rc=$?" >> $OUT/gpu-tests.log
tail -4 $OUT/gpu-tests.log
timeout 190 benchmarks/ntt_fast/run.sh $OUT/ntt_sweep.json --log-sizes 16-27 --repeat 5 --loop 10 --budget 170 \
  --variants old,fold,r4o3 > $OUT/ntt_sweep.log 2>&1
echo "rc=$?" >> $OUT/ntt_sweep.log; tail -20 $OUT/ntt_sweep.log
timeout 150 python benchmarks/fr_m0/bench.py $OUT/fr_m0.json > $OUT/fr_m0.log 2>&1; echo "rc=$?" >> $OUT/fr_m0.log; cat $OUT/fr_m0.log
