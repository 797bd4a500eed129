"""`paperbot ingest --sentences` (ingest.sentences): every abstract sentence embedded once and kept, and
answers that read them instead of embedding, the same answers as before."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bot import embedder
from bot.app import Paperbot
from bot.cli import wiring
from bot.settings import Settings
from bot.store.sentences import SentenceVectors
from bot.text import sentences
from bot.types import Paper
from ingest.sentences import keep

QUESTIONS = [
    "What is CURE?",
    "Which papers use GRPO?",
    "Why does off-policy RLVR that reuses trajectories from a replay buffer usually fall behind on-policy training?",
]


def test_kept_sentences_give_the_same_answers_without_embedding_them(
    store_copy: Settings, seeded_bot: Paperbot, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = Paperbot(store_copy)
    every = {s for p in app.papers().values() for s in sentences.split(p.display)}
    report = keep(app.papers(), app.store.sentences(), app.embedder.exact)
    assert report.sentences == len(every) > 300 and report.embedded == report.sentences
    assert keep(app.papers(), app.store.sentences(), app.embedder.exact).embedded == 0  # all kept already
    app.store.close()

    expected = [seeded_bot.ask(q, generator="extractive").markdown for q in QUESTIONS]
    embedded: list[str] = []
    real = embedder.Embedder.embed

    def counting(self: embedder.Embedder, texts: list[str]) -> np.ndarray:
        embedded.extend(texts)
        return real(self, texts)

    monkeypatch.setattr(embedder.Embedder, "embed", counting)
    fresh = Paperbot(store_copy)  # a new process's view: nothing recent, everything kept
    assert [fresh.ask(q, generator="extractive").markdown for q in QUESTIONS] == expected
    assert embedded, "the questions themselves are still embedded"
    assert not every & set(embedded), "an abstract sentence was embedded although its vector is kept"


def test_a_stopped_run_keeps_what_it_finished(store_copy: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    app = Paperbot(store_copy)
    papers = dict(list(app.papers().items())[:10])
    monkeypatch.setattr("ingest.sentences.SLICE", 20)
    calls = 0

    def stops_on_the_third(texts: list[str]) -> np.ndarray:
        nonlocal calls
        calls += 1
        if calls == 3:
            raise KeyboardInterrupt
        return app.embedder.exact(texts)

    with pytest.raises(KeyboardInterrupt):
        keep(papers, app.store.sentences(), stops_on_the_third)
    assert app.store.sentences().count() == 40  # the two slices finished, each in its own transaction
    again = keep(papers, app.store.sentences(), app.embedder.exact)
    assert again.sentences > 60 and again.embedded == again.sentences - 40


def test_the_cli_reports_them(store_copy: Settings, run_cli: Callable[..., Any]) -> None:
    store = Path(store_copy.store)
    done = run_cli("ingest", "--sentences", "--json", "--store", store)
    assert done.code == 0, done.err
    first = done.json()["sentences"]
    assert first["sentences"] == first["embedded"] > 300
    again = run_cli("ingest", "--sentences", "--store", store)
    assert again.code == 0
    kept = f"sentences: {first['sentences']:,} of the abstracts' sentences and titles kept for answers, 0 embedded now"
    assert kept in again.out
    plain = run_cli("ingest", "--json", "--store", store)
    assert "sentences" not in plain.json()
    assert wiring.keep_sentences(Paperbot(store_copy)).embedded == 0


def test_a_papers_title_is_kept_too_since_checking_an_answer_compares_with_it(
    tmp_path: Path, seeded_bot: Paperbot
) -> None:
    paper = Paper(
        "p1",
        "We propose Alpha for ranking. Alpha is fast.",
        "We propose Alpha for ranking. Alpha is fast.",
        "X",
        "h1",
        (),
        title="Alpha: a fast method",
    )
    kept = SentenceVectors(tmp_path / "s.sqlite", "vectors_a")
    report = keep({"p1": paper}, kept, seeded_bot.embedder.exact)
    assert report.sentences == report.embedded == 3
    assert kept.missing(["Alpha: a fast method", "We propose Alpha for ranking.", "Alpha is fast."]) == []
    assert sentences.compared(paper) == ["Alpha: a fast method", "We propose Alpha for ranking.", "Alpha is fast."]
