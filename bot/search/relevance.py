"""Whether a paper is about a topic or question: every paper scored, and where relevant ends.

Shared by triage (every paper about a topic) and answers (which retrieved papers an answer may
cite), so the chat and the Triage tab agree on what is relevant. A paper's score is its best
chunk's dense similarity plus weighted lexical evidence (topic-word coverage and BM25, both over
the whole corpus); the cut adapts to the score distribution (the most telling drop in the sorted
scores) under an absolute floor, so an off-topic question or topic keeps nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bot.query import parse
from bot.settings import TriageSettings
from bot.store.corpus import Corpus
from bot.store.lexical import LexicalIndex
from bot.store.nearest import lexical_candidates
from bot.text.wording import plural
from bot.types import Cut


@dataclass(frozen=True, eq=False)
class TopicScores:
    """Per-paper evidence for one topic, every array in `Corpus.paper_ids` order."""

    score: np.ndarray
    dense: np.ndarray
    lexical: np.ndarray
    coverage: np.ndarray
    matched: list[tuple[str, np.ndarray]]  # each topic word and which papers contain it
    best_chunks: tuple[str | None, ...]
    # Scored exactly: every paper, but on the approximate path (bot.store.nearest) only the candidates;
    # the others' dense part is a bound shared by thousands of papers, not a score to cut on.
    exact: np.ndarray


def score_topic(corpus: Corpus, topic: str, query: np.ndarray, settings: TriageSettings) -> TopicScores:
    """Score every paper of `corpus` for `topic` (whose unit vector is `query`).

    score = dense + lexical_weight * (share * coverage**power + (1 - share) * BM25 / best BM25), with
    `settings`' coverage_share 0.75 and coverage_power 3. Cubing the coverage keeps papers with only
    part of the topic (e.g. "reinforcement learning" without "safe") well below those with all of
    it, so the cut finds a drop between the two.
    """
    bm25 = corpus.lexical.scores(topic)[corpus.lexical_rows]
    top = float(bm25.max()) if len(bm25) else 0.0
    relative = bm25 / top if top > 0 else np.zeros_like(bm25)
    presence = corpus.lexical.word_presence(topic)
    coverage = LexicalIndex.shares(presence, len(corpus.lexical.paper_ids))[corpus.lexical_rows].astype(np.float32)
    # e.g. all topic words (coverage 1.0), BM25 at 80% of the best: lexical 0.75 + 0.2 = 0.95,
    # dense 0.45 -> score 0.45 + 0.4 * 0.95 = 0.83; with half the words: 0.75 * 0.125 + 0.2 = 0.29 -> 0.57
    share = settings.coverage_share
    lexical = share * coverage**settings.coverage_power + (1 - share) * relative
    # Through Chroma's index, the papers with the most lexical evidence are dense candidates too.
    extra = corpus.vectors.lexical
    also = lexical_candidates(lexical, extra) if extra else []
    best = corpus.vectors.best_chunks(query, also)
    dense = np.where(corpus.vectors.has_vectors, best.similarity, 0.0).astype(np.float32)
    score = dense + settings.lexical_weight * lexical
    matched = [(word, mask[corpus.lexical_rows]) for word, _, mask in presence]
    exact = ~corpus.vectors.has_vectors | np.array([c is not None for c in best.chunk_ids], dtype=bool)
    return TopicScores(score, dense, lexical, coverage, matched, best.chunk_ids, exact)


def above_cut(scored: TopicScores, settings: TriageSettings) -> tuple[Cut, np.ndarray]:
    """The cut among the papers scored exactly, and which papers are above it (none unless the cut
    found a gap). Example: exact scores [0.97, 0.85, 0.55, 0.19] -> the first three kept"""
    cut = choose_cut(scored.score[scored.exact], settings)
    if cut.method != "gap":
        return cut, np.zeros(len(scored.score), dtype=bool)
    above = (scored.score > cut.threshold) & scored.exact
    near = _near(scored, settings) & ~above
    if near.any():
        also = (
            f"; {_papers(int(near.sum()))} below it {'scores' if near.sum() == 1 else 'score'} at least "
            f"{settings.near_share:.0%} of the best paper's {float(scored.score[scored.exact].max()):.2f} and "
            f"{'is' if near.sum() == 1 else 'are'} relevant too"
        )
        cut = Cut(cut.method, cut.threshold, cut.explanation + also)
    found = above | near
    kept = _holding_enough(scored, found, settings)
    left = int(found.sum() - kept.sum())
    if left:
        cut = Cut(
            cut.method,
            cut.threshold,
            f"{cut.explanation}; {_papers(left)} of those {'holds' if left == 1 else 'hold'} less than "
            f"{settings.word_share:.0%} of the topic's words that the best-holding one holds, and "
            f"{'is' if left == 1 else 'are'} left out",
        )
    return cut, kept


def naming_all(scored: TopicScores, topic: str) -> np.ndarray:
    """For a topic that is only names ("MuJoCo", "GRPO and DAPO"), the papers scored exactly that name them all:
    a paper using MuJoCo says so in passing, so its text is little like the name and the cut alone misses it.
    No paper for any other topic. Example: 'MuJoCo' -> the papers whose abstracts say MuJoCo (or MaMuJoCo)"""
    query = parse(topic)
    names = query.name_words
    if not names or not set(query.words) <= names:
        return np.zeros(len(scored.score), dtype=bool)
    return (scored.coverage >= 1.0) & scored.exact


def _holding_enough(scored: TopicScores, kept: np.ndarray, settings: TriageSettings) -> np.ndarray:
    """`kept` without the papers holding under `word_share` of the topic's words (idf-weighted) that the
    best-holding kept paper holds. Example: coverages [0.79, 0.71, 0.25], share 0.4 -> the third left out"""
    if not kept.any():
        return kept
    most = float(scored.coverage[kept].max())
    return kept & (scored.coverage >= settings.word_share * most)


def _near(scored: TopicScores, settings: TriageSettings) -> np.ndarray:
    """The papers scored exactly at `near_share` of the best one's score or more: nearly as much about the
    topic as the best, whatever drop the cut found below it. Example: scores [0.53, 0.43, 0.35], share 0.8
    -> [True, True, False] (0.43 >= 0.42)"""
    exact = np.where(scored.exact, scored.score, -np.inf)
    best = float(exact.max()) if len(exact) else 0.0
    return exact >= settings.near_share * best if best > 0 else np.zeros(len(exact), dtype=bool)


def choose_cut(scores: np.ndarray, settings: TriageSettings) -> Cut:
    """Where relevant ends: the drop between neighbouring sorted scores that is largest once
    weighted by the square root of the papers above it, among papers above the minimum score.

    A drop that sets apart many papers says more than an equal drop below the first one or two
    (the very top of a large corpus is always sparse), as the standard error of a mean shrinks
    with the square root of its count. Nothing is relevant if the best paper is below the floor.
    Example: [0.97, 0.85, 0.55, 0.19, 0.18] -> drops 0.12, 0.30, 0.36 weighted by 1, 1.41, 1.73:
    the cut falls between 0.55 and 0.19, keeping 3 papers.
    """
    ranked = np.sort(np.asarray(scores, dtype=np.float64))[::-1]
    if len(ranked) == 0:
        return Cut("empty", settings.abstain_below, "the store holds no papers")
    best = float(ranked[0])
    if best < settings.abstain_below:
        return Cut(
            "floor",
            settings.abstain_below,
            f"the best paper scores {best:.2f}, below the {settings.abstain_below:.2f} a paper needs to be about "
            "the topic, so nothing in the corpus is about it",
        )
    eligible = int(np.sum(ranked >= settings.min_score))
    if eligible == 0:  # a floor set below the minimum score (settings a user changed): no drop to look for
        return Cut(
            "floor",
            settings.min_score,
            f"the best paper scores {best:.2f}, below the {settings.min_score:.2f} a paper needs to be weighed at "
            "all, so nothing in the corpus is about it",
        )
    # every paper above the minimum: the last one is compared with the minimum itself
    ranked = np.append(ranked, settings.min_score) if eligible == len(ranked) else ranked
    drops = ranked[:eligible] - ranked[1 : eligible + 1]
    weighted = drops * np.sqrt(np.arange(1, eligible + 1))
    k = int(np.argmax(weighted))  # the first of equal values: the higher cut
    upper, lower = float(ranked[k]), float(ranked[k + 1])
    threshold = (upper + lower) / 2
    return Cut(
        "gap",
        round(threshold, 4),
        f"scores drop from {upper:.2f} to {lower:.2f} after paper {k + 1}: of the {_papers(eligible)} scoring at "
        f"least {settings.min_score:.2f}, the largest drop weighted by the square root of the papers above it; "
        f"{_papers(k + 1, 'the ')} above {threshold:.2f} {'is' if k == 0 else 'are'} relevant",
    )


def _papers(n: int, article: str = "") -> str:
    """Example: _papers(1, "the ") -> 'the 1 paper'; _papers(3) -> '3 papers'"""
    return f"{article}{plural(n)}"


@dataclass(frozen=True)
class Relevant:
    """The papers about one question or topic: each one's score, and the cut that decided."""

    scores: dict[str, float]  # paper_id -> score, only papers above the cut
    cut: Cut
    # paper_id -> score of the papers scoring at least TriageSettings.near_share of the best paper's score, when
    # the cut keeps nothing (a gap cut already keeps them all): an answer that still rests on the best paper found
    # may cite these
    near: dict[str, float] = field(default_factory=dict)
    # the papers holding every word of the text, best scoring first: for a topic that is a name ("MuJoCo"),
    # every paper using it, however little its text is otherwise like the name
    holding: tuple[str, ...] = ()

    def __contains__(self, paper_id: object) -> bool:
        return paper_id in self.scores


def relevant(corpus: Corpus, text: str, query: np.ndarray, settings: TriageSettings) -> Relevant:
    """The papers of `corpus` above the cut for `text` (whose unit vector is `query`), as triage keeps them.

    Example: relevant(seeds, "GRPO", vector, settings) -> Relevant(scores={sort_id: 1.21, ...}, cut=Cut('gap', ...))
    """
    scored = score_topic(corpus, text, query, settings)
    cut, keep = above_cut(scored, settings)
    ids = corpus.paper_ids
    close = _near(scored, settings) if cut.method != "gap" else np.zeros(len(ids), dtype=bool)
    full = np.flatnonzero((scored.coverage >= 1.0) & scored.exact)
    return Relevant(
        {ids[i]: round(float(scored.score[i]), 4) for i in np.flatnonzero(keep)},
        cut,
        {ids[i]: round(float(scored.score[i]), 4) for i in np.flatnonzero(close)},
        tuple(ids[i] for i in full[np.argsort(-scored.score[full], kind="stable")]),
    )
