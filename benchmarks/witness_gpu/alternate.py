"""The timing loop shared by ``bench_porep.py`` and ``bench_poseidon.py``: one witness per path in
turn, ``rounds`` times (the first a warm-up), each written and hashed."""

import hashlib
import json
import tempfile
import time
from pathlib import Path

import cupy as cp

from cuzk.r1cs import ConstraintSystem
from cuzk.r1cs.witness import write_witness_compact


def witness_runs(paths: dict, synthesize, rounds: int, aux_capacity: int | None = None) -> list:
    """Per round and path (name → a context manager factory that makes the path active): the
    witness-only synthesis (``synthesize(cs)``) and its compact form timed, the file written, its
    SHA-256 and the GPU pool's bytes (before the frees) recorded and printed as a JSON line."""
    runs = []
    kw = {} if aux_capacity is None else {"aux_capacity": aux_capacity}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(rounds):
            for name, active in paths.items():
                t = time.perf_counter()
                cs = ConstraintSystem(shape=False, witness=True, **kw)
                with active():
                    synthesize(cs)
                cw = cs.assignment_compact()
                secs = time.perf_counter() - t
                f = Path(tmp) / f"{name}.wit"
                write_witness_compact(f, cw)
                run = {"path": name, "warmup": i == 0, "seconds": secs, "aux": cw.num_aux,
                       "sha256": hashlib.sha256(f.read_bytes()).hexdigest(),
                       "gpu_pool_bytes": int(cp.get_default_memory_pool().total_bytes())}
                runs.append(run)
                print(json.dumps(run), flush=True)
                del cs, cw
    return runs
