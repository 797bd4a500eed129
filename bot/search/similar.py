"""More like this: the papers nearest to a stored paper or to a pasted abstract, by meaning.

Two texts are compared passage by passage: each chunk of the query finds its most similar
chunk in the other paper, and those similarities are averaged. Pasted text is chunked and
embedded as ingest does, so a stored abstract pasted back scores 1.0 against itself. It
cuts pasted text (`pasted_chunks`) but does not embed it (the caller passes its chunk vectors).
"""

from __future__ import annotations

import numpy as np

from bot.errors import QueryError
from bot.settings import ChunkSettings, TriageSettings
from bot.store.corpus import Corpus
from bot.store.lexical import LexicalIndex
from bot.store.rows import read_many
from bot.text import chunking, normalise
from bot.text.terms import query_words, word_tokens
from bot.types import Neighbour, Paper, SimilarResult


def check_request(ref: str | None, text: str | None, k: int | None) -> None:
    """Raise QueryError unless exactly one of a stored paper (`ref`) and pasted `text` is given and
    `k`, when given, is positive."""
    if (ref is None) == (text is None):
        raise QueryError("give either a paper id or label, or --text with an abstract")
    if k is not None and k < 1:
        raise QueryError(f"--k {k}: give a positive number of papers")


def pasted_chunks(text: str, settings: ChunkSettings) -> list[str]:
    """Pasted text cut exactly as ingest cuts a paper, so a stored abstract pasted back scores ~1.0.

    Example: pasted_chunks("We propose ...", ChunkSettings()) -> ["We propose ..."]
    """
    if not text.strip():
        raise QueryError("the pasted text is empty; paste an abstract")
    return chunking.chunk_texts(normalise.display(text), settings)


def like_paper(corpus: Corpus, paper: Paper, k: int, settings: TriageSettings) -> SimilarResult:
    """The `k` papers nearest to a stored paper, itself left out (`settings` say which shared words to name)."""
    position = corpus.position(paper.paper_id)
    if not corpus.vectors.has_vectors[position]:
        raise QueryError(
            f"{paper.label} has no vectors in the store; run `paperbot ingest` again to re-embed missing papers"
        )
    sims = corpus.vectors.passage_match(corpus.vectors.chunks_of(position), exclude=position)
    return SimilarResult(paper.label, paper, _top(corpus, sims, k, paper.searchable_text(), settings))


def like_text(corpus: Corpus, text: str, chunk_vectors: np.ndarray, k: int, settings: TriageSettings) -> SimilarResult:
    """The `k` papers nearest to pasted text, given the vectors of its chunks."""
    if len(chunk_vectors) == 0:
        raise QueryError("the pasted text has no words to compare; paste an abstract")
    if not corpus.paper_ids:  # an empty list under "Papers like ..." said nothing of why
        raise QueryError("the store is empty; run `paperbot ingest` first (no path: the bundled seeds)")
    sims = corpus.vectors.passage_match(chunk_vectors)
    head = " ".join(text.split()[:8])
    nearest = _top(corpus, sims, k, text, settings)
    return SimilarResult(head + (" …" if len(text.split()) > 8 else ""), None, nearest)


def shared_terms(lexical: LexicalIndex, a: str, b: str, rare_idf: float, most: int = 5) -> tuple[str, ...]:
    """The rarest words that both texts use, rarest first: at most `most`, each with a corpus idf of
    at least `rare_idf`.

    Example: shared_terms(ix, "GRPO rollouts help", "rollouts for GRPO", 1.6) -> ('grpo', 'rollouts')
    """
    words_b = {t for w in query_words(b) for t in word_tokens(w)[:1]}
    by_stem: dict[str, str] = {}
    for word in query_words(a):
        stem = (word_tokens(word) or [""])[0]
        if len(word) > 2 and stem in words_b and len(word) < len(by_stem.get(stem, word + "_")):
            by_stem[stem] = word  # "bandit" and "bandits" are one shared word, spelled the short way
    rarity = {w: max(lexical.idf(t) for t in word_tokens(w)) for w in by_stem.values()}
    # e.g. a word in 20% of N papers has idf log(1 + 0.8N / 0.2N) = log 5 = 1.61: too common to say much
    ranked = sorted((w for w, idf in rarity.items() if idf >= rare_idf), key=lambda w: (-rarity[w], w))
    return tuple(ranked[:most])


def _top(corpus: Corpus, sims: np.ndarray, k: int, text: str, settings: TriageSettings) -> tuple[Neighbour, ...]:
    order = [int(i) for i in np.argsort(-sims, kind="stable")[:k] if np.isfinite(sims[i])]
    out = []
    for i, paper in zip(order, read_many(corpus.papers, [corpus.paper_ids[i] for i in order]), strict=True):
        shared = shared_terms(corpus.lexical, text, paper.searchable_text(), settings.similar_rare_idf)
        out.append(Neighbour(paper, round(float(sims[i]), 4), shared))
    return tuple(out)
