"""Every pass of an NTT in one launch (``ntt.NTT_FUSED_MAX_LOG``, ``ntt.cuh`` NTT_FUSED_KERNEL)
against one launch per pass, side by side in one process, with a peer's NTT on the same card.

Per size (default 2^10..2^27): random elements made on the device; the fused forward NTT and
its inverse must equal the per-pass launches' and the inverse must give the input back (else
exit status 1 after the table). Then, alternated ``--repeat`` times (medians), ms per transform
with ``count`` transforms back to back between one pair of CUDA events:

- ``product``: ``CUDABackend.ntt(x)`` (a new output each call, the path ``cuzk bench ntt``
  times), fused and per pass;
- ``floor``: ``NTTOps._ntt`` into a preallocated output and pass buffer, fused and per pass;
- ``host_us``: the product call's host microseconds per call (the device synchronized once at
  the end), fused and per pass.

``--peer BINARY`` runs a binary that prints JSON lines {"impl", "log", "order", "back_to_back_ms"}
(an ad hoc sppark harness, not part of this repository) after the timings, on the same card, and
adds its natural-order ("NN") figures and our ratios to the JSON.

JSON: ``rows`` (one per size), ``peer`` (its lines), ``gpu_pool_peak_bytes``,
``host_peak_rss_bytes``, the device and commit.

Run (repository root; CuPy and a CUDA device):
    PYTHONPATH=src python benchmarks/ntt_fast/fused.py OUT.json [--log-sizes 10-27] [--repeat 5] [--peer PATH]
"""

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time

import cupy as cp

from cuzk.backend.cuda import CUDABackend
from cuzk.backend.cuda import ntt as ntt_mod
from cuzk.bench.kernels import back_to_back, seeded_device


def log_sizes(text: str) -> list[int]:
    """'10-27' or '16,20' -> list of ints."""
    if "-" in text:
        lo, hi = text.split("-")
        return list(range(int(lo), int(hi) + 1))
    return [int(v) for v in text.split(",")]


def host_per_call(fn, calls: int) -> float:
    """Host seconds per call of ``calls`` calls, the device synchronized before and once after."""
    cp.cuda.Device().synchronize()
    t = time.perf_counter()
    for _ in range(calls):
        fn()
    cp.cuda.Device().synchronize()
    return (time.perf_counter() - t) / calls


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--log-sizes", type=log_sizes, default=list(range(10, 28)))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--peer", default="")
    a = ap.parse_args()
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    be = CUDABackend()
    pool = cp.get_default_memory_pool()
    rows, bad, pool_peak = [], [], 0
    for k in a.log_sizes:
        n = 1 << k
        x = seeded_device(n, k)
        out, tmp = cp.empty_like(x), cp.empty_like(x)
        count = max(4, min(400, (1 << 24) >> k))

        def on(fused: bool) -> None:
            ntt_mod.NTT_FUSED_MAX_LOG = 27 if fused else 0

        on(False)
        apart = be.ntt(x)
        on(True)
        fused = be.ntt(x)
        ok = bool((fused == apart).all()) and bool((be.ntt(fused, inverse=True) == x).all())
        if not ok:
            bad.append(k)
        del apart, fused
        runs: dict[str, list[float]] = {}
        for _ in range(a.repeat):
            for mode in (True, False):
                on(mode)
                tag = "fused" if mode else "apart"
                runs.setdefault(f"product_{tag}_ms", []).append(1e3 * back_to_back(lambda: be.ntt(x), count))
                runs.setdefault(f"floor_{tag}_ms", []).append(
                    1e3 * back_to_back(lambda: be._ntt(x, False, out=out, tmp=tmp), count))
                runs.setdefault(f"host_{tag}_us", []).append(1e6 * host_per_call(lambda: be.ntt(x), count))
        pool_peak = max(pool_peak, int(pool.total_bytes()))
        row = {"log_size": k, "equal": ok, "count": count, "plan_passes": be._ntt_launch(k, 1, False, None, None, False).passes}
        row |= {name: round(statistics.median(v), 5) for name, v in runs.items()}
        row["product_ratio"] = round(row["product_fused_ms"] / row["product_apart_ms"], 4)
        row["runs"] = runs
        rows.append(row)
        print(f"2^{k}: product fused {row['product_fused_ms']:.4f} / apart {row['product_apart_ms']:.4f} ms "
              f"({row['product_ratio']:.3f}), floor {row['floor_fused_ms']:.4f} / {row['floor_apart_ms']:.4f}, "
              f"host {row['host_fused_us']:.1f} / {row['host_apart_us']:.1f} us, equal {ok}", flush=True)
        del x, out, tmp
        pool.free_all_blocks()
    ntt_mod.NTT_FUSED_MAX_LOG = 27
    peer = []
    if a.peer:
        p = subprocess.run([a.peer, *map(str, a.log_sizes)], capture_output=True, text=True, timeout=240)
        peer = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
        nn = {d["log"]: d["back_to_back_ms"] for d in peer if d.get("order") == "NN"}
        for row in rows:
            if row["log_size"] in nn:
                row["peer_nn_ms"] = nn[row["log_size"]]
                for mode in ("product_fused", "floor_fused", "product_apart"):
                    row[f"{mode}_vs_peer"] = round(row[f"{mode}_ms"] / nn[row["log_size"]], 4)
        print("peer:", p.stderr.strip()[-400:], flush=True)
        print(f"{'2^k':>4} {'product fused':>14} {'product apart':>14} {'floor fused':>12} {'peer NN':>10} {'fused/peer':>10}")
        for row in rows:
            if "peer_nn_ms" in row:
                print(f"{row['log_size']:>4} {row['product_fused_ms']:>14.4f} {row['product_apart_ms']:>14.4f} "
                      f"{row['floor_fused_ms']:>12.4f} {row['peer_nn_ms']:>10.4f} {row['product_fused_vs_peer']:>10.3f}")
    res = {"device": cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)["name"].decode(), "commit": commit,
           "cupy": cp.__version__, "repeat": a.repeat, "rows": rows, "peer": peer, "mismatch": bad,
           "gpu_pool_peak_bytes": pool_peak,
           "host_peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}
    with open(a.out, "w") as f:
        json.dump(res, f, indent=1)
    print(f"gpu pool peak {pool_peak / 2**30:.2f} GiB, host peak RSS {res['host_peak_rss_bytes'] / 2**30:.2f} GiB")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
