"""The UI's own logic in-process: one chat turn, the once-only seed load, the endpoints, the
callables the Triage and Reading list tabs are given.

Everything runs against a real Paperbot on a store in `tmp_path` (the slow tests embed a
three-abstract corpus with the bundled model); the served app is in test_server.py and
test_browser.py.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path

import bibtexparser
import pytest

from bot import render, ui, ui_views
from bot.app import Paperbot
from bot.settings import Settings
from bot.types import Answer, IngestReport

# Invented abstracts on topics no seed covers, so each question has exactly one right paper.
ABSTRACTS = [
    "We propose PenguinCount, a convolutional network that counts penguins in drone images of "
    "Antarctic breeding colonies. PenguinCount halves the counting error of prior detectors.",
    "We introduce TideBench, a benchmark for forecasting coastal tide heights from sparse "
    "harbour gauge records. Models trained on TideBench transfer to unseen harbours.",
    "We present QuillNet, a language model that restores damaged medieval manuscripts by "
    "predicting missing letters from ink traces. QuillNet recovers most erased words.",
]


def _bot(tmp_path: Path, seeds: Path) -> Paperbot:
    return Paperbot(Settings(store=tmp_path / "store", seeds=seeds, chroma_url=None))


@pytest.fixture
def small_seeds(tmp_path: Path) -> Path:
    folder = tmp_path / "seeds"
    folder.mkdir()
    (folder / "small.txt").write_text("ICML 2025\n\n" + "\n\n".join(ABSTRACTS) + "\n")
    return folder


def _text(message: dict) -> str:
    return str(message["content"])


def test_empty_question_gets_a_polite_reply_and_keeps_the_panel(tmp_path: Path) -> None:
    bot = _bot(tmp_path, tmp_path / "no-seeds")
    history = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    turn = ui.chat_turn("   ", history, bot.ask)
    assert turn.history == [*history, {"role": "assistant", "content": render.EMPTY_QUESTION_REPLY}]
    assert turn.panel is None  # the latest real answer's citations stay on screen


def test_a_core_error_is_a_chat_reply_not_a_traceback(tmp_path: Path) -> None:
    missing = tmp_path / "no-seeds"
    bot = _bot(tmp_path, missing)  # the real core raises MissingPathError when seeding
    loader = ui.SeedLoader(lambda progress: bot.ingest(progress=progress), bot.paper_count)
    turn = ui.chat_turn(" What is ASCPO? ", [], ui.seeded(bot.ask, loader, lambda d, t: None))
    question, reply = turn.history
    assert question == {"role": "user", "content": "What is ASCPO?"}
    assert reply["role"] == "assistant"
    assert _text(reply).startswith("Sorry, I could not answer that: ")
    assert f"{missing}: no such file or folder" in _text(reply)
    assert "Traceback" not in _text(reply)
    assert turn.panel is None


def test_an_unexpected_failure_is_logged_and_shown_without_internals(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(question: str) -> Answer:
        raise RuntimeError("internal detail 0xdeadbeef")

    with caplog.at_level(logging.ERROR, logger="bot.ui"):
        turn = ui.chat_turn("Why?", [], broken)
    assert "server log" in _text(turn.history[-1])
    assert "0xdeadbeef" not in _text(turn.history[-1])
    assert "0xdeadbeef" in caplog.text  # the operator still gets the traceback


def test_without_a_seed_loader_nothing_is_ingested(tmp_path: Path) -> None:
    bot = _bot(tmp_path, tmp_path / "no-seeds")
    loader = ui.SeedLoader(None, bot.paper_count)
    assert not loader.needed()
    assert loader.ensure(lambda d, t: None) is None
    assert bot.paper_count() == 0


def test_build_exposes_ask_and_hides_the_rest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRADIO_ANALYTICS_ENABLED", raising=False)
    bot = _bot(tmp_path, tmp_path / "no-seeds")
    demo = ui.build(bot.ask, None, bot.paper_count, ui.library_of(bot), exports=tmp_path / "exports")
    assert os.environ["GRADIO_ANALYTICS_ENABLED"] == "False"
    info = demo.get_api_info()
    assert list(info["named_endpoints"]) == ["/ask"]  # the documented, stable endpoint
    visibility = {fn.api_name: fn.api_visibility for fn in demo.fns.values()}
    assert visibility["chat"] == "undocumented"  # callable by tests, not advertised
    assert visibility["on_load"] == "private"  # the seed load is never an API
    # Triage, list and export handlers change the store or write files: never an API.
    others = {name: v for name, v in visibility.items() if name not in ("chat", "ask", "load_example")}
    assert any(name.startswith("on_triage") for name in others) and any("on_remove" in name for name in others)
    assert set(others.values()) == {"private"}
    assert (tmp_path / "exports").is_dir()


@pytest.mark.slow
def test_concurrent_first_visits_ingest_the_seeds_once(tmp_path: Path, small_seeds: Path) -> None:
    bot = _bot(tmp_path, small_seeds)
    calls: list[str] = []

    def ingest_seeds(progress: ui.Progress) -> IngestReport:
        calls.append(threading.current_thread().name)
        return bot.ingest(progress=progress)

    loader = ui.SeedLoader(ingest_seeds, bot.paper_count)
    assert loader.needed()
    start = threading.Barrier(2)
    seen: dict[str, list[tuple[int, int]]] = {"a": [], "b": []}
    reports: dict[str, IngestReport | None] = {}

    def visit(name: str) -> None:
        start.wait()
        reports[name] = loader.ensure(lambda done, total: seen[name].append((done, total)))

    threads = [threading.Thread(target=visit, args=(n,), name=n) for n in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)

    assert len(calls) == 1  # one ingest, whichever visitor came first
    assert reports["a"] is reports["b"] is loader.report
    assert loader.report is not None and loader.report.added == 3
    assert bot.paper_count() == 3
    # The waiting visitor may arrive after a 3-paper ingest already finished, so only the
    # ingesting visitor is sure to have seen progress.
    assert (3, 3) in seen[calls[0]]  # the ingesting one saw it finish
    assert not loader.needed()
    loader.ensure(lambda d, t: None)
    assert len(calls) == 1  # a later visit finds papers and ingests nothing

    turn = ui.chat_turn("How can penguins be counted from drone images?", [], bot.ask)
    reply = _text(turn.history[-1])
    assert "[1]" in reply and "**PenguinCount**" in reply
    assert turn.panel is not None and "[1] PenguinCount" in turn.panel
    assert "<mark>" in turn.panel
    # The cited papers are offered for a reading list, by number and label.
    assert turn.answer is not None
    assert ui_views.citation_choices(turn.answer)[0] == ("[1] PenguinCount", bot.resolve(["PenguinCount"])[0].paper_id)


@pytest.mark.slow
def test_the_tabs_callables_reach_the_core(tmp_path: Path, small_seeds: Path) -> None:
    bot = _bot(tmp_path, small_seeds)
    library = ui.library_of(bot)
    loader = ui.SeedLoader(lambda progress: bot.ingest(progress=progress), bot.paper_count)
    # Triage on an empty store first loads the seeds, as the first question does.
    found = ui._after_seeds(library, loader).triage("counting penguins in drone images")
    assert bot.paper_count() == 3
    assert [p.paper.label for p in found.papers] == ["PenguinCount"]
    assert found.considered == 3

    penguin, quill = found.papers[0].paper.paper_id, bot.resolve(["QuillNet"])[0].paper_id
    assert library.list_names() == []
    assert library.add_to_list("to read", [penguin, quill]) == 2
    assert library.add_to_list("to read", [penguin]) == 0
    assert library.list_names() == [("to read", 2)]
    assert [p.label for p in library.reading_list("to read").papers] == ["PenguinCount", "QuillNet"]

    by_list = bibtexparser.parse_string(library.export_list("bibtex", "to read")).entries
    assert [e.fields_dict["title"].value for e in by_list] == ["{PenguinCount}", "{QuillNet}"]
    assert library.export_list("markdown", "to read").startswith("# Reading list: to read")
    by_ids = library.export_papers("csv", [quill])
    assert by_ids.count(quill) == 1 and penguin not in by_ids

    assert library.remove_from_list("to read", [penguin]) == 1
    assert [p.label for p in library.reading_list("to read").papers] == ["QuillNet"]
    assert ui_views.list_choices(library.list_names()) == [("to read (1)", "to read")]
