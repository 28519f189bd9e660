"""Which GPU a workflow step runs on: the first visible device no other cuzk step holds.

``snakemake --resources gpu=N`` bounds how many GPU jobs run at once but does not say which
device each one gets: without a choice every job would run on device 0 while the others idle. A
cuda step therefore claims a device for its whole run with an exclusive ``flock`` on a lock file
named by the device's UUID (the same physical GPU has the same name whatever CUDA_VISIBLE_DEVICES
a job sees, so cluster jobs sharing a node agree too). When every visible device is held the step
waits, and says so once. The kernel drops a flock when its process ends, so a killed job never
leaves a device claimed.

The lock files live in ``CUZK_GPU_LOCK_DIR``, by default ``<tmp>/cuzk-gpu-locks-<uid>``: the
steps of one user on one host share devices through it (set the variable to a common directory to
share across users).
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import socket
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Sequence
from ..errors import CuzkError

log = logging.getLogger("cuzk.gpus")


class GPULockError(CuzkError, RuntimeError):
    """The GPU lock directory cannot be used (names the directory and CUZK_GPU_LOCK_DIR)."""


@dataclass(frozen=True)
class GPU:
    """A visible device: its CUDA ordinal in this process, a host-wide id (UUID) and its name."""

    index: int
    id: str
    name: str = ""


def lock_dir() -> Path:
    """Directory of the per-device lock files: ``$CUZK_GPU_LOCK_DIR``, else
    ``<tempfile.gettempdir()>/cuzk-gpu-locks-<uid>``."""
    env = os.environ.get("CUZK_GPU_LOCK_DIR")
    return Path(env) if env else Path(tempfile.gettempdir()) / f"cuzk-gpu-locks-{os.getuid()}"


def visible_gpus() -> list[GPU]:
    """The CUDA devices CuPy sees, in ordinal order, with their UUIDs (CUDA runtime device
    properties; the PCI address where a UUID is missing). Empty without CuPy or a device."""
    try:
        import cupy  # costly, and absent on CPU machines: only when GPUs are listed
    except Exception:
        return []
    try:
        n = int(cupy.cuda.runtime.getDeviceCount())
    except Exception:
        return []
    out = []
    for i in range(n):
        props = cupy.cuda.runtime.getDeviceProperties(i)
        uuid = props.get("uuid")
        if isinstance(uuid, (bytes, bytearray)) and any(uuid):
            gid = "GPU-" + bytes(uuid).hex()
        else:
            gid = "pci-{:04x}-{:02x}-{:02x}".format(props.get("pciDomainID", 0), props.get("pciBusID", 0),
                                                   props.get("pciDeviceID", i))
        name = props.get("name", b"")
        out.append(GPU(i, gid, name.decode(errors="replace") if isinstance(name, bytes) else str(name)))
    return out


def _try_lock(path: Path):
    """An open descriptor holding an exclusive flock on ``path``, or None when another holds it."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    except BaseException:
        os.close(fd)
        raise
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()} {socket.gethostname()}\n".encode())  # who holds it, for a person looking
    return fd


@contextlib.contextmanager
def claim(gpus: Sequence[GPU], directory: Path | None = None, poll: float = 1.0,
          sleep: Callable[[float], None] = time.sleep) -> Iterator[GPU]:
    """Hold the first of ``gpus`` that no other process (or other claim) holds, until the block
    ends; wait, polling every ``poll`` seconds, while all are held.

    Args:
        gpus: candidate devices (``visible_gpus()``); tried in order.
        directory: lock-file directory (default ``lock_dir()``); created if missing.

    Raises:
        ValueError: ``gpus`` is empty.
        GPULockError: the directory cannot be created or written.
    """
    if not gpus:
        raise ValueError("no GPU to claim")
    d = Path(directory) if directory is not None else lock_dir()
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise GPULockError(f"{d}: cannot create the GPU lock directory ({e.strerror}); set CUZK_GPU_LOCK_DIR") from None
    said = False
    while True:
        for g in gpus:
            try:
                fd = _try_lock(d / f"{g.id}.lock")
            except OSError as e:
                raise GPULockError(f"{d / (g.id + '.lock')}: cannot lock ({e.strerror}); set CUZK_GPU_LOCK_DIR") from None
            if fd is not None:
                try:
                    yield g
                finally:
                    os.close(fd)  # releases the flock
                return
        if not said:
            log.warning("all %d visible GPU(s) are in use by other cuzk steps (locks in %s); waiting", len(gpus), d)
            said = True
        sleep(poll)
