#!/bin/bash
# Issue 5 device run (nvidia-h200): the gpu tests, then the default workflow (full 2 KiB PoRep,
# 5 sectors, WinningPoSt + WindowPoSt) on the GPU beside them, then one sector proved again under a 3 GiB limit.
# From the repository root, .whl2 carried:  bash benchmarks/results/2026-11-30-h200/workflow-porep-v4/run.sh
set -u
export PYTHONUNBUFFERED=1 TIMEFORMAT='real %R s, user %U s, sys %S s'
T0=$(date +%s); BUDGET=${BUDGET:-500}
HERE=benchmarks/results/2026-11-30-h200/workflow-porep-v4
W=$OUT/workflow-porep-v4; mkdir -p $W
python -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl2/*.whl 2>&1 | tail -3
export PYTHONPATH=/tmp/site:$PWD/src PATH=/tmp/site/bin:$PATH
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee $W/time.txt
echo "pip done: $(( $(date +%s) - T0 )) s"
# the gpu tests run beside the workflow (one process, a few cores; the H200 has room for both)
( timeout 300 python -m pytest -q -m gpu tests/test_backend_cuda.py tests/test_prove_gpu.py tests/test_setup_resident.py tests/test_gpu_memory_plan.py > $OUT/gpu-tests-v5.log 2>&1
  echo "pytest rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/gpu-tests-v5.log ) &
TESTS=$!
sed -e 's#^results: results#results: /tmp/wf#' -e 's#^backend: .*#backend: auto#' config.yaml > /tmp/wf-config.yaml
LEFT=$(( BUDGET - ($(date +%s) - T0) - 45 ))
echo "snakemake --cores 16 --resources mem_gb=100 gpu=1 (config.yaml, results: /tmp/wf, backend: auto), limit ${LEFT} s:" >> $W/time.txt
{ time timeout $LEFT snakemake --cores 16 --resources mem_gb=100 gpu=1 --configfile /tmp/wf-config.yaml > $W/workflow.log 2>&1 ; } 2>> $W/time.txt
echo "snakemake rc=$?" | tee -a $W/time.txt; tail -5 $W/workflow.log
cp /tmp/wf/report/summary.md /tmp/wf/report/steps.tsv $W/
python -c "import json,glob,os; print(json.dumps({os.path.basename(p): json.load(open(p)) for p in sorted(glob.glob('/tmp/wf/verify/*.json'))}, indent=1))" > $W/verify.json
echo "workflow done: $(( $(date +%s) - T0 )) s"; cat $W/summary.md
wait $TESTS; tail -12 $OUT/gpu-tests-v5.log
LEFT=$(( BUDGET - ($(date +%s) - T0) ))
[ $LEFT -gt 20 ] && timeout $LEFT python benchmarks/results/2026-11-30-h200/workflow-porep-v3/prove_limit.py /tmp/wf porep-2KiB 3 $W/prove-limit-3gb.json 1 2>&1 | tail -4
echo "all done: $(( $(date +%s) - T0 )) s"
