"""The JSON objects of the command line (`search --json`, `ask --json`, `ingest --json`, `triage
--json`, `similar --json`, `list show --json`): pure functions of the core's types.

These shapes are contracts that scripts rely on; the README documents each field.
"""

from __future__ import annotations

import os
from typing import Any

from bot.render.why import why_json
from bot.types import (
    Answer,
    IngestReport,
    Paper,
    ReadingList,
    SearchResult,
    SentenceReport,
    SimilarResult,
    Source,
    TriageResult,
)


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


def ingest_json(report: IngestReport, sentences: SentenceReport | None = None) -> dict[str, Any]:
    """The `ingest --json` object; with `--sentences`, also what that did."""
    out: dict[str, Any] = {
        "papers": report.papers,
        "added": report.added,
        "updated": report.updated,
        "removed": report.removed,
        "unchanged": report.unchanged,
        "merged": report.merged,
        "filtered_out": report.filtered_out,
        "seconds": report.seconds,
    }
    if sentences is not None:
        out["sentences"] = {
            "sentences": sentences.sentences,
            "embedded": sentences.embedded,
            "seconds": sentences.seconds,
        }
    return out


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
