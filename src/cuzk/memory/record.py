"""The typed per-step memory record: one writer and one reader of a step's ``.mem.json`` file.

Every workflow step fills one :class:`StepRecord` (what it was told, what the memory model
predicted, what its sampler measured, and what its backend reported) and writes it with
:func:`write_record`; the report reads it back with :func:`read_record`. The JSON keys are the
record's field names, plus ``rss_peak_gib`` / ``rss_avg_gib`` for human readers; optional fields
that were never set (None) are left out, so a CPU step's file has no GPU keys.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from pathlib import Path

from ..fileio import atomic_write_text

GIB = 1 << 30

# written even when None (the sampler's figures and the step's own facts); the rest only when set
_ALWAYS = ("seconds", "rss_avg_bytes", "rss_peak_bytes", "gpu_peak_bytes", "samples", "timeline",
           "step", "rss_predicted_bytes", "mem_gb", "started_at")
# needed to read a file back as a record
_REQUIRED = ("step", "seconds", "rss_avg_bytes", "rss_peak_bytes")


@dataclass
class StepRecord:
    """What one run of a workflow step used.

    Attributes:
        step: the step's name ("prepare", "setup", "prove", …; the report's rule column).
        seconds: wall seconds of the measured block.
        rss_avg_bytes, rss_peak_bytes: host RSS of the process tree, average and peak.
        rss_kernel_peak_bytes: the kernel's peak RSS of the step and its workers
            (``ru_maxrss``/``VmHWM``, :func:`cuzk.memory.kernel_peak_bytes`), which no native
            call can hide from; None in records written before it was kept.
        gpu_peak_bytes: live GPU arrays at their peak (sampled, and the backend's own
            high-water mark); None off the GPU.
        samples: RSS samples taken.
        timeline: [seconds since start, rss bytes, gpu bytes or None] rows.
        rss_predicted_bytes: the memory model's host prediction (None: not predicted).
        mem_gb: the step's budget (its rule's declared ``mem_gb``; None: none given).
        started_at: Unix time the step started.
        gpu_mem_limit_bytes: the cuda backend's device-memory cap (setup, prove).
        gpu_device: {"index", "id", "name"} of the GPU the step claimed.
        gpu_pool_peak_bytes: CuPy pool's high-water mark (cached free blocks included).
        gpu_predicted_bytes: the device memory model's prediction (prove on cuda).
        sectors: inputs proved in the batch (prove).
        staging_seconds, staging_waited_seconds, staging_overlapped_seconds: the prove
            pipeline's background staging, the prover's wait for it, and their difference.
        phase_seconds: wall seconds of the step's phases in order (prove: reading the key,
            starting the backend, reading the PCE, the prover's start with its uploads, the
            partitions), so a job's fixed cost can be told from its per-partition cost.
    """

    step: str
    seconds: float = 0.0
    rss_avg_bytes: int = 0
    rss_peak_bytes: int = 0
    rss_kernel_peak_bytes: int | None = None
    gpu_peak_bytes: int | None = None
    samples: int = 0
    timeline: list = field(default_factory=list)
    rss_predicted_bytes: int | None = None
    mem_gb: float | None = None
    started_at: float | None = None
    gpu_mem_limit_bytes: int | None = None
    gpu_device: dict | None = None
    gpu_pool_peak_bytes: int | None = None
    gpu_predicted_bytes: int | None = None
    sectors: int | None = None
    staging_seconds: float | None = None
    staging_waited_seconds: float | None = None
    staging_overlapped_seconds: float | None = None
    phase_seconds: dict | None = None

    def measured(self, report) -> "StepRecord":
        """Take a sampler's figures (a :class:`cuzk.memory.MemoryReport`); returns self."""
        self.seconds = report.seconds
        self.rss_avg_bytes = report.rss_avg_bytes
        self.rss_peak_bytes = report.rss_peak_bytes
        self.rss_kernel_peak_bytes = report.kernel_peak_bytes
        self.gpu_peak_bytes = report.gpu_peak_bytes
        self.samples = report.samples
        self.timeline = [list(t) for t in report.timeline]
        return self

    def to_dict(self) -> dict:
        """The JSON object of the record (fields never set are left out; GiB figures added)."""
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        d = {k: v for k, v in d.items() if k in _ALWAYS or v is not None}
        d["rss_peak_gib"] = self.rss_peak_bytes / GIB
        d["rss_avg_gib"] = self.rss_avg_bytes / GIB
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "StepRecord":
        """A record from its JSON object (keys it does not know, like the GiB figures, are skipped).

        Raises:
            KeyError: a required key (step, seconds, rss_avg_bytes, rss_peak_bytes) is missing.
        """
        for k in _REQUIRED:
            if k not in d:
                raise KeyError(k)
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in names})


def set_field(record, name: str, value) -> None:
    """Set ``name`` on a :class:`StepRecord`, or as a key of a plain dict (the prove benchmark
    collects its figures in one): the helpers that fill a record accept either."""
    if isinstance(record, dict):
        record[name] = value
    elif isinstance(record, StepRecord):
        if name not in {f.name for f in fields(record)}:
            raise AttributeError(f"StepRecord has no field {name!r}")
        setattr(record, name, value)
    elif record is not None:
        raise TypeError(f"not a step record: {record!r}")


def write_record(path, record: StepRecord) -> None:
    """Write the record as JSON (temporary file, fsync, rename; folders made)."""
    atomic_write_text(path, json.dumps(record.to_dict(), indent=2))


def read_record(path) -> StepRecord:
    """Read a ``.mem.json`` file written by :func:`write_record` (or by older cuzk versions).

    Raises:
        ValueError: the file is not a step memory record (names the file and what is wrong).
    """
    p = Path(path)
    try:
        d = json.loads(p.read_text())
        if not isinstance(d, dict):
            raise ValueError("not a JSON object")
        return StepRecord.from_dict(d)
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ValueError(f"{p}: not a step memory record: {e}") from None


__all__ = ["StepRecord", "read_record", "set_field", "write_record"]
