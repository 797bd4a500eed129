"""Exhaustive triage: score every paper of the corpus against a topic and keep all that are about it.

Papers are scored and cut by bot.search.relevance (the cut answers share, so the chat and triage
agree on what is relevant). Every kept paper gets a
one-line reason: its sentence that matches the topic best. It does not group papers into
themes (bot.library.themes) nor read the store (it is handed a Corpus).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from bot.errors import QueryError
from bot.library import themes
from bot.search.relevance import above_cut, naming_all, score_topic
from bot.settings import TriageSettings
from bot.store.corpus import Corpus
from bot.store.lexical import LexicalIndex
from bot.store.rows import read_many
from bot.text import sentences
from bot.text.terms import words
from bot.text.wording import plural
from bot.types import Cut, Paper, TriagedPaper, TriageResult

Embed = Callable[[list[str]], np.ndarray]
ChunkTexts = Callable[[list[str]], dict[str, str]]


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
    cut, above = above_cut(scored, settings)
    naming = naming_all(scored, topic) & ~above
    if naming.any():
        n = int(naming.sum())
        verbs = ("names", "is") if n == 1 else ("name", "are")
        also = f"{plural(n)} below it {verbs[0]} the topic and {verbs[1]} relevant too"
        cut = Cut(cut.method, cut.threshold, f"{cut.explanation}; {also}")
        above = above | naming
    ranked = np.argsort(-scored.score, kind="stable")
    keep = [int(i) for i in ranked if above[i]]
    texts = chunk_texts([c for c in (scored.best_chunks[i] for i in keep) if c])
    papers: list[TriagedPaper] = []
    for i, paper in zip(keep, read_many(corpus.papers, [corpus.paper_ids[i] for i in keep]), strict=True):
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
        corpus.vectors.centroids_of(rows),
        corpus.lexical,
        topic,
        settings.max_themes,
        settings.themes,
    )
    theme_of = {pid: g.name for g in groups for pid in g.paper_ids}
    papers = [replace(p, theme=theme_of.get(p.paper.paper_id)) for p in papers]
    return TriageResult(topic, len(corpus.paper_ids), tuple(papers), tuple(groups), cut)
