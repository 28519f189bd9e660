# Stop 52, call 1 (any H100/H200): every NTT pass in one launch (ntt.NTT_FUSED_MAX_LOG), tested and
# timed against one launch per pass, with sppark 17278d7's NTT on the same card (an ad hoc harness
# built from fetched sources, not committed: build/spk/ntt_bench). GPU tests of the NTTs, compute_h
# and the prover; benchmarks/ntt_fast/fused.py 2^10..2^27 with the peer; then cuzk bench ntt,
# compute-h 2^27 and msm 2^27 (the H MSM on stop 51's restored flow).
# From the repository root, .whl and build/spk carried:  bash benchmarks/results/2026-12-06-stop52/call1.sh
set -u
export OUT=${OUT:-/tmp/c1out}; mkdir -p $OUT; T0=$(date +%s)
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv | tee $OUT/gpu.txt
timeout 150 python benchmarks/ntt_fast/fused.py $OUT/fused.json --log-sizes 10-27 --repeat 5 --peer build/spk/ntt_bench > $OUT/fused.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/fused.log; cat $OUT/fused.log
timeout 240 python -m pytest -q -rs -p no:benchmark -m gpu tests/test_ntt_variants_gpu.py tests/test_prove_gpu.py "tests/test_backend_cuda.py" -k "ntt or compute_h or prove or h_" > $OUT/gpu-tests.log 2>&1
echo "pytest rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/gpu-tests.log; tail -4 $OUT/gpu-tests.log
timeout $(( 560 - $(date +%s) + T0 )) bash -c "python -m cuzk.cli bench ntt --backend cuda --log-sizes 16,18,20,22,24,26,27 --json $OUT/bench-ntt.json && python -m cuzk.cli bench compute-h --backend cuda --log-sizes 27 --json $OUT/bench-h.json && python -m cuzk.cli bench msm --backend cuda --log-sizes 27 --repeat 7 --json $OUT/bench-msm.json" > $OUT/bench.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/bench.log; cat $OUT/bench.log
