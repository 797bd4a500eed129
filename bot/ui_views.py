"""What the chat and the Triage and Reading list tabs show, as functions of the core's types; no gradio here.

Turns a streamed answer into the growing chat history (core errors into polite replies), triage
results and reading lists into table rows and markdown, reads the ticked rows back as paper ids,
and writes export text to files for the download buttons. It holds none of the core: the chat
functions take its ask callables, and `Library` only bundles the callables the tabs are given.
"""

from __future__ import annotations

import html
import logging
import re
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot import render
from bot.errors import PaperbotError
from bot.export import EXTENSIONS, FORMATS
from bot.types import Answer, ReadingList, TriageResult

log = logging.getLogger(__name__)

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


def _md(text: str) -> str:
    """Text safe inside markdown emphasis. Example: _md("a*b_c") -> 'a\\*b\\_c'"""
    return re.sub(r"([\\`*_\[\]<>#|])", r"\\\1", " ".join(text.split()))


# --- Triage tab ---


def triage_rows(result: TriageResult) -> list[list[Any]]:
    """One unticked table row per relevant paper, best first.

    Example: -> [[False, 'SORT', 'reasoning, plan', 0.912, '"SORT ... GRPO" (matches: grpo)', 'p3f9a...']]
    """
    return [[False, p.paper.label, p.theme or "", round(p.score, 3), p.reason, p.paper.paper_id] for p in result.papers]


def triage_summary(result: TriageResult) -> str:
    """How many papers are about the topic out of how many, where the cut fell, and the themes."""
    topic = _md(result.topic)
    found = len(result.papers)
    lines = [f"**{found}** of **{result.considered}** papers are about *{topic}*."]
    lines.append(f"Cut ({result.cut.method}): {_md(result.cut.explanation)}")
    if result.themes:
        groups = "; ".join(f"{_md(t.name)} ({len(t.paper_ids)})" for t in result.themes)
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
    line = f"**{_md(reading.name)}**: {render.plural(len(reading.papers))}"
    if reading.missing:
        line += f" ({len(reading.missing)} more no longer in the store: {_md(', '.join(reading.missing))})"
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
        return f"Nothing ticked: the downloads hold all {render.plural(len(every))}."
    labels = {str(row[-1]): str(row[1]) for row in rows or [] if len(row) > 1}
    names = ", ".join(_md(labels[pid]) for pid in chosen)
    return f"**{len(chosen)}** ticked ({names}): the downloads and *Add* use these."


# --- Chat tab: one exchange, its reply streamed ---

Ask = Callable[..., Answer]  # ask(question) or, for a follow-up, ask(question, previous=last answer)
# ask_stream(question, generator=..., previous=...): text pieces as written, then the checked Answer
AskStream = Callable[..., Iterator[str | Answer]]
Message = dict[str, Any]  # one Gradio chat message: {"role": ..., "content": ...}

# The answer paths the chat's "Answer with" menu offers; bot.generate.BACKENDS (a test keeps them equal).
GENERATORS = ("extractive", "openai", "llamacpp")


@dataclass(frozen=True)
class Turn:
    """One exchange's outcome: the new chat history and the citation panel to show."""

    history: list[Message]
    panel: str | None  # None keeps the panel of the latest real answer
    answer: Answer | None = None  # the answer shown; None when the turn made none


BUG_REPLY = render.error_reply("something went wrong in paperbot; the server log has details")


def chat_stream(
    question: str,
    history: list[Message],
    ask_stream: AskStream,
    previous: Answer | None = None,
    generator: str | None = None,
) -> Iterator[Turn]:
    """Append `question` and its reply to `history`, yielding the reply as it grows.

    Each streamed piece yields the plain text so far (panel None); the last Turn holds the checked
    answer's markdown, which replaces that text, with its citation panel. Core errors, before or
    mid-stream, end it with a polite reply instead. `previous`, the last answer shown, lets
    "compare [1] and [3]" follow it up (see bot.followup); `generator` picks who writes the answer.
    Example: pieces 'A [1].', ' B [2].' -> Turns showing 'A [1].', 'A [1]. B [2].', then the answer
    """
    question = (question or "").strip()
    if not question:
        yield Turn([*history, assistant_message(render.EMPTY_QUESTION_REPLY)], None)
        return
    asked = [*history, user_message(question)]
    options: dict[str, Any] = {"previous": previous} if previous is not None else {}
    if generator is not None:
        options["generator"] = generator
    written, answer = "", None
    try:
        for item in ask_stream(question, **options):
            if isinstance(item, Answer):
                answer = item
                break
            written += item
            yield Turn([*asked, assistant_message(render.inert(written))], None)
    except PaperbotError as exc:
        yield Turn([*asked, assistant_message(render.error_reply(str(exc)))], None)
        return
    except Exception:  # the UI boundary: a bug must not show a traceback to the reader
        log.exception("answering %r failed", question)
        yield Turn([*asked, assistant_message(BUG_REPLY)], None)
        return
    if answer is None:  # a stream must end with its Answer; the reader is not left with unchecked text
        log.error("answering %r ended without an Answer", question)
        yield Turn([*asked, assistant_message(BUG_REPLY)], None)
        return
    yield Turn([*asked, assistant_message(reply_markdown(answer))], render.citations_html(answer), answer)


def chat_turn(question: str, history: list[Message], ask: Ask, previous: Answer | None = None) -> Turn:
    """Append `question` and its finished reply to `history`; core errors become polite replies."""
    *_, turn = chat_stream(question, history, whole_answer(ask), previous)
    return turn


def whole_answer(ask: Ask) -> AskStream:
    """`ask` as an answer stream of one item: the finished Answer, with no pieces before it."""

    def stream(question: str, **options: Any) -> Iterator[str | Answer]:
        yield ask(question, **options)

    return stream


def user_message(text: str) -> Message:
    """Example: user_message("Why?") -> {'role': 'user', 'content': 'Why?'}"""
    return {"role": "user", "content": text}


def assistant_message(text: str) -> Message:
    """Example: assistant_message("Because [1].") -> {'role': 'assistant', 'content': 'Because [1].'}"""
    return {"role": "assistant", "content": text}


def reply_markdown(answer: Answer) -> str:
    """The finished chat reply: why a requested model did not write it, if it did not, then the answer.

    Example: notice "The openai language model did not answer: ..." -> '*⚠ The openai ...*\n\n' + the answer
    """
    body = render.chat_markdown(answer)
    return f"*⚠ {_md(answer.notice)}*\n\n{body}" if answer.notice else body


def citation_choices(answer: Answer) -> list[tuple[str, str]]:
    """The cited papers of an answer as checkbox choices. Example: -> [('[1] ASCPO', 'p3f9a...')]"""
    return [(f"[{c.n}] {c.paper.label}", c.paper.paper_id) for c in answer.citations]


def added_message(new: int, chosen: int, name: str) -> str:
    """Example: added_message(1, 2, "to read") -> 'Added 1 paper to **to read** (1 was already on it).'"""
    already = chosen - new
    tail = f" ({already} {'was' if already == 1 else 'were'} already on it)" if already else ""
    return f"Added {render.plural(new)} to **{_md(name)}**{tail}."


def removed_message(removed: int, name: str) -> str:
    """Example: removed_message(2, "to read") -> 'Removed 2 papers from **to read**.'"""
    return f"Removed {render.plural(removed)} from **{_md(name)}**."


def problem(message: str) -> str:
    """A core error as a line of markdown (never a traceback)."""
    return f"**Could not do that:** {html.escape(message)}"


def slug(text: str, fallback: str = "papers") -> str:
    """A file-name stem. Example: slug("Safe RL / 2026!") -> 'safe-rl-2026'"""
    cleaned = re.sub(r"[^a-z0-9]+", "-", text.casefold()).strip("-")[:60].strip("-")
    return cleaned or fallback


class ExportFiles:
    """Writes export text to files under one temporary folder for the download buttons.

    Each file gets a folder of its own, so two visitors exporting the same name never overwrite
    each other before Gradio has copied the file into its cache.
    """

    def __init__(self, root: Path | None = None) -> None:
        self.root = root or Path(tempfile.mkdtemp(prefix="paperbot-exports-"))
        self.root.mkdir(parents=True, exist_ok=True)

    def write(self, text: str, stem: str, fmt: str) -> Path:
        """Example: write("@misc{...}", "GRPO", "bibtex") -> <root>/<unique>/paperbot-grpo.bib"""
        folder = Path(tempfile.mkdtemp(dir=self.root))
        path = folder / f"paperbot-{slug(stem)}{EXTENSIONS[fmt]}"
        # newline="" keeps RIS's CRLF line ends as export wrote them.
        with path.open("w", encoding="utf-8", newline="") as out:
            out.write(text)
        return path

    def write_all(self, render: Callable[[str], str], stem: str) -> dict[str, Path]:
        """{format: file} for every export format, `render(format)` giving each file's text."""
        return {fmt: self.write(render(fmt), stem, fmt) for fmt in FORMATS}
