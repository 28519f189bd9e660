"""``cuzk bench prove``: a synthetic circuit (``cuzk.circuits.synthetic``) through setup, witness,
proving and verification on one backend; seconds per phase, peak host RSS, peak GPU memory.
"""

from __future__ import annotations

import json
import platform
import time
import warnings
from contextlib import contextmanager

from ..backend import get_backend
from ..circuits import synthetic
from ..fileio import atomic_write_text
from ..groth16 import DevelopmentSetupWarning, Prover, setup, verify
from ..memory import GIB, MemorySampler, note_backend_gpu
from ..memory.model import check_budget, prove_bench_bytes
from ..r1cs import ConstraintSystem


@contextmanager
def _phase(times: dict, name: str):
    t = time.perf_counter()
    yield
    times[name] = times.get(name, 0.0) + time.perf_counter() - t


def bench_prove(
    constraints: int,
    inputs: int = 4,
    bit_share: float = 0.9,
    backend: str = "cpu",
    threads: int = 1,
    json_path: str | None = None,
    seed: int = 0,
    mem_gb: float | None = None,
) -> dict:
    """Set up, synthesize, prove and verify a synthetic circuit; return and write the figures.

    Args:
        constraints: N, the circuit's constraints before bellperson's input rows (the R1CS
            has N + inputs + 1 rows).
        inputs: public inputs besides ONE.
        bit_share: share of aux variables that are bit-valued.
        backend: "auto", "cpu" or "cuda".
        threads: CPU worker processes for MSMs and setup.
        json_path: where to write the JSON (atomically); None to skip.
        seed: witness values seed (r and s of the proof are fresh).
        mem_gb: the step's memory budget in GiB (None: unchecked).

    Raises:
        MemoryBudgetError: the memory model predicts more than ``mem_gb``; raised before any work.

    Returns:
        dict with "seconds" per phase (shape, setup, witness, spmv, check, ntt, msm_*, combine,
        verify), "rss_peak_bytes", "gpu_peak_bytes" (live arrays), "gpu_pool_peak_bytes" (CuPy pool,
        cached blocks included; None off the GPU), "verified", circuit sizes and machine info.
    """
    predicted = prove_bench_bytes(constraints, threads)
    check_budget("bench prove", predicted, mem_gb)
    times: dict[str, float] = {}
    sampler = MemorySampler().start()
    with get_backend(backend, threads=threads) as bk:
        with _phase(times, "shape"):
            shape = ConstraintSystem(shape=True, witness=False)
            synthetic.synthesize(shape, constraints, inputs, bit_share, seed)
            r1cs = shape.finalize()
        with _phase(times, "setup"), warnings.catch_warnings():
            warnings.simplefilter("ignore", DevelopmentSetupWarning)
            pk = setup(r1cs, bk)
        with _phase(times, "witness"):
            wcs = ConstraintSystem(shape=False, witness=True)
            synthetic.synthesize(wcs, constraints, inputs, bit_share, seed)
            ins, aux = wcs.assignment()
        with Prover(pk, r1cs, bk) as prover:
            proof = prover.prove(ins, aux)
            times.update(prover.times.seconds)
        with _phase(times, "verify"):
            ok = verify(pk.vk, proof, [int(v) for v in ins[1:]])
        pool_peak: dict = {}
        note_backend_gpu(sampler, bk, pool_peak)
    mem = sampler.stop()
    stats = r1cs.stats()
    result = {
        "benchmark": "prove",
        "backend": bk.name,
        "threads": threads,
        "constraints": constraints,
        "r1cs": stats,
        "bit_share": bit_share,
        "verified": bool(ok),
        "proof_bytes": len(proof.to_bytes()),
        "seconds": {k: round(v, 4) for k, v in times.items()},
        "seconds_prove_total": round(sum(v for k, v in times.items() if k not in ("shape", "setup", "witness", "verify", "load_bases")), 4),
        "rss_peak_bytes": mem.rss_peak_bytes,
        "rss_predicted_bytes": predicted,
        "rss_avg_bytes": mem.rss_avg_bytes,
        "gpu_peak_bytes": mem.gpu_peak_bytes,
        "gpu_pool_peak_bytes": pool_peak.get("gpu_pool_peak_bytes"),
        "wall_seconds": round(mem.seconds, 3),
        "machine": {"python": platform.python_version(), "cpu": platform.processor() or platform.machine()},
    }
    if json_path:
        atomic_write_text(json_path, json.dumps(result, indent=2) + "\n")
    return result


def format_prove(result: dict) -> str:
    """Human-readable table of a ``bench_prove`` result."""
    lines = [f"prove benchmark: {result['constraints']} constraints, backend {result['backend']}, "
             f"{result['threads']} threads, verified={result['verified']}"]
    for k, v in result["seconds"].items():
        lines.append(f"  {k:<12} {v:10.3f} s")
    lines.append(f"  peak RSS     {result['rss_peak_bytes'] / GIB:10.3f} GiB (avg {result['rss_avg_bytes'] / GIB:.3f})")
    gpu = result["gpu_peak_bytes"]
    lines.append(f"  peak GPU     {'n/a' if gpu is None else f'{gpu / GIB:.3f} GiB'}")
    return "\n".join(lines)


__all__ = ["bench_prove", "format_prove"]
