"""SHA-256 of key files, computable ahead of time in a thread (standard library only).

``read_zkey`` finds its converted-key cache entry by the ``.zkey``'s SHA-256 (about 30 ms for
45 MB). ``prefetch_sha256(path)`` computes it early — hashlib releases the GIL, so it can run in
a thread while the main thread is still importing numpy — and leaves the digest for the next
``sha256_of`` of the same file version. A digest left that way is used once, and only while the
file's identity (device, inode, size, modification and change times) is unchanged; otherwise
the file is hashed again.
"""

from __future__ import annotations

import hashlib
import mmap
import os
import threading

_memo: dict[tuple, str] = {}
_lock = threading.Lock()


def _identity(st: os.stat_result) -> tuple:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def map_file(path, access: int = mmap.ACCESS_READ) -> tuple[mmap.mmap | bytes, tuple]:
    """(the file's bytes, memory-mapped with ``access``; its identity for ``sha256_of``).

    A mapping costs no copy: pages come from the page cache as they are touched.

    Raises:
        OSError: the file cannot be opened or mapped.
    """
    with open(path, "rb") as f:
        st = os.fstat(f.fileno())
        data = b"" if st.st_size == 0 else mmap.mmap(f.fileno(), 0, access=access)
    return data, _identity(st)


def prefetch_sha256(path) -> None:
    """Hash ``path`` now and keep the digest for the next ``sha256_of`` of this file version.

    Errors are ignored (the later reader reports them), so this is safe as a thread target.
    """
    try:
        data, ident = map_file(path)
        digest = hashlib.sha256(data).hexdigest()
    except (OSError, ValueError):
        return
    with _lock:
        _memo[ident] = digest


def sha256_of(data, identity: tuple) -> str:
    """SHA-256 hex digest of ``data``, the bytes of the file version ``identity`` (``map_file``):
    a prefetched digest of that version if there is one (used once), else hashed now."""
    with _lock:
        digest = _memo.pop(identity, None)
    return digest if digest is not None else hashlib.sha256(data).hexdigest()


__all__ = ["map_file", "prefetch_sha256", "sha256_of"]
