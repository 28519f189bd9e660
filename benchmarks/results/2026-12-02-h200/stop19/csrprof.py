"""Where the matrices' one-time conversion to pinned uint32 goes (``SpMVOps._host_csr32``, the
first spmv of a limited 32 GiB prove: 7.9 s at 24 GiB in call 2): the PCE file's page-cache
state, then per matrix the conversion as the prover runs it, then for the largest column array:
pread alone, pread + bound check, pread + check + cast (``spmv.fill_checked``) on 1/4/8/16 threads,
into a registered (pinned) buffer.

Run: PYTHONPATH=src python benchmarks/results/2026-12-02-h200/stop19/csrprof.py PCE OUT.json
"""
import json
import sys
import time

import numpy as np

from cuzk import fileio
from cuzk.backend.cuda import CUDABackend, spmv
from cuzk.backend.cuda.pieces import run_threaded
from cuzk.r1cs.pce import read_pce

path, out = sys.argv[1:3]
res = {"meminfo_before": {ln.split(":")[0]: ln.split()[1] for ln in open("/proc/meminfo") if ln.startswith(("Cached", "Shmem:", "MemFree"))}}
r1cs, _ = read_pce(path, mapped=True)
mats = {"a": r1cs.A, "b": r1cs.B, "c": r1cs.C}
with CUDABackend() as bk:
    res["host_csr32_s"] = {}
    for k, m in mats.items():
        t = time.perf_counter()
        bk._host_csr32(m)
        res["host_csr32_s"][k] = round(time.perf_counter() - t, 3)
        print(k, res["host_csr32_s"][k], m.nnz, flush=True)
    big = max(mats.values(), key=lambda m: m.nnz).indices
    dst = bk.host_empty(big.shape, np.uint32)
    C = 1 << 22

    def pread_only(a):
        tmp = spmv._scratch(min(C, big.shape[0] - a), big.dtype)
        fileio.read_rows(tmp, big[a:a + C])

    def pread_check(a):
        tmp = spmv._scratch(min(C, big.shape[0] - a), big.dtype)
        fileio.read_rows(tmp, big[a:a + C])
        spmv._in_bounds(tmp, r1cs.num_vars)

    for label, fn in (("pread", pread_only), ("pread_check", pread_check)):
        for th in (1, 4, 8, 16):
            t = time.perf_counter()
            run_threaded(fn, range(0, big.shape[0], C), th)
            res[f"{label}_{th}_GBps"] = round(big.nbytes / (time.perf_counter() - t) / 1e9, 2)
    for th in (1, 4, 8, 16):
        t = time.perf_counter()
        spmv.fill_checked(dst, big, r1cs.num_vars, threads=th)
        res[f"fill_checked_{th}_GBps"] = round(big.nbytes / (time.perf_counter() - t) / 1e9, 2)
print(json.dumps(res), flush=True)
json.dump(res, open(out, "w"), indent=1)
