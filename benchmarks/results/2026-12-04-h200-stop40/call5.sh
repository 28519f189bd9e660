# Stop 40, call 5 (fresh H200): call 4's WindowPoSt half, which its time limit cut off: a 32 GiB
# WindowPoSt target over 2,349 synthetic sectors, synthesize_sector with gpu Poseidon (the step's
# own process) first, then native with 16 workers; once each.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-04-h200-stop40/call5.sh
export OUT=${OUT:-/tmp/c5out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1 GPU_FIRST=1
timeout 370 python benchmarks/witness_gpu/bench_steps.py /dev/shm/bs $OUT/steps.json window-post-32GiB 1 16 \
  > $OUT/steps.log 2>&1; echo "rc=$?" >> $OUT/steps.log
cat $OUT/steps.log | tail -20
