"""One WindowPoSt partition's witness over N synthetic 32 GiB sectors (C challenges each), with
``synthesis_poseidon`` python and native in turn: seconds of the synthesis (witness-only, one
process, as the ``synthesize`` step with one thread), and the SHA-256 of the witness file each
wrote.

    PYTHONPATH=src python benchmarks/results/2026-12-03-local/natpos/post_witness.py SECTORS CHALLENGES REPEAT OUT.json

The first run of each path is a warm-up (constants built, library loaded) and is reported apart.
"""

import hashlib
import json
import sys
import tempfile
import time
from pathlib import Path

from cuzk.circuits import post as cp
from cuzk.r1cs import ConstraintSystem
from cuzk.r1cs.poseidon_path import choose_poseidon
from cuzk.r1cs.witness import write_witness_compact
from cuzk.sector.post import generate_post
from cuzk.sector.post_synthetic import SyntheticSector

sectors, challenges, repeat, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
size = 32 << 30
t = time.perf_counter()
doc = generate_post("window", [SyntheticSector(1000 + i, size) for i in range(sectors)], bytes(range(32)), bytes(32),
                    sector_count=sectors, challenge_count=challenges)
shape = cp.PoStShape(f"test-only-window-post-32GiB-{sectors}x{challenges}", "window", size, sectors, challenges,
                     test_only=True)
res = {"sectors": sectors, "challenges": challenges, "aux": shape.stats()["aux"],
       "input_seconds": time.perf_counter() - t, "runs": []}
print(f"{sectors} sectors x {challenges} challenges: {res['aux']:,} aux; input {res['input_seconds']:.1f} s", flush=True)
paths = {name: choose_poseidon(name) for name in ("python", "native")}
with tempfile.TemporaryDirectory() as d:
    for i in range(repeat + 1):
        for name, path in paths.items():
            t = time.perf_counter()
            cs = ConstraintSystem(shape=False, witness=True)
            with path.active():
                cp.synthesize(cs, shape, cp.values(doc, 0))
            cw = cs.assignment_compact()
            secs = time.perf_counter() - t
            f = Path(d) / f"{name}.wit"
            write_witness_compact(f, cw)
            run = {"path": name, "warmup": i == 0, "seconds": secs, "sha256": hashlib.sha256(f.read_bytes()).hexdigest()}
            res["runs"].append(run)
            print(json.dumps(run), flush=True)
res["identical"] = len({r["sha256"] for r in res["runs"]}) == 1
Path(out).write_text(json.dumps(res, indent=1) + "\n")
print("files identical:", res["identical"])
