# Stop 36, call 3 (fresh H200): the quotient with six NTTs (c's coefficients by one inverse NTT,
# subtracted by the last pass: NTT_SUB) and the MSM sort's scatter one window per launch (issue 17).
# GPU tests of the NTT, compute_h (every schedule), MSM and memory plans beside the 32 GiB inputs;
# then `cuzk bench compute-h` at 2^24 and 2^27 with the stop-35 code (src of 8f990a5, carried as
# .whl/old-src-8f990a5.tar.xz: `git archive 8f990a5 src | xz`) and with this code, side by side; MSM
# kernels compiled; then one cold 32 GiB sector's 10 partitions without a limit, at 24 and 16 GiB.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-04-h200-stop36/call3.sh
export OUT=${OUT:-/tmp/c3out}; mkdir -p $OUT /tmp/old && tar -xJf .whl/old-src-8f990a5.tar.xz -C /tmp/old
CH="python -m cuzk.cli bench compute-h --backend cuda --log-sizes 24,27 --repeat 5"
GPU_TESTS="tests/test_ntt_variants_gpu.py tests/test_gpu_memory_plan.py tests/test_backend_cuda.py tests/test_gpu_limit.py" \
  AFTER_TESTS="for v in old new old new; do if [ \$v = old ]; then P=/tmp/old/src; else P=\$PWD/src; fi; PYTHONPATH=\$P $CH --json $OUT/compute-h-\$v.json >> $OUT/compute-h.log 2>&1; echo \"== \$v\" >> $OUT/compute-h.log; done; python -m cuzk.cli bench msm --group g1 --backend cuda --log-sizes 12 --repeat 1 > $OUT/warm.log 2>&1; python -m cuzk.cli bench msm --group g2 --backend cuda --log-sizes 12 --repeat 1 >> $OUT/warm.log 2>&1" \
  WAIT_TESTS=1 LIMITS="24 16" PARTS=10 HOST_LIMIT_GIB=40 LIMIT=${LIMIT:-570} \
  bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run.log 2>&1
tail -3 $OUT/gpu-tests.log; grep -h "compute-h\|==\|2\^2" $OUT/compute-h.log | cut -c1-200; grep -h '"s_per_proof"' $OUT/limits.log | cut -c1-160
