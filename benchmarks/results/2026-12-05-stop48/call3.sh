# Stop 48, call 3, on call 2's warm H100 (its inputs in /tmp/s18): the sector at a 72 GiB device
# limit (the unlimited point needs more than the H100's 80 GB), partition 0's witness proved 10 times.
export OUT=${OUT:-/tmp/c3out}; T0=$(date +%s); ls /tmp/s18 | head; GPU_TESTS=none LIMITS="72" PARTS=10 LIMIT=300 bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run.log 2>&1; echo "sector after $(( $(date +%s) - T0 )) s"; python3 -c "
import json; d = json.load(open('$OUT/limits.json'))
for x in d['points']: print(x['limit_gib'], round(x['s_per_proof'], 3), x['proofs'], x['verified'], x.get('error', '')[:60], round(x['gpu_peak_bytes'] / 2**30, 1), x['phases_per_proof'])"; grep "inputs after\|done after" $OUT/run.log; cd $OUT && tar czf /tmp/c3.tgz . && rm -rf $OUT/* && mv /tmp/c3.tgz $OUT/
