# Stop 39, call 1 (fresh H200): does the quotient hide behind another partition's MSM on a second
# stream (benchmarks/h_overlap, 2^27)? Then the streamed-key GPU tests left unrun by stop 38
# (b99e6c8: per-piece compressed-encoding check; 1cb02b4: read_int).
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-04-h200-stop39/call1.sh
export OUT=${OUT:-/tmp/c1out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1
T0=$(date +%s)
timeout 200 python benchmarks/h_overlap/h_overlap.py $OUT/h_overlap.json 27 3 > $OUT/h_overlap.log 2>&1
echo "h_overlap rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/h_overlap.log
cat $OUT/h_overlap.log
timeout 300 python -m pytest -q -rs --durations=5 -m "gpu or not gpu" tests/test_gpu_stream_key.py tests/test_streamed.py \
  tests/test_gpu_limit.py tests/test_pieces.py > $OUT/gpu-tests.log 2>&1; echo "pytest rc=$?" >> $OUT/gpu-tests.log
tail -4 $OUT/gpu-tests.log; echo "done after $(( $(date +%s) - T0 )) s"
