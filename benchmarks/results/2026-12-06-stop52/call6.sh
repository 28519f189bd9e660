# Stop 52, call 6 (the same warm H100 as call 5, 8 s): launch.py at 2^16..2^21 again with 9 repeats,
# sppark 17278d7 after it (ad hoc harness, not committed: build/spk/ntt_bench). Run as given to the
# device from the repository root, .whl and build/spk/ntt_bench carried (call 5 had installed the wheels):
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1; timeout 100 python benchmarks/ntt_fast/launch.py $OUT/launch-b.json --log-sizes 16-21 --repeat 9 --peer build/spk/ntt_bench 2>&1 | grep -v "^host us"
