"""The baselines paperbot is measured against: BM25 alone, MiniLM alone (Chroma's own nearest
chunks) and, for BEIR, RRF of the two. They search a store that is already ingested.
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np

from bot.errors import QueryError
from bot.search.retrieve import Retriever
from bot.search.service import SearchService
from bot.store.chroma import VectorStore
from bot.store.lexical import LexicalIndex


def lexical_index(search: SearchService) -> LexicalIndex:
    """The store's saved BM25 index (built first when missing)."""
    search.retriever()  # builds and saves the lexical index when it is stale
    index = search.store.saved_lexical()
    if index is None:
        raise QueryError("the store is empty; run `paperbot ingest` first (no path: the bundled seeds)")
    return index


def lexical_ranking(index: LexicalIndex, query: str, depth: int) -> list[str]:
    """Paper ids by BM25 score, best first, papers scoring 0 left out."""
    scores = index.scores(query)
    order = np.argsort(-scores, kind="stable")[:depth]
    return [index.paper_ids[i] for i in order if scores[i] > 0]


def dense_rankings(store: VectorStore, vectors: np.ndarray, known: Collection[str], depth: int) -> list[list[str]]:
    """Paper ids by best-chunk cosine for each query vector, `depth` papers deep (or all there are)."""
    out: list[list[str]] = [[] for _ in range(len(vectors))]
    todo, n, total = list(range(len(vectors))), depth * 3, store.count()
    while todo:
        again: list[int] = []
        for i, matches in zip(todo, store.query(vectors[todo], n), strict=True):
            # Chroma returns the nearest chunk first, so a paper's first chunk is its best one.
            ranking = list(dict.fromkeys(m.paper_id for m in matches if m.paper_id in known))
            if len(ranking) >= depth or n >= total:
                out[i] = ranking[:depth]
            else:
                again.append(i)  # papers with many chunks filled the list; look further
        todo, n = again, n * 2
    return out


def baseline_retriever(search: SearchService, lexical_weight: float) -> Retriever:
    """A baseline: BM25 alone (weight 1) or MiniLM alone (weight 0), with no coverage or acronym help."""
    update = {
        "lexical_weight": lexical_weight,
        "proximity_weight": 0.0,
        "match_weight": 0.0,
        "name_weight": 0.0,
        "complete_weight": 0.0,
        "expand_acronyms": False,
    }
    return Retriever(search.store.corpus(), search.embed, search.settings.model_copy(update=update))
