# Stop 37, call 3 (fresh H200): how much of a streamed key's transfer hides behind the MSMs over
# it, with CuPy's side streams and with streams at the device's highest priority, and the stream
# beside unrelated MSMs with and without its decode kernels (benchmarks/stream_overlap/overlap.py).
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-04-h200-stop37/call3.sh
export OUT=${OUT:-/tmp/c3out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
PYTHONPATH=$PWD/src SWEEP=${SWEEP:-1} timeout 400 python benchmarks/stream_overlap/overlap.py $OUT/overlap.json 26 24,25 1,5 2>&1 | tee $OUT/overlap.log
