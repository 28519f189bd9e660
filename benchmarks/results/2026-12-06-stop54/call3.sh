# Stop 54, call 3 (kind nvidia-h200 named; any H100/H200): the NTT/launch/memory/prove GPU tests;
# then sampler.py 2^14..2^17 with this stop's MemorySampler (one read of the process tree a sample,
# from the kernel's per-task children lists); cuzk bench ntt 2^10..2^18.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-06-stop54/call3.sh
set -u
export OUT=${OUT:-/tmp/c3out}; mkdir -p $OUT; T0=$(date +%s)
exec > >(tee $OUT/call.log) 2>&1
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv
ls /proc/$$/task/$$/children && echo "the kernel lists each task's children"
timeout 280 python -m pytest -q -p no:benchmark tests/test_ntt_variants_gpu.py tests/test_driver_launch.py tests/test_gpu_memory_plan.py tests/test_prove_gpu.py tests/test_memory.py 2>&1 | tail -3
echo "tests done after $(( $(date +%s) - T0 )) s"
timeout 60 python benchmarks/ntt_fast/sampler.py $OUT/sampler.json --log-sizes 14-17
timeout 60 python -m cuzk.cli bench ntt --backend cuda --log-sizes $(seq -s, 10 18) --json $OUT/bench-ntt.json 2>&1 | tail -10
echo "done after $(( $(date +%s) - T0 )) s"
