"""--prune: papers whose files are gone are removed only when asked, and a warning says so."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.app import Paperbot
from bot.settings import Settings

pytestmark = pytest.mark.slow


@pytest.fixture
def two_files(tmp_path: Path, seed_paragraphs: list[Any], write_abstracts: Callable[..., Path]) -> dict[str, Any]:
    """a.txt = [NCTS, Cal-SPI], b.txt = [Cal-SPI, another]: real seed text, Cal-SPI in both."""
    by_start = {p.text[:40]: p.text for p in seed_paragraphs}
    ncts = by_start["Critical sequential decisions are rarely"]
    calspi = by_start["Safe Policy Improvement (SPI) aims to im"]
    other = next(p.text for p in seed_paragraphs if p.file.name.startswith("004"))
    folder = tmp_path / "corpus"
    header = "NeurIPS 2026 论文列表"
    return {
        "folder": folder,
        "a": write_abstracts(folder / "a.txt", [ncts, calspi], header=header),
        "b": write_abstracts(folder / "b.txt", [calspi, other], header=header),
        "ncts": ncts,
        "calspi": calspi,
        "other": other,
    }


def _papers(settings: Settings) -> dict[str, Any]:
    return {p.text: p for p in Paperbot(settings).papers().values()}


def test_deleted_file_is_pruned_only_with_prune(
    two_files: dict[str, Any],
    tmp_path: Path,
    settings_for: Callable[..., Settings],
    run_cli: Callable[..., Any],
) -> None:
    settings = settings_for(tmp_path / "store")
    store = ["--store", settings.store]
    first = run_cli("ingest", two_files["folder"], "--json", *store)
    assert (first.code, first.json()["papers"], first.json()["added"]) == (0, 3, 3)
    ncts_id = _papers(settings)[two_files["ncts"]].paper_id

    two_files["a"].unlink()
    kept = run_cli("ingest", two_files["folder"], "--json", *store)
    assert kept.code == 0
    assert kept.json()["papers"] == 3 and kept.json()["removed"] == 0
    assert kept.err.startswith("paperbot: warning: 1 stored paper is no longer in the file it came from")
    assert "--prune" in kept.err
    assert two_files["ncts"] in _papers(settings)

    pruned = run_cli("ingest", two_files["folder"], "--prune", "--json", *store)
    assert (pruned.code, pruned.messages) == (0, "")
    counts = {k: v for k, v in pruned.json().items() if k != "seconds"}
    assert counts == {
        "papers": 2,
        "added": 0,
        "updated": 0,
        "removed": 1,
        "unchanged": 2,
        "merged": 0,
        "filtered_out": 0,
    }
    papers = _papers(settings)
    assert set(papers) == {two_files["calspi"], two_files["other"]}
    # Cal-SPI was also in b.txt: kept, with only the source that still exists.
    assert [Path(s.file).name for s in papers[two_files["calspi"]].sources] == ["b.txt"]
    bot = Paperbot(settings)
    assert ncts_id not in bot.store.vector_paper_ids()
    hits = bot.search("Nested Causal Thompson Sampling for hierarchical bandits").hits
    assert ncts_id not in {h.paper.paper_id for h in hits}

    quiet = run_cli("ingest", two_files["folder"], "--json", *store)
    assert (quiet.code, quiet.err, quiet.json()["unchanged"]) == (0, "", 2)


def test_deleting_a_paragraph_warns_and_prune_removes_it(
    two_files: dict[str, Any],
    tmp_path: Path,
    settings_for: Callable[..., Settings],
    write_abstracts: Callable[..., Path],
    run_ingest: Callable[..., Any],
) -> None:
    bot = Paperbot(settings_for(tmp_path / "store"))
    run_ingest(bot, [two_files["folder"]])
    write_abstracts(two_files["b"], [two_files["calspi"]])  # `other` deleted from the end
    kept = run_ingest(bot, [two_files["folder"]])
    assert (kept.papers, kept.removed, kept.stale) == (3, 0, 1)
    assert any("--prune" in w for w in kept.warnings)
    pruned = run_ingest(bot, [two_files["folder"]], prune=True)
    assert (pruned.papers, pruned.removed, pruned.stale) == (2, 1, 0)
    assert two_files["other"] not in {p.text for p in bot.papers().values()}


def test_prune_keeps_papers_of_other_files_that_still_exist(
    two_files: dict[str, Any],
    tmp_path: Path,
    settings_for: Callable[..., Settings],
    write_abstracts: Callable[..., Path],
    small_abstracts: dict[str, str],
    run_ingest: Callable[..., Any],
) -> None:
    bot = Paperbot(settings_for(tmp_path / "store"))
    elsewhere = write_abstracts(tmp_path / "elsewhere.txt", [small_abstracts["PenguinCount"]])
    run_ingest(bot, [elsewhere])
    run_ingest(bot, [two_files["folder"]])
    report = run_ingest(bot, [two_files["folder"]], prune=True)
    assert (report.papers, report.removed) == (4, 0)
    assert small_abstracts["PenguinCount"] in {p.text for p in bot.papers().values()}


def test_prune_keeps_a_paper_whose_line_became_unreadable_with_skip_bad(
    tmp_path: Path, settings_for: Callable[..., Settings], run_ingest: Callable[..., Any]
) -> None:
    """A typo breaking a JSON line, read with --skip-bad --prune, removed that line's stored paper and its
    place in reading lists (a fuzzing helper's find): the paper may be the record skipped, so it stays, said."""
    rows = [
        json.dumps(
            {
                "id": f"r{i}",
                "abstract": f"We propose method {i} for sparse molecular graph learning with "
                f"contrastive objectives, tested on {i * 3 + 2} datasets.",
            }
        )
        for i in range(3)
    ]
    path = tmp_path / "p.jsonl"
    path.write_text("\n".join(rows) + "\n")
    settings = settings_for(tmp_path / "store")
    run_ingest(settings, [path])
    rows[1] = rows[1][:-5]
    path.write_text("\n".join(rows) + "\n")
    report = run_ingest(settings, [path], prune=True, skip_bad=True)
    assert (report.papers, report.removed) == (3, 0)
    assert any(w.startswith("skipped: ") and "line 2" in w for w in report.warnings)
    assert any("kept 1 paper --prune would have removed" in w for w in report.warnings)
    rows[1] = rows[1] + '."}'
    path.write_text("\n".join(rows[:1] + rows[2:]) + "\n")  # the line deleted on purpose: pruned as before
    assert run_ingest(settings, [path], prune=True, skip_bad=True).removed == 1
