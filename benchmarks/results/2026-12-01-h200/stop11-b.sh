# Stop 11, device run B (one H200): after the tidy-up (CUDA host code split, one prover, bench
# package) and the streamed key: the GPU test files, the kernel benchmarks through `cuzk bench`
# (same sizes as stop 10's bench_cuda.py runs), and the default 2 KiB batch through Snakemake on
# the GPU. From the repository root, .whl carried:  bash benchmarks/results/2026-12-01-h200/stop11-b.sh
set -u
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema snakemake 2>&1 | tail -2
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; df -h / /tmp | tail -2
timeout 300 python -m pytest -q -rs --durations=10 -m "gpu or not gpu" tests/test_setup_resident.py tests/test_prove_gpu.py \
  tests/test_gpu_memory_plan.py tests/test_backend_cuda.py tests/test_gpus.py tests/test_ff_host.py tests/test_cuda_encoding.py > $OUT/gpu-tests.log 2>&1
echo "pytest rc=$?" >> $OUT/gpu-tests.log; tail -4 $OUT/gpu-tests.log
B="python -m cuzk.cli bench"
( timeout 60 $B ntt --backend cuda --log-sizes 20,24,26 --repeat 10 --json $OUT/bench-ntt.json
  timeout 90 $B msm --group g1 --backend cuda --log-sizes 20,22,24 --json $OUT/bench-msm-g1.json
  timeout 60 $B msm --group g2 --backend cuda --log-sizes 20,22 --json $OUT/bench-msm-g2.json ) > $OUT/bench.log 2>&1
echo "bench rc=$?"; grep -iE "ntt|msm|2\^|ms" $OUT/bench.log | head -20
timeout 240 python -m snakemake --cores 16 --resources mem_gb=64 gpu=1 --config backend=cuda results=/tmp/r2k > /tmp/wf2k.log 2>&1
echo "workflow rc=$?"; tail -3 /tmp/wf2k.log; cat /tmp/r2k/report/summary.md
cp /tmp/wf2k.log /tmp/r2k/; tar czf $OUT/workflow-2kib.tgz -C /tmp/r2k report benchmarks verify logs wf2k.log c1 2>/dev/null; ls -la $OUT
