# Issue 14, stop 18, on one H200 (as stop 17's script; LIMITS entries may end in "/limbs": w's limbs
# offloaded as in stop 17 instead of w kept compact on the device, plan_prove's compact_w): one synthetic 32 GiB PoRep sector's partitions (partition 0's
# witness proved PARTS times) without a limit and at each of LIMITS (default "24 16"; "L:phase,..."
# restricts the H phases the planner may pick, e.g. "48:device"), the key streamed from host files
# in /dev/shm (resident_to_host, read by pread). A trace line per prover phase (seconds, bus bytes
# so far). Beside the CPU-bound input step, the GPU tests (GPU_TESTS: files, or none). After the
# key is on the host, a copy-rate check of the staging path (mapped np.copyto against pread, 1/4/8
# threads, into pinned buffers). A second call on the still-warm machine reuses the inputs and the
# key files (KEEP=1 keeps them; the unlimited point then uploads the key from them).
# From the repository root, .whl carried:  LIMIT=570 bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh
set -u
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1
R=/tmp/s18; mkdir -p $R; OUT=${OUT:-$R}; export OUT
T0=$(date +%s)
GPU_TESTS=${GPU_TESTS:-tests/test_backend_cuda.py tests/test_gpu_limit.py tests/test_streamed.py tests/test_pieces.py tests/test_gpu_stream_key.py tests/test_prove_gpu.py tests/test_gpu_memory_plan.py}
# (stop 21) AFTER_TESTS: a command run after the GPU tests, in the same background chain (before any timed point with WAIT_TESTS=1)
[ "$GPU_TESTS" != none ] && { timeout 420 python -m pytest -q -rs --durations=10 -m "gpu or not gpu" $GPU_TESTS > $OUT/gpu-tests.log 2>&1; echo "pytest rc=$?" >> $OUT/gpu-tests.log; [ -z "${AFTER_TESTS:-}" ] || bash -c "$AFTER_TESTS" > $OUT/after-tests.log 2>&1; } &
if [ ! -f $R/porep-32GiB.partition-0.wit ]; then
  python -m cuzk.cli bench circuit --shapes porep-32GiB --workdir $R --phases input,pce,witness --parallel > $R/inputs.log 2>&1 || tail -5 $R/inputs.log
fi
echo "inputs after $(( $(date +%s) - T0 )) s"
[ "${WAIT_TESTS:-0}" = 1 ] && { wait; echo "GPU tests done after $(( $(date +%s) - T0 )) s"; tail -3 $OUT/gpu-tests.log; }   # stop 20: none beside the timed points
KEYDIR=/dev/shm/s18; mkdir -p $KEYDIR; export KEYDIR; df -h /dev/shm $R | tail -2; free -g | head -2
export DEADLINE=$(( T0 + ${LIMIT:-570} - 15 ))
timeout $(( ${LIMIT:-570} - ($(date +%s) - T0) - 5 )) python benchmarks/results/2026-12-02-h200/stop18/limits.py 2>&1 | tee -a $OUT/limits.log
echo "done after $(( $(date +%s) - T0 )) s"; [ "${KEEP:-0}" = 1 ] || rm -rf $KEYDIR
wait; cp $R/*.log $OUT/ 2>/dev/null; tail -4 $OUT/gpu-tests.log 2>/dev/null; ls -la $OUT
