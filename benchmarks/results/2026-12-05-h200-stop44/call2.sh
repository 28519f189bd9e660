# Stop 44, call 2: the NTT pass at other occupancies (ntt_radix.cu: o5, o6 register caps; x2, x2o4
# two butterflies a thread; r4o3) against old, each checked against old's output then timed
# 2^16..2^27 (single and back to back); their GPU test; the fused H of a 2^27 domain
# (compute_h_ab) per variant; ncu stall reasons of old's and x2's 2^24 passes.
# From the repository root, .whl carried:  bash benchmarks/results/2026-12-05-h200-stop44/call2.sh
export OUT=${OUT:-/tmp/c2out}; mkdir -p $OUT
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema 2>&1 | tail -2
export PYTHONPATH=$PWD/src:$PWD/tests PYTHONUNBUFFERED=1
timeout 150 python -m pytest -q -m gpu tests/test_ntt_variants_gpu.py > $OUT/variants-gpu-test.log 2>&1; echo "rc=$?" >> $OUT/variants-gpu-test.log
tail -3 $OUT/variants-gpu-test.log
timeout 200 benchmarks/ntt_fast/run.sh $OUT/ntt_sweep.json --log-sizes 16-27 --repeat 5 --loop 10 --budget 190 \
  --variants old,o5,x2,x2o4,o6,r4o3 > $OUT/ntt_sweep.log 2>&1
echo "rc=$?" >> $OUT/ntt_sweep.log; tail -24 $OUT/ntt_sweep.log
cat > /tmp/hfused.py <<'PY'
import sys, cupy as cp
from cuzk.backend.cuda import CUDABackend, ntt
b = CUDABackend(); n = 1 << 27
rs = cp.random.RandomState(7)
def rand():
    x = rs.randint(0, 2**62, size=(n, 4), dtype=cp.uint64); x[:, 3] &= (1 << 60) - 1; return x
a0, b0 = rand(), rand()
ref = None
for v in sys.argv[1:]:
    ntt.NTT_VARIANT = v
    ts = []
    for r in range(4):
        a, bb = a0.copy(), b0.copy(); cp.cuda.Device().synchronize()
        e0, e1 = cp.cuda.Event(), cp.cuda.Event(); e0.record()
        h = b.compute_h_ab(a, bb, n); e1.record(); e1.synchronize()
        ts.append(cp.cuda.get_elapsed_time(e0, e1))
        if r == 0:
            same = True if ref is None else bool((h == ref).all())
            if ref is None: ref = h.copy()
        del a, bb, h
    print(f"fused H 2^27 {v}: equal to old {same}, ms {sorted(ts[1:])}", flush=True)
PY
timeout 120 python /tmp/hfused.py old x2 o5 old x2 o5 > $OUT/hfused.log 2>&1; echo "rc=$?" >> $OUT/hfused.log; cat $OUT/hfused.log
cat > /tmp/ntt24.py <<'PY'
import sys, cupy as cp
from cuzk.backend.cuda import CUDABackend, ntt
ntt.NTT_VARIANT = sys.argv[1]
b = CUDABackend(); n = 1 << 24
x = cp.zeros((n, 4), dtype=cp.uint64); x[:, 0] = cp.arange(n, dtype=cp.uint64)
out, tmp = cp.empty_like(x), cp.empty_like(x)
for _ in range(2): b._ntt(x, False, out=out, tmp=tmp)
cp.cuda.Device().synchronize()
PY
for v in old x2; do
timeout 80 ncu --clock-control none -k regex:ntt_pass -s 3 -c 3 --section SpeedOfLight --section Occupancy --section WarpStateStats \
  --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio python /tmp/ntt24.py $v > $OUT/ncu_ntt24_$v.txt 2>&1
echo "ncu rc=$?" >> $OUT/ncu_ntt24_$v.txt
grep -E "ncu rc|Duration|Warp Cycles Per Issued|Achieved Occupancy|Registers" $OUT/ncu_ntt24_$v.txt | head -16
grep -E "issue_stalled" $OUT/ncu_ntt24_$v.txt | sort -k3 -g -r | head -8
done
