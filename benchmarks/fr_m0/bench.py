"""Fr products with M0 from constant memory (``fr.cuh``) against the old immediate
(``CUZK_FR_M0_FOLD``), side by side in one process on the device: the kernels that are mostly Fr
products, outside the NTT sweep (``benchmarks/ntt_fast/run.sh --variants old,fold``).

Usage: PYTHONPATH=src python benchmarks/fr_m0/bench.py OUT.json [HASHES] [LOG_H] [PASSES]

1. The Poseidon witness kernel (``poseidon_witness.cu``): HASHES (default 234,900, a 32 GiB
   WindowPoSt partition's arity-8 Merkle hashes) of random inputs below 2^254, already on the
   device; kernel ms (CUDA events, median of 5 after a warm-up) per build; the two outputs must be
   equal limb for limb. HASHES 0 skips it.
2. ``compute_h_ab`` of a 2^LOG_H domain (default 27) with each NTT pass variant of PASSES (default
   "old,fold": the new build's pass against the old immediate's; the elementwise kernels are the
   new build in both), every size on that variant, alternated twice, median of 3 after a warm-up;
   equal outputs.
Prints each figure, the GPU pool's and the host's peaks; writes OUT.json. Exit status 1 if any
output differs.
"""

import json
import resource
import statistics
import sys

import cupy as cp
import numpy as np

from cuzk.backend import poseidon_host
from cuzk.backend.cuda import CUDABackend, ntt
from cuzk.backend.cuda.poseidon import mont_constants
from cuzk.backend.cuda.runtime import _grid, _i32, _kernel, _u64
from cuzk.hash import poseidon as P

FOLD = ("CUZK_FR_M0_FOLD",)


def timed(fn, runs):
    """fn() once untimed, then ``runs`` times between CUDA events: (median ms, all ms, last output)."""
    out = fn()
    ms = []
    for _ in range(runs):
        e0, e1 = cp.cuda.Event(), cp.cuda.Event()
        e0.record()
        out = fn()
        e1.record()
        e1.synchronize()
        ms.append(cp.cuda.get_elapsed_time(e0, e1))
    return statistics.median(ms), ms, out


def poseidon(hashes: int) -> dict:
    arity, strength = 8, P.STANDARD
    tag = P.merkle_tree_tag(arity, strength)
    rng = np.random.default_rng()
    x = rng.integers(0, 2**63, size=(hashes, arity, 4), dtype=np.uint64)
    x[:, :, 3] >>= 2
    x = poseidon_host.legacy_inputs(x, arity, tag, "bench")
    rf, rp = P.round_numbers(arity, strength)
    nops = poseidon_host.legacy_nops(arity, strength)
    consts = cp.asarray(mont_constants(arity, tag, strength))
    xd = cp.asarray(x)
    res, outs = {}, {}
    for name, defines in (("new", ()), ("fold", FOLD)):
        k = _kernel("poseidon_witness.cu", "poseidon_legacy", defines=defines)
        out = cp.empty((hashes, nops, 4), dtype=cp.uint64)

        def run():
            k((_grid(hashes, 128),), (128,), (consts, _i32(arity + 1), _i32(rf), _i32(rp), xd, _u64(hashes), out, _u64(nops)))
            return out

        med, ms, o = timed(run, 5)
        outs[name] = o.copy()
        res[name] = {"median_ms": med, "runs_ms": ms}
        print(f"poseidon kernel {hashes} arity-8 hashes, {name}: {med:.2f} ms (runs {[round(v, 2) for v in ms]})", flush=True)
    res["equal"] = bool((outs["new"] == outs["fold"]).all())
    res["ratio_new_over_fold"] = res["new"]["median_ms"] / res["fold"]["median_ms"]
    print(f"poseidon: outputs equal {res['equal']}, new / fold {res['ratio_new_over_fold']:.3f}", flush=True)
    return res


def fused_h(log_h: int, passes: list) -> dict:
    b = CUDABackend()
    n = 1 << log_h
    rs = cp.random.RandomState()

    def rand():
        v = rs.randint(0, 2**62, size=(n, 4), dtype=cp.uint64)
        v[:, 3] &= (1 << 60) - 1
        return v

    a0, b0 = rand(), rand()
    ntt.NTT_VARIANT_BY_LOG = {}   # the pass NTT_VARIANT names at every size
    res, outs = {}, {}
    for v in passes + passes:
        ntt.NTT_VARIANT = v

        def run():
            a, bb = a0.copy(), b0.copy()
            return b.compute_h_ab(a, bb, n)

        med, ms, h = timed(run, 3)
        outs[v] = h
        res.setdefault(v, {"median_ms": [], "runs_ms": []})
        res[v]["median_ms"].append(med)
        res[v]["runs_ms"].append(ms)
        print(f"fused H 2^{log_h}, NTT pass {v}: {med:.1f} ms (runs {[round(t, 1) for t in ms]})", flush=True)
        del h
    ntt.NTT_VARIANT = "old"
    res["equal"] = all(bool((outs[v] == outs[passes[0]]).all()) for v in passes)
    print(f"fused H: outputs equal {res['equal']}", flush=True)
    return res


def main():
    out_path = sys.argv[1]
    hashes = int(sys.argv[2]) if len(sys.argv) > 2 else 234_900
    log_h = int(sys.argv[3]) if len(sys.argv) > 3 else 27
    passes = (sys.argv[4] if len(sys.argv) > 4 else "old,fold").split(",")
    res = {"device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(),
           "poseidon": poseidon(hashes) if hashes else {"equal": True}}
    cp.get_default_memory_pool().free_all_blocks()
    res["fused_h"] = fused_h(log_h, passes)
    res["gpu_pool_peak_bytes"] = cp.get_default_memory_pool().total_bytes()
    res["host_peak_rss_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(f"GPU pool {res['gpu_pool_peak_bytes'] / 2**30:.1f} GiB, host RSS {res['host_peak_rss_bytes'] / 2**30:.2f} GiB")
    with open(out_path, "w") as f:
        json.dump(res, f, indent=1)
    sys.exit(0 if res["poseidon"]["equal"] and res["fused_h"]["equal"] else 1)


if __name__ == "__main__":
    main()
