"""One PoRep partition's witness with the SHA-256 compressions and the Poseidon hashes on the GPU
against the CPU path (both native cores), side by side in one run (issue 17: "witness of one
32 GiB partition on the GPU, against the CPU path on the same machine").

Usage: PYTHONPATH=src python benchmarks/witness_gpu/bench_porep.py SHAPE DIR OUT.json [REPEAT]

"cpu": ``synthesis_sha: native`` and ``synthesis_poseidon: native`` (the workflow's default where
the cores build). "gpu": each compression call's bits from the SHA-256 kernel
(``cuzk.backend.cuda.witness.gpu_compute``, one launch per call) and every Poseidon hash's values
from the Poseidon kernel (``cuzk.r1cs.poseidon.gpu_poseidon``); the rest of the synthesis (the C1
parse, bit decompositions, packing, the value store) stays on the CPU and the witness is
assembled on the host as before. Witness-only, block order, one process, partition 0; REPEAT
(default 3) timed runs of each after a warm-up, alternated; the SHA-256 of each witness file
(they must all be equal). DIR holds the synthetic sector's C1 and check record (made here when
missing). Prints a line per run and the peaks (host RSS, GPU pool); writes OUT.json.
"""

import contextlib
import json
import os
import resource
import sys
import time
from pathlib import Path

from cuzk import pipeline
from cuzk.backend.cuda.witness import gpu_compute
from cuzk.circuits.registry import shape_by_name
from cuzk.r1cs.poseidon import gpu_poseidon
from cuzk.r1cs.poseidon_path import choose_poseidon
from cuzk.r1cs.sha_calls import delegate_compressions
from cuzk.r1cs.sha_path import choose_sha
from alternate import witness_runs   # this folder's (the script's directory is on sys.path)


def main():
    shape_name, d, out = sys.argv[1], sys.argv[2], sys.argv[3]
    repeat = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    res = {"shape": shape_name, "partition": 0}
    c1, rec = os.path.join(d, "c1.json"), os.path.join(d, "checked.json")
    if not os.path.exists(rec):
        os.makedirs(d, exist_ok=True)
        t = time.perf_counter()
        pipeline.prepare({"id": 7, "synthetic": True}, c1, shape_name, "bench", "00" * 32)
        pipeline.check_input(c1, rec, shape_name)
        res["prepare_s"] = time.perf_counter() - t
    shape = shape_by_name(shape_name)
    fam = pipeline.family_of(shape)
    inp = pipeline._read_input(c1, shape, rec)
    naux = shape.stats()["aux"]
    sha, pos = choose_sha("native"), choose_poseidon("native")   # built outside the timing

    @contextlib.contextmanager
    def cpu():
        with sha.active(), pos.active():
            yield

    @contextlib.contextmanager
    def gpu():
        with delegate_compressions(gpu_compute()), gpu_poseidon():
            yield

    res["runs"] = witness_runs({"cpu": cpu, "gpu": gpu}, lambda cs: fam.synthesize(cs, shape, fam.values(inp, 0)),
                               repeat + 1, aux_capacity=naux)
    timed = {p: sorted(r["seconds"] for r in res["runs"] if r["path"] == p and not r["warmup"]) for p in ("cpu", "gpu")}
    res["median_s"] = {p: v[len(v) // 2] for p, v in timed.items()}
    res["files_identical"] = len({r["sha256"] for r in res["runs"]}) == 1
    res["host_rss_peak_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    res["gpu_pool_peak_bytes"] = max(r["gpu_pool_bytes"] for r in res["runs"])
    print(f"{shape_name} partition 0 witness: cpu {res['median_s']['cpu']:.2f} s, gpu {res['median_s']['gpu']:.2f} s "
          f"(medians of {repeat}); files identical {res['files_identical']}; peaks: host RSS "
          f"{res['host_rss_peak_bytes'] / 2**30:.2f} GiB, GPU pool {res['gpu_pool_peak_bytes'] / 2**30:.2f} GiB", flush=True)
    Path(out).write_text(json.dumps(res, indent=1) + "\n")


if __name__ == "__main__":
    main()
