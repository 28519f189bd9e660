# Stop 54, call 8 (kind nvidia-h200 named; any H100/H200): the product call's host path with the
# kept pass buffer returned whole (no view) and the small-transform check remembered, against the
# tree before (ntt.py of 18bbcc1, carried as build/ab/ntt.py, in a copy of src/): the NTT GPU tests;
# then launch.py 2^11..2^16 three times each way, alternated (the first new run beside sppark
# 17278d7, ad hoc harness, not committed: build/spk/ntt_bench).
# From the repository root, .whl, build/ab and build/spk/ntt_bench carried:  bash benchmarks/results/2026-12-06-stop54/call8.sh
set -u
export OUT=${OUT:-/tmp/c8out}; mkdir -p $OUT; T0=$(date +%s)
exec > >(tee $OUT/call.log) 2>&1
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv
timeout 150 python -m pytest -q -p no:benchmark tests/test_ntt_variants_gpu.py 2>&1 | tail -1
echo "tests done after $(( $(date +%s) - T0 )) s"
mkdir -p /tmp/old && cp -r src /tmp/old/ && cp build/ab/ntt.py /tmp/old/src/cuzk/backend/cuda/ntt.py
for r in 1 2 3; do
  for v in new old; do
    src=$PWD/src; [ $v = old ] && src=/tmp/old/src
    peer=""; [ $r$v = 1new ] && peer="--peer build/spk/ntt_bench"
    echo "== round $r, $v"
    PYTHONPATH=$src timeout 60 python benchmarks/ntt_fast/launch.py $OUT/launch-$v$r.json --log-sizes 11-16 --repeat 3 $peer 2>&1 | grep -E "^2\^|^ *1[0-9] " | cut -c1-150
    python -c "import json; print('pieces', json.load(open('$OUT/launch-$v$r.json'))['pieces_us'])"
  done
done
rm -f $OUT/*.prof.txt   # the device returns 8 files: the JSON and this log
echo "done after $(( $(date +%s) - T0 )) s"
