"""How much of a streamed key's transfer hides behind the MSMs over it (issue 14: at 24 GiB each
streamed query's time looked like its transfer plus its compute; benchmarks/results/
2026-12-04-h200-stop37/call2).

Usage: python benchmarks/stream_overlap/overlap.py OUT.json [LOG_N] [LOG_PIECES] [VECTORS]

2^LOG_N distinct G1 bases (``device_bases``) written as uncompressed encodings to a file in
/dev/shm and mapped (``fileio.map_readonly``: read by pread, as the prover reads a key), random
device scalars. For each piece size (2^LOG_PIECES, comma list) and vector count (VECTORS, comma
list) and each side-stream kind (CuPy's default priority; the device's highest priority, made by
the driver's ``cuStreamCreateWithPriority`` and wrapped as a CuPy ``ExternalStream``): the seconds
of the stream alone (pieces loaded and decoded, nothing computed), of the MSMs over the same
pieces of resident bases, and of the streamed MSMs (``msm_many``), the streamed result checked
equal to the resident one first. Overlap = (stream + compute − both) / min(stream, compute): 1 when
the shorter one hides fully, 0 when they run one after the other. Prints a line per case and the
peaks; writes OUT.json.
"""

import contextlib
import ctypes
import json
import os
import resource
import sys
import threading
import time

import cupy as cp
import numpy as np

from cuzk.backend.cuda import CUDABackend, CUDAMSMContext
from cuzk.bench.kernels import _rand_device, device_bases
from cuzk.curve import G1
from cuzk.fileio import map_readonly


def walk(sctx, m: int, in_thread: bool = False) -> float:
    """Seconds to walk the streamed context's pieces of m points with nothing computed (from a
    helper thread: ``in_thread``, the device made current there first)."""
    if in_thread:
        cp.cuda.Device(sctx._be._device_id).use()
    # in a thread, its decodes on a stream of its own: on the NULL stream they wait for the MSMs
    st = cp.cuda.Stream(non_blocking=True) if in_thread else cp.cuda.get_current_stream()
    with st:
        t0 = time.perf_counter()
        for _lo, _b in sctx._streamed_pieces(m):
            pass
        st.synchronize()
        return time.perf_counter() - t0


def concurrent_cases(be, sctx, rctx, scalars, k: int, lp: int, rows: list) -> None:
    """The stream alone in a thread beside resident MSMs of ``scalars`` over pieces of 2^lp (no
    dependency between them), its decode kernels on and off, the MSM's small reads pageable and
    page-locked (``runtime.PINNED_READS``): does anything but the decode keep them apart?"""
    from cuzk.backend.cuda import runtime as rt

    m, v = 1 << lp, len(scalars)
    for decode, pinned in ((True, False), (True, True), (False, False), (False, True)):
        rt.PINNED_READS = pinned
        decodes(sctx, decode)
        side_t = {}

        def side_run():
            side_t["s"] = walk(sctx, m, in_thread=True)
        with staging_timers() as alone:
            ts, _ = timed(lambda: walk(sctx, m))
        tc, _ = timed(lambda: rctx.msm_many(scalars, piece=m))
        th = threading.Thread(target=side_run)
        with staging_timers() as beside:
            t0 = time.perf_counter()
            th.start()
            rctx.msm_many(scalars, piece=m)
            cp.cuda.Device().synchronize()
            tm = time.perf_counter() - t0
            th.join()
            tb = time.perf_counter() - t0
        row = {"log_n": k, "log_piece": lp, "vectors": v, "concurrent": True, "decode": decode, "pinned_reads": pinned,
               "stream_s": ts, "compute_s": tc, "both_s": tb, "msm_beside_s": tm, "stream_beside_s": side_t["s"],
               "overlap": (ts + tc - tb) / min(ts, tc), "staging_alone_s": alone, "staging_beside_s": beside}
        rows.append(row)
        print(f"concurrent decode={decode} pinned_reads={pinned}: stream {ts:.3f}, compute {tc:.3f}; together "
              f"{tb:.3f} (msm {tm:.3f}, stream {side_t['s']:.3f}), overlap {row['overlap']:.2f}; staging s alone "
              f"{ {a: round(b, 3) for a, b in alone.items()} }, beside {({a: round(b, 3) for a, b in beside.items()})}",
              flush=True)
    rt.PINNED_READS = True
    decodes(sctx, True)


@contextlib.contextmanager
def staging_timers():
    """Seconds the streamed walk's staging spends in each step (summed over chunks, any thread):
    reading the file into a pinned buffer (``copy_rows``), queuing its copy (``send``: the
    ``cudaMemcpyAsync`` call and an event record), waiting for a buffer's last copy (``wait``) and
    queuing the piece's decode on the caller's stream. Which one grows beside MSMs says what
    holds the stream up (the GIL, a driver lock, the copy engine)."""
    from cuzk.backend.cuda import msm as msm_mod
    from cuzk.backend.cuda import pieces

    acc = {"copy_rows": 0.0, "send": 0.0, "wait": 0.0, "decode": 0.0}
    lock = threading.Lock()

    def timing(name, f):
        def g(*a, **kw):
            t = time.perf_counter()
            try:
                return f(*a, **kw)
            finally:
                with lock:
                    acc[name] += time.perf_counter() - t
        return g

    real_stage, real_copy, real_decode = msm_mod.stage_rows, pieces.copy_rows, msm_mod.CUDAMSMContext._decode

    def stage(src, lo, hi, staging, send, wait, pending):
        return real_stage(src, lo, hi, staging, timing("send", send), timing("wait", wait), pending)
    msm_mod.stage_rows, pieces.copy_rows = stage, timing("copy_rows", real_copy)
    msm_mod.CUDAMSMContext._decode = timing("decode", real_decode)
    try:
        yield acc
    finally:
        msm_mod.stage_rows, pieces.copy_rows, msm_mod.CUDAMSMContext._decode = real_stage, real_copy, real_decode


def decodes(sctx, on: bool) -> None:
    """The streamed context's piece decodes (and their check) on, or replaced by nothing."""
    for name in ("_decode", "_check_decoded"):
        if on:
            sctx.__dict__.pop(name, None)
        else:
            setattr(sctx, name, lambda *a, **kw: None)


def prio_streams():
    """A maker of non-blocking streams at the device's highest priority, and the range."""
    lib = ctypes.CDLL("libcuda.so.1")
    lo, hi = ctypes.c_int(), ctypes.c_int()
    assert lib.cuCtxGetStreamPriorityRange(ctypes.byref(lo), ctypes.byref(hi)) == 0

    def make():
        h = ctypes.c_void_p()
        rc = lib.cuStreamCreateWithPriority(ctypes.byref(h), 1, hi.value)   # CU_STREAM_NON_BLOCKING
        assert rc == 0, rc
        return cp.cuda.ExternalStream(h.value, cp.cuda.runtime.getDevice())

    return make, (lo.value, hi.value)


def timed(f):
    cp.cuda.Device().synchronize()
    t = time.perf_counter()
    out = f()
    cp.cuda.Device().synchronize()
    return time.perf_counter() - t, out


SPIN = r"""extern "C" __global__ void spin(long long cycles) {
    long long t = clock64();
    while (clock64() - t < cycles) {}
}"""


def spin_cases(sctx, m, rows):
    """The stream in a thread while the main thread keeps every SM busy for 2 s with a spinning
    kernel and then either sleeps (no CUDA call) or waits in a CUDA call (stream or device
    synchronize), on the legacy NULL stream or a non-blocking one; decode kernels off (they would
    wait for free SMs) except in the last case. Which host call, if any, keeps the stream out."""
    kern = cp.RawKernel(SPIN, "spin")
    rate = cp.cuda.runtime.getDeviceProperties(0)["clockRate"] * 1e3   # Hz
    sms = cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]
    cycles = int(2.0 * rate)
    import cupyx
    small = cp.zeros(16, dtype=cp.uint32)
    for case in ("sleep-null", "sync-null", "sync-own", "devsync-null", "get-null", "getpinned-null",
                 "sleep-null-decode"):
        decodes(sctx, case.endswith("decode"))
        side_t = {}

        def side_run():
            side_t["s"] = walk(sctx, m, in_thread=True)
        st = cp.cuda.Stream.null if "null" in case else cp.cuda.Stream(non_blocking=True)
        cp.cuda.Device().synchronize()
        t0 = time.perf_counter()
        kern((sms * 8,), (256,), (np.int64(cycles),), stream=st)
        th = threading.Thread(target=side_run)
        th.start()
        if case.startswith("sleep"):
            time.sleep(2.3)
        elif case.startswith("devsync"):
            cp.cuda.Device().synchronize()
        elif case.startswith("getpinned"):   # a read after the kernel into page-locked memory
            small.get(out=cupyx.empty_pinned(small.shape, dtype=small.dtype))
        elif case.startswith("get"):   # into pageable memory
            small.get()
        else:
            st.synchronize()
        t_main = time.perf_counter() - t0
        th.join()
        cp.cuda.Device().synchronize()
        rows.append({"spin_case": case, "main_s": t_main, "stream_beside_s": side_t["s"]})
        print(f"spin {case}: main {t_main:.3f} s, stream beside it {side_t['s']:.3f} s", flush=True)
    decodes(sctx, True)


def main():
    out_path = sys.argv[1]
    k = int(sys.argv[2]) if len(sys.argv) > 2 else 26
    pieces = [int(x) for x in (sys.argv[3] if len(sys.argv) > 3 else "24,25").split(",")]
    vectors = [int(x) for x in (sys.argv[4] if len(sys.argv) > 4 else "1,5").split(",")]
    sweep = os.environ.get("SWEEP", "1") == "1"   # 0: only the stream beside unrelated MSMs
    n = 1 << k
    be = CUDABackend()
    dev = device_bases(be, G1, n)
    rctx = CUDAMSMContext.from_device_affine(be, dev, G1)
    path = f"/dev/shm/overlap-{os.getpid()}.bin"
    t = time.perf_counter()
    with open(path, "wb") as f:
        for lo in range(0, n, 1 << 22):
            f.write(np.ascontiguousarray(rctx.encoded(lo, min(n, lo + (1 << 22)))).tobytes())
    print(f"2^{k} encodings written in {time.perf_counter() - t:.1f} s ({n * 96 / 1e9:.1f} GB)", flush=True)
    mm = map_readonly(path)
    host = np.frombuffer(mm, dtype=np.uint8).reshape(n, 96)
    sctx = be.msm_context(G1, host, resident=False)
    scalars = [_rand_device(n) for _ in range(max(vectors))]
    make_prio, prange = prio_streams()
    plain = be.side_stream
    rows = []
    try:
        for lp in pieces if sweep else ():
            m = 1 << lp
            for prio in (False, True):
                be.side_stream = make_prio if prio else plain

                ts, _ = timed(lambda: walk(sctx, m))
                ts, _ = timed(lambda: walk(sctx, m))   # the second: staging buffers pinned already
                for v in vectors:
                    tc, want = timed(lambda: rctx.msm_many(scalars[:v], piece=m))
                    tc, want = timed(lambda: rctx.msm_many(scalars[:v], piece=m))
                    tb, got = timed(lambda: sctx.msm_many(scalars[:v], piece=m))
                    equal = got == want
                    tb, got = timed(lambda: sctx.msm_many(scalars[:v], piece=m))
                    overlap = (ts + tc - tb) / min(ts, tc)
                    row = {"log_n": k, "log_piece": lp, "vectors": v, "priority": prio, "stream_s": ts,
                           "compute_s": tc, "both_s": tb, "overlap": overlap, "equal": bool(equal),
                           "stream_gbps": n * 96 / ts / 1e9}
                    rows.append(row)
                    print(f"2^{k} pieces 2^{lp} x{v} {'prio' if prio else 'plain'}: stream {ts:.3f} s "
                          f"({row['stream_gbps']:.1f} GB/s), compute {tc:.3f}, both {tb:.3f}, overlap {overlap:.2f}, "
                          f"equal {equal}", flush=True)
        be.side_stream = plain   # CuPy's streams: the driver's need this thread's context current
        m = 1 << pieces[-1]
        if os.environ.get("CONC", "1") == "1":
            concurrent_cases(be, sctx, rctx, scalars[: vectors[-1]], k, pieces[-1], rows)
        if os.environ.get("SPIN", "0") == "1":
            spin_cases(sctx, m, rows)
    finally:
        be.side_stream = plain
        os.unlink(path)
    peak = {"host_rss_peak_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
            "gpu_pool_peak_bytes": cp.get_default_memory_pool().total_bytes(), "priority_range": prange}
    print(peak)
    with open(out_path, "w") as f:
        json.dump({"rows": rows, **peak}, f, indent=1)


if __name__ == "__main__":
    main()
