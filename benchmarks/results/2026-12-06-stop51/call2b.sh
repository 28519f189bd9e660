# Stop 51, call 2b, on call 2's warm H200: HIST_AHEAD on against off again at 2^27, 11 runs each.
# From the repository root (.whl carried; the wheels were installed by call 2 on this machine):
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1; nvidia-smi --query-gpu=name --format=csv,noheader; python benchmarks/msm_sort/hist_ahead.py $OUT/hist_ahead27.json 27 11 2>&1 | tee $OUT/hist_ahead27.log
