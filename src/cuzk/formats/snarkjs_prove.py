"""``cuzk snarkjs-prove``: what ``snarkjs groth16 prove ZKEY WTNS PROOF PUBLIC`` does, on cuzk's
backends — the same files in (a snarkjs Groth16 ``.zkey``, a circom ``.wtns``), the same JSON out
(``proof.json``, ``public.json``; ``snarkjs groth16 verify`` accepts them).

Also the prover process ``cuzk bench snarkjs`` measures: ``python -m cuzk.formats.snarkjs_prove
ZKEY WTNS PROOF PUBLIC [--threads T] [--backend B] [--times JSON]``. That process is tuned before
numpy loads (``_tune_process``), so this module imports only the standard library and two light
cuzk modules at its top; the prover's modules are imported inside ``snarkjs_prove``, after it.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import sys
import threading
import time

from ..fileio import atomic_write_text
from .digest import prefetch_sha256


def _tune_process() -> None:
    """Process-wide settings of the prover child, made before numpy loads (each measured at 2^16
    on the 2-core machine, user+sys seconds of the whole child; settings made by the caller win):

    * ``OPENBLAS_NUM_THREADS=1``: the prover does no BLAS work, but numpy's bundled OpenBLAS
      starts a busy-waiting thread per core at import (about 0.06 CPU-s).
    * glibc malloc keeps freed blocks of up to 32 MiB for reuse (``M_MMAP_THRESHOLD``, its largest
      value) and does not hand the heap's free top back below 512 MiB (``M_TRIM_THRESHOLD``): each
      arkworks MSM call allocates tens of MB (point copies, affine points, digits, buckets) and
      frees them, and without this every call faults fresh pages in again (about 0.07 CPU-s,
      mostly system time: 84,000 → 58,000 page faults in the child). Skipped where there is no
      glibc, or when ``MALLOC_MMAP_THRESHOLD_`` / ``MALLOC_TRIM_THRESHOLD_`` are set.
    """
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if not sys.platform.startswith("linux") or any(
            k in os.environ for k in ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_")):
        return
    try:
        libc = ctypes.CDLL("libc.so.6")
        m_trim_threshold, m_mmap_threshold = -1, -3  # <malloc.h>
        libc.mallopt(m_mmap_threshold, 32 << 20)
        libc.mallopt(m_trim_threshold, 512 << 20)
    except (OSError, AttributeError):
        pass


def snarkjs_prove(zkey: str, wtns: str, proof: str, public: str, threads: int, backend: str,
                  times_path: str | None = None) -> int:
    """Prove a snarkjs Groth16 ``.zkey`` with a ``.wtns`` on a cuzk backend and write snarkjs'
    ``proof.json`` and ``public.json`` (what ``cuzk snarkjs-prove`` and the benchmark's child,
    ``python -m cuzk.formats.snarkjs_prove``, run): process settings (``_tune_process``), the key
    read without point checks through the converted-key cache, ``ZKeyProver``.

    Args:
        threads: MSM threads (CPU backend) / worker count.
        backend: "cpu", "cuda" or "auto".
        times_path: when given, seconds per phase and the process CPU seconds go there (JSON).

    Returns:
        0 (errors raise: ``Iden3FormatError`` and its subclasses name the file and section).
    """
    main_epoch = time.time()
    times: dict[str, float] = {}
    t = time.perf_counter()
    _tune_process()
    # hash the .zkey (the converted-key cache's index) on the other core while numpy & co. load
    prefetch = threading.Thread(target=prefetch_sha256, args=(zkey,), name="cuzk-zkey-sha256", daemon=True)
    prefetch.start()
    # The prover's modules load numpy: imported here, after _tune_process and while the hash runs.
    if backend == "cpu":  # what get_backend("cpu") returns, without importing the cuda module
        from ..backend.cpu import CPUBackend as get_backend  # noqa: PLC0415
    else:
        from ..backend import get_backend  # noqa: PLC0415
    from .snarkjs_json import write_proof_json, write_public_json  # noqa: PLC0415
    from .wtns import read_wtns  # noqa: PLC0415
    from .zkey import read_zkey  # noqa: PLC0415
    from .zkey_prover import ZKeyProver  # noqa: PLC0415

    prefetch.join()
    times["import"] = time.perf_counter() - t
    t = time.perf_counter()
    info: dict = {}
    zk = read_zkey(zkey, check=False, info=info)
    times["read_zkey"] = time.perf_counter() - t
    t = time.perf_counter()
    w = read_wtns(wtns, zk.n_vars)
    times["read_wtns"] = time.perf_counter() - t
    bk = get_backend(threads=threads) if backend == "cpu" else get_backend(backend, threads=threads)
    try:
        t = time.perf_counter()
        prover = ZKeyProver(zk, bk)
        init = time.perf_counter() - t
        load = prover.times.seconds.get("load_bases", 0.0)
        times["qap_matrices"] = init - load
        try:
            t = time.perf_counter()
            prf, pub = prover.prove(w)
            wall = time.perf_counter() - t
            times.update(prover.times.seconds)
            times["prove"] = wall
            t = time.perf_counter()
            write_proof_json(proof, prf)
            write_public_json(public, pub)
            times["write"] = time.perf_counter() - t
        finally:
            t = time.perf_counter()
            prover.close()
    finally:
        bk.close()
        times["close"] = time.perf_counter() - t
    if times_path is None:
        return 0
    atomic_write_text(times_path, json.dumps({
        "main_epoch": main_epoch,
        "end_epoch": time.time(),
        "backend": bk.name,
        "threads": threads,
        "zkey_cache": info.get("cache"),
        "process_cpu_seconds": round(time.process_time(), 4),
        "seconds": {k: round(v, 4) for k, v in times.items()},
    }, indent=2) + "\n")
    return 0


def build_parser(prog: str = "python -m cuzk.formats.snarkjs_prove") -> argparse.ArgumentParser:
    """The command's arguments (``cuzk snarkjs-prove`` adds the same to its subparser)."""
    p = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    add_arguments(p)
    return p


def add_arguments(p: argparse.ArgumentParser) -> None:
    """ZKEY WTNS PROOF PUBLIC, --backend, --threads, --times."""
    p.add_argument("zkey", help="the circuit's snarkjs .zkey (proving key)")
    p.add_argument("wtns", help="the witness, snarkjs .wtns")
    p.add_argument("proof", help="proof.json to write")
    p.add_argument("public", help="public.json to write")
    p.add_argument("--backend", default="cpu", choices=["auto", "cpu", "cuda"],
                   help="where to prove (auto: cuda when CuPy sees a GPU; default cpu)")
    p.add_argument("--threads", type=int, default=2, help="MSM threads of the CPU backend (default 2)")
    p.add_argument("--times", help="write seconds per phase here (JSON)")


def main(argv: list[str] | None = None) -> int:
    """Prove once (``snarkjs_prove``); returns the exit status."""
    a = build_parser().parse_args(argv)
    return snarkjs_prove(a.zkey, a.wtns, a.proof, a.public, a.threads, a.backend, a.times)


__all__ = ["add_arguments", "build_parser", "main", "snarkjs_prove"]


if __name__ == "__main__":
    # The outputs are written (and fsynced) by now: skip the interpreter's teardown of a few
    # hundred thousand curve points and field elements, as a short-lived command may.
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
