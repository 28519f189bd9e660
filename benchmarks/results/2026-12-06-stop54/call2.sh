# Stop 54, call 2 (kind nvidia-h200 named; any H100/H200): on a fresh machine, first
# benchmarks/ntt_fast/host_drift.py 2^14 for 150 s (the product call's host µs, pinned to each CPU
# in turn and unpinned); then, warm, sampler.py 2^14..2^17 (without / with a MemorySampler thread)
# and cuzk bench ntt 2^10..2^18 (no sampler thread); the host's CPU and NUMA layout.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-06-stop54/call2.sh
set -u
export OUT=${OUT:-/tmp/c2out}; mkdir -p $OUT; T0=$(date +%s)
exec > >(tee $OUT/call.log) 2>&1
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv
lscpu | grep -E "Model name|^CPU\(s\)|NUMA|Thread|Socket|MHz"; nvidia-smi topo -m | head -4; cat /proc/uptime
timeout 200 python benchmarks/ntt_fast/host_drift.py $OUT/drift.json --seconds 150
echo "drift done after $(( $(date +%s) - T0 )) s"
timeout 60 python benchmarks/ntt_fast/sampler.py $OUT/sampler.json --log-sizes 14-17
timeout 60 python -m cuzk.cli bench ntt --backend cuda --log-sizes $(seq -s, 10 18) --json $OUT/bench-ntt.json 2>&1 | tail -10
echo "done after $(( $(date +%s) - T0 )) s"
