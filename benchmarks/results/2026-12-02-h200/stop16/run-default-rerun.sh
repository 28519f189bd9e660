# Stop 16, device call D: call C's default 2 KiB batch under gpu_mem_limit_gb: 1 stopped in its
# porep-2KiB setup with "No space left on device" (the machine's disk held calls A and B's files;
# the key had been computed on the GPU under the limit). The sweep's folders and call A's witness
# files are removed and the same Snakemake command is run again: it runs only what did not finish.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-02-h200/stop16/run-default-rerun.sh
set -u
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema snakemake 2>&1 | tail -2
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1
rm -rf /tmp/sw/mem* /tmp/sw/shared/witness /tmp/sw/shared/params; df -h / | tail -1
R=/tmp/s16; T0=$(date +%s)
timeout ${LIMIT:-330} python -m snakemake --cores 6 --resources mem_gb=24 gpu=1 --keep-going \
    --config results=$R/default backend=cuda gpu_mem_limit_gb=1 > $R/default-2kib-rerun.log 2>&1
echo "default batch rerun rc=$? after $(( $(date +%s) - T0 )) s" | tee -a $R/default-2kib-rerun.log
grep -E "^(localrule|rule) |steps \(" $R/default-2kib-rerun.log | tail -30; cat $R/default/report/summary.md 2>/dev/null | head -30
tar czf $OUT/default.tgz -C $R --exclude='*.wit' --exclude='*.params' --exclude='*.pce' --exclude='*.c1.json' default default-2kib-rerun.log 2>/dev/null; ls -la $OUT
