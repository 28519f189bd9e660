# Stop 37, call 5 (the last 197 s of the session's device time): each streamed piece decoded on the
# caller's stream, its copies alone on the side stream (msm._streamed_pieces). overlap.py's sweep
# at 2^25-point pieces over 2^26 bases, 1 and 5 vectors (against call3's sweep), then the streamed
# MSM GPU tests in what time is left.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-04-h200-stop37/call5.sh
export OUT=${OUT:-/tmp/c5out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
PYTHONPATH=$PWD/src SWEEP=1 CONC=0 timeout 80 python benchmarks/stream_overlap/overlap.py $OUT/overlap.json 26 25 1,5 > $OUT/overlap.log 2>&1
PYTHONPATH=$PWD/src timeout 45 python -m pytest -q -x -m "gpu or not gpu" tests/test_gpu_stream_key.py > $OUT/gpu-tests.log 2>&1; echo "pytest rc=$?" >> $OUT/gpu-tests.log
cat $OUT/overlap.log; tail -3 $OUT/gpu-tests.log
