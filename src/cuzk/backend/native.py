"""Host C++ code built once per machine and cache: :func:`build_library` compiles sources into a
shared library under ``$CUZK_CACHE_DIR/native`` (default ``~/.cache/cuzk/native``) and
:func:`load_library` opens it with ctypes.

The library's file name carries a key: the SHA-256 of the sources' and headers' bytes, the
compiler's command and flags, and the compiler's ``--version`` output, so an edited source, other
flags or another compiler give another file, and an unchanged one is never built again. Parallel
jobs (Snakemake runs many synthesize jobs at once) take an exclusive ``flock`` on a lock file of
the key before building, so one builds and the others wait and load its result. The build goes
to a temporary file in the cache directory, renamed into place (atomic on one file system);
the library's SHA-256 is recorded beside it (``<lib>.sha256``) and checked before every load, so
a truncated or damaged file (a full disk, a killed copy) is rebuilt, not loaded.

The compiler: ``$CXX`` when set (split as a shell would: ``ccache g++`` works), else ``g++``,
else ``c++`` on ``PATH``. Failures raise :class:`NativeBuildError`.
"""

from __future__ import annotations

import ctypes
import fcntl
import hashlib
import logging
import os
import shlex
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Callable, Sequence

from ..errors import CuzkError
from ..fileio import _umask, cache_dir, recorded_bytes, write_digest

log = logging.getLogger(__name__)

FLAGS = ("-O2", "-std=c++17", "-shared", "-fPIC")
"""Flags of every build (no ``-march=native``: a cache directory on a shared home may serve
machines of other CPUs, and the key does not name the CPU)."""

_STDERR_TAIL = 2000   # characters of the compiler's output kept in the error
_LOADED: dict[str, ctypes.CDLL] = {}
_LOCK = threading.Lock()


class NativeBuildError(CuzkError, RuntimeError):
    """A host library could not be built or loaded: no C++ compiler, the compiler failed (the
    message names the compiler, the source and the tail of its output), or the cache is not
    writable."""


def native_cache_dir() -> Path:
    """Where built libraries are kept: ``cuzk.fileio.cache_dir() / "native"``."""
    return cache_dir() / "native"


def compiler() -> list[str]:
    """The C++ compiler's command: ``$CXX`` split into words, else ``g++``, else ``c++``.

    Raises:
        NativeBuildError: ``$CXX`` is set but empty, or unset and neither g++ nor c++ is on PATH.
    """
    env = os.environ.get("CXX")
    if env is not None:
        cmd = shlex.split(env)
        if not cmd:
            raise NativeBuildError("native build: $CXX is set but empty")
        return cmd
    found = shutil.which("g++") or shutil.which("c++")
    if found is None:
        raise NativeBuildError("native build: no C++ compiler: $CXX is unset and neither g++ nor c++ is on PATH")
    return [found]


def _version(cxx: list[str]) -> str:
    try:
        r = subprocess.run([*cxx, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as e:
        raise NativeBuildError(f"native build: the C++ compiler {shlex.join(cxx)!r} cannot run: {e}") from None
    if r.returncode != 0:
        raise NativeBuildError(f"native build: {shlex.join(cxx)} --version failed (exit {r.returncode}): "
                               f"{(r.stderr or r.stdout)[-_STDERR_TAIL:]}")
    return r.stdout


def build_key(sources: Sequence[Path], headers: Sequence[Path], cmd: Sequence[str], version: str) -> str:
    """SHA-256 (hex) of the sources' and headers' names and bytes (in the order given), the
    compile command (compiler and flags) and the compiler's version text.

    Raises:
        NativeBuildError: a source or header cannot be read.
    """
    h = hashlib.sha256()
    for p in [*sources, *headers]:
        try:
            data = Path(p).read_bytes()
        except OSError as e:
            raise NativeBuildError(f"native build: cannot read {p}: {e}") from None
        h.update(Path(p).name.encode() + b"\0" + len(data).to_bytes(8, "little") + data)
    h.update("\0".join(cmd).encode() + b"\0" + version.encode())
    return h.hexdigest()


def verified(lib: Path) -> bool:
    """The library exists and its bytes' SHA-256 is the one recorded beside it
    (``fileio.recorded_bytes``)."""
    return recorded_bytes(lib) is not None


def build_library(name: str, sources: Sequence[str | os.PathLike], headers: Sequence[str | os.PathLike] = (),
                  include_dirs: Sequence[str | os.PathLike] = (), root: str | os.PathLike | None = None) -> Path:
    """The shared library of ``sources`` (compiled with :data:`FLAGS`), built at most once per key.

    Args:
        name: the library's name stem (``<name>-<key prefix>.so``).
        sources: C++ files compiled into the library.
        headers: files they include (hashed into the key only).
        include_dirs: ``-I`` directories.
        root: the cache directory (default :func:`native_cache_dir`).

    Returns:
        the library's path, verified against its recorded SHA-256.

    Raises:
        NativeBuildError: no compiler, the compiler fails (message: the command, the source and
            the tail of its output), or the cache directory cannot be written.
    """
    cxx = compiler()
    srcs, hdrs = [Path(s) for s in sources], [Path(h) for h in headers]
    cmd = [*cxx, *FLAGS, *(f"-I{d}" for d in include_dirs)]
    key = build_key(srcs, hdrs, cmd, _version(cxx))
    base = Path(root) if root is not None else native_cache_dir()
    stem = f"{name}-{key[:24]}"
    lib = base / f"{stem}.so"
    if verified(lib):
        return lib
    try:
        base.mkdir(parents=True, exist_ok=True)
        lock = open(base / f"{stem}.lock", "a+")
    except OSError as e:
        raise NativeBuildError(f"native build: cache directory {base} is not writable: {e}") from None
    with lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)   # dropped when the file closes (or the process dies)
        if verified(lib):   # another process built it while this one waited
            return lib
        if lib.exists():
            log.warning("native build: %s does not match its recorded SHA-256; building it again", lib)
        for old in base.glob(f".{stem}.*.so.tmp"):   # left by a killed build of this key
            old.unlink(missing_ok=True)
        fd, tmp = tempfile.mkstemp(dir=base, prefix=f".{stem}.", suffix=".so.tmp")
        os.close(fd)
        try:
            full = [*cmd, *map(str, srcs), "-o", tmp]
            try:
                r = subprocess.run(full, capture_output=True, text=True, timeout=600)
            except (OSError, subprocess.SubprocessError) as e:
                raise NativeBuildError(f"native build of {name}: the C++ compiler {shlex.join(cxx)!r} cannot run "
                                       f"on {', '.join(map(str, srcs))}: {e}") from None
            if r.returncode != 0:
                raise NativeBuildError(
                    f"native build of {name}: {shlex.join(cxx)} failed (exit {r.returncode}) on "
                    f"{', '.join(map(str, srcs))}: {(r.stderr + r.stdout)[-_STDERR_TAIL:]}")
            os.chmod(tmp, 0o755 & ~_umask())
            write_digest(lib, Path(tmp).read_bytes())
            os.replace(tmp, lib)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    log.info("native build: %s built (%s)", lib, shlex.join(full))
    return lib


def load_library(lib: Path) -> ctypes.CDLL:
    """``ctypes.CDLL`` of a library :func:`build_library` returned, opened once per process.

    Raises:
        NativeBuildError: the file no longer matches its recorded SHA-256, or cannot be loaded.
    """
    with _LOCK:
        key = str(lib)
        if key not in _LOADED:
            if not verified(lib):
                raise NativeBuildError(f"native build: {lib} does not match its recorded SHA-256")
            try:
                _LOADED[key] = ctypes.CDLL(key)
            except OSError as e:
                raise NativeBuildError(f"native build: cannot load {lib}: {e}") from None
        return _LOADED[key]


def built_once(cache: dict, build: Callable):
    """``build(root)`` for the cache directory ``root`` (:func:`native_cache_dir`),
    kept in ``cache`` per (directory, ``$CXX``): a core is built (or found) and loaded once per
    process, and again only where the environment now names another cache or compiler.

    Raises:
        NativeBuildError: from ``build``.
    """
    root = str(native_cache_dir())
    key = (root, os.environ.get("CXX"))
    if key not in cache:
        cache[key] = build(root)
    return cache[key]


__all__ = ["FLAGS", "NativeBuildError", "build_key", "build_library", "built_once", "compiler", "load_library",
           "native_cache_dir", "verified"]
