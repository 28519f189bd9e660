# Stop 51, call 2 (any H100/H200): after call 1, fp_y3 takes the lazy difference u - v + q and
# q - d in one borrow chain (fp_p_minus), and a signed entry's y is negated as q - y; and an MSM
# sorted ahead counts the windows after the first on the sort stream (msm.HIST_AHEAD). The GPU
# tests of the MSMs, fixed-base products, point sums and the prover; the SASS counts; then G1 MSMs
# with Y3 as one reduction against two products, side by side (benchmarks/msm_fq/products.py):
# plain 2^24, 2^27, over shifted bases 2^24; then HIST_AHEAD on against off
# (benchmarks/msm_sort/hist_ahead.py): 2^24, 2^26, 2^27.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-06-stop51/call2.sh
set -u
export OUT=${OUT:-/tmp/c2out}; mkdir -p $OUT; T0=$(date +%s)
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv | tee $OUT/gpu.txt
for b in two_products:-DCUZK_Y3_TWO_PRODUCTS one_reduction:; do
  nvcc -arch=sm_90 -cubin -std=c++17 -I src/cuzk/backend/cuda -o /tmp/m.cubin src/cuzk/backend/cuda/msm.cu ${b#*:} -Xptxas -v > $OUT/ptxas-${b%%:*}.txt 2>&1
  echo "${b%%:*}: $(grep -A2 "entry function 'msm_bucket_chunks'" $OUT/ptxas-${b%%:*}.txt | tail -1)" >> $OUT/sass-counts.txt
  python benchmarks/msm_fq/sass_counts.py /tmp/m.cubin >> $OUT/sass-counts.txt 2>&1
done; cat $OUT/sass-counts.txt
timeout 300 python -m pytest -q -rs -p no:benchmark -m gpu tests/test_backend_cuda.py tests/test_prove_gpu.py > $OUT/gpu-tests.log 2>&1
echo "pytest rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/gpu-tests.log; tail -4 $OUT/gpu-tests.log
timeout $(( 450 - $(date +%s) + T0 )) python benchmarks/msm_fq/products.py $OUT/products.json 24,27 24 7 > $OUT/products.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/products.log; cat $OUT/products.log
timeout $(( 575 - $(date +%s) + T0 )) python benchmarks/msm_sort/hist_ahead.py $OUT/hist_ahead.json 24,26,27 7 > $OUT/hist_ahead.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/hist_ahead.log; cat $OUT/hist_ahead.log
