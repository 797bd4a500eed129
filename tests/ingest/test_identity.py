"""One paper, many sources (issue 19): versions of a paper found by DOI, arXiv id, rendered text or
title with a near-identical abstract, combined with every source, the richest metadata and the
newest abstract; in one read, and against what a store already holds, through the real ingest."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from bot.app import Paperbot
from bot.settings import Settings
from bot.types import Paper, Source
from ingest.identity import arxiv_id, same_paper
from ingest.plan import align, group_records, plan_changes
from ingest.records import RawRecord, doi_of

V1 = (
    "We study sparse mixtures of experts for long-context language modelling. Routing tokens by "
    "their position in the document lets each expert specialise on a span of the context. On three "
    "long-document benchmarks the routed model matches a dense baseline with a quarter of the compute."
)
# arXiv v2: the last sentence revised, a sentence added.
V2 = V1.replace("a quarter of the compute", "a fifth of the compute and half the memory") + (
    " We release the code and the trained routers."
)
OTHER = (
    "Graph neural networks over-smooth as they grow deeper. We add a residual gate that keeps each "
    "node's own features, and train 64-layer networks without loss of accuracy on citation graphs."
)


def _record(text: str, n: int, file: str = "a.jsonl", **fields: Any) -> RawRecord:
    return RawRecord(text=text, source=Source(file=file, record=n, source_id=fields.pop("source_id", None)), **fields)


def test_doi_and_arxiv_ids_are_read_in_one_form() -> None:
    assert doi_of("https://doi.org/10.1145/ABC.123") == "10.1145/abc.123"
    assert doi_of("doi: 10.5555/x") == "10.5555/x"
    assert doi_of("10.1145/x 10.5555/y") == "10.1145/x"  # the arXiv snapshot lists several
    assert doi_of("not a doi") is None
    (paper,) = group_records([_record(V1, 1, url="https://arxiv.org/abs/2301.01234v2")])[0].values()
    assert arxiv_id(paper) == "2301.01234"
    (old,) = group_records([_record(V1, 1, source_id="hep-th/9901001v3")])[0].values()
    assert arxiv_id(old) == "hep-th/9901001"


def test_versions_in_one_read_become_one_paper_with_every_source() -> None:
    records = [
        _record(V1, 1, title="Routed Experts for Long Context", year=2023, source_id="2301.01234"),
        _record(OTHER, 2, title="Deep Gated GNNs", year=2024),
        # The Zotero copy: same title in other case and punctuation, newer abstract, richer metadata.
        _record(
            V2,
            1,
            file="zotero.bib",
            title="Routed experts for long context!",
            year=2024,
            authors=("Ada Lovelace", "Alan Turing"),
            venue="ICLR 2024",
            doi="10.5555/routed",
            source_id="lovelace2024",
        ),
    ]
    papers, folded = group_records(records)
    assert sum(folded.values()) == 1 and len(papers) == 2
    routed = next(p for p in papers.values() if p.doi)
    assert routed.text == V2  # the newest abstract (2024 over 2023)
    assert routed.authors == ("Ada Lovelace", "Alan Turing") and routed.venue == "ICLR 2024"
    assert [s.source_id for s in routed.sources] == ["2301.01234", "lovelace2024"]
    assert routed.paper_id != next(p for p in papers.values() if not p.doi).paper_id


def test_a_shared_title_with_a_different_abstract_is_two_papers() -> None:
    records = [_record(V1, 1, title="Introduction"), _record(OTHER, 2, title="Introduction")]
    papers, folded = group_records(records)
    assert (len(papers), sum(folded.values())) == (2, 0)
    assert not same_paper(*papers.values())


def test_exact_duplicates_are_not_counted_as_merged() -> None:
    papers, folded = group_records([_record(V1, 1), _record(V1, 1, file="b.txt")])
    assert (len(papers), sum(folded.values())) == (1, 0)
    assert len(next(iter(papers.values())).sources) == 2


def test_a_new_version_takes_the_stored_papers_id() -> None:
    stored, _ = group_records([_record(V1, 1, title="Routed Experts for Long Context", year=2023)])
    (old,) = stored.values()
    found, _ = group_records([_record(V2, 1, file="new.jsonl", title="Routed Experts for Long Context", year=2024)])
    aligned, merged = align(found, stored)
    assert merged == 1 and list(aligned) == [old.paper_id]
    assert aligned[old.paper_id].text == V2
    # An older version arriving later keeps the newer stored abstract.
    older, _ = group_records([_record(V1, 1, file="old.jsonl", title="Routed Experts for Long Context", year=2022)])
    kept, _ = align(older, {p.paper_id: p for p in aligned.values()})
    assert kept[old.paper_id].text == V2


def _ingest(store: dict[str, Paper], records: list[RawRecord]) -> tuple[dict[str, Paper], dict[str, int]]:
    """What an ingest of `records` would leave in a store of `store` (plan only, nothing embedded)."""
    found, folded = group_records(records)
    found, merged = align(found, store, folded)
    plan = plan_changes(found, store, {r.source.file for r in records}, prune=False)
    after = {pid: p for pid, p in store.items() if pid not in plan.remove}
    after.update({p.paper_id: replace(p, label=p.label or "L") for p in [*plan.embed, *plan.keep]})
    counts = {"added": plan.added, "updated": plan.updated, "unchanged": plan.unchanged, "merged": merged}
    return after, counts


def test_reading_the_same_files_again_in_any_order_changes_nothing() -> None:
    a, b = _record(V1, 1, title="Routed Experts"), _record(V2, 1, file="b.jsonl", title="Routed Experts")
    store, counts = _ingest({}, [a])
    store, counts = _ingest(store, [b])
    assert counts == {"added": 0, "updated": 1, "unchanged": 0, "merged": 1}
    (paper,) = store.values()
    assert paper.text == V2  # no years: the longer, revised abstract
    for again in ([a], [b], [a, b], [b, a]):
        after, counts = _ingest(store, again)
        assert after == store and counts["updated"] == counts["merged"] == 0, again
    assert _ingest({}, [b, a])[0].keys() == _ingest({}, [a, b])[0].keys()


def test_the_newest_abstract_keeps_its_year_and_an_edit_in_place_is_applied() -> None:
    a = _record(V1, 1, title="Routed Experts", year=2023, authors=("A", "B"), venue="ICLR")
    store, _ = _ingest({}, [a, _record(V2, 1, file="b.jsonl", title="Routed Experts", year=2024)])
    (paper,) = store.values()
    assert (paper.text, paper.year, paper.venue) == (V2, 2024, "ICLR")
    assert _ingest(store, [a])[0] == store  # the older version read again
    # A typo fixed in a paper read from one file is that paper, edited: not a merge.
    (alone,) = _ingest({}, [_record(V1, 1, title="Routed Experts")])[0].values()
    fixed = V1.replace("specialise", "specialize")
    after, counts = _ingest({alone.paper_id: alone}, [_record(fixed, 1, title="Routed Experts")])
    assert counts == {"added": 0, "updated": 1, "unchanged": 0, "merged": 0}
    assert [p.text for p in after.values()] == [fixed] and list(after) == [alone.paper_id]


def test_a_doi_shared_by_a_volume_or_a_key_like_an_arxiv_id_does_not_merge_papers() -> None:
    chapters = [
        _record(V1, 1, file="book.bib", title="Routed Experts", doi="10.1007/978-3-030"),
        _record(OTHER, 2, file="book.bib", title="Deep Gated GNNs", doi="10.1007/978-3-030"),
    ]
    assert len(group_records(chapters)[0]) == 2
    keys = [_record(V1, 1, source_id="2019.12345"), _record(OTHER, 2, file="b.csv", source_id="2019.12345")]
    (first, second) = group_records(keys)[0].values()
    assert arxiv_id(first) is None and arxiv_id(second) is None


@pytest.mark.slow
def test_ingest_merges_a_version_from_another_file_into_the_stored_paper(
    tmp_path: Path, settings_for: Callable[..., Settings], run_cli: Callable[..., Any]
) -> None:
    settings = settings_for(tmp_path / "store")
    store = ["--store", settings.store]
    first = tmp_path / "arxiv.jsonl"
    first.write_text(
        json.dumps({"id": "2301.01234", "abstract": V1, "year": 2023, "url": "https://arxiv.org/abs/2301.01234v1"})
        + "\n"
        + json.dumps({"abstract": OTHER, "title": "Deep Gated GNNs"})
        + "\n"
    )
    done = run_cli("ingest", first, "--json", *store)
    assert (done.code, done.json()["papers"], done.json()["merged"]) == (0, 2, 0)
    before = {p.text: p for p in Paperbot(settings).papers().values()}
    Paperbot(settings).add_to_list("reading", [before[V1].paper_id])

    second = tmp_path / "library.jsonl"
    second.write_text(
        json.dumps(
            {
                "id": "lovelace2024",
                "abstract": V2,
                "title": "Routed Experts for Long Context",
                "year": 2024,
                "authors": ["Ada Lovelace"],
                "url": "https://arxiv.org/abs/2301.01234v2",
            }
        )
        + "\n"
    )
    again = run_cli("ingest", second, "--json", *store)
    counts = {k: again.json()[k] for k in ("papers", "added", "updated", "merged")}
    assert (again.code, counts) == (0, {"papers": 2, "added": 0, "updated": 1, "merged": 1})
    (routed,) = [p for p in Paperbot(settings).papers().values() if p.paper_id == before[V1].paper_id]
    assert routed.text == V2 and routed.title == "Routed Experts for Long Context"
    assert {Path(s.file).name for s in routed.sources} == {"arxiv.jsonl", "library.jsonl"}
    listed = Paperbot(settings).reading_list("reading")
    assert [p.paper_id for p in listed.papers] == [before[V1].paper_id] and not listed.missing
    # Reading the same files again changes nothing.
    third = run_cli("ingest", first, second, "--json", *store)
    assert {k: third.json()[k] for k in ("papers", "added", "updated", "unchanged")} == {
        "papers": 2,
        "added": 0,
        "updated": 0,
        "unchanged": 2,
    }


def test_two_stored_versions_joined_leave_one_paper_and_the_reading_list_follows_it() -> None:
    """Stored apart (the title that joins them came later), read together: one paper, 0 removed,
    and `moved` tells the reading lists where the other id went."""
    a, b = _record(V1, 1, title="Routed Experts"), _record(V2, 1, file="b.bib", title="Routed Experts")
    first, _ = group_records([replace(a, title=None)])
    second, _ = group_records([b])
    store = {**first, **second}
    found, folded = group_records([a, b])
    found, _ = align(found, store, folded)
    plan = plan_changes(found, store, {"a.jsonl", "b.bib"}, prune=False)
    (kept,) = found
    (gone,) = set(store) - {kept}
    assert (plan.removed, plan.remove, plan.moved) == (0, [gone], {gone: kept})


@pytest.mark.slow
def test_a_reading_list_follows_an_edited_abstract(
    tmp_path: Path, settings_for: Callable[..., Settings], run_cli: Callable[..., Any]
) -> None:
    settings = settings_for(tmp_path / "store")
    store = ["--store", settings.store]
    notes = tmp_path / "notes.txt"
    notes.write_text(f"{V1}\n\n{OTHER}\n")
    assert run_cli("ingest", notes, *store).code == 0
    (before,) = [p.paper_id for p in Paperbot(settings).papers().values() if p.text == V1]
    Paperbot(settings).add_to_list("reading", [before])
    edited = V1.replace("specialise", "specialize")
    notes.write_text(f"{edited}\n\n{OTHER}\n")
    run = run_cli("ingest", notes, "--json", *store)
    assert {k: run.json()[k] for k in ("papers", "added", "updated", "removed")} == {
        "papers": 2,
        "added": 0,
        "updated": 1,
        "removed": 0,
    }
    listed = Paperbot(settings).reading_list("reading")
    assert [p.text for p in listed.papers] == [edited] and not listed.missing
