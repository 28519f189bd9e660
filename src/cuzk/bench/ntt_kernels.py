"""``python -m cuzk.bench.ntt_kernels``: the cuda backend's two NTT pass kernels side by side
(``NTT_KERNELS``: ``radix2``, the former pass, and ``rx``, the register-radix one) in one process.

Per size 2^k: a fresh random input is transformed by both kernels and the results compared
(they must be equal: exact field arithmetic, same transform), then each kernel's forward NTT is
timed by CUDA events (median of ``repeat`` runs after two warm-ups). Then ``compute_h`` at
2^``h_log`` (3 inverse + 3 coset NTTs and the elementwise work, the schedule ``compute_h``
picks) with each kernel: results compared, median seconds of ``h_repeat`` runs after one
warm-up, and peak device memory beyond the inputs (what the CuPy pool grew by during the first
call, cached blocks freed before it) beside the plan's estimate (``compute_h_device_bytes``). ``--variants rx-R-T-B,...`` times compile variants of the rx pass
too (``ntt.NTT_KERNELS``), each checked equal to radix2. Prints a table and writes JSON.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from ..backend.cuda import CUDABackend
from ..backend.cuda.ntt import NTT_KERNELS, _rx_config
from ..backend.cuda.plan import compute_h_device_bytes
from ..fileio import atomic_write_text
from .kernels import SPPARK_NTT_S, _device, _free_pool, _pool_bytes, _rand_device, _time_events

KERNELS = ("radix2", "rx")


def _ntt_row(bk, k: int, repeat: int, kernels) -> dict:
    """Each kernel's forward NTT of 2^k elements: equality with radix2 on fresh input, median ms."""
    _free_pool()
    x = _rand_device(1 << k)
    ref = bk._ntt(x, False, kernel="radix2")
    equal = all(bool((bk._ntt(x, False, kernel=kern) == ref).all()) for kern in kernels[1:])
    del ref
    row = {"log_size": k, "equal": equal}
    for kern in kernels:
        runs = _time_events(lambda kern=kern, x=x: bk._ntt(x, False, kernel=kern), repeat)
        row[f"{kern}_ms"] = statistics.median(runs) * 1e3
    row["ratio_rx_over_radix2"] = row["rx_ms"] / row["radix2_ms"]
    if k in SPPARK_NTT_S:
        row["sppark_ms"] = SPPARK_NTT_S[k] * 1e3
    del x
    _free_pool()
    return row


def _h_row(bk, k: int, repeat: int) -> dict:
    """compute_h of 2^k with each kernel (``ntt_kernel``): equality, median s, and the bytes the
    pool grew by during the first call (its peak beyond the live inputs: the pool keeps freed
    blocks) beside ``compute_h_device_bytes`` of the schedule used (the plan's estimate)."""
    n = 1 << k
    _free_pool()
    a, b, c = (_rand_device(n) for _ in range(3))
    bk.prepare_h(n)   # twiddles and factor tables cached first: neither kernel's peak counts them
    row: dict = {"log_size": k}
    res = []
    for kern in KERNELS:
        bk.ntt_kernel = kern
        _free_pool()
        base = _pool_bytes()
        res.append(bk.compute_h(a, b, c, n))
        sched = bk.last_h_schedule
        row[f"{kern}_peak_extra_bytes"] = _pool_bytes() - base
        row[f"{kern}_schedule"] = list(sched)
        row[f"{kern}_estimate_bytes"] = compute_h_device_bytes(n, sched[0], sched[1], twiddles=False)
        row[f"{kern}_s"] = statistics.median(_time_events(lambda a=a, b=b, c=c: bk.compute_h(a, b, c, n), repeat, warm=1))
    row["equal"] = bool((res[0] == res[1]).all())
    row["ratio_rx_over_radix2"] = row["rx_s"] / row["radix2_s"]
    bk.ntt_kernel = "rx"
    del a, b, c, res
    _free_pool()
    return row


def compare_ntt_kernels(log_sizes=range(16, 28), repeat: int = 7, h_log: int | None = 27, h_repeat: int = 3,
                        json_path: str | None = None, variants=()) -> dict:
    """Time ``NTT_KERNELS`` side by side on the current GPU (module docstring).

    Args:
        log_sizes: NTT sizes as exponents k (2^k elements, k ≤ 27).
        repeat: timed forward NTTs per kernel and size (median reported, ms).
        h_log: compute_h size exponent, or None to skip it.
        h_repeat: timed compute_h calls per kernel (median reported, s).
        json_path: where to write the result (JSON), or None.
        variants: extra rx kernel names "rx-R-T-B" timed beside (NTTs only).

    Returns the result dict: "ntt" rows (log_size, equal, radix2_ms, rx_ms, <variant>_ms,
    ratio_rx_over_radix2, sppark_ms where ``kernels.SPPARK_NTT_S`` has the size),
    "compute_h" row (radix2_s, rx_s, *_peak_extra_bytes, *_estimate_bytes, *_schedule, equal) and
    "all_equal".

    Raises:
        BackendUnavailableError: no CuPy or no CUDA device.
        ValueError: a malformed variant name.
    """
    kernels = (*KERNELS, *variants)
    for v in variants:
        _rx_config(v)
    result: dict = {"benchmark": "ntt-kernels", "kernels": {k: NTT_KERNELS[k] for k in KERNELS}, "variants": list(variants),
                    "repeat": repeat,
                    "date": time.strftime("%Y-%m-%d"), "ntt": []}

    def write() -> None:
        if json_path:
            atomic_write_text(json_path, json.dumps(result, indent=2) + "\n")

    with CUDABackend() as bk:
        result |= _device()
        print(f"{'size':>6} " + " ".join(f"{kern + ' ms':>12}" for kern in kernels) + f" {'rx/radix2':>9}  equal", flush=True)
        for k in log_sizes:
            row = _ntt_row(bk, k, repeat, kernels)
            result["ntt"].append(row)
            print(f"{'2^' + str(k):>6} " + " ".join(f"{row[kern + '_ms']:12.4f}" for kern in kernels)
                  + f" {row['ratio_rx_over_radix2']:9.3f}  {row['equal']}"
                  + (f"  (sppark {row['sppark_ms']:.3f} ms)" if "sppark_ms" in row else ""), flush=True)
            write()
        if h_log is not None:
            h = _h_row(bk, h_log, h_repeat)
            result["compute_h"] = h
            print(f"compute_h 2^{h_log}: radix2 {h['radix2_s']:.4f} s, rx {h['rx_s']:.4f} s "
                  f"({h['ratio_rx_over_radix2']:.3f}), peak beyond inputs {h['radix2_peak_extra_bytes'] / 2**30:.2f} / "
                  f"{h['rx_peak_extra_bytes'] / 2**30:.2f} GiB (estimate {h['rx_estimate_bytes'] / 2**30:.2f}), "
                  f"schedule {h['rx_schedule']}, equal {h['equal']}", flush=True)
    result["all_equal"] = all(r["equal"] for r in result["ntt"]) and result.get("compute_h", {}).get("equal", True)
    write()
    return result


def main(argv=None) -> int:
    """Command line: ``python -m cuzk.bench.ntt_kernels [--sizes 16-27] [--json F] [--variants
    rx-2-256-2,...]``; exit 1 when any result differs between the kernels."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="16-27", help="NTT size exponents, 'lo-hi' (default 16-27)")
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--h-log", type=int, default=27, help="compute_h size exponent; 0 skips it")
    p.add_argument("--h-repeat", type=int, default=3)
    p.add_argument("--json", default=None)
    p.add_argument("--variants", default="", help="comma-separated rx-R-T-B kernels to time beside")
    args = p.parse_args(argv)
    lo, _, hi = args.sizes.partition("-")
    variants = tuple(v for v in args.variants.split(",") if v)
    res = compare_ntt_kernels(range(int(lo), int(hi or lo) + 1), args.repeat, args.h_log or None, args.h_repeat, args.json,
                              variants)
    return 0 if res["all_equal"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
