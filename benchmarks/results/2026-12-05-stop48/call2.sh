# Stop 48, call 2 (H200 wanted): the H200 figures issue 17 asks for, with stop 46-47's kernels
# (NTT block sizes per length, shifted-base MSMs), none of which had run on an H200 before:
# one synthetic 32 GiB PoRep sector (input step: C1, PCE, partition witnesses on the CPU), then
# partition 0's witness proved 10 times without a device limit (stop 18's run-limits.sh and
# limits.py, every proof verified); beside the input step, the kernel table (kernels.sh: G1 MSM
# 2^20..2^27 plain and over shifted bases, G2 MSM, the fused H step at 2^27, the NTT variants
# 2^16..2^27 Python-launched, back to back and as graph replays).
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-05-stop48/call2.sh
export OUT=${OUT:-/tmp/c2out}; mkdir -p $OUT
D=benchmarks/results/2026-12-05-stop48
T0=$(date +%s)
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv | tee $OUT/gpu.txt
GPU_TESTS=tests/test_gpu_memory_plan.py AFTER_TESTS="OUT=$OUT bash $D/kernels.sh" WAIT_TESTS=1 LIMITS=" " PARTS=10 \
  LIMIT=$(( 570 - 5 )) bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/run.log 2>&1
echo "sector after $(( $(date +%s) - T0 )) s"
grep -v "^ " $OUT/kernels.log | grep "msm 2\|ntt\|h 2\|after\|Error" | tail -30
tail -40 $OUT/ntt-fast.log
python3 -c "
import json; d = json.load(open('$OUT/limits.json'))
for x in d['points']: print(x['limit_gib'], round(x['s_per_proof'], 3), x['proofs'], x['verified'], x.get('error', '')[:60], round(x['gpu_peak_bytes'] / 2**30, 1), x['phases_per_proof'])"
grep "inputs after\|done after" $OUT/run.log
