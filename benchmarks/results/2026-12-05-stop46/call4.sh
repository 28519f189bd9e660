# Stop 46, call 4: one synthetic 32 GiB PoRep sector (partition 0's witness proved 10 times) with
# this checkout's kernels ("new"), then with stop 45's (build/old_cuda: the .cu/.cuh files of 5fb5c8b,
# through hook/sitecustomize.py), same inputs, same card, same call. Both builds' modules are
# compiled first (warm.py), so no compile falls inside a timed batch.
# LIMITS as in run-limits.sh (" ": the unlimited point only, for an H200; "72" on an 80 GB card).
# BUDGET: seconds the whole call may take (default 590).
# From the repository root, .whl and build carried:  bash benchmarks/results/2026-12-05-stop46/call4.sh
export OUT=${OUT:-/tmp/c4out}; mkdir -p $OUT/new $OUT/old
D=benchmarks/results/2026-12-05-stop46
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
T0=$(date +%s)
PYTHONPATH=$PWD/src python $D/warm.py > $OUT/warm-new.log 2>&1 &
CUZK_BENCH_SRC=$PWD/build/old_cuda PYTHONPATH=$PWD/$D/hook:$PWD/src python $D/warm.py > $OUT/warm-old.log 2>&1 &
wait; cat $OUT/warm-*.log; echo "compiled after $(( $(date +%s) - T0 )) s"
OUT=$OUT/new GPU_TESTS=none LIMITS="${LIMITS:- }" PARTS=10 LIMIT=$(( ${BUDGET:-590} * 45 / 100 )) \
  bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run-new.log 2>&1
echo "new after $(( $(date +%s) - T0 )) s"
cp $D/hook/sitecustomize.py src/   # run-limits.sh sets PYTHONPATH to src: the hook for the old run only
CUZK_BENCH_SRC=$PWD/build/old_cuda OUT=$OUT/old GPU_TESTS=none LIMITS="${LIMITS:- }" PARTS=10 LIMIT=$(( ${BUDGET:-590} - 5 - $(date +%s) + T0 )) \
  bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run-old.log 2>&1
rm -f src/sitecustomize.py
echo "old after $(( $(date +%s) - T0 )) s"
for w in new old; do python3 -c "
import json; d = json.load(open('$OUT/$w/limits.json'))
for x in d['points']: print('$w', x['limit_gib'], round(x['s_per_proof'], 3), x['proofs'], x['verified'], x.get('error', '')[:60], round(x['gpu_peak_bytes'] / 2**30, 1), x['phases_per_proof'])"; done
# then, if the call has time left: the G1 MSM with its Fq products inlined (msm.cu MSM_INLINE_FQ)
# against calls (the default), now that a product is ~400 instructions instead of ~1,250
left() { echo $(( ${BUDGET:-590} - $(date +%s) + T0 )); }
if [ $(left) -gt 120 ]; then
  mkdir -p $OUT/inline
  for r in 1 2; do
    [ $(left) -gt 60 ] && PYTHONPATH=$PWD/src timeout $(( $(left) - 30 )) python benchmarks/ff_rows/bench.py $OUT/inline/inline-$r.json \
      --ntt "" --h "" --msm 24,27 --repeat 3 --no-poseidon --msm-options=-DMSM_INLINE_FQ > $OUT/inline/inline-$r.log 2>&1
    [ $(left) -gt 30 ] && PYTHONPATH=$PWD/src timeout $(( $(left) - 5 )) python benchmarks/ff_rows/bench.py $OUT/inline/calls-$r.json \
      --ntt "" --h "" --msm 24,27 --repeat 3 --no-poseidon > $OUT/inline/calls-$r.log 2>&1
  done
  python3 benchmarks/ff_rows/compare.py $OUT/inline inline calls
fi
echo "all after $(( $(date +%s) - T0 )) s"
