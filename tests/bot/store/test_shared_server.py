"""A Chroma server a team shares: it holds every paper, so clients with empty folders see the same store."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import chromadb
import pytest

from bot.app import Paperbot
from bot.settings import Settings
from bot.store.paths import StorePaths

pytestmark = pytest.mark.slow


def _search(run_cli: Callable[..., Any], query: str, *common: str | Path) -> list[tuple[str, str, float]]:
    run = run_cli("search", query, "--json", "--k", "4", *common)
    assert run.code == 0, run.err
    return [(r["paper_id"], r["label"], r["score"]) for r in run.json()["results"]]


def test_two_clients_with_empty_folders_ingest_and_search_each_others_papers(
    chroma_servers: Callable[[str], Any],
    tmp_path: Path,
    write_abstracts: Callable[..., Path],
    small_abstracts: dict[str, str],
    run_cli: Callable[..., Any],
    settings_for: Callable[..., Settings],
) -> None:
    server = chroma_servers("shared")
    texts = list(small_abstracts.values())
    alice = ("--store", tmp_path / "alice", "--chroma-url", server.url)
    bob = ("--store", tmp_path / "bob", "--chroma-url", server.url)

    first = run_cli("ingest", write_abstracts(tmp_path / "a" / "penguins.txt", texts[:2]), "--json", *alice)
    assert (first.code, first.json()["added"]) == (0, 2), first.err
    # Bob's folder is empty: the papers, their text and labels come from the server.
    assert not (tmp_path / "bob").exists()
    found = _search(run_cli, "counting penguins in drone images of colonies", *bob)
    assert found[0][1] == "PenguinCount"
    assert found == _search(run_cli, "counting penguins in drone images of colonies", *alice)

    # Bob adds his own papers; Alice sees them, and both stores hold the same four.
    second = run_cli("ingest", write_abstracts(tmp_path / "b" / "more.txt", texts[2:]), "--json", *bob)
    assert second.code == 0, second.err
    assert {k: second.json()[k] for k in ("added", "unchanged", "papers")} == {"added": 2, "unchanged": 0, "papers": 4}
    for query, label in [
        ("restoring erased letters in old manuscripts", "QuillNet"),
        ("hive acoustics reveal a lost queen", "Beekeeping sensors"),
        ("forecasting tide heights at harbours", "TideBench"),
    ]:
        mine, theirs = _search(run_cli, query, *alice), _search(run_cli, query, *bob)
        assert mine == theirs and mine[0][1] == label, query

    stored = [Paperbot(settings_for(tmp_path / name, chroma_url=server.url)).papers() for name in ("alice", "bob")]
    assert stored[0] == stored[1] and len(stored[0]) == 4
    # Alice ingesting her file again finds her two papers unchanged and leaves Bob's alone.
    again = run_cli("ingest", tmp_path / "a" / "penguins.txt", "--json", *alice)
    assert {k: again.json()[k] for k in ("added", "unchanged", "papers")} == {"added": 0, "unchanged": 2, "papers": 4}


def _server_counts(url: str) -> tuple[int, int]:
    """(paper records, chunk vectors) on the server right now, as another client would see them."""
    client = chromadb.HttpClient(host="127.0.0.1", port=int(url.rsplit(":", 1)[1]))
    names = {c.name for c in client.list_collections()}
    records = client.get_collection("paperbot-papers").count() if "paperbot-papers" in names else 0
    vectors = client.get_collection("paperbot").count() if "paperbot" in names else 0
    return records, vectors


def test_a_client_killed_mid_ingest_leaves_the_server_completable(
    chroma_servers: Callable[[str], Any],
    tmp_path: Path,
    seeded_store: Settings,
    settings_for: Callable[..., Settings],
    run_ingest: Callable[..., Any],
) -> None:
    server = chroma_servers("killed")
    env = {**os.environ, "PAPERBOT_STORAGE__EMBED_WINDOW": "8", "PAPERBOT_STORAGE__WRITE_BATCH": "4"}
    store = tmp_path / "killed"
    command = [sys.executable, "-m", "bot", "--store", str(store), "--chroma-url", server.url, "ingest"]
    run = subprocess.Popen([*command, str(seeded_store.seeds)], env=env, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while _server_counts(server.url)[0] < 8 and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    run.send_signal(signal.SIGKILL)
    run.wait(timeout=30)
    assert run.returncode == -signal.SIGKILL, "ingest finished before it could be killed"
    total = Paperbot(seeded_store).paper_count()
    records, _ = _server_counts(server.url)
    assert 8 <= records < total

    # Another client, with an empty folder, sees only whole papers: each with its record and vectors.
    other = Paperbot(settings_for(tmp_path / "other", chroma_url=server.url))
    seen = set(other.papers())
    assert len(seen) == records and seen <= other.store.vector_paper_ids()

    # The killed client runs again and completes; the other client follows.
    bot = Paperbot(settings_for(store, chroma_url=server.url))
    report = run_ingest(bot, [seeded_store.seeds])
    assert (report.papers, report.added + report.unchanged) == (total, total)
    assert set(bot.papers()) == bot.store.vector_paper_ids()
    assert _server_counts(server.url) == (total, Paperbot(seeded_store).store.vectors.count())
    time.sleep(1.1)  # a client asks the server whether it changed at most once a second
    assert set(other.papers()) == set(bot.papers())
    top = other.search("calibrated model trust for safe policy improvement", k=1).hits[0]
    assert top.paper.label == "Cal-SPI"
    assert json.loads(json.dumps(sorted(p.label for p in other.papers().values()))) == sorted(
        p.label for p in Paperbot(seeded_store).papers().values()
    )
    assert not StorePaths(tmp_path / "other").chroma.exists()


def test_kept_sentences_stay_in_the_client_folder_and_change_no_answer(
    chroma_servers: Callable[[str], Any],
    tmp_path: Path,
    write_abstracts: Callable[..., Path],
    small_abstracts: dict[str, str],
    run_cli: Callable[..., Any],
) -> None:
    """`ingest --sentences` against a server keeps the vectors in that client's folder (a cache it can
    rebuild); another client with an empty folder gets the same answer, embedding the sentences itself."""
    server = chroma_servers("kept")
    alice = ("--store", tmp_path / "alice", "--chroma-url", server.url)
    bob = ("--store", tmp_path / "bob", "--chroma-url", server.url)
    source = write_abstracts(tmp_path / "a" / "papers.txt", list(small_abstracts.values()))
    done = run_cli("ingest", source, "--sentences", "--json", *alice)
    assert done.code == 0, done.err
    kept = done.json()["sentences"]
    assert kept["sentences"] == kept["embedded"] > len(small_abstracts)
    assert StorePaths(tmp_path / "alice").sentences.is_file()
    question = "How are penguins counted in drone images?"
    answers = [run_cli("ask", question, "--json", *who) for who in (alice, bob)]
    assert all(a.code == 0 for a in answers), [a.err for a in answers]
    assert answers[0].json()["answer"] == answers[1].json()["answer"]
    assert not StorePaths(tmp_path / "bob").sentences.exists()  # Bob embeds them; nothing is kept for him
