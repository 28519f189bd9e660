# Stop 19, call 4 on the H200: GPU tests (GPU_TESTS) beside the inputs of stop 18's run-limits.sh
# (synthetic 32 GiB sector, PCE, partition 0's witness), joined before any timing; then
# run-limits.sh (unlimited and LIMITS, PARTS proofs each, from the key in /dev/shm files); then
# the kernel benchmarks: the NTT kernels old and new side by side (NTT_BENCH), the MSM table.
# NTT_TESTS, GPU_TESTS: pytest arguments. From the repository root, .whl carried:  bash benchmarks/results/2026-12-02-h200/stop19/call4.sh
set -u
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1
T0=$(date +%s); R=/tmp/s18; mkdir -p $R
python -m cuzk.cli bench circuit --shapes porep-32GiB --workdir $R --phases input,pce,witness --parallel > $OUT/inputs.log 2>&1 &
IN=$!
# the new NTT pass first (NTT_TESTS); if any of them fails, the rest of the call runs the former
# pass (this copy's NTTOps.ntt_kernel set to "radix2", said in the log)
timeout ${NTT_TESTS_LIMIT:-150} python -m pytest -q -rs --durations=10 -m "gpu or not gpu" $NTT_TESTS > $OUT/gpu-tests-ntt.log 2>&1
rc=$?; echo "pytest rc=$rc" >> $OUT/gpu-tests-ntt.log; tail -3 $OUT/gpu-tests-ntt.log
if [ $rc != 0 ]; then sed -i 's/ntt_kernel: str = "rx"/ntt_kernel: str = "radix2"/' src/cuzk/backend/cuda/ntt.py; echo "NTT tests failed: the former pass from here on"; fi
timeout ${TESTS_LIMIT:-120} python -m pytest -q -rs --durations=10 -m "gpu or not gpu" $GPU_TESTS > $OUT/gpu-tests.log 2>&1; echo "pytest rc=$?" >> $OUT/gpu-tests.log
tail -3 $OUT/gpu-tests.log; echo "tests done after $(( $(date +%s) - T0 )) s"
wait $IN; echo "inputs after $(( $(date +%s) - T0 )) s"
GPU_TESTS=none LIMIT=${LIMITS_S:-330} bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run.log 2>&1
mkdir -p $OUT/limits; mv $OUT/limits.json $OUT/limits.log $OUT/limits/
python benchmarks/results/2026-12-02-h200/stop18/steady.py $OUT
echo "limits done after $(( $(date +%s) - T0 )) s"
left=$(( ${TOTAL:-585} - ($(date +%s) - T0) ))
[ -n "${NTT_BENCH:-}" ] && timeout $(( left / 2 )) bash -c "$NTT_BENCH" > $OUT/ntt-bench.log 2>&1; tail -25 $OUT/ntt-bench.log 2>/dev/null
left=$(( ${TOTAL:-585} - ($(date +%s) - T0) ))
timeout $(( left - 5 )) python -m cuzk.cli bench msm --group g1 --backend cuda --log-sizes 20,22,24,26,27 --repeat 3 --budget $(( left - 40 )) --json $OUT/msm-g1.json > $OUT/msm-g1.log 2>&1; tail -12 $OUT/msm-g1.log
echo "done after $(( $(date +%s) - T0 )) s"
