# Stop 34 (2026-12-04), call 1 (fresh H200): the Pippenger window width at 2^24..2^27 (issue 17:
# the H MSM of a 32 GiB partition is a 2^27 G1 MSM, today at c = 17, 15 windows), G1 and G2.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-04-h200/call1.sh
set -u
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1 OUT=${OUT:-/tmp/c1out}; mkdir -p $OUT
nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv > $OUT/gpu.txt
python -m cuzk.cli bench msm --group g1 --backend cuda --log-sizes 24,25,26,27 --windows 16,18,19,20,21,22 --repeat 3 --json $OUT/msm-g1-windows.json > $OUT/msm-g1.log 2>&1
python -m cuzk.cli bench msm --group g2 --backend cuda --log-sizes 22,24 --windows 15,16,18,19 --repeat 3 --json $OUT/msm-g2-windows.json > $OUT/msm-g2.log 2>&1
grep -h "msm 2\^" $OUT/msm-g*.log
