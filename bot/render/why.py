"""Why search found a paper, as JSON (`search --json`) and as the chat citation panel's HTML
line. Pure functions over a Hit; the scores themselves are made in bot.search.retrieve.
"""

from __future__ import annotations

import html
from typing import Any

from bot.types import Hit


def why_json(hit: Hit) -> dict[str, Any]:
    """Why a paper was found: the query words it contains, its BM25 relative to the best paper's,
    its best chunk's cosine, the idf-weighted share of the query's words it contains, and what
    each kind of evidence added to its score (`contributions`, which sum to the score)."""
    why: dict[str, Any] = {
        "lexical": hit.lexical,
        "dense": hit.dense,
        "matched_terms": list(hit.matched_terms),
        "coverage": hit.coverage,
    }
    if hit.parts is not None:
        why["contributions"] = hit.parts.as_dict()
    return why


_PART_NAMES = {
    "coverage": "query words",
    "bm25": "BM25",
    "dense": "meaning",
    "proximity": "word pairs",
    "names": "names",
    "complete": "every query word",
}


def why_html(hit: Hit) -> str:
    """Why search found a paper, for the citation panel: the query words it contains, then what
    each kind of evidence added to its score.

    Example: 'Matched: episodic, lifelong (57% of the query's word weight) · BM25 0.50 of the
    best · meaning 0.58' and 'Score 4.74 = query words +1.71, BM25 +1.20, meaning +0.90, ...'
    """
    if hit.matched_terms:
        words = ", ".join(hit.matched_terms)
        found = f"Matched: {html.escape(words)} ({hit.coverage:.0%} of the query's word weight)"
    else:
        found = "Matched no query word; found by meaning alone"
    lines = [f"{found} · BM25 {hit.lexical:.2f} of the best · meaning {hit.dense:.2f} (cosine)"]
    if hit.parts is not None:
        lines.append(score_parts(hit))
    body = "<br>".join(lines)
    return f"<div class='pb-why'>{body}</div>"


def score_parts(hit: Hit) -> str:
    """The score taken apart, largest part first (parts under 0.005 left out).

    Example: 'Score 7.54 = query words +2.34, BM25 +2.17, meaning +1.76, word pairs +1.27'
    """
    if hit.parts is None:
        return f"Score {hit.score:.2f}"
    parts = [
        f"{_PART_NAMES[name]} {value:+.2f}"
        for name, value in sorted(hit.parts.as_dict().items(), key=lambda item: -abs(item[1]))
        if abs(value) >= 0.005
    ]
    return f"Score {hit.score:.2f} = {', '.join(parts) or '0'}"
