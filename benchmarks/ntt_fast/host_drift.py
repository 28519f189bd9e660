"""The product call's host cost over a device machine's first minutes, core by core: is a fresh
host slow for a while (stop 53 saw the small sizes, measured first, up to twice as slow), and are
some cores slower than others?

For ``--seconds``: each step pins this process to the next CPU of its affinity set (round robin),
times ``kernels.b2b_calls(k)`` forward NTTs of 2^k (``CUDABackend.ntt``, the product call) as host
µs per call (``kernels.host_per_call``, least of 3), then the same unpinned; a row per step
(seconds since start, seconds since the host booted, the CPU, both figures, the CPU the unpinned
run ended on, the 1-minute load).

JSON: ``rows``, ``cpus``, the device. Printed: per CPU the median pinned µs in the first and the
last third of the run.

Run (repository root; CuPy and a CUDA device):
    PYTHONPATH=src python benchmarks/ntt_fast/host_drift.py OUT.json [--seconds 150] [--log 14]
"""

import argparse
import json
import os
import statistics
import time

import psutil

from cuzk.backend.cuda import CUDABackend
from cuzk.bench.kernels import b2b_calls, device_info, host_per_call, seeded_device


def uptime() -> float:
    """Seconds since the host booted (``/proc/uptime``)."""
    with open("/proc/uptime") as f:
        return float(f.read().split()[0])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--seconds", type=float, default=150)
    ap.add_argument("--log", type=int, default=14)
    a = ap.parse_args()
    be, cpus = CUDABackend(), sorted(os.sched_getaffinity(0))
    x, calls = seeded_device(1 << a.log, a.log), b2b_calls(a.log)
    product = lambda: be.ntt(x)   # noqa: E731
    product()
    res = device_info() | {"log_size": a.log, "calls": calls,
           "cpus": cpus, "rows": []}
    t0, i = time.perf_counter(), 0
    while time.perf_counter() - t0 < a.seconds:
        cpu = cpus[i % len(cpus)]
        os.sched_setaffinity(0, {cpu})
        pinned = min(host_per_call(product, calls) for _ in range(3))
        os.sched_setaffinity(0, cpus)
        free = min(host_per_call(product, calls) for _ in range(3))
        res["rows"].append({"t": round(time.perf_counter() - t0, 3), "uptime": round(uptime(), 1), "cpu": cpu,
                            "pinned_us": round(1e6 * pinned, 2), "free_us": round(1e6 * free, 2),
                            "free_ended_on": psutil.Process().cpu_num(), "load1": os.getloadavg()[0]})
        i += 1
    third = a.seconds / 3
    print(f"{res['device']}: 2^{a.log}, {len(res['rows'])} steps, host booted {res['rows'][0]['uptime']:.0f} s before the first")
    print("cpu  pinned us first third / last third   (free us same)")
    for cpu in cpus:
        rows = [r for r in res["rows"] if r["cpu"] == cpu]
        first = [r for r in rows if r["t"] < third] or rows[:1]
        last = [r for r in rows if r["t"] >= 2 * third] or rows[-1:]
        med = lambda rs, key: statistics.median(r[key] for r in rs)   # noqa: E731
        print(f"{cpu:3d}  {med(first, 'pinned_us'):7.2f} / {med(last, 'pinned_us'):7.2f}   "
              f"({med(first, 'free_us'):7.2f} / {med(last, 'free_us'):7.2f})")
    with open(a.out, "w") as f:
        json.dump(res, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
