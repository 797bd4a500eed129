"""Filling an empty store with the bundled seeds before the first answer: once, however many pages
and API calls arrive together, each shown the ingest's progress. No gradio here.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from bot.errors import PaperbotError
from bot.progress import Progress
from bot.types import Answer, IngestReport, TriageResult
from bot.ui import views
from bot.ui.chat import Ask, AskStream

IngestSeeds = Callable[[Progress], IngestReport]


PaperCount = Callable[[], int]


class SeedLoader:
    """Ingests the bundled seeds once when the store is empty, however many pages load at once.

    The first caller runs the ingest in its own thread; callers arriving meanwhile wait for it
    and relay its progress to their own page, instead of embedding the seeds a second time.
    """

    def __init__(self, ingest_seeds: IngestSeeds | None, paper_count: PaperCount) -> None:
        self._ingest = ingest_seeds
        self._count = paper_count
        self._lock = threading.Lock()
        self._finished: threading.Event | None = None  # set while an ingest runs
        self._progress = (0, 0)
        self._error: PaperbotError | None = None
        self.report: IngestReport | None = None  # the seed load this process did, if any

    def needed(self) -> bool:
        """Whether `ensure` would ingest (or wait for an ingest) right now."""
        with self._lock:
            return self._finished is not None or (self._ingest is not None and self._count() == 0)

    def ensure(self, progress: Progress) -> IngestReport | None:
        """Make sure the store holds papers, reporting progress; returns the seed load's report."""
        with self._lock:
            finished = self._finished
            if finished is None:
                # Checked under the lock so two first visitors cannot both start an ingest.
                if self._ingest is None or self._count() > 0:
                    return self.report
                self._finished = threading.Event()
                self._progress = (0, 0)
                self._error = None
        if finished is not None:
            while not finished.wait(0.5):
                progress(*self._progress)
            if self._error is not None:
                raise self._error
            return self.report
        return self._run(progress)

    def _run(self, progress: Progress) -> IngestReport:
        assert self._ingest is not None and self._finished is not None

        def relay(done: int, total: int) -> None:
            self._progress = (done, total)
            progress(done, total)

        relay(0, 0)  # reading files and loading the model come before the first batch
        try:
            self.report = self._ingest(relay)
            return self.report
        except PaperbotError as exc:
            self._error = exc
            raise
        finally:
            with self._lock:
                self._finished.set()
                self._finished = None


def seeded(ask: Ask, loader: SeedLoader, progress: Progress) -> Ask:
    """`ask`, preceded by loading the seeds into an empty store.

    API callers never load the page, so their first question may be what fills the store.
    """

    def ask_after_seeds(question: str, **options: Any) -> Answer:
        loader.ensure(progress)
        return ask(question, **options)

    return ask_after_seeds


def seeded_stream(ask_stream: AskStream, loader: SeedLoader, progress: Progress) -> AskStream:
    """`ask_stream`, preceded by loading the seeds into an empty store (when iteration starts)."""

    def stream_after_seeds(question: str, **options: Any) -> Iterator[str | Answer]:
        loader.ensure(progress)
        yield from ask_stream(question, **options)

    return stream_after_seeds


def after_seeds(library: views.Library, loader: SeedLoader) -> views.Library:
    """`library` whose triage first loads the seeds into an empty store, as a question does."""

    def triage(topic: str) -> TriageResult:
        loader.ensure(lambda done, total: None)
        return library.triage(topic)

    return replace(library, triage=triage)
