"""Reading lists persist in the store's SQLite file; papers are named by id, prefix, label or source id."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.errors import QueryError, UnknownListError, UnknownPaperError
from bot.library.lists import resolve
from bot.settings import Settings
from bot.store.lists import ReadingLists
from bot.store.registry import Registry
from bot.types import Paper, Source


def paper(pid: str, label: str, title: str | None = None, source_id: str | None = None) -> Paper:
    return Paper(
        paper_id=pid,
        text=f"Abstract of {label}.",
        display=f"Abstract of {label}.",
        label=label,
        content_hash="h" + pid,
        sources=(Source("x.jsonl", line=1, source_id=source_id),),
        title=title,
    )


@pytest.fixture
def papers() -> dict[str, Paper]:
    items = [
        paper("p111111aaaaaa", "Cal-SPI"),
        paper("p222222bbbbbb", "CURE", source_id="openreview-42"),
        paper("p222222cccccc", "Cure-all", title="A Cure for Everything"),
        paper("p333333dddddd", "χ-Bench"),
    ]
    return {p.paper_id: p for p in items}


def test_resolve_by_id_prefix_label_title_and_source_id(papers: dict[str, Paper]) -> None:
    got = resolve(papers, ["p111111aaaaaa", "p33333", "cure", "a cure for everything", "openreview-42", "χ-Bench"])
    assert [p.label for p in got] == ["Cal-SPI", "χ-Bench", "CURE", "Cure-all"]  # duplicates kept once, in order


def test_resolve_names_every_unknown_and_ambiguous_ref(papers: dict[str, Paper]) -> None:
    with pytest.raises(UnknownPaperError) as info:
        resolve(papers, ["Cal-SPI", "NoSuchPaper", "p222222", "p1"])
    message = str(info.value)
    assert "'NoSuchPaper'" in message and "'p1'" in message
    assert "several papers match 'p222222' (p222222bbb, p222222ccc)" in message
    assert "paperbot search --json" in message
    assert info.value.exit_code == 2


def test_a_source_id_two_papers_share_is_ambiguous(papers: dict[str, Paper]) -> None:
    """One file's "id" given twice named one of the two papers, silently (a fuzzing helper's find)."""
    twin = paper("p444444eeeeee", "Twin", source_id="openreview-42")
    with pytest.raises(UnknownPaperError, match=r"several papers match 'openreview-42' \(p222222bbb, p444444eee\)"):
        resolve({**papers, twin.paper_id: twin}, ["openreview-42"])


def test_lists_keep_order_ignore_duplicates_and_persist(tmp_path: Path, papers: dict[str, Paper]) -> None:
    registry = Registry(tmp_path)  # the lists share the registry's connection and must not disturb it
    registry.write(upsert=papers.values())
    lists = ReadingLists(registry.database)
    p = list(papers.values())
    assert lists.add(" to read ", [p[2], p[0]]) == 2
    assert lists.add("to read", [p[0], p[3]]) == 1
    assert lists.add("other", [p[1]]) == 1
    registry.close()

    reopened = ReadingLists(Registry(tmp_path).database)
    assert reopened.names() == [("other", 1), ("to read", 3)]
    assert reopened.entries("to read") == [
        ("p222222cccccc", "Cure-all"),
        ("p111111aaaaaa", "Cal-SPI"),
        ("p333333dddddd", "χ-Bench"),
    ]
    assert reopened.remove("to read", ["p111111aaaaaa"]) == 1
    assert [pid for pid, _ in reopened.entries("to read")] == ["p222222cccccc", "p333333dddddd"]
    reopened.delete("other")
    assert reopened.names() == [("to read", 2)]
    assert len(Registry(tmp_path).papers()) == 4 and Registry(tmp_path).version() == 1


def test_list_errors_say_what_to_do(tmp_path: Path, papers: dict[str, Paper]) -> None:
    lists = ReadingLists(Registry(tmp_path).database)
    lists.add("mine", [papers["p111111aaaaaa"]])
    with pytest.raises(UnknownListError, match=r"no reading list 'nope' \(lists: mine\).*paperbot list add nope"):
        lists.entries("nope")
    with pytest.raises(UnknownPaperError, match="not on the list 'mine': p333333dddddd"):
        lists.remove("mine", ["p333333dddddd"])
    # A name with a space is suggested shell-quoted: unquoted, `list add to raed` would make a list "to".
    with pytest.raises(UnknownListError) as unknown:
        lists.entries("to raed")
    assert unknown.value.args[0].endswith("create it with `paperbot list add 'to raed' ID...`")
    lists.add("it's mine", [papers["p111111aaaaaa"]])
    with pytest.raises(UnknownPaperError) as absent:
        lists.remove("it's mine", ["p333333dddddd"])
    assert "`paperbot list show 'it'\"'\"'s mine'` shows what is" in absent.value.args[0]
    with pytest.raises(QueryError, match="not a usable list name"):
        lists.add("  ", [papers["p111111aaaaaa"]])


@pytest.mark.slow
def test_list_commands_end_to_end(store_copy: Settings, run_cli: Callable[..., Any], tmp_path: Path) -> None:
    store = ["--store", str(store_copy.store)]
    run = run_cli("list", "add", "safe", "Cal-SPI", "ASCPO", *store, "--json")
    assert run.code == 0, run.err
    assert [p["label"] for p in run.json()["papers"]] == ["Cal-SPI", "ASCPO"] and run.json()["added"] == 2

    grown = run_cli("list", "add", "safe", "--topic", "safe reinforcement learning", *store, "--json")
    labels = [p["label"] for p in grown.json()["papers"]]
    assert (
        labels[:2] == ["Cal-SPI", "ASCPO"]
        and "Heterogeneous risk-constrained reinforcement learning framework" in labels
    )
    assert grown.json()["added"] == len(labels) - 2

    bad = run_cli("list", "add", "safe", "Cal-SPI", "NoSuchPaper", *store)
    assert bad.code == 2 and "'NoSuchPaper'" in bad.err and bad.out == ""
    assert len(run_cli("list", "show", "safe", *store, "--json").json()["papers"]) == len(labels)  # unchanged

    # found by a new user: an error named the paper by its id only, and an empty topic said to give one
    off_list = run_cli("list", "remove", "safe", "CausalBind", *store)
    assert off_list.code == 2 and "not on the list 'safe': CausalBind (p" in off_list.err
    none = run_cli("list", "add", "safe", "--topic", "sourdough bread", *store)
    assert none.code == 2 and "no paper is about 'sourdough bread', so nothing was added" in none.err

    removed = run_cli("list", "remove", "safe", "cal-spi", *store, "--json")
    assert removed.json()["removed"] == 1 and "Cal-SPI" not in [p["label"] for p in removed.json()["papers"]]
    assert run_cli("list", *store, "--json").json() == {"lists": [{"name": "safe", "papers": len(labels) - 1}]}

    out = tmp_path / "safe.md"
    exported = run_cli("export", "--list", "safe", "--format", "markdown", "-o", out, *store)
    assert exported.code == 0 and out.read_text(encoding="utf-8").startswith("# Reading list: safe\n")

    nothing = run_cli("export", "--topic", "counting penguins in drone images", "--format", "ris", *store)
    assert nothing.code == 2 and "nothing to export" in nothing.err and nothing.out == ""

    missing = run_cli("list", "show", "unread", *store)
    assert missing.code == 2 and "no reading list 'unread'" in missing.err
    assert run_cli("list", "add", "to read", "Cal-SPI", *store).code == 0
    assert run_cli("list", "remove", "to read", "Cal-SPI", *store).code == 0
    empty = run_cli("export", "--list", "to read", "--format", "csv", *store)
    assert empty.code == 2 and empty.err.endswith("add papers with `paperbot list add 'to read' ID...`\n")
    assert run_cli("list", "delete", "to read", *store).code == 0
    assert run_cli("list", "delete", "safe", *store).code == 0
    assert json.loads(run_cli("list", *store, "--json").out) == {"lists": []}
