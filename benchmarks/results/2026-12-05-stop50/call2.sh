# Stop 50, call 2 (any H100/H200): the GPU tests of the SHA-256 witness kernel after stop 49's last
# sha_witness.cuh change (Emit returns before its column loop when nothing is to be written; never
# run on a device in stop 49), the device fill of a prover file, the Poseidon inputs path, the
# device synthesis and the prover; and the SHA kernel's registers and spills as this device's
# nvcc reports them.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-05-stop50/call2.sh
set -u
export OUT=${OUT:-/tmp/c2out}; mkdir -p $OUT; T0=$(date +%s)
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | tee $OUT/gpu.txt
nvcc -arch=sm_90 -cubin -std=c++17 -I src/cuzk/backend/cuda -o /tmp/sha.cubin src/cuzk/backend/cuda/sha_witness.cu -Xptxas -v > $OUT/sha-ptxas.txt 2>&1; grep -i "registers\|spill" $OUT/sha-ptxas.txt
timeout 400 python -m pytest -q -rs -m "gpu or not gpu" tests/test_sha_witness_gpu.py tests/test_witness_inputs_gpu.py tests/test_synthesis_gpu.py tests/test_prove_gpu.py > $OUT/gpu-tests.log 2>&1
echo "pytest rc=$? after $(( $(date +%s) - T0 )) s" >> $OUT/gpu-tests.log; tail -4 $OUT/gpu-tests.log
