# Stop 48, call 4: the host time of small product NTTs (CUDABackend.ntt, what `cuzk bench ntt`
# times): benchmarks/ntt_fast/overhead.py (with and without the memory queries that
# ntt.SMALL_NTT_BYTES now skips, against the floor of the same launches; a cProfile; the queries'
# host cost), then `cuzk bench ntt` 2^16..2^20 and the NTT GPU tests.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-05-stop48/call4.sh
export OUT=${OUT:-/tmp/c4out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv | tee $OUT/gpu.txt
T0=$(date +%s)
timeout 120 python benchmarks/ntt_fast/overhead.py $OUT/overhead.json --log-sizes 16,17,18,19,20 --calls 2000 > $OUT/overhead.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/overhead.log; cat $OUT/overhead.log
timeout 60 python -m cuzk.cli bench ntt --backend cuda --log-sizes 16,17,18,19,20,22 --repeat 5 --json $OUT/ntt.json > $OUT/ntt.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/ntt.log; grep "ntt 2\|rc=" $OUT/ntt.log
timeout 200 python -m pytest -q -p no:benchmark -m gpu tests/test_backend_cuda.py -k "ntt or compute_h" > $OUT/gpu-tests.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/gpu-tests.log; tail -3 $OUT/gpu-tests.log
