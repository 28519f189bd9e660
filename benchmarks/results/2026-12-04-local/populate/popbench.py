# Faulting in a fresh 2 GiB anonymous mapping: writing zeros (pinned._touch before stop 35) against
# madvise(MADV_POPULATE_WRITE), 1 and 2 threads of 64 MiB chunks, alternated. Run: python popbench.py
import ctypes, mmap, time, numpy as np
from concurrent.futures import ThreadPoolExecutor
libc = ctypes.CDLL(None, use_errno=True)
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
MADV_POPULATE_WRITE = 23
SIZE = 2 << 30; CH = 64 << 20
def region():
    mm = mmap.mmap(-1, SIZE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    v = np.frombuffer(mm, dtype=np.uint8)
    return mm, v
def touch(v, th):
    with ThreadPoolExecutor(th) as ex: list(ex.map(lambda a: v[a:a+CH].fill(0), range(0, SIZE, CH)))
def populate(v, th):
    base = v.ctypes.data
    def one(a):
        r = libc.madvise(base + a, CH, MADV_POPULATE_WRITE)
        if r != 0: raise OSError(ctypes.get_errno(), "madvise")
    with ThreadPoolExecutor(th) as ex: list(ex.map(one, range(0, SIZE, CH)))
for th in (1, 2):
    for name, f in (("touch", touch), ("populate", populate), ("touch", touch), ("populate", populate)):
        mm, v = region(); t = time.perf_counter(); f(v, th); dt = time.perf_counter() - t
        print(name, th, f"{SIZE/dt/1e9:.2f} GB/s"); del v; mm.close()
