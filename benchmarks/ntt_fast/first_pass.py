"""Dependent launches for a transform's first pass or only its later ones (``ntt.NTT_OVERLAP_FIRST_LOGS``)?

At 2^16 the product call (``CUDABackend.ntt``) ran back to back at either about 0.026 ms or the
preallocated floor's 0.0214 within one process, and its host cost with dependent launches was
28.3 µs against 23.8 without (stop 54, calls 1 and 4): a dependent launch may cost the host more
while the kernel ahead of it runs, and the first pass's kernel ahead is the previous transform's.

Per size, in each mode of ``MODES`` (alternated, ``--rounds`` rounds of ``--runs`` runs; medians
and each run reported): the product call and the floor (``_ntt`` into a preallocated output and
pass buffer) back to back (``kernels.b2b_calls(k)`` calls between one pair of CUDA events), and
the product call's host µs per call. The forward NTT in each mode is first checked equal to the
first mode's, and its inverse to give the input back (exit status 1 otherwise).

Run (repository root; CuPy and a CUDA device):
    PYTHONPATH=src python benchmarks/ntt_fast/first_pass.py OUT.json [--log-sizes 14-18] [--rounds 5] [--runs 5]
"""

import argparse
import json
import statistics

import cupy as cp

from cuzk.backend.cuda import CUDABackend
from cuzk.backend.cuda import ntt as ntt_mod
from cuzk.bench.kernels import b2b_calls, back_to_back, device_info, host_per_call, log_range, seeded_device

ALL = ntt_mod.ALL_LOGS
MODES = {"all": (ALL, ALL), "later": (ALL, frozenset()), "none": (frozenset(), frozenset())}
"""(``NTT_OVERLAP_LOGS``, ``NTT_OVERLAP_FIRST_LOGS``): every pass dependent, all but the first, none."""


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--log-sizes", type=log_range, default=list(range(14, 19)))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    be = CUDABackend()
    res, bad = device_info() | {"rows": []}, []
    for k in a.log_sizes:
        x, calls = seeded_device(1 << k, k), b2b_calls(k)
        out, tmp = cp.empty_like(x), cp.empty_like(x)
        want = None
        for mode, (logs, first) in MODES.items():
            ntt_mod.NTT_OVERLAP_LOGS, ntt_mod.NTT_OVERLAP_FIRST_LOGS = logs, first
            y = be.ntt(x)
            want = y if want is None else want
            if not (bool((y == want).all()) and bool((be.ntt(y, inverse=True) == x).all())):
                bad.append((k, mode))
        runs: dict[str, list[float]] = {}
        for _ in range(a.rounds):
            for mode, (logs, first) in MODES.items():
                ntt_mod.NTT_OVERLAP_LOGS, ntt_mod.NTT_OVERLAP_FIRST_LOGS = logs, first
                for _ in range(a.runs):
                    runs.setdefault(f"product_ms_{mode}", []).append(1e3 * back_to_back(lambda: be.ntt(x), calls))
                    runs.setdefault(f"floor_ms_{mode}", []).append(
                        1e3 * back_to_back(lambda: be._ntt(x, False, out=out, tmp=tmp), calls))
                    runs.setdefault(f"host_us_{mode}", []).append(1e6 * host_per_call(lambda: be.ntt(x), calls))
        row = {"log_size": k, "calls": calls} | {n: round(statistics.median(v), 5) for n, v in runs.items()}
        res["rows"].append(row | {"runs": {n: [round(t, 5) for t in v] for n, v in runs.items()}})
        print(f"2^{k}: product / floor ms, host us: " + "; ".join(
            f"{m} {row[f'product_ms_{m}']:.4f} / {row[f'floor_ms_{m}']:.4f}, {row[f'host_us_{m}']:.1f}" for m in MODES),
            flush=True)
    res["mismatches"] = bad
    with open(a.out, "w") as f:
        json.dump(res, f, indent=1)
    if bad:
        print(f"MISMATCH: {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
