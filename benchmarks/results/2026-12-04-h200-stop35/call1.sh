# Stop 35, call 1 (fresh H200): bucket sums by affine levels (batch inversion, 6 products per
# addition against the XYZZ mixed addition's 10): the MSM GPU tests with the affine path on
# (CUZK_MSM_AFFINE=1) and the new test, then G1/G2 MSMs timed by both paths side by side.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-04-h200-stop35/call1.sh
set -u
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1 OUT=${OUT:-/tmp/c1out}; mkdir -p $OUT
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $OUT/gpu.txt
timeout 150 python -m pytest -q -rs -x -m gpu tests/test_backend_cuda.py -k "affine" > $OUT/gpu-tests-affine.log 2>&1; echo "pytest rc=$?" >> $OUT/gpu-tests-affine.log; tail -3 $OUT/gpu-tests-affine.log
CUZK_MSM_AFFINE=1 timeout 200 python -m pytest -q -rs -m gpu tests/test_backend_cuda.py -k "msm" > $OUT/gpu-tests-msm-affine-on.log 2>&1; echo "pytest rc=$?" >> $OUT/gpu-tests-msm-affine-on.log; tail -3 $OUT/gpu-tests-msm-affine-on.log
timeout 200 python -m cuzk.cli bench msm --group g1 --backend cuda --log-sizes 20,22,24,26,27 --affine --windows 17,20,22 --repeat 3 --json $OUT/msm-g1-affine.json > $OUT/msm-g1.log 2>&1
timeout 100 python -m cuzk.cli bench msm --group g2 --backend cuda --log-sizes 20,22 --affine --repeat 3 --json $OUT/msm-g2-affine.json > $OUT/msm-g2.log 2>&1
grep -h "msm 2\^" $OUT/msm-g*.log
python - <<'PY'
import json, os
for f in ("msm-g1-affine.json", "msm-g2-affine.json"):
    p = os.path.join(os.environ["OUT"], f)
    if not os.path.exists(p):
        continue
    for r in json.load(open(p))["sizes"]:
        print(r["group"], r["log_size"], "default", round(r["seconds"] * 1e3, 1),
              {a: round(b * 1e3, 1) for a, b in r["phase_seconds_profiled_run"].items()})
        for k, v in r["by_window"].items():
            print("   ", k, round(v["seconds"] * 1e3, 1), v["equal_to_default"],
                  {a: round(b * 1e3, 1) for a, b in v["phase_seconds_profiled_run"].items()})
PY
