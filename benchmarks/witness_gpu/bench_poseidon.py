"""The Poseidon witness kernel (``cuzk.backend.cuda.poseidon``) against the native host core
(``synthesis_poseidon: native``), side by side in one run (issue 17, GPU witness phase 2).

Usage: PYTHONPATH=src python benchmarks/witness_gpu/bench_poseidon.py OUT.json [HASHES] [SECTORS] [CHALLENGES]

1. Raw values: HASHES (default 234,900: a 32 GiB WindowPoSt partition's arity-8 Merkle hashes,
   2349 sectors × 10 challenges × 10 levels) arity-8 hashes of random inputs (each limb below
   2^63, the top one below 2^62: values below 2^254) on the GPU (upload, kernel,
   download: wall seconds, median of 3 after a warm-up), the native core on one core over a
   tenth of them (its seconds scaled up), values compared on that tenth.
2. Synthesis: one WindowPoSt partition over SECTORS synthetic 32 GiB sectors (CHALLENGES each;
   default 128 × 10) with native and with the GPU core (``gpu_poseidon``), witness-only in this
   process; seconds and the SHA-256 of each witness file (they must be equal).
Prints a line per figure, the peaks (host RSS, GPU pool); writes OUT.json.
"""

import json
import resource
import statistics
import sys
import time
from pathlib import Path

import cupy as cp
import numpy as np

from cuzk.backend import poseidon_host
from cuzk.backend.cuda.poseidon import legacy_limbs
from cuzk.circuits import post as cpost
from cuzk.field import FR
from cuzk.hash import poseidon as P
from cuzk.r1cs.poseidon import gpu_poseidon
from cuzk.r1cs.poseidon_path import choose_poseidon
from cuzk.sector.post import generate_post
from cuzk.sector.post_synthetic import SyntheticSector
from alternate import witness_runs   # this folder's (the script's directory is on sys.path)


def main():
    out = sys.argv[1]
    hashes = int(sys.argv[2]) if len(sys.argv) > 2 else 234_900
    sectors = int(sys.argv[3]) if len(sys.argv) > 3 else 128
    challenges = int(sys.argv[4]) if len(sys.argv) > 4 else 10
    res = {"hashes": hashes, "sectors": sectors, "challenges": challenges}
    native = choose_poseidon("native").lib
    arity, strength = 8, P.STANDARD
    tag = P.merkle_tree_tag(arity, strength)
    rng = np.random.default_rng(17)
    x = rng.integers(0, 1 << 63, size=(hashes, arity, FR.limbs), dtype=np.uint64)
    x[:, :, 3] &= np.uint64((1 << 62) - 1)   # below r
    nops = poseidon_host.legacy_nops(arity, strength)
    legacy_limbs(x[:128], arity, tag, strength)   # compile, constants
    runs = []
    for _ in range(3):
        cp.cuda.Device().synchronize()
        t = time.perf_counter()
        got = legacy_limbs(x, arity, tag, strength)
        runs.append(time.perf_counter() - t)
    part = hashes // 10
    t = time.perf_counter()
    want = poseidon_host.legacy_limbs(native, x[:part], arity, tag, strength)
    nat = (time.perf_counter() - t) * hashes / part
    equal = got[:part].tobytes() == want.tobytes()
    res["values"] = {"gpu_seconds": runs, "gpu_median_s": statistics.median(runs), "native_one_core_s_scaled": nat,
                     "values": hashes * nops, "bytes_out": hashes * nops * 32, "equal_on_tenth": bool(equal)}
    print(f"{hashes:,} arity-8 hashes ({hashes * nops / 1e6:.1f} M values): GPU {statistics.median(runs):.3f} s "
          f"(runs {', '.join(f'{r:.3f}' for r in runs)}; upload, kernel, download), native one core "
          f"{nat:.1f} s (scaled from {part:,}); equal {equal}", flush=True)
    del got, want
    size = 32 << 30
    t = time.perf_counter()
    doc = generate_post("window", [SyntheticSector(1000 + i, size) for i in range(sectors)], bytes(range(32)),
                        bytes(32), sector_count=sectors, challenge_count=challenges)
    shape = cpost.PoStShape(f"test-only-window-post-32GiB-{sectors}x{challenges}", "window", size, sectors,
                            challenges, test_only=True)
    res["input_seconds"] = time.perf_counter() - t
    paths = {"native": choose_poseidon("native").active, "gpu": gpu_poseidon}
    res["synthesis"] = witness_runs(paths, lambda cs: cpost.synthesize(cs, shape, cpost.values(doc, 0)), 3)
    res["files_identical"] = len({r["sha256"] for r in res["synthesis"]}) == 1
    res["host_rss_peak_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    res["gpu_pool_peak_bytes"] = max(r["gpu_pool_bytes"] for r in res["synthesis"])
    print(f"{sectors} sectors x {challenges} challenges: files identical {res['files_identical']}; host RSS peak "
          f"{res['host_rss_peak_bytes'] / 2**30:.2f} GiB, GPU pool {res['gpu_pool_peak_bytes'] / 2**30:.2f} GiB", flush=True)
    Path(out).write_text(json.dumps(res, indent=1) + "\n")


if __name__ == "__main__":
    main()
