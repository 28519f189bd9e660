# Stop 38, call 3 (fresh H200): every GPU-marked test of the ten files that carry the marker
# (beside it) and the default 2 KiB batch from nothing under gpu_mem_limit_gb: 1 (config.yaml's
# sectors: PoRep, WinningPoSt, WindowPoSt; Snakemake from the carried wheels).
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-04-h200-stop38/call3.sh
set -u
export OUT=${OUT:-/tmp/c3out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema snakemake 2>&1 | tail -2
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1
T0=$(date +%s)
FILES=$(grep -l "pytest.mark.gpu" tests/*.py | tr '\n' ' ')
( timeout 480 python -m pytest -q -rs --durations=15 -m gpu -p no:cacheprovider $FILES > $OUT/gpu-tests.log 2>&1
  echo "pytest rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/gpu-tests.log ) &
R=/tmp/s38
timeout ${LIMIT:-480} python -m snakemake --cores 6 --resources mem_gb=24 gpu=1 --keep-going \
    --config results=$R/default backend=cuda gpu_mem_limit_gb=1 > $OUT/default-2kib.log 2>&1
echo "default batch rc=$? after $(( $(date +%s) - T0 )) s" | tee -a $OUT/default-2kib.log
wait
grep -E "steps \(|rc=" $OUT/default-2kib.log | tail -5; cat $R/default/report/summary.md 2>/dev/null | head -40
tail -25 $OUT/gpu-tests.log
tar czf $OUT/default.tgz -C $R --exclude='*.wit' --exclude='*.params' --exclude='*.pce' --exclude='*.c1.json' default 2>/dev/null; ls -la $OUT
