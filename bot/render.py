"""Pure functions turning answers, search and ingest reports into JSON, text and chat markup.

Used by the CLI (JSON) and the UI (markdown and HTML); tested without a browser. Triage,
"more like this" and reading lists render in bot.render_library.
"""

from __future__ import annotations

import html
import os
import re
from pathlib import Path
from typing import Any

from bot.render_why import score_parts, why_html, why_json
from bot.types import Answer, IngestReport, Paper, SearchResult, Source


def source_dict(source: Source) -> dict[str, Any]:
    """A source with its file shown relative to the working folder when inside it."""
    data = source.to_dict()
    try:
        data["file"] = os.path.relpath(source.file)
        if data["file"].startswith(".."):
            data["file"] = source.file
    except ValueError:
        pass
    return data


def search_json(result: SearchResult) -> dict[str, Any]:
    """The `search --json` object."""
    return {
        "query": result.query,
        "abstained": result.abstained,
        "results": [
            {
                "rank": rank,
                "paper_id": hit.paper.paper_id,
                "source_id": hit.paper.source_id,
                "label": hit.paper.label,
                "score": hit.score,
                "text": hit.paper.text,
                "sources": [source_dict(s) for s in hit.paper.sources],
                "why": why_json(hit),
            }
            for rank, hit in enumerate(result.hits, start=1)
        ],
    }


def answer_json(answer: Answer) -> dict[str, Any]:
    """The `ask --json` object."""
    return {
        "question": answer.question,
        "answer": answer.markdown,
        "abstained": answer.abstained,
        "citations": [
            {"n": c.n, "paper_id": c.paper.paper_id, "label": c.paper.label, "text": c.paper.text}
            for c in answer.citations
        ],
        "sentences": [
            {
                "text": s.text,
                "citations": list(s.citations),
                "supported": s.supported,
                "support": s.support,
                "reason": s.reason,
            }
            for s in answer.sentences
        ],
        "generator": answer.generator,
        "notice": answer.notice,
        "standalone_question": answer.standalone_question or answer.question,
        "restricted_to": list(answer.restricted_to),
    }


def ingest_json(report: IngestReport) -> dict[str, Any]:
    """The `ingest --json` object."""
    return {
        "papers": report.papers,
        "added": report.added,
        "updated": report.updated,
        "removed": report.removed,
        "unchanged": report.unchanged,
        "seconds": report.seconds,
    }


def plural(n: int, noun: str = "paper") -> str:
    """Example: plural(1) -> '1 paper'; plural(3) -> '3 papers'"""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def ingest_line(report: IngestReport) -> str:
    """Example: '53 papers: 53 added, 0 updated, 0 removed, 0 unchanged (41.2 s)'"""
    return (
        f"{plural(report.papers)}: {report.added} added, {report.updated} updated, "
        f"{report.removed} removed, {report.unchanged} unchanged ({report.seconds:.1f} s)"
    )


def search_text(result: SearchResult) -> str:
    """A search result for a terminal."""
    lines = []
    if result.abstained:
        lines.append("Nothing in the corpus seems to be about this; the nearest papers:")
    for rank, hit in enumerate(result.hits, start=1):
        first = hit.paper.display[:160] + ("…" if len(hit.paper.display) > 160 else "")
        terms = ", ".join(hit.matched_terms) or "-"
        lines.append(f"{rank:>2}. {hit.paper.label}  score {hit.score:.3f}  terms: {terms}")
        lines.append(f"    {first}")
        lines.append(f"    {score_parts(hit)}")
    return "\n".join(lines)


def answer_text(answer: Answer) -> str:
    """An answer for a terminal: the markdown, then the numbered references."""
    refs = [f"[{c.n}] {c.paper.label}: {c.paper.display[:120]}…" for c in answer.citations]
    text = mark_unsupported(answer) + ("\n\n" + "\n".join(refs) if refs else "")
    if any(s.supported is False for s in answer.sentences):
        text += f"\n\n{UNSUPPORTED_NOTE}"
    line = followup_line(answer)
    return f"{line.replace('*', '')}\n\n{text}" if line else text


def highlight(paper: Paper, used: list[str]) -> str:
    """The abstract as HTML with the sentences an answer used marked.

    Example: highlight(p, ["It works."]) -> '... <mark>It works.</mark> ...'
    """
    text = html.escape(paper.display)
    for sentence in sorted(set(used), key=len, reverse=True):
        escaped = html.escape(sentence)
        if escaped and escaped in text:
            text = text.replace(escaped, f"<mark>{escaped}</mark>", 1)
    return text


def _short_where(source: Source) -> str:
    """Example: _short_where(Source("/x/seeds/a.txt", line=3)) -> 'a.txt:3'"""
    name = Path(source.file).name
    return f"{name}:{source.line}" if source.line else f"{name} #{source.record}"


def citations_html(answer: Answer) -> str:
    """The citation panel: each cited paper with its label, sources and highlighted abstract."""
    if not answer.citations:
        return "<p><em>No abstracts cited.</em></p>"
    used: dict[int, list[str]] = {}
    for sentence in answer.sentences:
        for n in sentence.citations:
            used.setdefault(n, []).append(sentence.paper_sentence or sentence.text)
    blocks = []
    found = {h.paper.paper_id: h for h in answer.hits}
    for c in answer.citations:
        where = ", ".join(html.escape(_short_where(s)) for s in c.paper.sources)
        title = f"<div class='pb-title'>{html.escape(c.paper.title)}</div>" if c.paper.title else ""
        hit = found.get(c.paper.paper_id)
        blocks.append(
            f"<div class='pb-citation' id='cite-{c.n}'>"
            f"<div class='pb-head'><b>[{c.n}] {html.escape(c.paper.label)}</b> "
            f"<span class='pb-where'>{where}</span></div>{title}"
            f"<div class='pb-abstract'>{highlight(c.paper, used.get(c.n, []))}</div>"
            f"{why_html(hit) if hit else ''}</div>"
        )
    return "\n".join(blocks)


UNSUPPORTED_MARK = "⚠ *unsupported*"
UNSUPPORTED_NOTE = "⚠ marks a sentence that the abstracts it cites do not support."


def mark_unsupported(answer: Answer) -> str:
    """The answer's markdown with UNSUPPORTED_MARK after each sentence the checker did not accept.

    Example: a sentence "X does Y [1]." judged unsupported -> 'X does Y [1]. ⚠ *unsupported*'
    """
    markdown = answer.markdown
    cursor = 0  # sentences come in answer order: each is looked for after the one before it
    for sentence in answer.sentences:
        body = sentence.text.rstrip(" .!?")
        start = markdown.find(body, cursor) if body else -1
        if start < 0:
            continue
        tail = re.match(r"(?:\s*\[\d+(?:\s*,\s*\d+)*\])*[.!?]*", markdown[start + len(body) :])
        end = start + len(body) + (tail.end() if tail else 0)
        if sentence.supported is False:
            markdown = f"{markdown[:end]} {UNSUPPORTED_MARK}{markdown[end:]}"
            end += len(UNSUPPORTED_MARK) + 1
        cursor = end
    return markdown


def followup_line(answer: Answer) -> str | None:
    """What a rewritten follow-up searched, and the papers it was limited to.

    Example: '*Searched:* Which papers use MuJoCo? *Only among:* Cal-SPI, ASCPO'
    """
    standalone = answer.standalone_question
    if not standalone or (standalone == answer.question and not answer.restricted_to):
        return None
    labels = {h.paper.paper_id: h.paper.label for h in answer.hits}
    labels |= {c.paper.paper_id: c.paper.label for c in answer.citations}
    labels |= dict(zip(answer.restricted_to, answer.restricted_labels, strict=False))
    line = f"*Searched:* {standalone}"
    if answer.restricted_to:
        line += " *Only among:* " + ", ".join(labels.get(pid, pid) for pid in answer.restricted_to)
    return line


def chat_markdown(answer: Answer) -> str:
    """The chat bubble: what a follow-up searched, the answer with unsupported sentences marked,
    then a compact reference list."""
    parts = [line] if (line := followup_line(answer)) else []
    parts.append(inert(mark_unsupported(answer)))
    if any(s.supported is False for s in answer.sentences):
        parts.append(f"*{UNSUPPORTED_NOTE}*")
    refs = "\n".join(f"[{c.n}] **{inert(c.paper.label)}**" for c in answer.citations)
    return "\n\n".join(parts + ([refs] if refs else []))


def inert(markdown: str) -> str:
    """Text from abstracts made safe for a markdown bubble: no HTML, no images, no links.

    An abstract (or a model quoting one) could carry `![x](http://host/pixel.png)`, which the
    browser would fetch, or `<b>` and `<img>` tags; they are shown as written instead.
    Example: inert("see ![x](http://a/b.png) <b>now</b>") -> 'see !\\[x\\](http://a/b.png) &lt;b>now&lt;/b>'
    """
    return markdown.replace("<", "&lt;").replace("![", "!\\[").replace("](", "\\](")


# --- Chat UI text (bot.ui shows these; kept here so they are tested without a browser) ---

EMPTY_QUESTION_REPLY = (
    "Please type a question about the abstracts first, for example: "
    "*How can reinforcement learning enforce safety constraints at every state?*"
)


def error_reply(message: str) -> str:
    """A core error as a chat message, never a traceback.

    Example: error_reply("the store is empty")
        -> 'Sorry, I could not answer that: the store is empty'
    """
    return f"Sorry, I could not answer that: {message}"


def store_status(count: int, loading: bool = False, report: IngestReport | None = None) -> str:
    """The UI's one-line status of the store, as markdown.

    Example: store_status(53) -> '**53** papers in the store.'
    """
    if loading:
        return "The store is empty: loading the bundled abstracts (first run only)…"
    noun = "paper" if count == 1 else "papers"
    line = f"**{count}** {noun} in the store."
    if count == 0:
        line += " Run `paperbot ingest FILES` to add abstracts."
    if report is not None:
        # Only the seed load reports here, so say where the papers came from.
        added, seconds = report.added, report.seconds
        line += f" The bundled abstracts were just loaded ({added} added in {seconds:.1f} s)."
    return line


def seed_progress(done: int, total: int) -> str:
    """The progress bar's caption while the seeds are embedded.

    Example: seed_progress(12, 53) -> 'Embedding the bundled abstracts: 12 of 53'
    """
    if total <= 0:
        return "Reading the bundled abstracts and loading the embedding model…"
    return f"Embedding the bundled abstracts: {done} of {total}"


def citations_placeholder() -> str:
    """The citation panel before any answer."""
    return "<p class='pb-empty'><em>The abstracts cited by the latest answer appear here.</em></p>"


# --- Triage, more like this and reading lists (CLI JSON and text; the UI renders the same types) ---
