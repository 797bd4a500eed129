"""Plain text for a terminal: search results, answers, ingest summaries, triage, "more like this"
and reading lists. Pure functions of the core's types.
"""

from __future__ import annotations

from bot.render.answer import UNSUPPORTED_NOTE, followup_line, mark_unsupported
from bot.render.why import score_parts
from bot.text.wording import plural
from bot.types import Answer, IngestReport, ReadingList, SearchResult, SentenceReport, SimilarResult, TriageResult

# Characters a terminal acts on instead of showing: C0 and C1 controls (but tab, newline and the
# carriage return progress lines use), DEL, and bidirectional overrides. Stored text can hold them
# ("\x1b[31m" in a title); they are shown as their JSON escape, so JSON output keeps its meaning.
_UNPRINTABLE = {
    c: f"\\u{c:04x}"
    for c in [*range(0x20), 0x7F, *range(0x80, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
    if c not in (0x09, 0x0A, 0x0D)
}


def printable(text: str) -> str:
    """`text` safe to write to a terminal. Example: printable("Evil\x1b[31mRed") -> 'Evil\\u001b[31mRed'"""
    return text.translate(_UNPRINTABLE)


def ingest_line(report: IngestReport) -> str:
    """Example: '53 papers: 53 added, 0 updated, 0 removed, 0 unchanged (41.2 s)'"""
    return (
        f"{plural(report.papers)}: {report.added} added, {report.updated} updated, "
        f"{report.removed} removed, {report.unchanged} unchanged"
        + (f", {report.merged} merged into papers they are versions of" if report.merged else "")
        + (f", {report.filtered_out:,} left out by --where" if report.filtered_out else "")
        + f" ({report.seconds:.1f} s)"
    )


def sentences_line(report: SentenceReport) -> str:
    """Example: 'sentences: 420 of the abstracts' sentences and titles kept for answers, 420 embedded now (14.2 s)'"""
    return (
        f"sentences: {report.sentences:,} of the abstracts' sentences and titles kept for answers, "
        f"{report.embedded:,} embedded now ({report.seconds:.1f} s)"
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


def triage_text(result: TriageResult) -> str:
    """A triage for a terminal: the count, the cut, then each theme's papers with their reasons."""
    lines = [
        f"{result.topic}: {len(result.papers)} of {result.considered} papers are about this topic",
        f"cut ({result.cut.method}): {result.cut.explanation}",
    ]
    by_id = {p.paper.paper_id: p for p in result.papers}
    for theme in result.themes:
        lines.append("")
        lines.append(f"{theme.name} ({len(theme.paper_ids)})")
        for pid in theme.paper_ids:
            p = by_id[pid]
            lines.append(f"  {p.score:.3f}  {p.paper.label}  {pid}")
            lines.append(f"         {p.reason}")
    return "\n".join(lines)


def similar_text(result: SimilarResult) -> str:
    """Nearest papers for a terminal."""
    lines = [f"Papers like {result.query}:"]
    for rank, n in enumerate(result.papers, start=1):
        lines.append(f"{rank:>2}. {n.similarity:.3f}  {n.paper.label}  {n.paper.paper_id}  ({n.reason})")
    return "\n".join(lines)


def reading_list_text(reading: ReadingList) -> str:
    """A reading list for a terminal, numbered in the order the papers were added."""
    lines = [f"{reading.name}: {plural(len(reading.papers))}"]
    for n, p in enumerate(reading.papers, start=1):
        lines.append(f"{n:>3}. {p.label}  {p.paper_id}" + (f"  {p.title}" if p.title else ""))
    for missing in reading.missing:
        lines.append(f"  -  {missing}: no longer in the store")
    return "\n".join(lines)


def list_names_text(names: list[tuple[str, int]]) -> str:
    """Example: list_names_text([("to read", 3)]) -> 'to read  (3 papers)'"""
    if not names:
        return "No reading lists yet; start one with `paperbot list add NAME ID_OR_LABEL...`."
    return "\n".join(f"{name}  ({plural(count)})" for name, count in names)
