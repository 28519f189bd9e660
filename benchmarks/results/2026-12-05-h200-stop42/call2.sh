# Stop 42, call 2 (planned; NOT run yet: no device was lent; call 1 is stop 41's call1.sh): the
# GPU tests of witness_poseidon: inputs, then witness_poseidon values against
# inputs on a 32 GiB WindowPoSt target of 200 distinct synthetic sectors: the synthesize step
# (16 workers), the prove step's read and the cuda compact upload (inputs: the Poseidon kernel
# makes the values on the device), device assignments compared. Then the same at 600 distinct
# sectors if time is left (about 0.1 + 0.15 s a sector to make and check on the 2-core box).
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-05-h200-stop42/call2.sh
export OUT=${OUT:-/tmp/c2out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
timeout 120 python -m pytest -q -rs tests/test_witness_inputs_gpu.py > $OUT/inputs-gpu-tests.log 2>&1
echo "pytest rc=$?" >> $OUT/inputs-gpu-tests.log; tail -3 $OUT/inputs-gpu-tests.log
DISTINCT=200 timeout 240 python benchmarks/witness_gpu/bench_inputs.py /dev/shm/bi $OUT/inputs200.json window-post-32GiB 2 16 \
  > $OUT/inputs200.log 2>&1; echo "rc=$?" >> $OUT/inputs200.log; tail -8 $OUT/inputs200.log
rm -rf /dev/shm/bi
DISTINCT=600 timeout 220 python benchmarks/witness_gpu/bench_inputs.py /dev/shm/bi6 $OUT/inputs600.json window-post-32GiB 1 16 \
  > $OUT/inputs600.log 2>&1; echo "rc=$?" >> $OUT/inputs600.log; tail -5 $OUT/inputs600.log
