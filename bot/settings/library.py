"""Settings of the library: exhaustive triage over the whole corpus, its themes, and "more like this".

Field descriptions say where each value was calibrated (docs/triage.md).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class ThemeSettings(BaseModel):
    """How a triage's themes are grouped (bot.library.themes) and named (bot.library.theme_names;
    docs/triage.md, Theme names).

    Set by hand while writing the naming rules, checked on the names docs/triage.md shows for the
    seeds and 8.6k ML abstracts and by tests/bot/library/test_triage.py; none was tuned on a measure.
    """

    model_config = ConfigDict(frozen=True, allow_inf_nan=False)

    smallest_split: int = Field(
        6, ge=1, description="Fewer relevant papers than this read fine as one theme. Set by hand (docs/triage.md)."
    )
    kmeans_restarts: int = Field(
        4,
        ge=1,
        description="Seeded k-means++ runs per grouping; the most cohesive wins. 4 measured against 10 restarts and "
        "scikit-learn's KMeans in tests/bot/library/bench_themes.py (bot/library/themes.py docstring): 10 gain 0.3% "
        "cohesion at 4x the time.",
    )
    kmeans_iterations: int = Field(
        25, ge=1, description="Most assignment rounds of one k-means run; runs on triage sets converge well before."
    )
    longest_phrase: int = Field(
        3, ge=1, description="Most words in a candidate phrase ('mixture of experts'). Set by hand."
    )
    phrase_bonus: float = Field(
        0.6,
        ge=0,
        description="A phrase's score is multiplied by 1 + phrase_bonus x (its words - 1): 'node classification' "
        "says more than 'node' (x 1.6). Set by hand.",
    )
    least_share: float = Field(
        0.2,
        ge=0,
        le=1,
        description="A phrase names a group only when at least this share of the group's papers use it (and at least "
        "least_papers of them). Set by hand.",
    )
    least_papers: int = Field(
        2, ge=1, description="Fewest papers of a group (of two or more) that must use a phrase; see least_share."
    )
    promote_share: float = Field(
        0.4,
        ge=0,
        le=1,
        description="A shorter phrase gives way to a longer one holding it when at least this share of its papers "
        "use the longer one ('node' -> 'node classification'). Set by hand.",
    )
    first_term_share: float = Field(
        0.5,
        ge=0,
        le=1,
        description="A name whose first term is in fewer than this share of the group's papers gets a second term: "
        "the one that adds the most papers. Set by hand.",
    )
    second_term_pool: int = Field(
        15,
        ge=1,
        description="That second term is one of this many best candidates, so it still sets the group apart. "
        "Set by hand.",
    )
    second_term_score: float = Field(
        0.6,
        ge=0,
        description="A name whose first term covers enough papers still gets the next candidate as a second term "
        "when it scores at least this share of the first (it says something else as well). Set by hand.",
    )


class TriageSettings(BaseModel):
    """Exhaustive relevance over the whole corpus, its themes, and "more like this"."""

    model_config = ConfigDict(frozen=True, allow_inf_nan=False)

    lexical_weight: float = Field(
        0.4,
        ge=0,
        description="Weight of lexical evidence (0..1: coverage_share x topic-word coverage ** coverage_power + "
        "(1 - coverage_share) x BM25 relative to the corpus best) added to the best-chunk dense similarity to form "
        "a paper's triage score.",
    )
    coverage_share: float = Field(
        0.75,
        ge=0,
        le=1,
        description="Share of the lexical evidence that comes from topic-word coverage; the rest is BM25 relative "
        "to the corpus best. Set by hand with triage, not tuned; checked with tests/data/triage_topics.jsonl "
        "(docs/triage.md).",
    )
    coverage_power: int = Field(
        3,
        ge=1,
        description="Power the topic-word coverage is raised to. Cubing keeps papers with only part of the topic "
        "('reinforcement learning' without 'safe': 0.125 at half the words) well below those with all of it, so "
        "the adaptive cut finds a drop between the two. Set by hand.",
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
    word_share: float = Field(
        0.4,
        ge=0,
        le=1,
        description="A paper holding less than this share of the topic's words (idf-weighted) that the "
        "best-holding relevant paper holds is not relevant, however close its meaning: for 'wall-clock training "
        "speedups for RL on LLMs', a paper on RL for LLMs without any speed-up. Set by hand on the list "
        "answers of tests/data/answers and tests/data/triage_topics.jsonl (docs/answers.md, round 52).",
    )
    near_share: float = Field(
        0.8,
        ge=0,
        le=1,
        description="A paper scoring at least this share of the best paper's score is relevant wherever the "
        "adaptive cut falls (as much about the topic, by a margin the machine's scores cannot tell apart); when "
        "the best is below the floor, an answer resting on it may cite these. Set by hand, judged in "
        "docs/answers.md (rounds 36-37).",
    )
    best_chunk_bonus: float = Field(
        0.3,
        ge=0,
        description="Added to a sentence's topic-word coverage when choosing a paper's reason if the sentence lies in "
        "the paper's best-matching chunk, so a paper found by meaning alone is explained by the passage the "
        "embedding matched. Set by hand.",
    )
    reason_chars: int = Field(
        240,
        ge=20,
        description="Most characters of a paper's one-line reason; a longer sentence is clipped around its first "
        "matching word. Chosen so that a reason fits about two terminal lines.",
    )
    max_themes: int = Field(6, ge=1, description="Most themes the relevant papers are grouped into.")
    themes: ThemeSettings = Field(
        default_factory=ThemeSettings,  # type: ignore[arg-type]
        description="How themes are named (PAPERBOT_TRIAGE__THEMES__*).",
    )
    similar_k: int = Field(10, ge=1, description="Papers returned by `similar`.")
    similar_rare_idf: float = Field(
        1.6,
        ge=0,
        description="`similar` names the words two papers share only when their idf is at least this: a word in 20% "
        "of the papers has idf log(1 + 0.8 / 0.2) = 1.61, too common to say much. Set by hand.",
    )
