# Stop 46, call 3 (same machine, after call 2): the kernels of this checkout against stop 45's
# (build/old_cuda: the .cu/.cuh files of 5fb5c8b), alternated new, old, new, old with equal outputs
# required (benchmarks/ff_rows); then sppark 17278d7's NTT (an ad hoc harness, built from fetched
# sources, not committed: build/spk/ntt_bench) on the same card, natural and bit-reversed output.
# From the repository root, .whl and build carried:  bash benchmarks/results/2026-12-05-stop46/call3.sh
export OUT=${OUT:-/tmp/c3out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
T0=$(date +%s)
timeout 480 benchmarks/ff_rows/run.sh $OUT/ff_rows build/old_cuda > $OUT/ff_rows.log 2>&1
echo "rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/ff_rows.log
timeout 60 build/spk/ntt_bench > $OUT/sppark_ntt.jsonl 2> $OUT/sppark_ntt.err; echo "sppark rc=$? after $(( $(date +%s) - T0 )) s"
cat $OUT/ff_rows.log; cat $OUT/sppark_ntt.jsonl
