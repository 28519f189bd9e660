"""Benchmarks that print and write JSON: seconds per phase, peak host RSS, peak GPU memory.

``bench_prove``: a synthetic circuit (``cuzk.circuits.synthetic``) through setup, witness,
proving and verification on one backend.
"""

from __future__ import annotations

import json
import platform
import time
import warnings
from contextlib import contextmanager

from .backend import get_backend
from .circuits import synthetic
from .field import FR
from .fileio import atomic_write_text
from .groth16 import DevelopmentSetupWarning, Prover, setup, verify
from .memory import GIB, MemorySampler, note_backend_gpu
from .memory.model import check_budget, prove_bench_bytes
from .r1cs import ConstraintSystem


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


# --- kernel benchmarks on any backend -----------------------------------------------------------


def _timed(bk, fn, repeat: int) -> list[float]:
    """Seconds of ``repeat`` calls of fn after one warm-up, the backend synchronized around each."""
    fn()
    bk.synchronize()
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        bk.synchronize()
        out.append(time.perf_counter() - t)
    return out


def _random_points(bk, group, n: int, rng):
    """n random points of ``group`` as an (n, size) uint8 array, by the backend's fixed-base path."""
    scalars = [int(v) for v in FR.random(n, rng)]
    return bk.fixed_base_mul(group, group.generator(), scalars)


def bench_kernels(what: str, log_sizes, backend: str = "auto", threads: int = 1, repeat: int = 3,
                  json_path: str | None = None, seed: int = 0) -> dict:
    """Time one kind of kernel on a backend for sizes 2^k, data already on the device.

    Args:
        what: "ntt" (forward NTT), "msm-g1", "msm-g2" (random scalars and bases) or "spmv"
            (a random CSR matrix of 2^k rows with 4 non-zeros per row, coefficients from a
            16-entry table, applied to a random vector).
        log_sizes: exponents k.
        repeat: timed calls per size after one warm-up (the minimum and median are reported).

    Returns and writes (``json_path``): per size the seconds, the rate (elements per second),
    peak host RSS and peak GPU memory of the whole run.

    Raises:
        ValueError: unknown ``what``.
    """
    import numpy as np  # noqa: PLC0415

    from .backend import CSRMatrix  # noqa: PLC0415
    from .curve import G1, G2  # noqa: PLC0415

    if what not in ("ntt", "msm-g1", "msm-g2", "spmv"):
        raise ValueError(f"unknown kernel {what!r}: choose ntt, msm-g1, msm-g2 or spmv")
    rng = np.random.default_rng(seed)
    rows = []
    sampler = MemorySampler().start()
    with get_backend(backend, threads=threads) as bk:
        for k in log_sizes:
            n = 1 << k
            if what == "ntt":
                a = bk.to_device(FR.random(n, rng))
                secs = _timed(bk, lambda: bk.ntt(a), repeat)
            elif what.startswith("msm"):
                group = G1 if what == "msm-g1" else G2
                ctx = bk.msm_context(group, _random_points(bk, group, n, rng))
                s = FR.random(n, rng)
                secs = _timed(bk, lambda: ctx.msm(s), repeat)
                ctx.close()
            else:
                nnz = 4 * n
                indptr = np.arange(0, nnz + 1, 4, dtype=np.int64)
                m = CSRMatrix(indptr, rng.integers(0, n, nnz, dtype=np.int64), rng.integers(0, 16, nnz).astype(np.int32),
                              FR.random(16, rng), (n, n))
                w = bk.to_device(FR.random(n, rng))
                secs = _timed(bk, lambda: bk.spmv(m, w), repeat)
            best, med = min(secs), sorted(secs)[len(secs) // 2]
            rows.append({"log_size": k, "n": n, "seconds_min": round(best, 6), "seconds_median": round(med, 6),
                         "elements_per_second": round(n / best)})
            print(f"{what} 2^{k}: {best * 1e3:.2f} ms (median {med * 1e3:.2f} ms) on {bk.name}", flush=True)
        name = bk.name
    mem = sampler.stop()
    result = {"benchmark": what, "backend": name, "threads": threads, "repeat": repeat, "sizes": rows,
              "rss_peak_bytes": mem.rss_peak_bytes, "gpu_peak_bytes": mem.gpu_peak_bytes,
              "machine": {"python": platform.python_version(), "cpu": platform.processor() or platform.machine()}}
    print(f"peak RSS {mem.rss_peak_bytes / GIB:.3f} GiB, peak GPU "
          f"{'n/a' if mem.gpu_peak_bytes is None else f'{mem.gpu_peak_bytes / GIB:.3f} GiB'}")
    if json_path:
        atomic_write_text(json_path, json.dumps(result, indent=2) + "\n")
    return result
