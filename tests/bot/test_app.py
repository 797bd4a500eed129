"""bot.app.Paperbot.warm: what a server reads before its first question."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bot.app import Paperbot
from bot.settings import Settings


@pytest.mark.slow
def test_warm_reads_the_corpus_and_its_overview_once(seeded_store: Settings) -> None:
    app = Paperbot(seeded_store)
    count = app.warm()
    assert count == app.paper_count() > 0
    retriever = app.retriever()
    assert app.searcher._topics is not None  # the overview an off-topic answer needs is ready
    app.warm()
    assert app.retriever() is retriever  # read once per store version, not once per call


def test_warm_on_an_empty_store_reads_nothing(tmp_path: Path, settings_for: Callable[..., Settings]) -> None:
    app = Paperbot(settings_for(tmp_path / "empty"))
    assert app.warm() == 0
    assert app.searcher._topics is None
