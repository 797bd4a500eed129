"""The bundled seeds, ingested once for the session: papers, duplicates, labels, text, re-runs."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.app import Paperbot
from bot.types import IngestReport, Paper

pytestmark = pytest.mark.slow

REPORT_KEYS = {"papers", "added", "updated", "removed", "unchanged", "merged", "filtered_out", "seconds"}


def _by_text(bot: Paperbot) -> dict[str, Paper]:
    return {p.text: p for p in bot.papers().values()}


def test_seeds_ingest_to_53_papers_from_55_paragraphs(
    seed_report: IngestReport, seeded_bot: Paperbot, seed_paragraphs: list[Any]
) -> None:
    assert len(seed_paragraphs) == 55
    assert len({p.text for p in seed_paragraphs}) == 53
    assert (seed_report.papers, seed_report.added) == (53, 53)
    assert (seed_report.updated, seed_report.removed, seed_report.unchanged) == (0, 0, 0)
    assert seed_report.warnings == ()
    assert seeded_bot.paper_count() == 53
    assert seeded_bot.store.vector_paper_ids() == set(seeded_bot.papers())


def test_every_paragraph_is_stored_verbatim_with_its_file_and_line(
    seeded_bot: Paperbot, seed_paragraphs: list[Any]
) -> None:
    expected: dict[str, set[tuple[str, int, int]]] = defaultdict(set)
    for para in seed_paragraphs:
        expected[para.text].add((para.file.name, para.line, para.record))
    stored = _by_text(seeded_bot)
    assert set(stored) == set(expected)  # raw text is exactly the file's paragraph
    for text, paper in stored.items():
        got = {(Path(s.file).name, s.line, s.record) for s in paper.sources}
        assert got == expected[text], paper.label


def test_duplicates_are_merged_with_both_sources(seeded_bot: Paperbot, seed_paragraphs: list[Any]) -> None:
    counts = Counter(p.text for p in seed_paragraphs)
    duplicated = [_by_text(seeded_bot)[t] for t, n in counts.items() if n == 2]
    assert sorted(p.label for p in duplicated) == ["COMPASS", "Cal-SPI"]
    for paper in duplicated:
        files = sorted(Path(s.file).name for s in paper.sources)
        assert files == ["000_f8b488bc16429f6e.txt", "001_9443314ccea8756f.txt"]


def test_header_line_is_collection_metadata_not_a_paper(seeded_bot: Paperbot, seed_headers: dict[str, str]) -> None:
    assert set(seed_headers.values()) == {"NeurIPS 2026 论文列表"}
    papers = seeded_bot.papers().values()
    assert not [p for p in papers if p.text in seed_headers.values()]
    for paper in papers:
        assert (paper.venue, paper.year) == ("NeurIPS", 2026)
        assert {s.collection for s in paper.sources} == {"NeurIPS 2026 论文列表"}
        assert all(s.line is not None and s.line >= 3 for s in paper.sources)


def test_labels_are_present_distinct_and_name_the_method(seeded_bot: Paperbot) -> None:
    papers = list(seeded_bot.papers().values())
    labels = [p.label for p in papers]
    assert all(label.strip() for label in labels)
    assert len({label.lower() for label in labels}) == 53
    by_label = {p.label: p for p in papers}
    for label, introduced in [
        ("CausalBind", "CausalBind"),
        ("Cal-SPI", "We propose Calibrated Safe Policy Improvement (Cal-SPI)"),
        ("χ-Bench", "We introduce χ-Bench"),
        ("PRISM", "We introduce PRISM"),
    ]:
        assert label in by_label, label
        assert introduced in by_label[label].display


def test_display_renders_markup_while_text_stays_raw(seeded_bot: Paperbot) -> None:
    by_label = {p.label: p for p in seeded_bot.papers().values()}
    cases = [
        ("χ-Bench", "We introduce $\\chi$-Bench, a benchmark", "We introduce χ-Bench, a benchmark"),
        ("PRISM", "introduce \\textbf{PRISM}, a three-stage", "introduce PRISM, a three-stage"),
        ("CaC", "produce **sparse subtle anomalies**.", "produce sparse subtle anomalies."),
        ("CARD", "\\textbf{CARD} (\\textbf{C}ritique-\\textbf{A}ugmented", "CARD (Critique-Augmented"),
        ("χ-Bench", "resolves only **28.0%** of tasks", "resolves only 28.0% of tasks"),
    ]
    for label, raw, shown in cases:
        paper = by_label[label]
        assert raw in paper.text and raw not in paper.display
        assert shown in paper.display and shown not in paper.text
    for paper in by_label.values():
        assert "**" not in paper.display and "\\textbf" not in paper.display
        assert "$" not in paper.display, paper.label  # the seeds' dollars are all math


def test_second_ingest_embeds_nothing(
    store_copy: Any,
    run_cli: Callable[..., Any],
    snapshot: Callable[[Any], Any],
) -> None:
    before = snapshot(store_copy)
    assert (len(before.papers), before.vector_papers) == (53, frozenset(before.papers))
    run = run_cli("ingest", "--json", "--store", store_copy.store)
    assert (run.code, run.messages) == (0, "")
    report = run.json()
    assert set(report) == REPORT_KEYS
    assert {k: v for k, v in report.items() if k != "seconds"} == {
        "papers": 53,
        "added": 0,
        "updated": 0,
        "removed": 0,
        "unchanged": 53,
        "merged": 0,
        "filtered_out": 0,
    }
    assert isinstance(report["seconds"], float) and report["seconds"] >= 0
    after = snapshot(store_copy)
    # Nothing written: the registry version counts every write, and the vectors are the same.
    assert (after.version, after.vectors, after.papers) == (before.version, before.vectors, before.papers)


def test_copied_store_searches_like_the_original(store_copy: Any, seeded_bot: Paperbot) -> None:
    query = "calibrated model trust for safe policy improvement in continuous control"
    original = seeded_bot.search(query)
    copy = Paperbot(store_copy).search(query)
    assert original.hits[0].paper.label == "Cal-SPI"
    assert [h.paper.paper_id for h in copy.hits] == [h.paper.paper_id for h in original.hits]
