"""bot.app.Paperbot.warm: what a server reads before its first question."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bot.app import Paperbot
from bot.query import typed
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


def test_full_width_text_is_searched_as_abstracts_write_it(seeded_bot) -> None:
    """Found by a new user: "ＧＲＰＯ" (an East Asian input method's letters) found nothing anywhere."""
    assert typed("Ｃａｌ－ＳＰＩ？\u3000ok") == "Cal-SPI? ok"
    wide, plain = seeded_bot.search("ＧＲＰＯ"), seeded_bot.search("GRPO")
    assert [h.paper.paper_id for h in wide.hits] == [h.paper.paper_id for h in plain.hits] and not wide.abstained
    assert len(seeded_bot.triage("ＧＲＰＯ").papers) == len(seeded_bot.triage("GRPO").papers) == 8
    assert [c.paper.label for c in seeded_bot.ask("Ｗｈａｔ ｉｓ Ｃａｌ－ＳＰＩ？").citations] == ["Cal-SPI"]
