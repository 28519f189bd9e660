# Stop 49, call 3 (needs_h200: the unlimited point needs more than an H100's 80 GB): one synthetic
# 32 GiB PoRep sector's inputs (PCE, partition 0's witness by the native and the prover path), then
# partition 0 proved 10 times from each file with the whole key resident (stop 18's limits.py,
# no limit), every proof verified: the steady seconds per partition on the H200, and with the
# SHA-256 bits made on the device.
set -u
export OUT=${OUT:-/tmp/c3out}; mkdir -p $OUT; T0=$(date +%s)
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name --format=csv,noheader > $OUT/gpu.txt
R=/tmp/s18; mkdir -p $R
python -m cuzk.cli bench circuit --shapes porep-32GiB --workdir $R --phases input,pce,witness --parallel --sha native,prover --json $OUT/circuit.json > $OUT/inputs.log 2>&1 || tail -5 $OUT/inputs.log
echo "inputs after $(( $(date +%s) - T0 )) s"
for form in native prover; do
  [ $form = prover ] && { mv $R/porep-32GiB.partition-0.wit $R/native.wit; cp $R/porep-32GiB.partition-0.prover.wit $R/porep-32GiB.partition-0.wit; }
  mkdir -p $OUT/$form; OUT=$OUT/$form GPU_TESTS=none LIMITS="" PARTS=10 LIMIT=190 KEEP=1 bash benchmarks/results/2026-12-02-h200/stop18/run-limits.sh > $OUT/$form/run.log 2>&1
  python3 -c "
import json; d = json.load(open('$OUT/$form/limits.json'))
for x in d['points']: print('$form', x['limit_gib'], round(x['s_per_proof'], 3), x['proofs'], x['verified'], x.get('error', '')[:60], round(x['gpu_peak_bytes'] / 2**30, 1), x['phases_per_proof'])"
  echo "$form after $(( $(date +%s) - T0 )) s"
done
cd $OUT && tar czf /tmp/c3.tgz native prover && rm -rf native prover && mv /tmp/c3.tgz $OUT/
