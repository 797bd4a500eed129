"""One writer per store: an exclusive lock held while ingest writes to a store folder.

Chroma's local store and the registry take one writing process at a time (two writers can
corrupt Chroma's HNSW index). The operating system releases the lock when its process ends, so a
crash or a kill leaves no stale lock behind. Readers (search, ask, serve) never take it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from bot.errors import StoreError

LOCK_NAME = "write.lock"
HOLDER_NAME = "write.pid"  # who holds the lock, for the message (the lock file itself is truncated by contenders)


@contextmanager
def writing(folder: Path, wait: float = 0.0) -> Iterator[None]:
    """Hold the store's write lock for the block; another holder makes it raise StoreError.

    Example: with writing(Path(".paperbot")): ...  # a second `paperbot ingest` now fails at once
    """
    folder.mkdir(parents=True, exist_ok=True)
    lock = FileLock(folder / LOCK_NAME)
    try:
        lock.acquire(timeout=wait)
    except Timeout:
        holder = _holder(folder)
        raise StoreError(
            f"another paperbot process{holder} is writing to the store in {folder}; wait for it "
            "to finish (or stop it), then run this again"
        ) from None
    try:
        (folder / HOLDER_NAME).write_text(str(os.getpid()), encoding="utf-8")
        yield
    finally:
        lock.release()


def _holder(folder: Path) -> str:
    try:
        pid = (folder / HOLDER_NAME).read_text(encoding="utf-8").strip()
    except OSError:
        return ""
    return f" (pid {pid})" if pid.isdigit() else ""
