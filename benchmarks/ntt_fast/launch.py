"""The NTT's passes launched through the driver with argument blocks built once per shape
(``ntt.NTT_DRIVER_LAUNCH``, ``launch.DriverLaunch``) against CuPy's ``RawKernel`` call, side by
side in one process, with a peer's NTT on the same card.

Per size (default 2^16..2^27): random elements made on the device; the forward NTT and its
inverse through the driver must equal the RawKernel path's, and the inverse must give the input
back (else exit status 1 after the table); the same for the overlapped launches. Then, alternated ``--repeat`` times (medians), ms per
transform with ``count`` transforms back to back between one pair of CUDA events:

- ``product``: ``CUDABackend.ntt(x)`` (a new output each call: the path ``cuzk bench ntt``
  times), in each mode of ``MODES`` (overlap, driver, raw);
- ``floor``: ``NTTOps._ntt`` into a preallocated output and pass buffer, each mode;
- ``graph``: ``count`` floor transforms captured as one CUDA graph and replayed (no host work
  between kernels, launched one after another: the device's time, as a C++ host launching the
  same kernels would see it);
- ``host_us``: the product call's host microseconds per call (the device synchronized once at
  the end), each mode;
- ``product_alloc``, ``host_alloc``: the product call with driver launches allocating its pass
  buffer at each call (``ntt.NTT_SCRATCH_ELEMS`` = 0).

Then at the first size a cProfile of ``--calls`` product calls (top functions by own time, to
``OUT.prof.txt``) and the host microseconds of the pieces of one call (array allocation, one pass
launched each way, the stream query).

``--peer BINARY`` runs a binary that prints JSON lines {"impl", "log", "order", "back_to_back_ms"}
(an ad hoc sppark harness, not part of this repository) after the timings, on the same card, and
adds its natural-order ("NN") figures and our ratios to the JSON.

JSON: ``rows`` (one per size), ``pieces_us``, ``peer`` (its lines), ``gpu_pool_peak_bytes``,
``host_peak_rss_bytes``, the device and commit.

Run (repository root; CuPy and a CUDA device):
    PYTHONPATH=src python benchmarks/ntt_fast/launch.py OUT.json [--log-sizes 16-27] [--repeat 5] [--peer PATH]
"""

import argparse
import json
import resource
import statistics
import subprocess
import sys

import cupy as cp

from cuzk.backend.cuda import CUDABackend
from cuzk.backend.cuda import ntt as ntt_mod
from cuzk.bench.kernels import back_to_back, device_info, host_per_call, log_range, profile_calls, seeded_device

ALL = ntt_mod.ALL_LOGS
MODES = {"overlap": (True, ALL), "driver": (True, frozenset()), "raw": (False, frozenset())}
"""Launch modes: (``NTT_DRIVER_LAUNCH``, ``NTT_OVERLAP_LOGS``)."""


def use(mode: str) -> None:
    ntt_mod.NTT_DRIVER_LAUNCH, ntt_mod.NTT_OVERLAP_LOGS = MODES[mode]


def graph_ms(fn, count: int) -> float:
    """ms per call of ``count`` calls of fn captured in one CUDA graph, one replay timed (after one
    untimed replay)."""
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        s.begin_capture()
        for _ in range(count):
            fn()
        g = s.end_capture()
        g.launch()
        s.synchronize()
        e0, e1 = cp.cuda.Event(), cp.cuda.Event()
        e0.record()
        g.launch()
        e1.record()
        e1.synchronize()
    return cp.cuda.get_elapsed_time(e0, e1) / count


def pieces(be, x, calls: int = 100) -> dict:
    """Host µs per call of the pieces of one product call at x's size: the least of 5 rounds of
    ``calls`` calls, few enough that the launches do not fill the device's queue (the host would
    then wait for the kernels)."""
    out, tmp = cp.empty_like(x), cp.empty_like(x)
    k = x.shape[0].bit_length() - 1
    p = be._ntt_passes(k, 1, False, None, None, False)[0][0]
    use("overlap")
    stream = cp.cuda.get_current_stream().ptr
    probes = {
        "empty_like": lambda: cp.empty_like(x),
        "cp_empty": lambda: cp.empty(x.shape, x.dtype),
        "ndarray": lambda: cp.ndarray(x.shape, x.dtype),
        "get_current_stream": lambda: cp.cuda.get_current_stream().ptr,
        "pass_driver": lambda: p(stream, x, out),
        "pass_rawkernel": lambda: p.raw(x, out),
        "ntt_passes_lookup": lambda: be._ntt_passes(k, 1, False, None, None, False),
        "floor_call": lambda: be._ntt(x, False, out=out, tmp=tmp),
        "product_call": lambda: be.ntt(x),
    }
    return {name: round(min(1e6 * host_per_call(fn, calls) for _ in range(5)), 2) for name, fn in probes.items()}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--log-sizes", type=log_range, default=list(range(16, 28)))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--peer", default="")
    a = ap.parse_args()
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    be = CUDABackend()
    pool = cp.get_default_memory_pool()
    rows, bad, pool_peak, prof, piece_us = [], [], 0, "", {}
    for k in a.log_sizes:
        n = 1 << k
        x = seeded_device(n, k)
        out, tmp = cp.empty_like(x), cp.empty_like(x)
        count = max(4, min(400, (1 << 24) >> k))
        got, ok = {}, True
        for mode in MODES:
            use(mode)
            got[mode] = be.ntt(x)
            if not (bool((got[mode] == got["overlap"]).all()) and bool((be.ntt(got[mode], inverse=True) == x).all())):
                bad.append((k, mode))
                ok = False
        del got
        product = lambda: be.ntt(x)   # noqa: E731
        floor = lambda: be._ntt(x, False, out=out, tmp=tmp)   # noqa: E731
        runs: dict[str, list[float]] = {}
        for _ in range(a.repeat):
            for tag in MODES:
                use(tag)
                runs.setdefault(f"product_{tag}_ms", []).append(1e3 * back_to_back(product, count))
                runs.setdefault(f"floor_{tag}_ms", []).append(1e3 * back_to_back(floor, count))
                runs.setdefault(f"host_{tag}_us", []).append(1e6 * host_per_call(product, count))
            use("driver")   # the product call allocating its pass buffer each time (as before stop 53)
            ntt_mod.NTT_SCRATCH_ELEMS, kept = 0, ntt_mod.NTT_SCRATCH_ELEMS
            runs.setdefault("product_alloc_ms", []).append(1e3 * back_to_back(product, count))
            runs.setdefault("host_alloc_us", []).append(1e6 * host_per_call(product, count))
            ntt_mod.NTT_SCRATCH_ELEMS = kept
        use("driver")
        runs["graph_ms"] = [graph_ms(floor, count)]
        use("overlap")
        pool_peak = max(pool_peak, int(pool.total_bytes()))
        row = {"log_size": k, "equal": ok, "count": count, "passes": len(be._ntt_passes(k, 1, False, None, None, False)[0])}
        row |= {name: round(statistics.median(v), 5) for name, v in runs.items()}
        row["product_ratio"] = round(row["product_overlap_ms"] / row["product_raw_ms"], 4)
        row["runs"] = runs
        rows.append(row)
        print(f"2^{k}: product overlap / driver / raw / driver allocating {row['product_overlap_ms']:.4f} / "
              f"{row['product_driver_ms']:.4f} / {row['product_raw_ms']:.4f} / {row['product_alloc_ms']:.4f} ms, floor {row['floor_overlap_ms']:.4f} / {row['floor_driver_ms']:.4f} / "
              f"{row['floor_raw_ms']:.4f}, graph {row['graph_ms']:.4f}, host {row['host_overlap_us']:.1f} / "
              f"{row['host_driver_us']:.1f} / {row['host_raw_us']:.1f} / {row['host_alloc_us']:.1f} us, equal {ok}", flush=True)
        if k == a.log_sizes[0]:
            piece_us = pieces(be, x)
            print("host us per call:", json.dumps(piece_us), flush=True)
            prof = f"== 2^{k}: {a.calls} product calls, overlapped driver launches\n{profile_calls(product, a.calls)}"
        x = out = tmp = None   # freed before the next size
        pool.free_all_blocks()
    peer = []
    if a.peer:
        p = subprocess.run([a.peer, *map(str, a.log_sizes)], capture_output=True, text=True, timeout=240)
        peer = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
        nn = {d["log"]: d["back_to_back_ms"] for d in peer if d.get("order") == "NN"}
        print("peer:", p.stderr.strip()[-300:], flush=True)
        cols = ("product_overlap", "product_driver", "floor_overlap", "floor_driver", "graph")
        print(f"{'2^k':>4} " + " ".join(f"{c:>15}" for c in cols) + f" {'peer NN':>9}  (ms; / peer)")
        for row in rows:
            if row["log_size"] not in nn:
                continue
            row["peer_nn_ms"] = nn[row["log_size"]]
            for mode in cols:
                row[f"{mode}_vs_peer"] = round(row[f"{mode}_ms"] / row["peer_nn_ms"], 4)
            print(f"{row['log_size']:>4} " + " ".join(f"{row[c + '_ms']:>8.4f} {row[c + '_vs_peer']:>6.3f}" for c in cols)
                  + f" {row['peer_nn_ms']:>9.4f}")
    res = device_info() | {"commit": commit,
           "cupy": cp.__version__, "repeat": a.repeat, "rows": rows, "pieces_us": piece_us, "peer": peer,
           "mismatch": bad, "gpu_pool_peak_bytes": pool_peak,
           "host_peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}
    with open(a.out, "w") as f:
        json.dump(res, f, indent=1)
    with open(a.out.removesuffix(".json") + ".prof.txt", "w") as f:
        f.write(prof)
    print(f"gpu pool peak {pool_peak / 2**30:.2f} GiB, host peak RSS {res['host_peak_rss_bytes'] / 2**30:.2f} GiB")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
