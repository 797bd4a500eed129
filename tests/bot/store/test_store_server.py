"""The client/server path: a real `chroma run` process behind --chroma-url."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.app import Paperbot
from bot.errors import StoreUnavailable
from bot.settings import Settings
from bot.store.paths import StorePaths

pytestmark = pytest.mark.slow


def test_ingest_and_search_through_a_chroma_server(
    chroma_servers: Callable[[str], Any],
    tmp_path: Path,
    write_abstracts: Callable[..., Path],
    small_abstracts: dict[str, str],
    run_cli: Callable[..., Any],
) -> None:
    server = chroma_servers("chroma-a")
    corpus = write_abstracts(tmp_path / "corpus" / "small.txt", list(small_abstracts.values()))
    store = tmp_path / "store"
    common = ("--store", store, "--chroma-url", server.url)

    first = run_cli("ingest", corpus, "--json", *common)
    assert (first.code, first.messages) == (0, "")
    # stderr is no terminal here, so progress comes as plain lines, first and last
    assert first.err.startswith("embedding 4 papers\n") and "\nembedded 4 papers in " in first.err
    assert (first.json()["papers"], first.json()["added"]) == (4, 4)
    assert not StorePaths(store).chroma.exists()  # the vectors live on the server, not locally
    assert (server.path / "chroma.sqlite3").is_file()

    for query, label in [
        ("counting penguins in drone images of colonies", "PenguinCount"),
        ("forecasting tide heights at harbours", "TideBench"),
        ("restoring erased letters in old manuscripts", "QuillNet"),
        ("hive acoustics reveal a lost queen", "Beekeeping sensors"),
    ]:
        run = run_cli("search", query, "--json", *common)
        assert run.code == 0, run.err
        assert run.json()["results"][0]["label"] == label, query

    second = run_cli("ingest", corpus, "--json", *common)
    assert second.code == 0
    assert {k: second.json()[k] for k in ("papers", "added", "updated", "unchanged")} == {
        "papers": 4,
        "added": 0,
        "updated": 0,
        "unchanged": 4,
    }
    assert second.messages == ""  # no "re-embedded" warning: the server still has every vector


def test_a_wiped_server_is_refilled_with_current_sources(
    chroma_servers: Callable[[str], Any],
    tmp_path: Path,
    settings_for: Callable[..., Settings],
    write_abstracts: Callable[..., Path],
    small_abstracts: dict[str, str],
    run_ingest: Callable[..., Any],
) -> None:
    texts = list(small_abstracts.values())
    a = write_abstracts(tmp_path / "a.txt", texts[:2])
    first = chroma_servers("chroma-first")
    bot = Paperbot(settings_for(tmp_path / "store", chroma_url=first.url))
    assert run_ingest(bot, [a]).added == 2
    first.stop()

    # A new, empty server; b.txt repeats a paper of a.txt, so its sources change as well.
    fresh = chroma_servers("chroma-fresh")
    b = write_abstracts(tmp_path / "b.txt", [texts[0], texts[2]])
    bot = Paperbot(settings_for(tmp_path / "store", chroma_url=fresh.url))
    report = run_ingest(bot, [a, b])
    assert (report.papers, report.added, report.unchanged) == (3, 1, 2)
    assert "re-embedded 2 papers missing from the vector store" in report.warnings
    assert bot.store.vector_paper_ids() == set(bot.papers())
    shared = next(p for p in bot.papers().values() if p.text == texts[0])
    assert [Path(s.file).name for s in shared.sources] == ["a.txt", "b.txt"]
    assert bot.search("counting penguins from drones").hits[0].paper.paper_id == shared.paper_id


def test_unreachable_server_is_a_clear_store_error(
    tmp_path: Path, settings_for: Callable[..., Settings], run_cli: Callable[..., Any], free_port: Callable[[], int]
) -> None:
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    with pytest.raises(StoreUnavailable) as info:
        Paperbot(settings_for(tmp_path / "store", chroma_url=url))
    assert f"cannot reach the Chroma server at {url}" in str(info.value)
    assert "chroma run --path DIR" in str(info.value)

    run = run_cli("search", "anything", "--store", tmp_path / "store", "--chroma-url", url)
    assert (run.code, run.out) == (3, "")
    assert run.err.startswith(f"paperbot: error: cannot reach the Chroma server at {url}")
