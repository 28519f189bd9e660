"""Worker processes for witness synthesis: a gadget's independent instances (k hashes of one
Merkle level) split into row chunks evaluated in parallel.

The witness of a PoSt partition is nearly all Poseidon values, computed as gmpy2 integers one
program op at a time (``poseidon._legacy_hash``): one core does about 300 k values a second, so a
32 GiB WindowPoSt partition (127 M values) took 7.4 minutes on the H200 host. Its hashes are
independent per row, so they split over processes (the GIL rules out threads); rows go out and
values come back as uint64 limbs, which the value store keeps as they are (no Python int per
value in the parent).

The pool is forked when :func:`synthesis_workers` is entered, before the step allocates its
witness store, so the children start small and stay independent of the parent's later memory.
Only one pool is active per process; a worker that dies (killed, out of memory) fails the step
with :class:`SynthesisWorkerError` instead of hanging it.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Callable, Iterator

import numpy as np

from ..errors import CuzkError

MIN_ROWS = 512  # below this many rows per worker a gadget runs in the parent: the round trip costs more
MAX_ROWS = 1024  # rows per chunk at most: bounds a worker's memory (cuzk.memory.model.SYNTH_WORKER_BYTES)

_POOL: "_Pool | None" = None


class SynthesisWorkerError(CuzkError, RuntimeError):
    """A synthesis worker process died (killed, out of memory) while computing values."""


class _Pool:
    def __init__(self, executor: ProcessPoolExecutor, workers: int, min_rows: int):
        self.executor = executor
        self.workers = workers
        self.min_rows = min_rows


def _warm(seconds: float) -> int:
    time.sleep(seconds)
    return 0


@contextlib.contextmanager
def synthesis_workers(workers: int, min_rows: int | None = None) -> Iterator[int]:
    """Run the enclosed synthesis with ``workers`` processes for the gadgets that split
    (``map_rows``); ``workers`` ≤ 1 runs everything in this process.

    Args:
        workers: processes (the step's cores).
        min_rows: fewest rows a chunk may have (default ``MIN_ROWS``; tests lower it to
            exercise the pool on small shapes).

    Yields:
        the number of worker processes (0 when none).
    """
    global _POOL
    if workers <= 1 or _POOL is not None:
        yield 0
        return
    ex = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"))
    try:
        # start every worker now, while this process is small and has no other thread: one
        # sleeping task each, so none is idle when the next is submitted
        for f in [ex.submit(_warm, 0.05) for _ in range(workers)]:
            f.result()
        _POOL = _Pool(ex, workers, MIN_ROWS if min_rows is None else min_rows)
        yield workers
    finally:
        _POOL = None
        ex.shutdown(wait=True, cancel_futures=True)


def useful_workers(rows: int, threads: int) -> int:
    """Worker processes worth starting for a synthesis whose gadgets have ``rows`` instances
    (a PoSt partition's challenges: the rows of each Merkle level): ``threads`` when the rows
    split into chunks of ``MIN_ROWS``, else 1 (the pool would never be used, and the job would
    hold cores other jobs could run on)."""
    return threads if rows >= 2 * MIN_ROWS else 1


def active_workers() -> int:
    """Worker processes of the active pool (0 outside :func:`synthesis_workers`)."""
    return 0 if _POOL is None else _POOL.workers


def map_rows(fn: Callable, rows: np.ndarray, *args) -> np.ndarray | None:
    """``fn(rows[chunk], *args)`` over row chunks of ``rows`` in the worker processes,
    results concatenated along axis 0; ``None`` when no pool is active or ``rows`` is too
    short to split (the caller then computes in this process).

    Args:
        fn: a module-level function (it is pickled by name), ``(chunk, *args) → array`` with
            one result row per input row.
        rows: ``(k, ...)`` array.

    Raises:
        SynthesisWorkerError: a worker process died.
    """
    pool = _POOL
    k = rows.shape[0]
    if pool is None or k < 2 * pool.min_rows:
        return None
    # two chunks a worker at least (the last ones balance), none over MAX_ROWS
    parts = max(min(2 * pool.workers, k // pool.min_rows), -(-k // MAX_ROWS))
    bounds = np.linspace(0, k, parts + 1).astype(int)
    futures = [pool.executor.submit(fn, rows[lo:hi], *args) for lo, hi in zip(bounds[:-1], bounds[1:])]
    try:
        return np.concatenate([f.result() for f in futures])
    except BrokenProcessPool as e:
        raise SynthesisWorkerError(f"a synthesis worker process died ({e}); the machine may be out of memory: "
                                   "give the step more memory or fewer threads") from None
