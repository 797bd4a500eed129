"""Ranking metrics: pure functions of one ranking and its relevant ids (nDCG, recall, MRR, hit),
and reciprocal rank fusion for the RRF baseline.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence

import numpy as np

RRF_K = 60


def ndcg_at_k(ranking: Sequence[str], relevance: Mapping[str, int], k: int) -> float:
    """nDCG with linear gain (as pytrec_eval / BEIR); 0 when nothing is relevant.

    Example: ndcg_at_k(["x", "a"], {"a": 1}, 10) -> (1/log2(3)) / (1/log2(2)) = 0.631
    """
    dcg = sum(relevance.get(doc, 0) / math.log2(i + 2) for i, doc in enumerate(ranking[:k]))
    ideal = sorted((g for g in relevance.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def recall_at_k(ranking: Sequence[str], relevant: Collection[str], k: int) -> float:
    """Share of the relevant ids in the first k. Example: recall_at_k(["a", "x"], {"a", "b"}, 2) -> 0.5"""
    return len(set(ranking[:k]) & set(relevant)) / len(relevant) if relevant else 0.0


def mrr_at_k(ranking: Sequence[str], relevant: Collection[str], k: int) -> float:
    """1 / rank of the first relevant id within k, else 0. Example: mrr_at_k(["x", "a"], {"a"}, 10) -> 0.5"""
    return next((1.0 / (i + 1) for i, doc in enumerate(ranking[:k]) if doc in relevant), 0.0)


def hit_at_k(ranking: Sequence[str], relevant: Collection[str], k: int) -> float:
    """1.0 when a relevant id is in the first k. Example: hit_at_k(["x", "a"], {"a"}, 1) -> 0.0"""
    return 1.0 if any(doc in relevant for doc in ranking[:k]) else 0.0


def rrf(rankings: Sequence[Sequence[str]], k: int = RRF_K) -> list[str]:
    """Reciprocal rank fusion, equal weights: score(d) = sum of 1 / (k + rank of d), rank from 1.

    Example: rrf([["a", "b"], ["b", "c"]]) -> ['b', 'a', 'c'] (b: 1/62 + 1/61 beats a: 1/61)
    """
    score: dict[str, float] = {}
    for ranking in rankings:
        for rank, doc in enumerate(ranking, start=1):
            score[doc] = score.get(doc, 0.0) + 1.0 / (k + rank)
    return sorted(score, key=lambda d: (-score[d], d))


def mean(values: Sequence[float]) -> float:
    return round(float(np.mean(values)), 4) if values else 0.0
