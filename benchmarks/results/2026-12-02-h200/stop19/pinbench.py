"""Ways to get page-locked host memory for a 32 GiB partition's H scalars (2^27 x 32 B = 4.3 GB)
on the H200 host, timed: cupyx.empty_pinned (cudaHostAlloc through CuPy's pinned pool), one at a
time and from 4 threads; anonymous mmap pre-faulted by 8 threads then cudaHostRegister, with and
without transparent huge pages (madvise MADV_HUGEPAGE). Each buffer's host->device and
device->host copy rate is timed too (a pinned buffer copies at the bus's DMA rate). While one way
pins, the main thread times a stream of small kernels: does the pinning stall other CUDA calls?

Run: python benchmarks/results/2026-12-02-h200/stop19/pinbench.py [GB per buffer] [buffers]
"""
import concurrent.futures as cf
import json
import mmap
import sys
import threading
import time

import cupy as cp
import cupyx
import numpy as np

GB = float(sys.argv[1]) if len(sys.argv) > 1 else 4.3
COUNT = int(sys.argv[2]) if len(sys.argv) > 2 else 4
NB = int(GB * 1e9) // 4096 * 4096
dev = cp.empty(NB // 8, dtype=np.uint64)
out = {"bytes": NB, "count": COUNT, "thp": open("/sys/kernel/mm/transparent_hugepage/enabled").read().strip()}


def rate(host):
    cp.cuda.Device().synchronize()
    t = time.perf_counter()
    cp.cuda.runtime.memcpy(dev.data.ptr, host.ctypes.data, NB, cp.cuda.runtime.memcpyHostToDevice)
    t1 = time.perf_counter()
    cp.cuda.runtime.memcpy(host.ctypes.data, dev.data.ptr, NB, cp.cuda.runtime.memcpyDeviceToHost)
    t2 = time.perf_counter()
    return round(NB / (t1 - t) / 1e9, 1), round(NB / (t2 - t1) / 1e9, 1)


def touch(arr, threads=8):
    step = -(-arr.shape[0] // threads)
    with cf.ThreadPoolExecutor(threads) as ex:
        list(ex.map(lambda a: arr[a:a + step].fill(0), range(0, arr.shape[0], step)))


def mmap_register(huge):
    mm = mmap.mmap(-1, NB, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    if huge:
        mm.madvise(mmap.MADV_HUGEPAGE)
    arr = np.frombuffer(mm, dtype=np.uint64)
    t = time.perf_counter()
    touch(arr)
    t1 = time.perf_counter()
    cp.cuda.runtime.hostRegister(arr.ctypes.data, NB, 0)
    t2 = time.perf_counter()
    return arr, mm, t1 - t, t2 - t1


def kernel_probe(stop, lat):
    """Launch-and-sync a tiny kernel in a loop; record the worst wait (s)."""
    x = cp.zeros(1024, dtype=np.uint64)
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        while not stop.is_set():
            t = time.perf_counter()
            x += 1
            s.synchronize()
            lat.append(time.perf_counter() - t)


def probed(fn):
    stop, lat = threading.Event(), []
    th = threading.Thread(target=kernel_probe, args=(stop, lat))
    th.start()
    time.sleep(0.2)
    t = time.perf_counter()
    r = fn()
    el = time.perf_counter() - t
    stop.set()
    th.join()
    return r, el, round(max(lat), 3) if lat else None


# 1. cudaHostAlloc (CuPy's pinned pool), one at a time
res = []
for i in range(COUNT):
    (a, el, worst) = probed(lambda: cupyx.empty_pinned((NB // 8,), dtype=np.uint64))
    res.append({"s": round(el, 3), "probe_worst_s": worst, "h2d_d2h_GBps": rate(a)})
    del a
out["empty_pinned_sequential"] = res
print(json.dumps(out), flush=True)
cp.get_default_pinned_memory_pool().free_all_blocks()

# 2. cudaHostAlloc from COUNT threads at once
t = time.perf_counter()
with cf.ThreadPoolExecutor(COUNT) as ex:
    bufs = list(ex.map(lambda _: cupyx.empty_pinned((NB // 8,), dtype=np.uint64), range(COUNT)))
out["empty_pinned_threads_s"] = round(time.perf_counter() - t, 3)
del bufs
cp.get_default_pinned_memory_pool().free_all_blocks()

# 3./4. mmap + 8-thread touch + hostRegister, without and with huge pages
for huge in (False, True):
    res = []
    for i in range(COUNT):
        (r, el, worst) = probed(lambda: mmap_register(huge))
        arr, mm, tt, tr = r
        res.append({"s": round(el, 3), "touch_s": round(tt, 3), "register_s": round(tr, 3), "probe_worst_s": worst,
                    "h2d_d2h_GBps": rate(arr)})
        t = time.perf_counter()
        cp.cuda.runtime.hostUnregister(arr.ctypes.data)
        res[-1]["unregister_s"] = round(time.perf_counter() - t, 3)
        del arr, r, mm   # the mapping goes with its last reference
    out["mmap_register_huge" if huge else "mmap_register"] = res
    print(json.dumps(out), flush=True)

# 5. hostRegister without pre-faulting (the driver faults the pages in)
mm = mmap.mmap(-1, NB, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
mm.madvise(mmap.MADV_HUGEPAGE)
arr = np.frombuffer(mm, dtype=np.uint64)
t = time.perf_counter()
cp.cuda.runtime.hostRegister(arr.ctypes.data, NB, 0)
out["register_unfaulted_huge_s"] = round(time.perf_counter() - t, 3)
out["register_unfaulted_huge_GBps"] = rate(arr)
print(json.dumps(out, indent=1))
