"""What the Triage and Reading list tabs show, as functions of the core's types; no gradio here.

Triage results and reading lists become table rows and markdown, ticked rows are read back as
paper ids, and core errors become one line of markdown. `Library` bundles the core's calls the
tabs are given; it holds none of the core.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from bot.render.markdown import escape
from bot.text.wording import plural
from bot.types import ReadingList, TriageResult

DEFAULT_LIST = "reading-list"
FORMAT_NAMES = {"bibtex": "BibTeX", "ris": "RIS", "csv": "CSV", "markdown": "Markdown"}
# The first column is the tick box and the last the paper id, so ticks survive sorting the table.
TRIAGE_HEADERS = ["pick", "label", "theme", "score", "reason", "paper_id"]
TRIAGE_TYPES = ["bool", "str", "str", "number", "str", "str"]
LIST_HEADERS = ["pick", "label", "title or abstract", "venue", "year", "paper_id"]
LIST_TYPES = ["bool", "str", "str", "str", "str", "str"]
SELECT_HINT = "Tick papers in the first column to choose what to add or export."


@dataclass(frozen=True)
class Library:
    """The core's triage, reading-list and export calls, as plain callables for the UI."""

    triage: Callable[[str], TriageResult]
    reading_list: Callable[[str], ReadingList]
    list_names: Callable[[], list[tuple[str, int]]]  # (name, number of papers), by name
    add_to_list: Callable[[str, list[str]], int]  # (list, paper ids) -> how many were new to it
    remove_from_list: Callable[[str, list[str]], int]
    export_papers: Callable[[str, list[str]], str]  # (format, paper ids) -> file text
    export_list: Callable[[str, str], str]  # (format, list name) -> file text


# --- Triage tab ---


def triage_rows(result: TriageResult) -> list[list[Any]]:
    """One unticked table row per relevant paper, best first.

    Example: -> [[False, 'SORT', 'reasoning, plan', 0.912, '"SORT ... GRPO" (matches: grpo)', 'p3f9a...']]
    """
    return [[False, p.paper.label, p.theme or "", round(p.score, 3), p.reason, p.paper.paper_id] for p in result.papers]


def triage_summary(result: TriageResult) -> str:
    """How many papers are about the topic out of how many, where the cut fell, and the themes."""
    topic = escape(result.topic)
    found = len(result.papers)
    lines = [f"**{found}** of **{result.considered}** papers are about *{topic}*."]
    lines.append(f"Cut ({result.cut.method}): {escape(result.cut.explanation)}")
    if result.themes:
        groups = "; ".join(f"{escape(t.name)} ({len(t.paper_ids)})" for t in result.themes)
        lines.append(f"Themes: {groups}")
    if found:
        lines.append(SELECT_HINT)
    return "\n\n".join(lines)


def triage_placeholder() -> str:
    return "Enter a topic to find every paper in the store about it, not just the top few."


# --- Reading list tab ---


def excerpt(text: str, limit: int = 160) -> str:
    """The text's start, cut at a word. Example: excerpt("Deep nets learn fast.", 12) -> 'Deep nets…'"""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def list_rows(reading: ReadingList) -> list[list[Any]]:
    """One unticked row per paper on the list, in the order added; untitled papers show their abstract's start."""
    return [
        [False, p.label, p.title or excerpt(p.display), p.venue or "", str(p.year or ""), p.paper_id]
        for p in reading.papers
    ]


def list_summary(reading: ReadingList) -> str:
    """Example: list_summary(ReadingList("to read", (a, b))) -> '**to read**: 2 papers'"""
    line = f"**{escape(reading.name)}**: {plural(len(reading.papers))}"
    if reading.missing:
        line += f" ({len(reading.missing)} more no longer in the store: {escape(', '.join(reading.missing))})"
    return line


def list_choices(names: list[tuple[str, int]]) -> list[tuple[str, str]]:
    """Dropdown choices (shown, value). Example: list_choices([("to read", 2)]) -> [('to read (2)', 'to read')]"""
    return [(f"{name} ({count})", name) for name, count in names]


def pick_list(names: list[tuple[str, int]], current: str | None, preferred: str | None = None) -> str | None:
    """The list to show: `preferred` (just added to), else the current one, else the first; None if none exist."""
    known = [name for name, _ in names]
    for name in (preferred, current):
        if name in known:
            return name
    return known[0] if known else None


NO_LISTS = "No reading lists yet: tick papers in the Triage tab or a chat answer's citations and add them."


# --- Shared by the tabs ---


def selected_ids(rows: Sequence[Sequence[Any]] | None) -> list[str]:
    """The paper ids (last column) of the ticked rows, in table order.

    Example: selected_ids([[True, "A", "p1"], [False, "B", "p2"]]) -> ['p1']
    """
    return [str(row[-1]) for row in rows or [] if len(row) > 1 and row[0] is True and str(row[-1]).strip()]


def all_ids(rows: Sequence[Sequence[Any]] | None) -> list[str]:
    """The paper ids of every row (an empty table may come back as one blank row)."""
    return [str(row[-1]) for row in rows or [] if len(row) > 1 and str(row[-1]).strip()]


def selection_line(rows: Sequence[Sequence[Any]] | None) -> str:
    """What the download buttons hold: the ticked papers, or all rows when none is ticked."""
    chosen, every = selected_ids(rows), all_ids(rows)
    if not every:
        return ""
    if not chosen:
        return f"Nothing ticked: the downloads hold all {plural(len(every))}."
    labels = {str(row[-1]): str(row[1]) for row in rows or [] if len(row) > 1}
    names = ", ".join(escape(labels[pid]) for pid in chosen)
    return f"**{len(chosen)}** ticked ({names}): the downloads and *Add* use these."


def added_message(new: int, chosen: int, name: str) -> str:
    """Example: added_message(1, 2, "to read") -> 'Added 1 paper to **to read** (1 was already on it).'"""
    already = chosen - new
    tail = f" ({already} {'was' if already == 1 else 'were'} already on it)" if already else ""
    return f"Added {plural(new)} to **{escape(name)}**{tail}."


def removed_message(removed: int, name: str) -> str:
    """Example: removed_message(2, "to read") -> 'Removed 2 papers from **to read**.'"""
    return f"Removed {plural(removed)} from **{escape(name)}**."


def problem(message: str) -> str:
    """A core error as a line of markdown (never a traceback)."""
    return f"**Could not do that:** {html.escape(message)}"
