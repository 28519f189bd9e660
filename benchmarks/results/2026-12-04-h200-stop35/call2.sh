# Stop 35, call 2 (fresh H200): phases of mostly-bit MSMs (the A, B, L queries) against random
# scalars (H), G1 at 2^27 and G2 at 2^25 (benchmarks/msm_bits/profile.py).
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-04-h200-stop35/call2.sh
set -u
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1 OUT=${OUT:-/tmp/c2out}; mkdir -p $OUT
timeout 400 python benchmarks/msm_bits/profile.py $OUT/msm-bits.json 27 25 2>&1 | tee $OUT/msm-bits.log
