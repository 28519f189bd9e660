"""Where the host time of a small product NTT goes (``CUDABackend.ntt``, the path ``cuzk bench ntt``
times) against the floor of the same launches (``NTTOps._ntt`` into preallocated buffers, as
``bench.py`` times them), side by side in one process.

Per size (default 2^16, 2^18, 2^20): the product call with its memory queries
(``ntt.SMALL_NTT_BYTES`` 0), without them (a large ``SMALL_NTT_BYTES``) and the floor, each
``--calls`` times back to back between one pair of CUDA events (ms per transform), and the host's
wall per call with the device synchronized once at the end; then a cProfile of the product calls
with the queries (the top functions by
own time, to ``OUT.prof.txt``); then the host cost of the memory queries the product call makes
(``cudaMemGetInfo``, the pool's counters, ``_mem_avail``) and of one ``cp.empty_like``, each
timed over many calls. Outputs equal: the product's and the floor's transforms of the same input.

Run (repository root; CuPy and a CUDA device):
    PYTHONPATH=src python benchmarks/ntt_fast/overhead.py OUT.json [--log-sizes 16,18,20] [--calls 2000]
"""

import argparse
import json

import cupy as cp

from cuzk.backend.cuda import CUDABackend
from cuzk.backend.cuda import ntt as ntt_mod
from cuzk.bench.kernels import back_to_back, device_info, host_per_call as per_call, profile_calls, seeded_device


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--log-sizes", default="16,18,20")
    ap.add_argument("--calls", type=int, default=2000)
    args = ap.parse_args()
    be = CUDABackend()
    rows, prof_text = [], []
    for k in [int(v) for v in args.log_sizes.split(",")]:
        n = 1 << k
        x = seeded_device(n, k)
        out, tmp = cp.empty_like(x), cp.empty_like(x)
        product = lambda: be.ntt(x)   # noqa: E731
        floor = lambda: be._ntt(x, False, out=out, tmp=tmp)   # noqa: E731
        equal = bool((product() == floor()).all())
        row = {"log_size": k, "equal": equal}
        for name, fn, small in (("product_queries", product, 0), ("product_fast", product, 1 << 30),
                                ("floor", floor, 0)):
            ntt_mod.SMALL_NTT_BYTES = small    # 0: every call queries the memory (before stop 48)
            row[f"{name}_ms_back_to_back"] = back_to_back(fn, args.calls) * 1e3
            row[f"{name}_host_us_per_call"] = per_call(fn, args.calls) * 1e6
        ntt_mod.SMALL_NTT_BYTES = 0
        prof_text.append(f"== 2^{k}: {args.calls} product calls\n{profile_calls(product, args.calls)}")
        rows.append(row)
        print(json.dumps(row), flush=True)
    pool = be._pool()
    probes = {
        "memGetInfo": lambda: cp.cuda.runtime.memGetInfo(),
        "pool.free_bytes": lambda: pool.free_bytes(),
        "pool.total_bytes": lambda: pool.total_bytes(),
        "pool.used_bytes": lambda: pool.used_bytes(),
        "pool.get_limit": lambda: pool.get_limit(),
        "_mem_avail": lambda: be._mem_avail(1 << 20),
    }
    x16 = seeded_device(1 << 16, 1)
    probes["empty_like(2^16)"] = lambda: cp.empty_like(x16)
    costs = {name: per_call(fn, 5000) * 1e6 for name, fn in probes.items()}
    print("host us per call:", json.dumps({k: round(v, 2) for k, v in costs.items()}), flush=True)
    with open(args.out, "w") as f:
        json.dump({"rows": rows, "host_us_per_call": costs} | device_info(),
                  f, indent=1)
    with open(args.out.replace(".json", "") + ".prof.txt", "w") as f:
        f.write("\n".join(prof_text))


if __name__ == "__main__":
    main()
