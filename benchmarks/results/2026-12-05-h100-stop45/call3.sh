# Stop 45, call 3: the kernel table after fr.cuh's constant-memory M0 (cuzk bench msm G1 / ntt /
# compute-h / msm G2, as stop 39's call 5), and one 32 GiB PoRep partition's witness with the
# SHA-256 and Poseidon kernels against the native cores (bench_porep.py, files compared).
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-05-h100-stop45/call3.sh
export OUT=${OUT:-/tmp/c3out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1
T0=$(date +%s)
K="python -m cuzk.cli bench"
timeout 150 $K msm --group g1 --backend cuda --log-sizes 20,22,24,26,27 --repeat 3 --json $OUT/msm-g1.json > $OUT/kernels.log 2>&1
timeout 60 $K ntt --backend cuda --log-sizes 16,20,24,27 --repeat 5 --json $OUT/ntt.json >> $OUT/kernels.log 2>&1
timeout 60 $K compute-h --backend cuda --log-sizes 24,27 --repeat 3 --json $OUT/compute-h.json >> $OUT/kernels.log 2>&1
timeout 90 $K msm --group g2 --backend cuda --log-sizes 22,24 --repeat 2 --json $OUT/msm-g2.json >> $OUT/kernels.log 2>&1
echo "kernels after $(( $(date +%s) - T0 )) s" >> $OUT/kernels.log; grep -v "^ " $OUT/kernels.log | tail -30
timeout 220 python benchmarks/witness_gpu/bench_porep.py porep-32GiB /tmp/bp $OUT/bench_porep.json 3 > $OUT/bench_porep.log 2>&1
echo "bench_porep rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/bench_porep.log; cat $OUT/bench_porep.log
