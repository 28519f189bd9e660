#!/bin/bash
# Issue 5 device run (nvidia-h200): one 32 GiB PoRep partition set up (resident, never written) and
# proved on the GPU. The C1 (synthetic CC sector), PCE and witness are made first on the host
# (pce and witness in parallel) while the GPU tests and a 256 B smoke run use the GPU.
# From the repository root, .whl carried:  bash benchmarks/results/2026-11-30-h200/partition-32GiB/run.sh
set -u
export PYTHONUNBUFFERED=1
T0=$(date +%s); BUDGET=${BUDGET:-585}
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
export PYTHONPATH=$PWD/src
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee $OUT/gpu.txt
( nvidia-smi --query-gpu=timestamp,memory.used,utilization.gpu --format=csv,noheader -l 1 > $OUT/nvidia-smi.csv 2>&1 ) &
SMI=$!
( python -m cuzk.cli bench circuit --shapes porep-32GiB --workdir /tmp/b32 --phases input,pce,witness \
    --parallel --json $OUT/bench-32GiB-inputs.json > $OUT/bench-32GiB-inputs.log 2>&1
  echo "inputs rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/bench-32GiB-inputs.log ) &
INPUTS=$!
timeout 200 python -m pytest -q -m gpu ${GPU_TESTS:-tests/test_setup_resident.py} > $OUT/gpu-tests.log 2>&1
echo "pytest rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/gpu-tests.log; tail -5 $OUT/gpu-tests.log
[ -z "${SKIP_SMOKE:-}" ] && timeout 90 python benchmarks/bench_cuda.py --ntt 20,24,26 --msm 24 --msm-g2 22 --fixed-base '' --reps 5 \
    --json $OUT/bench-cuda-v3.json > $OUT/bench-cuda-v3.log 2>&1
echo "bench_cuda rc=$? after $(( $(date +%s) - T0 )) s" | tee -a $OUT/bench-cuda-v3.log
[ -z "${SKIP_SMOKE:-}" ] && timeout 120 python -m cuzk.cli bench circuit --shapes test-only-porep-256B --workdir /tmp/b256 \
    --phases input,pce,witness,prove --backend cuda --parallel --json $OUT/bench-256B.json > $OUT/bench-256B.log 2>&1
echo "256B rc=$? after $(( $(date +%s) - T0 )) s" | tee -a $OUT/bench-256B.log; grep -E "setup|proof" $OUT/bench-256B.log | head
wait $INPUTS; tail -8 $OUT/bench-32GiB-inputs.log
LEFT=$(( BUDGET - ($(date +%s) - T0) ))
echo "prove phase: ${LEFT} s left"
timeout $LEFT python -m cuzk.cli bench circuit --shapes porep-32GiB --workdir /tmp/b32 --phases prove \
    --backend cuda --repeat ${REPEAT:-2} --json $OUT/bench-32GiB-prove.json > $OUT/bench-32GiB-prove.log 2>&1
echo "prove rc=$? after $(( $(date +%s) - T0 )) s" | tee -a $OUT/bench-32GiB-prove.log
tail -25 $OUT/bench-32GiB-prove.log
kill $SMI; sort -t, -k2 -n $OUT/nvidia-smi.csv | tail -1
