"""What a failed write to a store means, said once: a full disk or a store this process may only read.

Writes reach the disk through SQLite (the registry), Chroma (its own SQLite file and HNSW files),
numpy and plain files, and each reports a full disk or a read-only file in its own words. This
module recognises those words, estimates the space a write needs, and builds the StoreError that
says what to do. It neither retries nor writes anything.
"""

from __future__ import annotations

import errno
import math
import os
import shlex
import shutil
from collections.abc import Iterator
from pathlib import Path

from bot.errors import DiskFull, StoreError, StoreReadOnly
from bot.store.paths import StorePaths

MB = 1024 * 1024
# Room for one embed window's writes beyond the files a write rewrites whole: Chroma's SQLite file
# holds 3.3 KB a chunk (684 KB for the 208 chunks of the seeds) and its journal up to as much again
# while a batch commits, so a window of 256 papers (~1,000 chunks) needs ~7 MB; 16 MB is twice that.
# (On a 64 MB tmpfs, adding two small abstracts to a store needed 60 KB more than a full disk.)
HEADROOM = 16 * MB

# How SQLite (Python's and Chroma's, through sqlx), Rust's io errors and the OS word a full disk ...
_FULL = ("database or disk is full", "no space left on device", "os error 28", "errno 28", "disk quota exceeded")
# ... a file or database that may not be written ...
_READ_ONLY = ("attempt to write a readonly database", "read-only file system", "os error 30", "errno 30")
# ... and Chroma's background work failing, which a full disk is the usual cause of.
_COMPACTION = ("error in compaction", "backfill request to compactor", "failed to apply logs")


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """`exc` and the exceptions it was raised from or during, without looping."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _says(exc: BaseException, words: tuple[str, ...], errnos: tuple[int, ...]) -> bool:
    for link in _chain(exc):
        if isinstance(link, OSError) and link.errno in errnos:
            return True
        if any(word in str(link).lower() for word in words):
            return True
    return False


def is_disk_full(exc: BaseException) -> bool:
    """Whether `exc` (or what it was raised from) reports a full disk or an exhausted quota.

    Example: is_disk_full(sqlite3.OperationalError("database or disk is full")) -> True
    """
    return _says(exc, _FULL, (errno.ENOSPC, errno.EDQUOT))


def is_read_only(exc: BaseException) -> bool:
    """Whether `exc` reports a read-only file system, database or file (no permission to write).

    Example: is_read_only(OSError(errno.EROFS, "Read-only file system")) -> True
    """
    if any(isinstance(link, PermissionError) for link in _chain(exc)):
        return True
    return _says(exc, _READ_ONLY, (errno.EROFS,))


def _existing(folder: Path) -> Path:
    """`folder`, or its nearest ancestor that exists (a store folder not created yet)."""
    folder = folder.absolute()
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return folder


def writable(folder: Path) -> bool:
    """Whether this process may write the store in `folder`: the folder (or the one it would be
    created in), the registry and Chroma's files. Root passes permission checks but not a
    read-only file system.

    Example: writable(Path("/media/cdrom/store")) -> False
    """
    existing = _existing(folder)
    if existing != folder.absolute():
        return os.access(existing, os.W_OK | os.X_OK)
    paths = StorePaths(folder)
    files = [folder, paths.registry, paths.chroma, paths.chroma / "chroma.sqlite3"]
    return all(os.access(path, os.W_OK) for path in files if path.exists())


def tree_size(path: Path) -> int:
    """Bytes of the files under `path` (0 when it does not exist)."""
    if path.is_file():
        return path.stat().st_size
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) if path.is_dir() else 0


def needed_bytes(folder: Path) -> int:
    """Free space the store in `folder` needs for its next write batch to succeed: the files a write
    rewrites whole (the BM25 index folder, Chroma's HNSW segment folders) plus HEADROOM.

    Example: a store whose lexical/ holds 3 MB and HNSW folders 50 MB -> 53 MB + 16 MB = 69 MB
    """
    paths = StorePaths(folder)
    segments = [d for d in paths.chroma.iterdir() if d.is_dir()] if paths.chroma.is_dir() else []
    return tree_size(paths.lexical) + sum(tree_size(d) for d in segments) + HEADROOM


def free_bytes(folder: Path) -> int:
    """Bytes free to this user on the disk holding `folder`."""
    return shutil.disk_usage(_existing(folder)).free


def shortfall_mb(folder: Path, needed: int | None = None) -> int:
    """Megabytes to free on the disk holding `folder` for the next write to succeed (`needed` bytes,
    default `needed_bytes(folder)`), at least HEADROOM's worth when the estimate says there is room
    (the write that failed needed more than estimated).

    Example: needs 69 MB, 5 MB free -> 64
    """
    try:
        missing = (needed_bytes(folder) if needed is None else needed) - free_bytes(folder)
    except OSError:
        missing = HEADROOM
    return math.ceil(max(missing, HEADROOM) / MB)


def disk_full(folder: Path, elsewhere: str = "choose another --store", needed: int | None = None) -> DiskFull:
    """The error for a write that found no space on the disk holding `folder`.

    Example: disk_full(Path("store")) -> "no space left on the disk holding store; free 17 MB or choose another --store"
    """
    mb = shortfall_mb(folder, needed)
    return DiskFull(f"no space left on the disk holding {folder}; free {mb} MB or {elsewhere}")


def _why_read_only(folder: Path) -> str:
    try:
        if os.statvfs(_existing(folder)).f_flag & os.ST_RDONLY:
            return "it is on a read-only file system"
    except OSError:
        pass
    return "this user may not write to it"


def read_only(folder: Path, what: str | None) -> StoreReadOnly:
    """The error for a write (`what`, e.g. 'ingest cannot add papers') to a store that can only be read;
    `what` None: reading it failed because opening it writes (Chroma's files), so reads do not work.

    Example: read_only(Path("/mnt/store"), "ingest cannot add papers") -> "the store at /mnt/store is
    read-only: ingest cannot add papers (it is on a read-only file system); search and ask still work ..."
    """
    copy = shlex.quote(str(folder))
    fix = f"copy it somewhere writable (cp -r {copy} DIR) and pass --store DIR"
    if what is None:
        return StoreReadOnly(
            f"the store at {folder} is read-only: its vectors cannot be opened ({_why_read_only(folder)}); {fix}"
        )
    return StoreReadOnly(
        f"the store at {folder} is read-only: {what} ({_why_read_only(folder)}); search and ask still work. "
        f"To change it, {fix}"
    )


def translate(exc: BaseException, folder: Path, what: str | None, compaction: bool = False) -> StoreError | None:
    """The clear error a failed write to the store in `folder` (`what`, None for a read that writes, as
    Chroma's do) stands for, or None when it is neither a full disk nor a read-only store. With
    `compaction`, Chroma's compaction errors count as a full disk when the disk is short of the space
    the store needs.

    Example: translate(OSError(28, "No space left on device"), Path("s"), "ingest") -> DiskFull(...)
    """
    if isinstance(exc, (DiskFull, StoreReadOnly)):
        return exc
    if is_disk_full(exc):
        return disk_full(folder)
    if is_read_only(exc):
        return read_only(folder, what)
    if compaction and _says(exc, _COMPACTION, ()):
        try:
            short = free_bytes(folder) < needed_bytes(folder)
        except OSError:
            short = False
        if short:
            return disk_full(folder)
    return None
