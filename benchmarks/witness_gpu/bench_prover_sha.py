"""``synthesis_sha: prover`` on a device: a partition's witness file with the SHA-256 compressions'
inputs (version 3) against the same partition's native file (every bit stored), side by side in
one process: seconds to read each file, to upload and expand it on the device (the prover's
``compact_to_device_async``: for the prover file the kernel computes the bits in device memory,
``computed.sha_bits_on_device``), and, for reference, to compute the bits on the host (``CompactAssignment.resolved``);
the two device assignments compared element for element before anything is timed. Prints the
figures and writes JSON (time, peak host RSS, peak GPU memory).

    python benchmarks/witness_gpu/bench_prover_sha.py NATIVE.wit PROVER.wit OUT.json [REPEAT]
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path

import numpy as np

from cuzk.backend import get_backend
from cuzk.r1cs.witness import read_witness_compact


def _timed(fn, repeat: int):
    runs = []
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        runs.append(time.perf_counter() - t)
    return out, runs


def main(native: str, prover: str, out: str, repeat: int = 5) -> dict:
    res: dict = {"native": native, "prover": prover, "repeat": repeat}
    with get_backend("cuda") as bk:
        cp = bk.cp
        for name, path in (("native", native), ("prover", prover)):
            cw, runs = _timed(lambda p=path: read_witness_compact(p), 2)
            res[f"{name}_bytes"], res[f"{name}_read_s"] = Path(path).stat().st_size, min(runs)
            res[f"{name}_sha_lanes"] = 0 if cw.sha is None else int(cw.sha.job_of.shape[0])

            def upload(c=cw):
                w = bk.compact_to_device_async(c).ready()
                cp.cuda.Stream.null.synchronize()
                return w
            w, runs = _timed(upload, repeat)
            res[f"{name}_upload_expand_s"] = runs
            if name == "native":
                ref = w
            else:
                res["equal_on_device"] = bool(cp.array_equal(w, ref))
            del w
        cw = read_witness_compact(prover)
        full, runs = _timed(cw.resolved, 1)
        res["prover_host_resolve_s"] = runs[0]
        res["host_resolved_equals_native"] = bool(np.array_equal(full.bits, read_witness_compact(native).bits))
        res["gpu_peak_bytes"] = int(getattr(bk, "gpu_peak_bytes", 0))
    res["rss_peak_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    Path(out).write_text(json.dumps(res, indent=1) + "\n")
    for k, v in res.items():
        print(f"{k}: {[round(x, 4) for x in v] if isinstance(v, list) else v}")
    return res


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], *(int(x) for x in sys.argv[4:5]))
