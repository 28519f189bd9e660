"""PoRep partitions' synthesize step as the workflow runs it: ``cuzk.pipeline.synthesize_partition``
in a process of its own per partition (read the checked C1, witness-mode synthesis, the witness
file written), each process timed: wall seconds, user and system CPU seconds, peak RSS
(``os.wait4``). ``--jobs J`` runs up to J partitions at once (the H200 host's 10 partitions of a
32 GiB sector on 16 cores: ``--partitions 0-9 --jobs 10``).

The inputs are made once in OUT: a synthetic sector's C1 (``pipeline.prepare`` with
``synthetic: true``, any size), its check record (``pipeline.check_input``) and a header-only PCE
(synthesize_partition reads only a PCE's header and its last 32 bytes; a real 32 GiB PCE is
18 GiB). One JSON line per partition on stdout, then the batch's wall seconds.

Run: PYTHONPATH=src python benchmarks/results/2026-12-02-cpu-2core-synth/synth_partition.py \\
         SHAPE OUT [--partitions 0-9] [--jobs 1]
"""
import argparse
import hashlib
import json
import os
import struct
import subprocess
import sys
import time

from cuzk import pipeline
from cuzk.circuits.registry import shape_by_name
from cuzk.r1cs.pce import MAGIC, VERSION

CHILD = ("import sys; from cuzk.pipeline import synthesize_partition as s; "
         "s(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])")


def inputs(shape: str, out: str) -> tuple[str, str, str]:
    c1, rec, pce = (os.path.join(out, n) for n in ("c1.json", "checked.json", "stub.pce"))
    if not os.path.exists(pce):
        os.makedirs(out, exist_ok=True)
        pipeline.prepare({"id": 7, "synthetic": True}, c1, shape, "bench", "00" * 32)
        pipeline.check_input(c1, rec, shape)
        hdr = json.dumps({"description": shape_by_name(shape).describe()}).encode()
        with open(pce, "wb") as f:
            f.write(MAGIC + struct.pack("<II", VERSION, len(hdr)) + hdr + hashlib.sha256(hdr).digest())
    return c1, rec, pce


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("shape")
    ap.add_argument("out")
    ap.add_argument("--partitions", default="0", help="e.g. 0 or 0-9 or 0,3")
    ap.add_argument("--jobs", type=int, default=1)
    a = ap.parse_args()
    parts = []
    for p in a.partitions.split(","):
        lo, _, hi = p.partition("-")
        parts += range(int(lo), int(hi or lo) + 1)
    c1, rec, pce = inputs(a.shape, a.out)
    todo, running = list(parts), {}
    t0 = time.perf_counter()
    while todo or running:
        while todo and len(running) < a.jobs:
            k = todo.pop(0)
            wit = os.path.join(a.out, f"partition-{k}.wit")
            proc = subprocess.Popen([sys.executable, "-c", CHILD, c1, rec, pce, str(k), wit])
            running[proc.pid] = (k, time.perf_counter())
        pid, status, ru = os.wait4(-1, 0)
        k, start = running.pop(pid)
        print(json.dumps({"shape": a.shape, "partition": k, "rc": os.waitstatus_to_exitcode(status),
                          "wall_s": round(time.perf_counter() - start, 2), "user_s": round(ru.ru_utime, 2),
                          "sys_s": round(ru.ru_stime, 2), "cpu_s": round(ru.ru_utime + ru.ru_stime, 2),
                          "maxrss_bytes": ru.ru_maxrss * 1024}), flush=True)
    print(json.dumps({"batch_wall_s": round(time.perf_counter() - t0, 2), "partitions": len(parts), "jobs": a.jobs}))


if __name__ == "__main__":
    main()
