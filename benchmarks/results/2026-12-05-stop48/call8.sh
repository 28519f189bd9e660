# Stop 48, call 8, on call 7's warm H200, after setting msm.SEG_FIRST = 16 (the working tree of
# the commit that sets it): the product benchmark of the G1 MSM at 2^24, plain and over shifted bases.
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1; python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema > /dev/null 2>&1; nvidia-smi --query-gpu=name --format=csv,noheader; timeout 100 python -m cuzk.cli bench msm --group g1 --backend cuda --log-sizes 24 --shift 22 --repeat 7 --json $OUT/msm.json 2>&1 | grep "msm 2\|Error"
