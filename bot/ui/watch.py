"""A long-running server noticing that its store folder was replaced or deleted under it.

The core reads a store version into memory and keeps its registry open, so after `rm -rf STORE` or
`mv other STORE` it would go on answering from the papers it read before. `WatchedCore` stands in for
the core: before each call it compares the folder's identity (device and inode of the folder and of
its paper registry: two stat calls) with the one it started with. The core keeps its registry open,
so that file's inode cannot pass to another file while the server runs, even after `rm -rf`. A
replaced store is opened again when the server was given a way to (`reopen`), else every call says
to restart; a deleted one is said to be deleted. No gradio here, and nothing stored is read.
"""

from __future__ import annotations

import logging
import os
import shlex
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bot.errors import StoreError
from bot.store.paths import StorePaths

if TYPE_CHECKING:
    from bot.settings import Settings
    from bot.types import Answer, ReadingList, TriageResult
    from bot.ui.serve import Core

log = logging.getLogger(__name__)

Inode = tuple[int, int]  # (device, inode)


def _inode(path: Path) -> Inode | None:
    try:
        found = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return found.st_dev, found.st_ino


@dataclass(frozen=True)
class Identity:
    """Which folder and which registry file a store path names right now (None: not there)."""

    folder: Inode | None
    registry: Inode | None

    @classmethod
    def of(cls, folder: Path) -> Identity:
        """Example: Identity.of(Path(".paperbot")) -> Identity(folder=(2049, 1311), registry=(2049, 1320))"""
        return cls(_inode(folder), _inode(StorePaths(folder).registry))

    def replaced_by(self, now: Identity) -> bool:
        """Whether `now` is another store than this one; a part appearing where there was none (the
        first ingest creating the store) is the same store growing, not a replacement."""
        return any(old is not None and new is not None and old != new for old, new in self._pairs(now))

    def deleted_in(self, now: Identity) -> bool:
        """Whether a part of the store that was there is gone."""
        return any(old is not None and new is None for old, new in self._pairs(now))

    def _pairs(self, now: Identity) -> list[tuple[Inode | None, Inode | None]]:
        return [(self.folder, now.folder), (self.registry, now.registry)]


class WatchedCore:
    """The core of a store, checked against its folder before every call (see the module docstring).

    Example: WatchedCore(app, reopen=lambda: Paperbot(settings)).ask("What does Cal-SPI do?")
    """

    def __init__(self, core: Core, reopen: Callable[[], Core] | None = None) -> None:
        self._core = core
        self._reopen = reopen
        self._folder = core.settings.store
        self._seen = Identity.of(self._folder)
        self._lock = threading.Lock()

    @property
    def settings(self) -> Settings:
        return self._core.settings

    def current(self) -> Core:
        """The core for the store now at the folder; StoreError when it cannot answer from it."""
        now = Identity.of(self._folder)
        if now == self._seen:
            return self._core
        with self._lock:
            return self._changed(now)

    def _changed(self, now: Identity) -> Core:
        seen, where = self._seen, shlex.quote(str(self._folder))
        if seen.deleted_in(now) and not seen.replaced_by(now):
            raise StoreError(
                f"the store folder {where} was deleted while the server was running; restore it, or stop "
                "the server and start `paperbot serve` again (an empty store is filled with the bundled seeds)"
            )
        if not seen.replaced_by(now):  # created or completed by an ingest: the same store
            self._seen = Identity(seen.folder or now.folder, seen.registry or now.registry)
            return self._core
        if self._reopen is None:
            raise StoreError(
                f"the store folder {where} was replaced while the server was running, and this server "
                f"still holds the papers it read before; restart `paperbot --store {where} serve` to "
                "answer from the new store"
            )
        log.warning("the store folder %s was replaced; opening it again", self._folder)
        self._core = self._reopen()
        self._seen = Identity.of(self._folder)
        return self._core

    # --- Core, each call on the store now at the folder ---

    def ask(self, question: str, generator: str | None = None, previous: Answer | None = None) -> Answer:
        return self.current().ask(question, generator, previous)

    def ask_stream(
        self, question: str, generator: str | None = None, previous: Answer | None = None
    ) -> Iterator[str | Answer]:
        return self.current().ask_stream(question, generator, previous)

    def paper_count(self) -> int:
        return self.current().paper_count()

    def warm(self) -> int:
        return self.current().warm()

    def triage(self, topic: str) -> TriageResult:
        return self.current().triage(topic)

    def reading_list(self, name: str) -> ReadingList:
        return self.current().reading_list(name)

    def list_names(self) -> list[tuple[str, int]]:
        return self.current().list_names()

    def add_to_list(self, name: str, refs: list[str]) -> int:
        return self.current().add_to_list(name, refs)

    def remove_from_list(self, name: str, refs: list[str]) -> int:
        return self.current().remove_from_list(name, refs)

    def export(
        self, fmt: str, list_name: str | None = None, topic: str | None = None, refs: list[str] | None = None
    ) -> str:
        return self.current().export(fmt, list_name, topic, refs)
