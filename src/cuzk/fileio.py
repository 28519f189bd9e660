"""Files shared by every layer: crash-safe output (a file exists only when it is complete),
mapped input whose pages a reader hands back once it has used them, and check records (a large
file checked once is trusted by its identity afterwards: ``CheckRecords``).

Imports nothing of cuzk, so any layer may use it.
"""

from __future__ import annotations

import contextlib
import hashlib
import mmap
import os
import shutil
import tempfile
import weakref
from pathlib import Path
from typing import BinaryIO, Iterator

import numpy as np


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _remove_stale(path: Path) -> None:
    # SIGKILL skips cleanup; one writer per output (Snakemake locks the directory) makes any
    # earlier temporary of this path garbage.
    for old in path.parent.glob(f".{path.name}.*.tmp"):
        if old.is_dir():
            shutil.rmtree(old, ignore_errors=True)
        else:
            with contextlib.suppress(FileNotFoundError):
                old.unlink()


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike) -> Iterator[BinaryIO]:
    """Open a temporary file beside ``path`` for binary writing; on success fsync and rename it.

    On an exception the temporary file is removed and an existing ``path`` is left untouched.
    Temporaries of ``path`` left by a killed earlier run are removed first.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; outputs get the usual mode
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and rename (see ``atomic_open``)."""
    with atomic_open(path) as f:
        f.write(data)


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write UTF-8 ``text`` to ``path`` through a temporary file and rename."""
    atomic_write_bytes(path, text.encode("utf-8"))


def digest_path(path: str | os.PathLike) -> Path:
    """Where a cached file's SHA-256 is recorded: ``<path>.sha256`` (hex and a newline)."""
    return Path(f"{os.fspath(path)}.sha256")


def recorded_bytes(path: str | os.PathLike) -> bytes | None:
    """The bytes of ``path`` when their SHA-256 is the one recorded beside it (:func:`digest_path`),
    else None (either file missing or unreadable, or the bytes changed since): how the caches
    of built libraries and derived constants tell a damaged file from a good one."""
    try:
        want = digest_path(path).read_text().strip()
        data = Path(path).read_bytes()
    except OSError:
        return None
    return data if hashlib.sha256(data).hexdigest() == want else None


def write_digest(path: str | os.PathLike, data: bytes) -> None:
    """Record ``data``'s SHA-256 as ``path``'s (:func:`digest_path`, atomically): for a file whose
    bytes another writer puts in place (a compiler's output), or :func:`write_recorded`."""
    atomic_write_text(digest_path(path), hashlib.sha256(data).hexdigest() + "\n")


def write_recorded(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` and its SHA-256 beside it, each atomically (a reader between the
    two sees a mismatch: :func:`recorded_bytes` gives None)."""
    atomic_write_bytes(path, data)
    write_digest(path, data)


@contextlib.contextmanager
def atomic_dir(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary directory beside ``path``; on success replace ``path`` with it.

    On an exception the temporary directory is removed and an existing ``path`` is untouched.
    Temporaries of ``path`` left by a killed earlier run are removed first.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale(path)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent))
    try:
        yield tmp
        os.chmod(tmp, 0o777 & ~_umask())
        old = None
        if path.exists():  # move the old one aside first: a crash before the rename keeps it
            old = path.with_name(f".{path.name}.old.tmp")
            shutil.rmtree(old, ignore_errors=True)
            os.replace(path, old)
        os.replace(tmp, path)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _mapping_of(arr) -> tuple[mmap.mmap, int] | None:
    """(the ``mmap`` behind an array or a view of one, the view's byte offset into it), or None."""
    base = arr
    while not isinstance(base, mmap.mmap):  # ndarray views → ndarray/memmap → (memoryview →) mmap
        nxt = base.obj if isinstance(base, memoryview) else getattr(base, "base", None)
        if nxt is None:
            return None
        base = nxt
    try:
        start = np.frombuffer(base, dtype=np.uint8, count=1).__array_interface__["data"][0]
    except (ValueError, TypeError):
        return None
    return base, arr.__array_interface__["data"][0] - start


_READ_FDS: dict[int, tuple] = {}   # id(mmap) → (weak reference to it, a descriptor of its file)


def _forget_fd(key: int, fd: int) -> None:
    _READ_FDS.pop(key, None)
    with contextlib.suppress(OSError):
        os.close(fd)


def map_readonly(path: str | os.PathLike) -> mmap.mmap:
    """The whole file mapped read-only (pages come from the page cache as they are touched), with
    a descriptor of the file kept while the mapping lives, so that ``read_rows`` can copy slices
    of arrays over it by ``pread`` instead of touching its pages.

    Raises:
        OSError: the file cannot be opened or mapped (an empty file cannot be mapped).
    """
    with open(path, "rb") as f:
        m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        fd = os.dup(f.fileno())
    key = id(m)
    _READ_FDS[key] = (weakref.ref(m, lambda _: _forget_fd(key, fd)), fd)
    return m


def read_rows(dst: np.ndarray, src: np.ndarray) -> bool:
    """Copy ``src``, a C-contiguous view of a ``map_readonly`` mapping, into the C-contiguous
    ``dst`` of the same byte size by ``os.preadv`` from the file: no page fault per 4 KiB page and
    no page of the key in the process's resident set (a 47 GB key streamed through a mapping by
    ``np.copyto`` ran at 3-6 GB/s per thread on the H200 host, page faults included: stop 15).

    Returns False (nothing copied) when ``src`` is not such a view; the caller copies instead.

    Raises:
        OSError: the read fails or the file is shorter than the mapping was.
    """
    if not (src.flags.c_contiguous and dst.flags.c_contiguous) or src.nbytes != dst.nbytes:
        return False
    found = _mapping_of(src)
    if found is None:
        return False
    hit = _READ_FDS.get(id(found[0]))
    if hit is None or hit[0]() is not found[0]:
        return False
    fd, off = hit[1], found[1]
    view = memoryview(dst.reshape(-1).view(np.uint8))
    done = 0
    while done < len(view):
        got = os.preadv(fd, [view[done:]], off + done)
        if got <= 0:
            raise OSError(f"read_rows: the mapped file ended {done} bytes into a {len(view)}-byte read at offset {off}")
        done += got
    return True


def release_pages(arr) -> int:
    """Drop the pages of a memory-mapped array (or a view of one) from this process's resident
    set: the data stays in the page cache and is read again on the next touch. Use it after a
    slice has been copied elsewhere (to the GPU), so streaming a 47 GB key through a mapping does
    not grow the step's RSS.

    Returns the bytes released (0 when ``arr`` is not backed by an ``mmap``; never raises).
    """
    found = _mapping_of(arr)
    if found is None or arr.nbytes == 0:
        return 0
    base, lo = found
    try:
        hi = lo + arr.nbytes
        page = mmap.PAGESIZE
        lo_p = -(-lo // page) * page          # whole pages inside the slice only
        hi_p = hi // page * page
        if hi_p > lo_p:
            base.madvise(mmap.MADV_DONTNEED, lo_p, hi_p - lo_p)
            return hi_p - lo_p
    except (ValueError, OSError, AttributeError):
        pass
    return 0


def file_identity(path) -> str | None:
    """A file version's identity: SHA-256 hex of (device, inode, size); None when it cannot be
    stat'ed. No times: Snakemake touches outputs after their jobs, which must not cost a re-hash
    of a 47 GB key; writers that replace a file by rename make a new inode. No path: a hard link
    (the sweep links one key into each budget's folder) is the same file."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    ident = f"{st.st_dev}|{st.st_ino}|{st.st_size}"
    return hashlib.sha256(ident.encode()).hexdigest()


_HASH_BLOCK = 1 << 28  # bytes hashed (then handed back) at a time


def sha256_released(view: np.ndarray):
    """SHA-256 (a ``hashlib`` object) of a uint8 view of a mapped file, block by block, each
    block's pages handed back once hashed (:func:`release_pages`): hashing a 47 GB key keeps one
    256 MiB block resident, not the file."""
    h = hashlib.sha256()
    for i in range(0, len(view), _HASH_BLOCK):
        block = view[i : i + _HASH_BLOCK]
        h.update(block)
        release_pages(block)
    return h


def cache_dir() -> Path:
    """Directory of check records and caches (``$CUZK_CACHE_DIR`` or ``~/.cache/cuzk``)."""
    return Path(os.environ.get("CUZK_CACHE_DIR") or Path.home() / ".cache" / "cuzk")


class CheckRecords:
    """Records of one kind of file (``kind``: a folder of :func:`cache_dir`) whose content was
    checked: ``<kind>/<sha256>`` marks a content checked, ``<kind>/by-identity/<file_identity>``
    holds the SHA-256 of a file version that was checked or written here. A reader that finds
    its file's identity recorded skips the hash (and the checks the record stands for): a 32 GiB
    key (47 GB) or PCE (8.7 GB) is hashed once, by the step that writes it. An edit in place that
    keeps the device, inode and size is not noticed (see :func:`file_identity`). A read-only or
    missing cache only costs the checks next time.
    """

    def __init__(self, kind: str):
        self.kind = kind

    @property
    def root(self) -> Path:
        return cache_dir() / self.kind

    def seen(self, digest: str) -> bool:
        """Was a content with this SHA-256 (hex) checked before, under any name?"""
        return (self.root / digest).exists()

    def mark(self, digest: str, path=None) -> None:
        """Record ``digest`` as checked, and ``path``'s current version as having it."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            (self.root / digest).touch()
            ident = file_identity(path) if path is not None else None
            if ident is not None:
                rec = self.root / "by-identity" / ident
                rec.parent.mkdir(parents=True, exist_ok=True)
                rec.write_text(digest)
        except OSError:
            pass

    def trusted_digest(self, path) -> str | None:
        """The SHA-256 of ``path`` if this very file version was checked (or written here)
        before, else None. Costs a ``stat`` and two small reads, never a hash of the file."""
        ident = file_identity(path)
        if ident is None:
            return None
        try:
            digest = (self.root / "by-identity" / ident).read_text().strip()
        except OSError:
            return None
        return digest if digest and self.seen(digest) else None
