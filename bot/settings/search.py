"""Settings of search: how BM25 and dense scores are fused, and when the search abstains.

Field descriptions say where each value was calibrated (docs/retrieval.md).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class RetrievalSettings(BaseModel):
    """Hybrid search: BM25 and dense scores fused per paper."""

    model_config = ConfigDict(frozen=True, allow_inf_nan=False)

    k: int = Field(10, ge=1, description="Papers returned by search.")
    candidates: int = Field(
        100,
        ge=1,
        description="BM25 and dense scores are standardised against their own best `candidates` papers.",
    )
    lexical_weight: float = Field(
        0.45,
        ge=0,
        le=1,
        description="Weight of BM25 against dense similarity; both are z-scores against their own "
        "top `candidates` papers. Tuned on SciFact train (docs/retrieval.md).",
    )
    proximity_weight: float = Field(
        0.2,
        ge=0,
        description="Weight of BM25 over neighbouring word pairs (z-scored like the others), which "
        "rewards papers that use the query's words side by side. Tuned on SciFact train.",
    )
    match_weight: float = Field(
        3.0,
        ge=0,
        description="Added score per unit of query-word coverage (the idf-weighted share of the "
        "query's words a paper contains).",
    )
    complete_weight: float = Field(
        1.5,
        ge=0,
        description="Added score for a paper that contains every one of the query's words (coverage "
        "1), as a search engine's AND would: a short question whose every word a paper uses is "
        "seldom answered better by a paper missing one.",
    )
    name_weight: float = Field(
        8.0,
        ge=0,
        description="Added score per unit of the coverage carried by the query's names (words with "
        "two capitals, e.g. OPD, Q-MMR), which MiniLM cannot read.",
    )
    expand_acronyms: bool = Field(
        True, description="Spell out the query's acronyms, as the corpus defines them, before embedding it."
    )
    filter_coverage: float = Field(
        0.5,
        ge=0,
        le=1,
        description="A follow-up that narrows earlier papers ('which of these use MuJoCo?') keeps those "
        "containing at least this share of its words (the idf-weighted coverage of search). Set by hand; "
        "on the seeds it keeps exactly the earlier papers naming MuJoCo (tests/bot/search/test_followup.py).",
    )
    pronoun_lead: int = Field(
        1,
        ge=0,
        description="A pronoun ('it', 'they', 'this') refers to the previous answer's papers when at most this many "
        "content words come before it ('how well does it hold up ...?'); after more, the question has named its own "
        "subject ('... recording the undo action and playing it backwards?'). With one word more it is a follow-up "
        "only if the question alone is not about other papers ('What is parallel averaging, and how did it do ...?' "
        "is a new search; 'Which LLMs and benchmarks did they test it on?' is not). Set by hand on "
        "tests/data/answers/questions.jsonl (docs/answers.md).",
    )
    pronoun_words: int = Field(
        4,
        ge=0,
        description="Or: a question with a pronoun and at most this many content words leans on the previous answer "
        "('does any real data back this up?'). Set by hand, as pronoun_lead.",
    )
    continue_words: int = Field(
        6,
        ge=0,
        description="A follow-up that refers to no earlier paper continues the previous topic ('what about offline "
        "data?' searches 'How can RL be kept safe? What about offline data?') when it has at most this many content "
        "words; a longer one stands alone. Set by hand (tests/bot/search/test_followup.py).",
    )
    coverage_weight: float = Field(
        0.5,
        ge=0,
        description="Weight of lexical evidence (the idf-weighted share of query words found in "
        "the best papers) added to the best dense similarity to form the relevance evidence.",
    )
    abstain_below: float = Field(
        0.5,
        description="Abstain when best dense similarity - chance + coverage_weight * coverage is "
        "below this. Calibrated on tests/data: on-topic questions score 0.5 and up, off-topic ones "
        "0.43 and below (seeds), 0.48 and below after the chance correction (8,700 papers).",
    )
    abstain_depth: int = Field(
        3,
        ge=1,
        description="The best papers whose query-word coverage (and the names they contain) count as evidence "
        "against abstaining (docs/retrieval.md, Abstention). Set by hand with the first abstention rule, not tuned.",
    )
    rare_name_min: int = Field(
        3,
        ge=0,
        description="A name in the query (two capitals: CURE, Q-MMR) is evidence that the corpus is about it, "
        "whatever the other scores say, only when at most max(rare_name_min, papers // rare_name_divisor) papers "
        "contain it: 3 of the 53 seeds, 172 of 8,647 papers, so 'LLM' or 'RL' are no such evidence "
        "(tests/bot/answer/test_answers.py). Set by hand.",
    )
    rare_name_divisor: int = Field(
        50,
        ge=1,
        description="See rare_name_min: a name in more than one paper in this many is too common to be evidence. "
        "Set by hand.",
    )
    chance_reference: int = Field(
        100,
        ge=2,
        description="Corpus size the abstention threshold holds for. In a larger corpus some paper is "
        "close to any query by chance, so the best similarity expected by chance, sd * (sqrt(2 ln N) "
        "- sqrt(2 ln chance_reference)) for N papers and the query's spread of similarities sd, is "
        "taken off before comparing.",
    )
