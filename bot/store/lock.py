"""One writer per store: an exclusive lock held while ingest writes to a store folder.

Chroma's local store and the registry take one writing process at a time (two writers can
corrupt Chroma's HNSW index). The operating system releases the lock when its process ends, so a
crash or a kill leaves no stale lock behind. Readers (search, ask, serve) never take it.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from bot.errors import StoreError
from bot.store import failures
from bot.store.paths import StorePaths


@contextmanager
def writing(folder: Path, wait: float = 0.0) -> Iterator[None]:
    """Hold the store's write lock for the block; another holder makes it raise StoreError.

    Example: with writing(Path(".paperbot")): ...  # a second `paperbot ingest` now fails at once
    """
    paths = StorePaths(folder)
    lock = FileLock(paths.lock)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        lock.acquire(timeout=wait)
    except Timeout:
        raise StoreError(
            f"another paperbot process{_holder(folder)} is writing to the store in {folder}; wait for it "
            "to finish (or stop it), then run this again"
        ) from None
    except (OSError, NotImplementedError) as exc:  # a read-only folder, a full disk, a file system without locks
        clear = failures.translate(exc, folder, "ingest cannot lock it for writing")
        if clear is not None:
            raise clear from exc
        raise StoreError(
            f"cannot lock the store in {folder} for writing ({exc}); check that the folder is "
            "writable, or choose another with --store"
        ) from exc
    name = paths.holder
    try:
        try:
            name.write_text(f"{os.getpid()} {socket.gethostname()}", encoding="utf-8")
        except OSError as exc:
            clear = failures.translate(exc, folder, "ingest cannot lock it for writing")
            if clear is None:
                raise
            raise clear from exc
        yield
    finally:
        name.unlink(missing_ok=True)
        lock.release()


def writer(folder: Path) -> str | None:
    """Who is writing to the store now, for a reader's message ('pid 4242 on laptop'); None if nobody.

    Read from the holder file without touching the lock, so a reader never delays a writer. A
    holder killed outright leaves its file behind: a pid that no longer runs here counts as nobody.
    """
    try:
        pid, _, host = StorePaths(folder).holder.read_text(encoding="utf-8").strip().partition(" ")
    except OSError:
        return None
    if not pid.isdigit():
        return None
    if host in ("", socket.gethostname()):
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            pass  # it runs, as another user
    return f"pid {pid}{f' on {host}' if host else ''}"


def _holder(folder: Path) -> str:
    """Example: ' (pid 4242 on laptop)', or '' when the holder has not written its name yet."""
    who = writer(folder)
    return f" ({who})" if who else ""
