"""Settings of the library: exhaustive triage over the whole corpus, its themes, and "more like this".

Field descriptions say where each value was calibrated (docs/triage.md).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class TriageSettings(BaseModel):
    """Exhaustive relevance over the whole corpus, its themes, and "more like this"."""

    model_config = ConfigDict(frozen=True)

    lexical_weight: float = Field(
        0.4,
        ge=0,
        description="Weight of lexical evidence (0..1: 0.75 * topic-word coverage cubed + 0.25 * BM25 relative "
        "to the corpus best) added to the best-chunk dense similarity to form a paper's triage score.",
    )
    abstain_below: float = Field(
        0.5,
        description="Nothing is relevant when the best paper scores below this. Off-topic topics score 0.23 and "
        "below on the seeds and 0.47 on 8.6k ML abstracts; the least relevant expected paper of "
        "tests/data/triage_topics.jsonl scores 0.52.",
    )
    min_score: float = Field(
        0.45, description="No paper scoring below this is relevant, wherever the adaptive cut falls."
    )
    max_themes: int = Field(6, ge=1, description="Most themes the relevant papers are grouped into.")
    similar_k: int = Field(10, ge=1, description="Papers returned by `similar`.")
