"""Memory accounting of the workflow's steps.

The package holds:

- here: :class:`MemorySampler`, a background sampler of host RSS (process tree) and GPU memory
  where CuPy has a device, its :class:`MemoryReport`, and :func:`note_backend_gpu`;
- :mod:`.record`: :class:`StepRecord`, the typed per-step record, with its one writer
  (:func:`write_record`, the ``.mem.json`` file) and one reader (:func:`read_record`);
- :mod:`.model`: the memory model, predicted peak host bytes of each step from shape numbers;
- :mod:`.device`: the device side of the model, a proof's GPU bytes (``prove_device_bytes``)
  from the cuda backend's pure planning functions;
- :mod:`.budget`: declarations from predictions (headroom, ``mem_gb``/``mem_mb``, doubling on a
  retry) and the budget checks (a job over ``--resources mem_gb`` is refused before the run).

Imports nothing of cuzk but ``cuzk.fileio`` and ``cuzk.errors`` (which import nothing).
Snakemake's ``benchmark:`` samples every 0.5 s for 15 s and then every 30 s, so short peaks
escape it; every step samples itself with ``MemorySampler`` instead.
"""

from __future__ import annotations

import os
import resource
import sys
import threading
import time
from dataclasses import asdict, dataclass, field

import psutil

from .record import StepRecord, read_record, set_field, write_record

GIB = 1 << 30


PROC = "/proc"
"""Where the kernel's process files are (proc(5)); tests point it at a made-up tree."""


def _child_pids(pid: int) -> list[int] | None:
    """Pids of ``pid``'s children from ``PROC/<pid>/task/<tid>/children`` (every thread's; Linux
    with CONFIG_PROC_CHILDREN, proc(5)): [] for a process that ended, None where the kernel keeps
    no such lists (or there is no ``PROC``)."""
    try:
        tids = os.listdir(f"{PROC}/{pid}/task")
    except OSError:
        return [] if os.path.isdir(PROC) else None
    out = []
    for tid in tids:
        try:
            with open(f"{PROC}/{pid}/task/{tid}/children") as f:
                out += [int(v) for v in f.read().split()]
        except FileNotFoundError:
            if os.path.isdir(f"{PROC}/{pid}/task/{tid}"):
                return None   # the task is there, its list is not: the kernel keeps none
        except OSError:
            continue          # the task ended meanwhile
    return out


def descendant_pids(pid: int) -> list[int] | None:
    """Pids of ``pid``'s descendants, children before their own, from the kernel's per-task
    children lists (``_child_pids``): only this tree is read. None where the kernel keeps no such
    lists."""
    out, todo = [], [pid]
    while todo:
        kids = _child_pids(todo.pop())
        if kids is None:
            return None
        out += kids
        todo += kids
    return out


def descendants(proc: psutil.Process) -> list[psutil.Process]:
    """``proc``'s live descendants (its worker processes and theirs): ``descendant_pids``, else
    psutil's ``children(recursive=True)``, which reads every process's ``/proc/<pid>/stat`` (5 ms
    with 190 processes on a device host, stop 54: the memory sampler's cost at every sample).
    Processes that end meanwhile are left out."""
    pids = descendant_pids(proc.pid)
    if pids is None:
        try:
            return proc.children(recursive=True)
        except psutil.Error:
            return []
    out = []
    for pid in pids:
        try:
            out.append(psutil.Process(pid))
        except psutil.Error:
            pass
    return out


def process_tree_rss(proc: psutil.Process, children: list[psutil.Process] | None = None) -> int:
    """RSS in bytes of ``proc`` plus its live descendants (worker processes count toward the step):
    ``children`` where the caller has them (``descendants``), else looked up."""
    total = 0
    try:
        total = proc.memory_info().rss
        for ch in descendants(proc) if children is None else children:
            try:
                total += ch.memory_info().rss
            except psutil.Error:
                pass
    except psutil.Error:
        pass
    return total


def _vm_hwm_bytes(pid: int) -> int:
    """``VmHWM`` (the kernel's peak RSS) of a live process from ``/proc/<pid>/status``, bytes; 0 when
    unreadable (gone, or not Linux)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024  # kB
    except (OSError, ValueError, IndexError):
        pass
    return 0


def kernel_peak_bytes(child_peaks=()) -> int:
    """The kernel's peak RSS of a step, bytes: ``ru_maxrss`` of this process (the counter
    ``/proc/self/status`` shows as ``VmHWM``) plus its workers' peaks: the sum of ``child_peaks``
    (each worker's ``VmHWM``, bytes, as last read while it lived) or ``ru_maxrss`` of the
    waited-for children (the largest one's peak), whichever is larger.

    The kernel updates these at every page fault, so a peak inside a native call that holds the
    GIL (which stops the 50 ms sampler thread) is still counted. The peaks need not have
    coincided: the figure bounds the sampled tree RSS from above. ``ru_maxrss`` is in kB on Linux
    and in bytes on macOS (getrusage(2)), and counts from the process's start, imports included.
    """
    unit = 1 if sys.platform == "darwin" else 1024
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * unit
    waited = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * unit
    return own + max(sum(child_peaks), waited)


def _gpu_used_bytes() -> int | None:
    """Bytes of live arrays in CuPy's default memory pool (``used_bytes``: cached free blocks are
    not counted, they are lent back on demand), or None when the step has not imported CuPy.

    Importing CuPy costs ~150 MiB of RSS, so a step that does not use the GPU never pays it here.
    """
    cupy = sys.modules.get("cupy")
    if cupy is None:
        return None
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            return None
        return int(cupy.get_default_memory_pool().used_bytes())
    except Exception:
        return None


def note_backend_gpu(sampler: "MemorySampler", backend, record: "StepRecord | dict | None" = None) -> None:
    """Fold ``backend.gpu_peak_bytes`` (the cuda backend's live peak, tracked at every allocation)
    into ``sampler``'s GPU peak, and put ``backend.gpu_pool_peak_bytes`` (the CuPy pool's
    high-water mark, cached free blocks included) in ``record``'s ``gpu_pool_peak_bytes`` (a
    :class:`StepRecord`, or a dict of figures). Backends without them (the CPU one) change nothing."""
    peak = getattr(backend, "gpu_peak_bytes", None)
    if peak is not None:
        sampler.note_gpu(peak)
    pool = getattr(backend, "gpu_pool_peak_bytes", None)
    if pool is not None and record is not None:
        set_field(record, "gpu_pool_peak_bytes", int(pool))


@dataclass
class MemoryReport:
    """What a sampler saw: seconds, host RSS average/peak (bytes) and GPU peak (bytes or None);
    ``kernel_peak_bytes``: the kernel's own peak at stop (:func:`kernel_peak_bytes`)."""

    seconds: float
    rss_avg_bytes: int
    rss_peak_bytes: int
    gpu_peak_bytes: int | None
    samples: int
    timeline: list = field(default_factory=list)
    kernel_peak_bytes: int | None = None

    def to_dict(self, timeline: bool = False) -> dict:
        """Plain dict with GiB figures added for humans; the timeline ([s, rss, gpu] rows) on request."""
        d = asdict(self)
        if not timeline:
            d.pop("timeline")
        d["rss_peak_gib"] = self.rss_peak_bytes / GIB
        d["rss_avg_gib"] = self.rss_avg_bytes / GIB
        return d


class MemorySampler:
    """Sample RSS (this process and its children) every ``interval`` seconds in a daemon thread.

    Use as a context manager; ``report()`` gives average, peak and the timeline of
    (seconds, rss bytes, gpu bytes or None) samples. Peaks shorter than the interval (default
    0.05 s) can be missed; the sampler also records a final sample at stop.
    """

    def __init__(self, interval: float = 0.05, gpu: bool = True):
        self.interval = interval
        self.gpu = gpu
        self._proc = psutil.Process(os.getpid())
        self._stop = threading.Event()
        self._sum = 0
        self._n = 0
        self._peak = 0
        self._gpu_peak: int | None = None
        self._timeline: list[tuple[float, int, int | None]] = []
        self._t0 = self._t1 = 0.0
        self._kernel_peak: int | None = None
        self._child_hwm: dict[int, int] = {}
        self._thread: threading.Thread | None = None

    def _sample(self) -> None:
        children = descendants(self._proc)
        rss = process_tree_rss(self._proc, children)
        for ch in children:  # workers' kernel peaks (kernel_peak_bytes)
            self._child_hwm[ch.pid] = max(self._child_hwm.get(ch.pid, 0), _vm_hwm_bytes(ch.pid))
        self._sum += rss
        self._n += 1
        self._peak = max(self._peak, rss)
        g = _gpu_used_bytes() if self.gpu else None
        if g is not None:
            self._gpu_peak = max(self._gpu_peak or 0, g)
        self._timeline.append((round(time.perf_counter() - self._t0, 4), rss, g))

    def note_gpu(self, nbytes: int | None) -> None:
        """Fold a GPU peak measured elsewhere (the cuda backend's live peak, tracked at every
        allocation, which a 50 ms sample can miss) into the report's ``gpu_peak_bytes``."""
        if nbytes is not None:
            self._gpu_peak = max(self._gpu_peak or 0, int(nbytes))

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self._sample()

    def start(self) -> "MemorySampler":
        """Start sampling (one sample immediately)."""
        self._t0 = time.perf_counter()
        self._sample()
        self._thread = threading.Thread(target=self._run, name="cuzk-memory-sampler", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> MemoryReport:
        """Stop sampling and return the report."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self._sample()
        self._t1 = time.perf_counter()
        self._kernel_peak = kernel_peak_bytes(self._child_hwm.values())
        return self.report()

    def report(self) -> MemoryReport:
        """Report so far (seconds since start, bytes)."""
        end = self._t1 or time.perf_counter()
        return MemoryReport(
            seconds=end - self._t0,
            rss_avg_bytes=int(self._sum / max(self._n, 1)),
            rss_peak_bytes=self._peak,
            gpu_peak_bytes=self._gpu_peak,
            samples=self._n,
            timeline=list(self._timeline),
            kernel_peak_bytes=self._kernel_peak,
        )

    def __enter__(self) -> "MemorySampler":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


__all__ = ["GIB", "MemoryReport", "MemorySampler", "StepRecord", "descendant_pids", "descendants", "kernel_peak_bytes", "note_backend_gpu",
           "process_tree_rss", "read_record", "write_record"]
