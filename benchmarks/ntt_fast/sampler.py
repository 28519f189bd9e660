"""Does a memory-sampling thread slow the host-bound small NTTs? ``cuzk bench ntt`` ran a
``cuzk.memory.MemorySampler`` beside its timed calls until stop 54, and its back-to-back figures at
2^15..2^16 came out 1.1-1.4x launch.py's on the same machine (stop 53, calls 10 and 11).

Per size: the forward NTT (``CUDABackend.ntt``, the product call ``cuzk bench ntt`` times),
``kernels.b2b_calls(k)`` calls back to back between one pair of CUDA events, and the host µs per
call of as many calls; ``--runs`` of each in a block (about 0.1-0.2 s: a sampler wakes every 50 ms),
each round one block without and one with a sampler thread running from before the block's first
run (alternated, ``--rounds`` rounds; medians and each run's figure reported). Also the sampler's own
cost on this host: the milliseconds of one sample (``MemorySampler._sample``: the process tree,
``memory.descendants``, and the CuPy pool query), median of 100, and the number of processes on
the host (what psutil's fallback walk reads).

JSON: ``rows`` (per size: ``b2b_ms``/``host_us`` medians and runs per mode), ``sample_ms``,
``processes``, the device.

Run (repository root; CuPy and a CUDA device):
    PYTHONPATH=src python benchmarks/ntt_fast/sampler.py OUT.json [--log-sizes 14-18] [--rounds 3] [--runs 15]
"""

import argparse
import json
import statistics
import time

import psutil

from cuzk.backend.cuda import CUDABackend
from cuzk.bench.kernels import b2b_calls, back_to_back, device_info, host_per_call, log_range, seeded_device
from cuzk.memory import MemorySampler

MODES = ("none", "sampler")


def sample_ms(samples: int = 100) -> float:
    """Median milliseconds of one ``MemorySampler`` sample on this host."""
    s, out = MemorySampler(), []
    for _ in range(samples):
        t = time.perf_counter()
        s._sample()
        out.append(1e3 * (time.perf_counter() - t))
    return statistics.median(out)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--log-sizes", type=log_range, default=list(range(14, 19)))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--runs", type=int, default=15)
    a = ap.parse_args()
    be = CUDABackend()
    res = device_info() | {"sample_ms": round(sample_ms(), 4),
           "processes": len(psutil.pids()), "rows": []}
    print(f"{res['device']}: one sample {res['sample_ms']:.3f} ms, {res['processes']} processes", flush=True)
    for k in a.log_sizes:
        x, calls = seeded_device(1 << k, k), b2b_calls(k)
        runs: dict[str, list[float]] = {}
        for _ in range(a.rounds):
            for mode in MODES:
                sampler = MemorySampler().start() if mode == "sampler" else None
                for _ in range(a.runs):
                    runs.setdefault(f"b2b_ms_{mode}", []).append(1e3 * back_to_back(lambda: be.ntt(x), calls))
                    runs.setdefault(f"host_us_{mode}", []).append(1e6 * host_per_call(lambda: be.ntt(x), calls))
                if sampler is not None:
                    sampler.stop()
        row = {"log_size": k, "calls": calls} | {n: round(statistics.median(v), 5) for n, v in runs.items()}
        res["rows"].append(row | {"runs": {n: [round(t, 5) for t in v] for n, v in runs.items()}})
        print(f"2^{k}: b2b ms none / sampler {row['b2b_ms_none']:.4f} / {row['b2b_ms_sampler']:.4f}, "
              f"host us {row['host_us_none']:.2f} / {row['host_us_sampler']:.2f}", flush=True)
    with open(a.out, "w") as f:
        json.dump(res, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
