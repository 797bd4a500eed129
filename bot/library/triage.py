"""Exhaustive triage: score every paper of the corpus against a topic and keep all that are about it.

Each paper's score is its best chunk's dense similarity to the topic plus weighted lexical
evidence (topic-word coverage and BM25, both over the whole corpus). The line between
relevant and not adapts to the score distribution (the most telling drop in the sorted
scores) under an absolute floor, so an off-topic topic returns nothing. Every kept paper gets a
one-line reason: its sentence that matches the topic best. It does not group papers into
themes (bot.library.themes) nor read the store (it is handed a Corpus).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from bot.errors import QueryError
from bot.library import themes
from bot.settings import TriageSettings
from bot.store.corpus import Corpus
from bot.store.lexical import LexicalIndex
from bot.text import sentences
from bot.text.terms import words
from bot.types import Cut, Paper, TriagedPaper, TriageResult

Embed = Callable[[list[str]], np.ndarray]
ChunkTexts = Callable[[list[str]], dict[str, str]]


@dataclass(frozen=True, eq=False)
class TopicScores:
    """Per-paper evidence for one topic, every array in `Corpus.paper_ids` order."""

    score: np.ndarray
    dense: np.ndarray
    lexical: np.ndarray
    coverage: np.ndarray
    matched: list[tuple[str, np.ndarray]]  # each topic word and which papers contain it
    best_chunks: tuple[str | None, ...]


def score_topic(corpus: Corpus, topic: str, query: np.ndarray, settings: TriageSettings) -> TopicScores:
    """Score every paper of `corpus` for `topic` (whose unit vector is `query`).

    score = dense + lexical_weight * (share * coverage**power + (1 - share) * BM25 / best BM25), with
    `settings`' coverage_share 0.75 and coverage_power 3. Cubing the coverage keeps papers with only
    part of the topic (e.g. "reinforcement learning" without "safe") well below those with all of
    it, so the cut finds a drop between the two.
    """
    best = corpus.vectors.best_chunks(query)
    bm25 = corpus.lexical.scores(topic)[corpus.lexical_rows]
    top = float(bm25.max()) if len(bm25) else 0.0
    relative = bm25 / top if top > 0 else np.zeros_like(bm25)
    presence = corpus.lexical.word_presence(topic)
    coverage = LexicalIndex.shares(presence, len(corpus.lexical.paper_ids))[corpus.lexical_rows].astype(np.float32)
    # e.g. all topic words (coverage 1.0), BM25 at 80% of the best: lexical 0.75 + 0.2 = 0.95,
    # dense 0.45 -> score 0.45 + 0.4 * 0.95 = 0.83; with half the words: 0.75 * 0.125 + 0.2 = 0.29 -> 0.57
    share = settings.coverage_share
    lexical = share * coverage**settings.coverage_power + (1 - share) * relative
    dense = np.where(corpus.vectors.has_vectors, best.similarity, 0.0).astype(np.float32)
    score = dense + settings.lexical_weight * lexical
    matched = [(word, mask[corpus.lexical_rows]) for word, _, mask in presence]
    return TopicScores(score, dense, lexical, coverage, matched, best.chunk_ids)


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
            "the topic: nothing in the corpus is",
        )
    eligible = int(np.sum(ranked >= settings.min_score))
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
    return f"{article}{n} paper{'s' if n != 1 else ''}"


def best_sentence(
    paper: Paper, topic: str, lexical: LexicalIndex, chunk: str | None, settings: TriageSettings
) -> tuple[str, tuple[str, ...]]:
    """The paper's sentence (or title) that matches `topic` best, clipped to `settings.reason_chars`,
    and the topic words it contains.

    Lexical evidence decides; a sentence of the paper's best-matching chunk gets `settings.best_chunk_bonus`,
    so a paper found by meaning alone is explained by the passage the embedding matched.
    Example: best_sentence(sort_paper, "GRPO", ...) -> ('... SORT consistently improves over GRPO ...', ('grpo',))
    """
    candidates = sentences.split(paper.display) or [paper.display]
    best: tuple[float, str, tuple[str, ...]] | None = None
    for sentence in candidates:
        share, terms = lexical.coverage(topic, sentence)
        value = share + (settings.best_chunk_bonus if chunk and sentence in chunk else 0.0)
        if best is None or value > best[0]:  # ties go to the earlier sentence
            best = (value, sentence, terms)
    assert best is not None
    _, sentence, terms = best
    if paper.title:
        share, title_terms = lexical.coverage(topic, paper.title)
        if share > lexical.coverage(topic, sentence)[0]:
            sentence, terms = paper.title, title_terms
    return clip(sentence, terms, settings.reason_chars), terms


def clip(sentence: str, terms: tuple[str, ...], limit: int) -> str:
    """A sentence cut to `limit` characters around its first matching word, with ellipses.

    Example: clip("x " * 100 + "GRPO " + "b " * 200, ("grpo",), 40) -> '… x x x x x x x GRPO b b b b b b b b b b …'
    """
    if len(sentence) <= limit:
        return sentence
    lowered = sentence.lower()
    hits = [lowered.find(t) for t in terms if lowered.find(t) >= 0]
    anchor = min(hits) if hits else 0
    start = max(0, min(anchor - limit // 3, len(sentence) - limit))
    start = sentence.rfind(" ", 0, start) + 1 if start > 0 else 0
    piece = sentence[start : start + limit].rsplit(" ", 1)[0] if start + limit < len(sentence) else sentence[start:]
    return ("… " if start > 0 else "") + piece.strip() + (" …" if start + len(piece) < len(sentence) else "")


def triage(
    corpus: Corpus,
    topic: str,
    embed: Embed,
    chunk_texts: ChunkTexts,
    settings: TriageSettings,
) -> TriageResult:
    """Every paper of `corpus` that is about `topic`, best first, with reasons and themes."""
    if not topic or not topic.strip() or not words(topic):
        raise QueryError('the topic is empty; give a few words, e.g. `paperbot triage "safe reinforcement learning"`')
    if not corpus.paper_ids:
        raise QueryError("the store is empty; run `paperbot ingest` first (no path: the bundled seeds)")
    query = embed([topic])[0]
    scored = score_topic(corpus, topic, query, settings)
    cut = choose_cut(scored.score, settings)
    ranked = np.argsort(-scored.score, kind="stable")
    keep = [int(i) for i in ranked if cut.method == "gap" and scored.score[i] > cut.threshold]
    texts = chunk_texts([c for c in (scored.best_chunks[i] for i in keep) if c])
    papers: list[TriagedPaper] = []
    for i in keep:
        paper = corpus.papers[corpus.paper_ids[i]]
        chunk = texts.get(scored.best_chunks[i] or "")
        sentence, sentence_terms = best_sentence(paper, topic, corpus.lexical, chunk, settings)
        papers.append(
            TriagedPaper(
                paper=paper,
                score=round(float(scored.score[i]), 4),
                dense=round(float(scored.dense[i]), 4),
                lexical=round(float(scored.lexical[i]), 4),
                coverage=round(float(scored.coverage[i]), 4),
                matched_terms=tuple(word for word, mask in scored.matched if mask[i]),
                sentence=sentence,
                sentence_terms=sentence_terms,
            )
        )
    rows = np.array([corpus.position(p.paper.paper_id) for p in papers], dtype=np.int64)
    groups = themes.group(
        [p.paper for p in papers],
        corpus.vectors.centroids[rows],
        corpus.lexical,
        topic,
        settings.max_themes,
        settings.themes,
    )
    theme_of = {pid: g.name for g in groups for pid in g.paper_ids}
    papers = [replace(p, theme=theme_of.get(p.paper.paper_id)) for p in papers]
    return TriageResult(topic, len(corpus.paper_ids), tuple(papers), tuple(groups), cut)
