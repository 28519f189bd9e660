# Stop 38, call 3 (fresh H200): with the pieces' copies no longer held up by their decodes, does
# each partition's own walk of H's bases (no H buffers pinned on the host, 10 in flight) now beat
# the shared walk at 24 GiB? Beside the 32 GiB inputs: tests/test_prove_gpu.py, then the default
# 2 KiB batch from nothing under gpu_mem_limit_gb: 1 (Snakemake from the carried wheels). Then one
# cold 32 GiB sector's 10 partitions without a limit, at 24 GiB with each partition's own H walk,
# at 16 GiB likewise, and at 24 GiB as the planner picks (H shared).
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-04-h200-stop38/call3.sh
export OUT=${OUT:-/tmp/c3out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema snakemake 2>&1 | tail -2
GPU_TESTS="tests/test_prove_gpu.py" \
  AFTER_TESTS="T1=\$(date +%s); timeout 300 python -m snakemake --cores 6 --resources mem_gb=24 gpu=1 --keep-going --config results=/tmp/s38/default backend=cuda gpu_mem_limit_gb=1 > $OUT/default-2kib.log 2>&1; echo \"default batch rc=\$? after \$(( \$(date +%s) - T1 )) s\" >> $OUT/default-2kib.log" \
  WAIT_TESTS=1 LIMITS="24+own 16+own 24" PARTS=10 HOST_LIMIT_GIB=40 LIMIT=${LIMIT:-560} \
  bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run.log 2>&1
tail -2 $OUT/gpu-tests.log; tail -3 $OUT/default-2kib.log; cat /tmp/s38/default/report/summary.md 2>/dev/null | head -30
grep -h "plan (compact\|pinned regions" $OUT/limits.log | cut -c1-200
grep -h '"s_per_proof"' $OUT/limits.log | cut -c1-170; grep -h "after" $OUT/run.log
tar czf $OUT/default.tgz -C /tmp/s38 --exclude='*.wit' --exclude='*.params' --exclude='*.pce' --exclude='*.c1.json' default 2>/dev/null; ls -la $OUT
