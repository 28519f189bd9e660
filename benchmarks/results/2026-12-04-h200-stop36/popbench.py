# Faulting in fresh 4 GiB anonymous mappings on the device host: writing zeros (pinned._touch
# before stop 35) against madvise(MADV_POPULATE_WRITE) (after), 8 threads of 64 MiB chunks, with
# and without MADV_HUGEPAGE, alternated; free 2 MiB block bytes printed first (pinned.free_huge_bytes).
# Run from the repository root: PYTHONPATH=src python popbench.py
import ctypes, mmap, time
from concurrent.futures import ThreadPoolExecutor
import numpy as np
from cuzk.backend.cuda.pinned import free_huge_bytes
libc = ctypes.CDLL(None, use_errno=True)
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
MADV_POPULATE_WRITE = 23
SIZE, CH, TH = 4 << 30, 64 << 20, 8
print("free 2 MiB blocks GiB", round(free_huge_bytes(open("/proc/buddyinfo").read()) / 2**30, 1))
def touch(v):
    with ThreadPoolExecutor(TH) as ex: list(ex.map(lambda a: v[a:a+CH].fill(0), range(0, SIZE, CH)))
def populate(v):
    base = v.ctypes.data
    def one(a):
        if libc.madvise(base + a, CH, MADV_POPULATE_WRITE) != 0: raise OSError(ctypes.get_errno(), "madvise")
    with ThreadPoolExecutor(TH) as ex: list(ex.map(one, range(0, SIZE, CH)))
for huge in (False, True):
    for name, f in (("touch", touch), ("populate", populate)) * 2:
        mm = mmap.mmap(-1, SIZE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        if huge: mm.madvise(mmap.MADV_HUGEPAGE)
        v = np.frombuffer(mm, dtype=np.uint8); t = time.perf_counter(); f(v); dt = time.perf_counter() - t
        print(f"{name:8s} huge={huge!s:5s} {SIZE/dt/1e9:6.2f} GB/s"); del v; mm.close()
