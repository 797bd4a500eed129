"""Themes: a triage's relevant papers grouped by their vectors and named by their distinctive words.

The number of groups grows with the square root of the set's size (5 papers -> 1 theme,
8 -> 2, 40 -> 4), papers are grouped by spherical k-means on their mean chunk vectors, and each
group is named by the words and two-word phrases its papers share and the other groups
lack, weighted by rarity in the corpus ("verifiable rewards · reasoning"). Deterministic:
the same papers always give the same themes. It does not decide which papers are relevant.
"""

from __future__ import annotations

import math
import re
from collections import Counter

import numpy as np

from bot.lexical import LexicalIndex, query_words, word_tokens, words
from bot.types import Paper, Theme

_ITERATIONS = 25
_RESTARTS = 4
# Fewer papers than this read fine as one group.
_SMALLEST_SPLIT = 6
_NAME_TERMS = 2
# Words every abstract uses; rare enough in some corpora to look distinctive, never a theme.
_GENERIC = frozenset(
    [
        "results",
        "show",
        "shows",
        "model",
        "models",
        "learning",
        "performance",
        "experiments",
        "existing",
        "novel",
        "framework",
        "new",
        "based",
        "task",
        "tasks",
        "data",
        "training",
        "method",
        "problem",
        "problems",
        "state-of-the-art",
        "achieves",
        "achieve",
        "improves",
        "improve",
        "significantly",
        "demonstrate",
        "demonstrates",
        "across",
        "while",
        "however",
        "first",
        "key",
        "large",
        "work",
        "works",
        "paper",
        "experimental",
        "empirical",
        "empirically",
        "extensive",
        "various",
        "different",
        "effective",
        "efficient",
        "challenging",
        "baseline",
        "baselines",
        "benchmarks",
        "benchmark",
        "prior",
        "recent",
        "strong",
        "simple",
        "standard",
        "approach",
        "via",
        # function words the search stopword list leaves in
        "over",
        "under",
        "into",
        "onto",
        "within",
        "without",
        "across",
        "between",
        "among",
        "through",
        "toward",
        "towards",
        "upon",
        "per",
        "yet",
        "still",
        "thus",
        "hence",
        "both",
        "each",
        "every",
        "either",
        "such",
        "many",
        "much",
        "less",
        "least",
        "well",
        "even",
        "only",
        "just",
        "often",
        "always",
        "never",
        "available",
        "global",
        "frequent",
        "explicit",
        "overall",
        "remains",
        "provide",
        "provides",
        "enable",
        "enables",
        "including",
        "whether",
    ]
)


def theme_count(n: int, most: int) -> int:
    """How many themes n papers get: about sqrt(n / 2), one below 6 papers. Example: theme_count(40, 6) -> 4"""
    return 1 if n < _SMALLEST_SPLIT else max(1, min(most, round(math.sqrt(n / 2))))


def group(papers: list[Paper], vectors: np.ndarray, lexical: LexicalIndex, topic: str, most: int) -> list[Theme]:
    """Group `papers` (best first; row i of `vectors` is paper i) into named themes, largest first."""
    if not papers:
        return []
    labels = _kmeans(np.asarray(vectors, dtype=np.float32), theme_count(len(papers), most))
    members = [[int(i) for i in np.flatnonzero(labels == c)] for c in sorted(set(labels.tolist()))]
    members.sort(key=lambda m: (-len(m), m[0]))
    texts = [_terms(p) for p in papers]
    banned = {t for w in query_words(topic) for t in [w, *word_tokens(w)]}
    names: list[str] = []
    for index, member in enumerate(members):
        others = [i for j, m in enumerate(members) if j != index for i in m]
        names.append(_name(member, others, texts, lexical, banned, set(names), papers))
    return [Theme(name, tuple(papers[i].paper_id for i in m)) for name, m in zip(names, members, strict=True)]


def _kmeans(vectors: np.ndarray, k: int) -> np.ndarray:
    """Cluster labels from spherical k-means: the most cohesive of a few seeded k-means++ runs."""
    n = len(vectors)
    if k <= 1 or n <= 1:
        return np.zeros(n, dtype=np.int64)
    rng = np.random.default_rng(0)  # a fixed seed: the same papers always give the same themes
    best: tuple[float, np.ndarray] | None = None
    for _ in range(_RESTARTS):
        labels, cohesion = _one_run(vectors, k, rng)
        if best is None or cohesion > best[0] + 1e-9:
            best = (cohesion, labels)
    assert best is not None
    labels = best[1]
    # A group of one, in a set large enough for real groups, joins its nearest other group.
    groups = sorted(set(labels.tolist()))
    if n >= 3 * len(groups):
        counts = np.bincount(labels, minlength=k)
        means = np.stack([_unit(vectors[labels == c].sum(axis=0)) if counts[c] else vectors[0] * 0 for c in range(k)])
        for lonely in np.flatnonzero(counts == 1):
            row = int(np.flatnonzero(labels == lonely)[0])
            sims = means @ vectors[row]
            sims[counts <= 1] = -np.inf
            if np.isfinite(sims).any():
                labels[row] = int(np.argmax(sims))
    return labels


def _one_run(vectors: np.ndarray, k: int, rng: np.random.Generator) -> tuple[np.ndarray, float]:
    """One k-means++-seeded run: (labels, summed similarity of papers to their group mean)."""
    centres = [int(rng.integers(len(vectors)))]
    distance = np.maximum(1 - vectors @ vectors[centres[0]], 0)
    while len(centres) < k and distance.sum() > 1e-9:
        pick = int(rng.choice(len(vectors), p=distance / distance.sum()))
        centres.append(pick)
        distance = np.minimum(distance, np.maximum(1 - vectors @ vectors[pick], 0))
    means = vectors[centres].copy()
    labels = np.full(len(vectors), -1, dtype=np.int64)
    for _ in range(_ITERATIONS):
        new = np.argmax(vectors @ means.T, axis=1)
        if np.array_equal(new, labels):
            break
        labels = new
        for c in range(len(means)):
            if np.any(labels == c):
                means[c] = _unit(vectors[labels == c].sum(axis=0))
    cohesion = float(np.sum(vectors * means[labels]))
    return labels, cohesion


def _unit(vector: np.ndarray) -> np.ndarray:
    return vector / max(float(np.linalg.norm(vector)), 1e-12)


def _terms(paper: Paper) -> Counter[str]:
    """Candidate name terms of a paper with their counts: content words and adjacent pairs, lower case.

    Example: _terms(p) for "GRPO rollouts; GRPO rewards" -> Counter({'grpo': 2, 'rollouts': 1, ...})
    """
    seq = words(paper.searchable_text())
    keep = [bool(query_words(w)) and _nameable(w) for w in seq]
    counts = Counter(w for w, ok in zip(seq, keep, strict=True) if ok)
    counts.update(
        f"{a} {b}" for a, b, ka, kb in zip(seq, seq[1:], keep, keep[1:], strict=False) if ka and kb and a != b
    )
    return counts


def _nameable(word: str) -> bool:
    return len(word) > 2 and not any(ch.isdigit() for ch in word) and word not in _GENERIC


def _name(
    member: list[int],
    others: list[int],
    texts: list[Counter[str]],
    lexical: LexicalIndex,
    banned: set[str],
    taken: set[str],
    papers: list[Paper],
) -> str:
    papers_with = Counter(t for i in member for t in texts[i])
    inside = Counter[str]()
    outside = Counter[str]()
    for i in member:
        inside.update(texts[i])
    for i in others:
        outside.update(texts[i])
    need = 2 if len(member) > 1 else 1
    scored: list[tuple[float, str]] = []
    for term, count in inside.items():
        parts = term.split()
        if papers_with[term] < need or any(p in banned or s in banned for p in parts for s in word_tokens(p)):
            continue
        rarity = sum(max((lexical.idf(s) for s in word_tokens(p)), default=0.0) for p in parts) / len(parts)
        # Key concepts recur within an abstract; incidental words ("yet", "global") appear once.
        # e.g. 6 uses in 3 papers, 2 in 10 others, idf 4.0 -> (2.0 - 0.2) * 4.0 = 7.2; phrases read better
        excess = count / len(member) - (outside[term] / len(others) if others else 0.0)
        scored.append((excess * rarity * (1.3 if len(parts) > 1 else 1.0), term))
    scored.sort(key=lambda s: (-s[0], s[1]))
    chosen: list[str] = []
    for _, term in scored:
        if any(_stems(term) & _stems(c) for c in chosen):  # "client" after "clients" adds nothing
            continue
        chosen.append(term)
        name = " · ".join(_surface(t, [papers[i] for i in member]) for t in chosen)
        if len(chosen) >= _NAME_TERMS and name not in taken:
            return name
    name = " · ".join(_surface(t, [papers[i] for i in member]) for t in chosen) or papers[member[0]].label
    return name if name not in taken else f"{name} ({papers[member[0]].label})"


def _stems(term: str) -> set[str]:
    """Example: _stems("federated clients") -> {'feder', 'client'}"""
    return {t for w in term.split() for t in word_tokens(w)[:1]} or set(term.split())


def _surface(term: str, papers: list[Paper]) -> str:
    """The spelling the papers use most (keeps "GRPO", "LLM"); lower case otherwise."""
    pattern = re.compile(r"(?<![\w-])" + re.escape(term).replace(r"\ ", r"\s+") + r"(?![\w-])", re.IGNORECASE)
    forms = Counter(m.group(0) for p in papers for m in pattern.finditer(p.searchable_text()))
    if not forms:
        return term
    form = forms.most_common(1)[0][0]
    return form if any(ch.isupper() for ch in form[1:]) else form.lower()
