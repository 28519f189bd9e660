# Stop 46, call 5 (the H100 of call 4, still warm): call 4's sector comparison again at a 72 GiB
# device limit (call 4 ran only the unlimited point, which does not fit an 80 GB card), 5 proofs
# per build, with the inputs and compiled modules call 4 left on the machine. The exact command:
export OUT=$OUT; mkdir -p $OUT/new $OUT/old; T0=$(date +%s); OUT=$OUT/new GPU_TESTS=none LIMITS="72" PARTS=5 LIMIT=125 bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run-new.log 2>&1; echo "new after $(( $(date +%s) - T0 )) s"; cp benchmarks/results/2026-12-05-stop46/hook/sitecustomize.py src/; CUZK_BENCH_SRC=$PWD/build/old_cuda OUT=$OUT/old GPU_TESTS=none LIMITS="72" PARTS=5 LIMIT=$(( 250 - $(date +%s) + T0 )) bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run-old.log 2>&1; rm -f src/sitecustomize.py; echo "old after $(( $(date +%s) - T0 )) s"; for w in new old; do python3 -c "
import json; d = json.load(open('$OUT/$w/limits.json'))
for x in d['points']: print('$w', x['limit_gib'], round(x['s_per_proof'], 3), x['proofs'], x['verified'], x.get('error', '')[:50], round(x['gpu_peak_bytes'] / 2**30, 1), x['phases_per_proof'])"; done
