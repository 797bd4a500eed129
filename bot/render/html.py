"""The chat's markup: the answer bubble (markdown made inert by bot.render.markdown: no HTML, images or
links from abstracts) and the citation panel (HTML, escaped, with the used sentences highlighted and why
each paper was found). Pure functions of an Answer; tested without a browser.
"""

from __future__ import annotations

import html
from pathlib import Path

from bot.render.answer import UNSUPPORTED_NOTE, followup_line, mark_unsupported
from bot.render.markdown import inert
from bot.render.why import why_html
from bot.types import Answer, Paper, Source


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


def chat_markdown(answer: Answer) -> str:
    """The chat bubble: what a follow-up searched, the answer with unsupported sentences marked,
    then a compact reference list."""
    parts = [line] if (line := followup_line(answer)) else []
    parts.append(inert(mark_unsupported(answer)))
    if any(s.supported is False for s in answer.sentences):
        parts.append(f"*{UNSUPPORTED_NOTE}*")
    refs = "\n".join(f"[{c.n}] **{inert(c.paper.label)}**" for c in answer.citations)
    return "\n\n".join(parts + ([refs] if refs else []))


def citations_placeholder() -> str:
    """The citation panel before any answer."""
    return "<p class='pb-empty'><em>The abstracts cited by the latest answer appear here.</em></p>"
