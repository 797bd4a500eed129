"""Pure functions turning triage results, "more like this" and reading lists into JSON and text.

Used by the CLI; the answer and search renderings are in bot.render.
"""

from __future__ import annotations

from typing import Any

from bot.types import Paper, ReadingList, SimilarResult, TriageResult


def triage_json(result: TriageResult) -> dict[str, Any]:
    """The `triage --json` object: every relevant paper, best first, and the themes."""
    return {
        "topic": result.topic,
        "considered": result.considered,
        "relevant": len(result.papers),
        "cut": {"method": result.cut.method, "threshold": result.cut.threshold, "explanation": result.cut.explanation},
        "papers": [
            {
                "paper_id": p.paper.paper_id,
                "source_id": p.paper.source_id,
                "label": p.paper.label,
                "title": p.paper.title,
                "score": p.score,
                "reason": p.reason,
                "text": p.paper.text,
                "theme": p.theme,
                "sentence": p.sentence,
                "matched_terms": list(p.matched_terms),
                "why": {"dense": p.dense, "lexical": p.lexical, "coverage": p.coverage},
            }
            for p in result.papers
        ],
        "themes": [{"name": t.name, "paper_ids": list(t.paper_ids)} for t in result.themes],
    }


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


def similar_json(result: SimilarResult) -> dict[str, Any]:
    """The `similar --json` object: the nearest papers with the same fields as triage's."""
    return {
        "query": result.query,
        "source": None if result.source is None else {"paper_id": result.source.paper_id, "label": result.source.label},
        "papers": [
            {
                "paper_id": n.paper.paper_id,
                "source_id": n.paper.source_id,
                "label": n.paper.label,
                "title": n.paper.title,
                "score": n.similarity,
                "reason": n.reason,
                "text": n.paper.text,
                "theme": None,
                "shared_terms": list(n.shared_terms),
            }
            for n in result.papers
        ],
    }


def similar_text(result: SimilarResult) -> str:
    """Nearest papers for a terminal."""
    lines = [f"Papers like {result.query}:"]
    for rank, n in enumerate(result.papers, start=1):
        lines.append(f"{rank:>2}. {n.similarity:.3f}  {n.paper.label}  {n.paper.paper_id}  ({n.reason})")
    return "\n".join(lines)


def paper_brief(paper: Paper) -> dict[str, Any]:
    """A paper in list output: ids, label, title and the abstract as in its source."""
    return {
        "paper_id": paper.paper_id,
        "source_id": paper.source_id,
        "label": paper.label,
        "title": paper.title,
        "text": paper.text,
    }


def reading_list_json(reading: ReadingList) -> dict[str, Any]:
    """The `list show NAME --json` object."""
    return {"name": reading.name, "papers": [paper_brief(p) for p in reading.papers], "missing": list(reading.missing)}


def reading_list_text(reading: ReadingList) -> str:
    """A reading list for a terminal, numbered in the order the papers were added."""
    lines = [f"{reading.name}: {len(reading.papers)} paper{'s' if len(reading.papers) != 1 else ''}"]
    for n, p in enumerate(reading.papers, start=1):
        lines.append(f"{n:>3}. {p.label}  {p.paper_id}" + (f"  {p.title}" if p.title else ""))
    for missing in reading.missing:
        lines.append(f"  -  {missing}: no longer in the store")
    return "\n".join(lines)


def list_names_text(names: list[tuple[str, int]]) -> str:
    """Example: list_names_text([("to read", 3)]) -> 'to read  (3 papers)'"""
    if not names:
        return "No reading lists yet; start one with `paperbot list add NAME ID_OR_LABEL...`."
    return "\n".join(f"{name}  ({count} paper{'s' if count != 1 else ''})" for name, count in names)
