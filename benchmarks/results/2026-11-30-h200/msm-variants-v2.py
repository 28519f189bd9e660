"""Device experiment 1 (2026-11-30, H200): MSM variants from precompiled cubins (msm-variants-build-v2.sh; no NVRTC time), each checked against arkworks at n = 700 and against the first variant at 2^20..2^24, then timed (median of 5 wall-clock runs; phases from one profiled run)."""
import importlib.util
import json
import os
import random
import statistics
import sys
import time
import types

import cupy as cp
import numpy as np

import cuzk.backend.cuda.backend as cb
from cuzk.backend.cuda import CUDABackend, CUDAMSMContext
from cuzk.curve import G1, G2
from cuzk.field import FR

OUT = os.environ.get("OUT", ".")
D = os.path.dirname(os.path.abspath(__file__))
T0 = time.perf_counter()
RES = {}
R = FR.modulus


def log(m):
    print(f"[{time.perf_counter() - T0:6.1f}s] {m}", flush=True)


def save():
    with open(os.path.join(OUT, "exp1.json"), "w") as f:
        json.dump(RES, f, indent=1)


def mod(name):
    return cp.RawModule(path=os.path.join(D, name + ".cubin"))


def rand_dev(n):
    w = (cp.random.random((n, 8)) * 2.0**32).astype(cp.uint32)
    x = cp.ascontiguousarray(w).view(cp.uint64).reshape(n, 4)
    x[:, 3] &= cp.uint64((1 << 62) - 1)
    return x


def timed(fn, reps):
    out = []
    for _ in range(reps):
        cp.cuda.Stream.null.synchronize()
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


be = CUDABackend()
rng = random.Random(1)


def host_pts(grp, k):
    g = grp.generator()
    return [grp.mul(g, rng.randrange(1, R)) for _ in range(k)]


def bases(grp, n):
    na = 1024
    a, b = host_pts(grp, na), host_pts(grp, max(1, n // na))
    return be.points_sum_grid(grp, be.points_upload_affine(grp, grp.to_array(a)), be.points_upload_affine(grp, grp.to_array(b)), n)


def check_small(grp):
    n = 700
    pts = host_pts(grp, n)
    ctx = be.msm_context(grp, grp.to_array(pts))
    sc = [rng.randrange(R) for _ in range(n)]
    ok = ctx.msm(sc) == grp.msm(pts, sc)
    sc2 = [rng.choice([0, 1, R - 1]) for _ in range(n)]
    ok = ok and ctx.msm(sc2) == grp.msm(pts, sc2)
    return ok


def run_variant(grp, vname, dev_bases, sizes, scal, ref, reps=5, key=None):
    cb._MODULES[("msm.cu", grp.name)] = mod(vname)
    ok = check_small(grp)
    r = {"small_ok": ok}
    for k in sizes:
        n = 1 << k
        ctx = CUDAMSMContext.from_device_affine(be, dev_bases[:n], grp)
        s = scal[:n]
        got = ctx.msm(s)
        prof = {}
        ctx.msm(s, profile=prof)
        runs = timed(lambda: ctx.msm(s), reps)
        same = None
        if (grp.name, k) in ref:
            same = got == ref[(grp.name, k)]
        else:
            ref[(grp.name, k)] = got
        r[k] = {"median_ms": 1e3 * statistics.median(runs), "min_ms": 1e3 * min(runs),
                "profile_ms": {a: round(1e3 * b, 2) for a, b in prof.items()}, "same_as_ref": same}
        log(f"{grp.name} {vname} 2^{k}: {r[k]['median_ms']:.2f} ms (min {r[k]['min_ms']:.2f}) same={same} small_ok={ok} {r[k]['profile_ms']}")
    RES[key or f"{grp.name}:{vname}"] = r
    save()


def old_baseline(dev_bases, sizes, scal, reps=5):
    """git HEAD's backend.py + msm.cu (cubin) on the same bases and scalars."""
    pkg = types.ModuleType("cuzk.backend.cuda_old")
    pkg.__path__ = [os.path.join(D, "old")]
    sys.modules["cuzk.backend.cuda_old"] = pkg
    spec = importlib.util.spec_from_file_location("cuzk.backend.cuda_old.backend", os.path.join(D, "old", "backend.py"))
    old = importlib.util.module_from_spec(spec)
    sys.modules["cuzk.backend.cuda_old.backend"] = old
    spec.loader.exec_module(old)
    old._MODULES["msm.cu"] = mod("old_g1")
    obe = old.CUDABackend()
    r = {}
    for k in sizes:
        n = 1 << k
        ctx = old.CUDAMSMContext.from_device_affine(obe, dev_bases[:n])
        s = scal[:n]
        got = ctx.msm(s)
        prof = {}
        ctx.msm(s, profile=prof)
        runs = timed(lambda: ctx.msm(s), reps)
        same = got == REF.get(("G1", k))
        r[k] = {"median_ms": 1e3 * statistics.median(runs), "min_ms": 1e3 * min(runs),
                "profile_ms": {a: round(1e3 * b, 2) for a, b in prof.items()}, "same_as_ref": same}
        log(f"G1 OLD 2^{k}: {r[k]['median_ms']:.2f} ms (min {r[k]['min_ms']:.2f}) same={same} {r[k]['profile_ms']}")
    RES["G1:old"] = r
    save()


REF = {}
cb._MODULES[("msm.cu", "G1")] = mod("g1_call4")
cb._MODULES[("msm.cu", "G2")] = mod("g2_2")
log("generating bases")
b1 = bases(G1, 1 << 24)
b2 = bases(G2, 1 << 22)
s1 = rand_dev(1 << 24)
cp.cuda.Stream.null.synchronize()
log("bases ready")
for v in ["g1_call4", "g1_inl4", "g1_call3", "g1_inl3"]:
    try:
        run_variant(G1, v, b1, [20, 22, 24], s1, REF)
    except Exception as e:  # noqa
        log(f"variant {v} failed: {e!r}")
try:
    old_baseline(b1, [20, 22, 24], s1)
except Exception as e:  # noqa
    log(f"old baseline failed: {e!r}")
for v in ["g2_2", "g2_3"]:
    try:
        run_variant(G2, v, b2, [20, 22], s1, REF)
    except Exception as e:  # noqa
        log(f"variant {v} failed: {e!r}")
# chunk length L around the default, with the best G1 variant so far
best = min((k for k in RES if k.startswith("G1:") and k != "G1:old"), key=lambda k: RES[k][24]["median_ms"])
log(f"best G1 {best}")
orig = cb._chunk_len
for f in (0.5, 2.0):
    cb._chunk_len = lambda total, B, f=f: max(8, int(orig(total, B) * f))
    try:
        run_variant(G1, best.split(":")[1], b1, [24], s1, REF, reps=3, key=f"G1:L*{f}")
    except Exception as e:  # noqa
        log(f"L {f} failed: {e!r}")
cb._chunk_len = orig
bestg2 = min((k for k in RES if k.startswith("G2:")), key=lambda k: RES[k][22]["median_ms"])
for c in (16, 18):
    cb._MODULES[("msm.cu", "G2")] = mod(bestg2.split(":")[1])
    ctx = CUDAMSMContext.from_device_affine(be, b2, G2)
    runs = timed(lambda: ctx.msm(s1[: 1 << 22], c=c), 3)
    RES[f"G2:c={c}"] = 1e3 * statistics.median(runs)
    log(f"G2 2^22 c={c}: {RES[f'G2:c={c}']:.2f} ms")
# fixed base
for grp, k in ((G1, 20), (G2, 20)):
    ks = [int(v) for v in FR.random(1 << k, np.random.default_rng(3))]
    be.fixed_base_mul(grp, grp.generator(), ks[:1000])
    t = time.perf_counter()
    out = be.fixed_base_mul(grp, grp.generator(), ks)
    dt = time.perf_counter() - t
    idx = [0, 5, 77, (1 << k) - 1]
    ok = all(grp.from_uncompressed(out[i].tobytes()) == grp.mul(grp.generator(), ks[i]) for i in idx)
    RES[f"fixed_base:{grp.name}:2^{k}"] = {"seconds": dt, "spot_ok": ok}
    log(f"fixed base {grp.name} 2^{k}: {dt:.2f} s ok={ok}")
save()
log("done")
