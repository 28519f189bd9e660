"""Does one partition's H step (the quotient's six NTTs) hide behind another partition's MSMs
when the two run on two CUDA streams at once? (issue 17: steady 32 GiB proof 1.59 s, of which
the quotient 0.31 s and the MSMs 1.13 s run one after the other on one stream.)

Usage: python benchmarks/h_overlap/h_overlap.py OUT.json [LOG_N] [REPEAT]

2^LOG_N (default 27) distinct G1 bases on the device (``device_bases``), random device scalars,
random a, b and c = a·b. Each case runs in two threads, each on a non-blocking stream of its
own (CuPy's current stream is per thread): "msm" the G1 MSM alone, "h" ``compute_h`` alone,
"both" one of each started together, "msm+2h" one MSM beside two H steps in a row; each with the
H stream at CuPy's default priority and at the device's highest (driver stream wrapped as an
``ExternalStream``). Every concurrent result is checked equal to the one computed alone first.
Overlap = (msm + h − both) / min(msm, h): 1 when the shorter one hides fully, 0 when they run one
after the other. Prints a line per case; writes OUT.json with the peaks.
"""

import ctypes
import json
import resource
import statistics
import sys
import threading
import time

import cupy as cp

from cuzk.backend import get_backend
from cuzk.backend.cuda import CUDAMSMContext
from cuzk.bench.kernels import _rand_device, device_bases
from cuzk.curve import G1


def prio_stream():
    """A non-blocking stream at the device's highest priority (CuPy 14 makes none)."""
    lib = ctypes.CDLL("libcuda.so.1")
    lo, hi = ctypes.c_int(), ctypes.c_int()
    assert lib.cuCtxGetStreamPriorityRange(ctypes.byref(lo), ctypes.byref(hi)) == 0
    h = ctypes.c_void_p()
    assert lib.cuStreamCreateWithPriority(ctypes.byref(h), 1, hi.value) == 0
    return cp.cuda.ExternalStream(h.value, cp.cuda.runtime.getDevice())


def run_threads(jobs):
    """jobs: [(stream, [fn, ...])]; each list runs in order in its own thread on its stream.
    Returns (wall seconds, [[(seconds, result) per fn] per job])."""
    dev = cp.cuda.runtime.getDevice()
    out = [None] * len(jobs)
    start = threading.Barrier(len(jobs) + 1)

    def body(i, stream, fns):
        cp.cuda.Device(dev).use()
        res = []
        with stream:
            start.wait()
            for fn in fns:
                t = time.perf_counter()
                r = fn()
                stream.synchronize()
                res.append((time.perf_counter() - t, r))
        out[i] = res

    threads = [threading.Thread(target=body, args=(i, s, f)) for i, (s, f) in enumerate(jobs)]
    cp.cuda.Device().synchronize()
    for th in threads:
        th.start()
    start.wait()
    t = time.perf_counter()
    for th in threads:
        th.join()
    return time.perf_counter() - t, out


def main():
    path = sys.argv[1]
    k = int(sys.argv[2]) if len(sys.argv) > 2 else 27
    repeat = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    n = 1 << k
    be = get_backend("cuda")
    t = time.perf_counter()
    ctx = CUDAMSMContext.from_device_affine(be, device_bases(be, G1, n), G1)
    s = _rand_device(n)
    a, b = _rand_device(n), _rand_device(n)
    c = be.mul(a, b)
    be.prepare_h(n)
    cp.cuda.Device().synchronize()
    print(f"inputs 2^{k}: {time.perf_counter() - t:.1f} s", flush=True)
    want_msm = ctx.msm(s)
    want_h = be.compute_h(a, b, c, n).copy()
    cp.cuda.Device().synchronize()
    msm = lambda: ctx.msm(s)  # noqa: E731
    h = lambda: be.compute_h(a, b, c, n)  # noqa: E731
    ms, hs = cp.cuda.Stream(non_blocking=True), cp.cuda.Stream(non_blocking=True)
    streams = {"plain": hs, "prio": prio_stream()}
    rows = []
    alone = {}
    for name, jobs in (("msm", [(ms, [msm])]), ("h", [(hs, [h])])):
        walls = []
        for _ in range(repeat):
            w, out = run_threads(jobs)
            walls.append(w)
        ok = (out[0][0][1] == want_msm) if name == "msm" else bool(cp.array_equal(out[0][0][1], want_h))
        alone[name] = statistics.median(walls)
        rows.append({"case": name, "wall_s": walls, "median_s": alone[name], "equal": ok})
        print(f"{name} alone: {alone[name]:.4f} s (runs {', '.join(f'{x:.4f}' for x in walls)}), equal {ok}", flush=True)
    for prio, hst in streams.items():
        for nh in (1, 2):
            walls, msm_s, h_s, oks = [], [], [], []
            for _ in range(repeat):
                w, out = run_threads([(ms, [msm]), (hst, [h] * nh)])
                walls.append(w)
                msm_s.append(out[0][0][0])
                h_s.append(sum(x[0] for x in out[1]))
                oks.append(out[0][0][1] == want_msm and all(bool(cp.array_equal(x[1], want_h)) for x in out[1]))
            both = statistics.median(walls)
            seq = alone["msm"] + nh * alone["h"]
            overlap = (seq - both) / min(alone["msm"], nh * alone["h"])
            row = {"case": f"msm+{nh}h", "priority": prio, "wall_s": walls, "median_s": both, "msm_s": msm_s,
                   "h_s": h_s, "sequential_s": seq, "overlap": overlap, "equal": all(oks)}
            rows.append(row)
            print(f"msm + {nh} h ({prio}): both {both:.4f} s against {seq:.4f} one after the other, overlap "
                  f"{overlap:.2f}; msm {statistics.median(msm_s):.4f} s, h {statistics.median(h_s):.4f} s; "
                  f"equal {all(oks)}", flush=True)
    peak = {"host_rss_peak_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
            "gpu_pool_bytes": int(cp.get_default_memory_pool().total_bytes())}
    print(f"peaks: host RSS {peak['host_rss_peak_bytes'] / 2**30:.2f} GiB, GPU pool "
          f"{peak['gpu_pool_bytes'] / 2**30:.2f} GiB", flush=True)
    with open(path, "w") as f:
        json.dump({"log_n": k, "repeat": repeat, "rows": rows, **peak}, f, indent=1)


if __name__ == "__main__":
    main()
