# Stop 51, call 3 (any H100/H200): one synthetic 32 GiB PoRep sector with this stop's MSM (Y3 one
# reduction, the count ahead): the input step (C1, PCE, partition witnesses on the CPU), then
# partition 0's witness proved 10 times (stop 18's run-limits.sh and limits.py, every proof
# verified): without a device limit on an H200, at a 72 GiB limit on an H100 (the whole key needs
# more than 80 GB), as stop 48's calls 2-3. Per-proof seconds and phases (msm_h: the 2^27 H MSM).
# From the repository root, .whl carried (ran on call 2b's warm H200 as OUT=$OUT LIMIT=440 bash ...):
#   bash benchmarks/results/2026-12-06-stop51/call3.sh
export OUT=${OUT:-/tmp/c3out}; mkdir -p $OUT; T0=$(date +%s)
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv | tee $OUT/gpu.txt
MEM=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits | head -1)
if [ "$MEM" -gt 100000 ]; then LIMITS=" "; else LIMITS="72"; fi; echo "LIMITS='$LIMITS'"
GPU_TESTS=none LIMITS="$LIMITS" PARTS=10 LIMIT=${LIMIT:-560} bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run.log 2>&1
echo "sector after $(( $(date +%s) - T0 )) s"
python3 -c "
import json; d = json.load(open('$OUT/limits.json'))
for x in d['points']: print(x['limit_gib'], round(x['s_per_proof'], 3), x['proofs'], x['verified'], x.get('error', '')[:60], round(x['gpu_peak_bytes'] / 2**30, 1), x['phases_per_proof'])"
grep "inputs after\|done after" $OUT/run.log
