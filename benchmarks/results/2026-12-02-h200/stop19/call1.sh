# Stop 19, call 1 on the H200: (1) ways to pin host memory (pinbench.py), (2) the synthesize step
# of a 32 GiB PoRep sector on this host (synth_par.py, both orders: partition 0 alone, then 10
# processes at once on its 16 cores).
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-02-h200/stop19/call1.sh
set -u
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1
H=benchmarks/results/2026-12-02-h200/stop19
T0=$(date +%s)
lscpu | grep -E 'Model name|^CPU\(s\)|MHz' > $OUT/host.txt; free -g >> $OUT/host.txt; nproc >> $OUT/host.txt
python benchmarks/results/2026-12-02-local/synth/make_inputs.py porep-32GiB /tmp/syn > $OUT/make_inputs.log 2>&1 &
MI=$!
python $H/pinbench.py 4.3 4 > $OUT/pinbench.json 2> $OUT/pinbench.err
echo "pinbench done after $(( $(date +%s) - T0 )) s"; cat $OUT/pinbench.json
wait $MI; echo "inputs after $(( $(date +%s) - T0 )) s"
for o in block upstream; do python $H/synth_par.py /tmp/syn $o 10 $OUT/synth-$o.json; done
echo "done after $(( $(date +%s) - T0 )) s"
