"""JSONL, CSV and BEIR folders through the whole ingest: metadata, own ids, search results."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.app import Paperbot
from bot.settings import Settings

pytestmark = pytest.mark.slow


def test_jsonl_with_metadata(
    tmp_path: Path,
    settings_for: Callable[..., Settings],
    small_abstracts: dict[str, str],
    run_cli: Callable[..., Any],
    run_ingest: Callable[..., Any],
) -> None:
    rows = [
        {
            "id": "arXiv:2401.00001",
            "title": "Counting penguins from the air",
            "authors": ["Ada Lovelace", "Alan Turing"],
            "year": 2024,
            "venue": "CVPR",
            "url": "https://example.org/penguins",
            "abstract": small_abstracts["PenguinCount"],
        },
        {
            "_id": "tide-7",
            "title": "Tides",
            "authors": "Grace Hopper; Edsger Dijkstra",
            "year": "2023",
            "venue": "KDD",
            "text": small_abstracts["TideBench"],
        },
    ]
    path = tmp_path / "papers.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    settings = settings_for(tmp_path / "store")
    report = run_ingest(settings, [path])
    assert (report.papers, report.added) == (2, 2)

    papers = {p.source_id: p for p in Paperbot(settings).papers().values()}
    assert set(papers) == {"arXiv:2401.00001", "tide-7"}
    penguins, tides = papers["arXiv:2401.00001"], papers["tide-7"]
    assert (penguins.title, penguins.authors, penguins.year, penguins.venue, penguins.url) == (
        "Counting penguins from the air",
        ("Ada Lovelace", "Alan Turing"),
        2024,
        "CVPR",
        "https://example.org/penguins",
    )
    assert (tides.authors, tides.year, tides.venue, tides.url) == (
        ("Grace Hopper", "Edsger Dijkstra"),
        2023,
        "KDD",
        None,
    )
    assert penguins.text == small_abstracts["PenguinCount"]
    assert [(s.record, s.line) for s in tides.sources] == [(2, None)]

    run = run_cli("search", "penguins in drone images", "--json", "--store", settings.store)
    assert run.code == 0
    top = run.json()["results"][0]
    assert (top["source_id"], top["label"]) == ("arXiv:2401.00001", "Counting penguins from the air")


def test_csv_with_metadata(
    tmp_path: Path,
    settings_for: Callable[..., Settings],
    small_abstracts: dict[str, str],
    run_ingest: Callable[..., Any],
) -> None:
    quoted = small_abstracts["QuillNet"].replace("missing letters", '"missing" letters')
    rows = [
        {
            "paper_id": "c1",
            "Title": "Reading erased ink",
            "Authors": "Ada Lovelace, Alan Turing, Grace Hopper",
            "Year": "2022",
            "Venue": "ACL",
            "Abstract": quoted,
        },
        {
            "paper_id": "c2",
            "Title": "",
            "Authors": "",
            "Year": "n/a",
            "Venue": "",
            "Abstract": small_abstracts["Beekeeping sensors"],
        },
    ]
    path = tmp_path / "papers.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    bot = Paperbot(settings_for(tmp_path / "store"))
    assert run_ingest(bot, [path]).added == 2
    papers = {p.source_id: p for p in bot.papers().values()}
    assert papers["c1"].text == quoted  # the doubled quotes of CSV are undone, nothing cut
    assert (papers["c1"].title, papers["c1"].authors, papers["c1"].year) == (
        "Reading erased ink",
        ("Ada Lovelace", "Alan Turing", "Grace Hopper"),
        2022,
    )
    assert (papers["c2"].title, papers["c2"].year, papers["c2"].label) == (None, None, "Beekeeping sensors")
    assert bot.search("queen loss detected from hive acoustics").hits[0].paper.source_id == "c2"


def test_beir_folder_ingests_only_the_corpus(
    tmp_path: Path,
    settings_for: Callable[..., Settings],
    small_abstracts: dict[str, str],
    run_ingest: Callable[..., Any],
) -> None:
    folder = tmp_path / "scifact-mini"
    (folder / "qrels").mkdir(parents=True)
    corpus = [
        {"_id": "4983", "title": "Penguin counts", "text": small_abstracts["PenguinCount"]},
        {"_id": "5836", "title": "", "text": small_abstracts["TideBench"]},
        {"_id": "7912", "title": "Manuscripts", "text": small_abstracts["QuillNet"]},
    ]
    queries = [{"_id": "1", "text": "Do hives sound different after the queen dies?"}]
    (folder / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in corpus))
    (folder / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries))
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n1\t4983\t1\n")

    bot = Paperbot(settings_for(tmp_path / "store"))
    report = run_ingest(bot, [folder])
    assert (report.papers, report.added) == (3, 3)
    papers = list(bot.papers().values())
    assert {p.source_id for p in papers} == {"4983", "5836", "7912"}
    assert {Path(s.file).name for p in papers for s in p.sources} == {"corpus.jsonl"}
    assert queries[0]["text"] not in {p.text for p in papers}
    assert {p.source_id: p.title for p in papers}["5836"] is None
    assert bot.search("coastal tide forecasting benchmark").hits[0].paper.source_id == "5836"


def test_same_abstract_in_jsonl_and_text_is_one_paper(
    tmp_path: Path,
    settings_for: Callable[..., Settings],
    small_abstracts: dict[str, str],
    write_abstracts: Callable[..., Path],
    run_ingest: Callable[..., Any],
) -> None:
    text = small_abstracts["TideBench"]
    jsonl = tmp_path / "a.jsonl"
    jsonl.write_text(json.dumps({"id": "t1", "title": "Tides", "abstract": text}) + "\n")
    seed = write_abstracts(tmp_path / "b.txt", ["  " + text.replace(". ", ".\n")])
    bot = Paperbot(settings_for(tmp_path / "store"))
    report = run_ingest(bot, [jsonl, seed])
    assert (report.papers, report.added) == (1, 1)
    (paper,) = bot.papers().values()
    assert paper.text == text  # verbatim from its first source
    assert [Path(s.file).name for s in paper.sources] == ["a.jsonl", "b.txt"]
    assert (paper.title, paper.source_id, paper.venue, paper.year) == ("Tides", "t1", "ICML", 2025)
