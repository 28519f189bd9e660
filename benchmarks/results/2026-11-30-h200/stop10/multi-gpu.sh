#!/bin/bash
# Stop 10, nvidia-h200-x2: the default workflow with --resources gpu=2 (each setup/prove job claims
# a free GPU), nvidia-smi sampled meanwhile; the GPU tests beside it on device 0.
# From the repository root, .whl2 carried:  bash benchmarks/results/2026-11-30-h200/stop10/multi-gpu.sh
set -u
export PYTHONUNBUFFERED=1 TIMEFORMAT='real %R s, user %U s, sys %S s'
T0=$(date +%s); BUDGET=${BUDGET:-540}
W=$OUT/multi-gpu; mkdir -p $W
python -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl2/*.whl 2>&1 | tail -3
export PYTHONPATH=/tmp/site:$PWD/src PATH=/tmp/site/bin:$PATH
nvidia-smi -L | tee $W/time.txt
( timeout 330 python -m pytest -q -rs --durations=15 -m "gpu or not gpu" tests/test_backend_cuda.py tests/test_prove_gpu.py \
    tests/test_setup_resident.py tests/test_gpu_memory_plan.py tests/test_gpus.py > $OUT/gpu-tests-x2.log 2>&1
  echo "pytest rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/gpu-tests-x2.log ) &
TESTS=$!
nvidia-smi --query-gpu=timestamp,index,utilization.gpu,memory.used --format=csv -l 1 > $W/smi.csv 2>&1 &
SMI=$!
sed -e 's#^results: results#results: /tmp/wf#' -e 's#^backend: .*#backend: auto#' config.yaml > /tmp/wf-config.yaml
LEFT=$(( BUDGET - ($(date +%s) - T0) - 40 ))
echo "snakemake --cores 32 --resources mem_gb=200 gpu=2 (config.yaml, results: /tmp/wf, backend: auto), limit ${LEFT} s:" >> $W/time.txt
{ time timeout $LEFT snakemake --cores 32 --resources mem_gb=200 gpu=2 --configfile /tmp/wf-config.yaml > $W/workflow.log 2>&1 ; } 2>> $W/time.txt
echo "snakemake rc=$?" | tee -a $W/time.txt; tail -3 $W/workflow.log
kill $SMI
cp /tmp/wf/report/summary.md /tmp/wf/report/steps.tsv $W/
python - > $W/gpu-per-job.txt <<'PY'
import glob, json, os
for p in sorted(glob.glob("/tmp/wf/**/*.mem.json", recursive=True)):
    d = json.load(open(p))
    if "gpu_device" in d:
        print(f"{os.path.basename(p):45s} gpu {d['gpu_device']['index']} peak {d.get('gpu_peak_bytes', 0) / 2**30:.2f} GiB "
              f"pool {d.get('gpu_pool_peak_bytes', 0) / 2**30:.2f} GiB predicted {(d.get('gpu_predicted_bytes') or 0) / 2**30:.2f} GiB "
              f"start {d.get('started_at', 0):.1f} s {d['seconds']:.1f}")
PY
cat $W/gpu-per-job.txt
python -c "import json,glob,os; print(json.dumps({os.path.basename(p): json.load(open(p))['verified'] for p in sorted(glob.glob('/tmp/wf/verify/*.json'))}))" | tee $W/verified.json
wait $TESTS; tail -22 $OUT/gpu-tests-x2.log
echo "all done: $(( $(date +%s) - T0 )) s"
