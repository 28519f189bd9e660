# Stop 50, call 1 (needs_h200: the whole key resident needs more than an H100's 80 GB). GPU tests
# (the SHA witness kernel after stop 49's last sha_witness.cuh change, the device fill, the Poseidon
# inputs path, the prover) beside one synthetic 32 GiB PoRep sector's inputs (bench circuit: PCE,
# partition 0's witness by the native and by the prover path); then partition 0 proved 10 times
# from each file with no device limit (stop 18's limits.py), every proof verified: the steady
# seconds per 32 GiB partition on the H200, with the SHA-256 bits made on the host or on the device.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-05-stop50/call1.sh
set -u
export OUT=${OUT:-/tmp/c1out}; mkdir -p $OUT; T0=$(date +%s)
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader > $OUT/gpu.txt; cat $OUT/gpu.txt
( timeout 240 python -m pytest -q -rs -m "gpu or not gpu" tests/test_sha_witness_gpu.py tests/test_witness_inputs_gpu.py tests/test_synthesis_gpu.py tests/test_prove_gpu.py > $OUT/gpu-tests.log 2>&1; echo "pytest rc=$?" >> $OUT/gpu-tests.log ) &
R=/tmp/s18; mkdir -p $R
python -m cuzk.cli bench circuit --shapes porep-32GiB --workdir $R --phases input,pce,witness --parallel --sha native,prover --json $OUT/circuit.json > $OUT/inputs.log 2>&1 || tail -5 $OUT/inputs.log
echo "inputs after $(( $(date +%s) - T0 )) s"; ls -la $R | grep wit
wait; tail -3 $OUT/gpu-tests.log; echo "tests done after $(( $(date +%s) - T0 )) s"
for form in native prover; do
  [ $form = prover ] && { mv $R/porep-32GiB.partition-0.wit $R/native.wit; cp $R/porep-32GiB.partition-0.prover.wit $R/porep-32GiB.partition-0.wit; }
  mkdir -p $OUT/$form; OUT=$OUT/$form GPU_TESTS=none LIMITS="" PARTS=10 LIMIT=${FORM_S:-170} KEEP=1 bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/$form/run.log 2>&1
  python3 -c "
import json; d = json.load(open('$OUT/$form/limits.json'))
for x in d['points']: print('$form', x['limit_gib'], round(x['s_per_proof'], 3), x['proofs'], x['verified'], x.get('error', '')[:60], round(x['gpu_peak_bytes'] / 2**30, 1), x['phases_per_proof'])"
  echo "$form after $(( $(date +%s) - T0 )) s"
done
cd $OUT && tar czf /tmp/c1.tgz native prover && rm -rf native prover && mv /tmp/c1.tgz $OUT/
