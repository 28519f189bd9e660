# Stop 49, call 2: one synthetic 32 GiB PoRep sector's C1 (no PCE), partition 0's witness by the
# native and the prover path alternated (each in its own process, nothing else running: call 1's
# native synthesis ran beside the PCE), the files compared (the prover file's bits resolved on the
# host); then the two files' device assignments compared and their uploads timed.
set -u
export OUT=${OUT:-/tmp/c2out}; mkdir -p $OUT; T0=$(date +%s)
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name --format=csv,noheader > $OUT/gpu.txt
R=/tmp/s49; mkdir -p $R
python -m cuzk.cli bench circuit --shapes porep-32GiB --workdir $R --phases input,witness --sha native,prover,native,prover --json $OUT/circuit.json > $OUT/inputs.log 2>&1 || tail -5 $OUT/inputs.log
echo "witnesses after $(( $(date +%s) - T0 )) s"; grep "witness" $OUT/inputs.log
python benchmarks/witness_gpu/bench_prover_sha.py $R/porep-32GiB.partition-0.wit $R/porep-32GiB.partition-0.prover.wit $OUT/prover-sha.json 5 > $OUT/prover-sha.log 2>&1; tail -22 $OUT/prover-sha.log
echo "done after $(( $(date +%s) - T0 )) s"
