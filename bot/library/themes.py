"""Themes: a triage's relevant papers grouped by their vectors and named by their distinctive words.

The number of groups grows with the square root of the set's size (5 papers -> 1 theme,
8 -> 2, 40 -> 4), papers are grouped by spherical k-means on their mean chunk vectors, and each
group is named by the noun phrases that set it apart from the other groups and the corpus
(bot.library.theme_names: "on-policy distillation", "reward models"). Deterministic: the same papers
always give the same themes. It does not decide which papers are relevant.

The k-means is hand-written: scikit-learn's KMeans (Euclidean on the unit vectors, k-means++,
random_state 0, then the same fold of groups of one) was measured against it and is not better
(`tests/bot/library/bench_themes.py`; mean cohesion = cosine of a paper to its group's mean
direction; silhouette with cosine distance, 0 for a set left as one group; median time per
grouping on 2 busy cores; each cell: cohesion / silhouette, time):

    sets                                 ours (4 restarts)       sklearn n_init=4         sklearn n_init=10
    seeds, the 3 triage topics (k=2)     0.832 / 0.101, 0.3 ms   0.818 / 0.089, 71 ms     0.818 / 0.089, 42 ms
    seeds, 200 random subsets (k 2-5)    0.709 / 0.074, 0.5 ms   0.710 / 0.072, 160 ms    0.712 / 0.080, 396 ms
    SciFact, 14 triage topics (15-433    0.719 / 0.121, 7 ms     0.722 / 0.126, 85 ms     0.724 / 0.133, 231 ms
      papers, k 3-6)

On the bundled seeds sklearn splits "on-policy distillation" 7 + 1 and the fold leaves one theme
where ours finds two; on SciFact its groups are 0.3% more cohesive, about what ours gains with 10
restarts (0.721 / 0.126, 26 ms). It changes the grouping, and so the theme names, of 206 of the
217 sets, and takes 10-100 times as long. Both give the same groups on every repeat (0 of 217 changed;
sklearn also with 1 and 2 threads), and both depend on the papers' order, which the triage fixes.
"""

from __future__ import annotations

import math

import numpy as np

from bot.library import theme_names
from bot.settings import ThemeSettings
from bot.store.lexical import LexicalIndex
from bot.types import Paper, Theme

_DEFAULTS = ThemeSettings.model_validate({})


def theme_count(n: int, most: int, smallest_split: int = _DEFAULTS.smallest_split) -> int:
    """How many themes n papers get: about sqrt(n / 2), one below 6 papers. Example: theme_count(40, 6) -> 4"""
    return 1 if n < smallest_split else max(1, min(most, round(math.sqrt(n / 2))))


def group(
    papers: list[Paper],
    vectors: np.ndarray,
    lexical: LexicalIndex,
    topic: str,
    most: int,
    settings: ThemeSettings = _DEFAULTS,
) -> list[Theme]:
    """Group `papers` (best first; row i of `vectors` is paper i) into named themes, largest first."""
    if not papers:
        return []
    k = theme_count(len(papers), most, settings.smallest_split)
    labels = _kmeans(np.asarray(vectors, dtype=np.float32), k, settings.kmeans_restarts, settings.kmeans_iterations)
    members = [[int(i) for i in np.flatnonzero(labels == c)] for c in sorted(set(labels.tolist()))]
    members.sort(key=lambda m: (-len(m), m[0]))
    names = theme_names.name_groups(members, papers, lexical, topic, settings)
    return [Theme(name, tuple(papers[i].paper_id for i in m)) for name, m in zip(names, members, strict=True)]


def _kmeans(
    vectors: np.ndarray,
    k: int,
    restarts: int = _DEFAULTS.kmeans_restarts,
    iterations: int = _DEFAULTS.kmeans_iterations,
) -> np.ndarray:
    """Cluster labels from spherical k-means: the most cohesive of a few seeded k-means++ runs."""
    n = len(vectors)
    if k <= 1 or n <= 1:
        return np.zeros(n, dtype=np.int64)
    rng = np.random.default_rng(0)  # a fixed seed: the same papers always give the same themes
    best: tuple[float, np.ndarray] | None = None
    for _ in range(restarts):
        labels, cohesion = _one_run(vectors, k, rng, iterations)
        if best is None or cohesion > best[0] + 1e-9:
            best = (cohesion, labels)
    assert best is not None
    return _fold_lonely(vectors, best[1], k)


def _fold_lonely(vectors: np.ndarray, labels: np.ndarray, k: int) -> np.ndarray:
    """A group of one, in a set large enough for real groups, joins its nearest other group."""
    if len(vectors) < 3 * len(set(labels.tolist())):
        return labels
    counts = np.bincount(labels, minlength=k)
    means = np.stack([_unit(vectors[labels == c].sum(axis=0)) if counts[c] else vectors[0] * 0 for c in range(k)])
    for lonely in np.flatnonzero(counts == 1):
        row = int(np.flatnonzero(labels == lonely)[0])
        sims = means @ vectors[row]
        sims[counts <= 1] = -np.inf
        if np.isfinite(sims).any():
            labels[row] = int(np.argmax(sims))
    return labels


def _one_run(vectors: np.ndarray, k: int, rng: np.random.Generator, iterations: int) -> tuple[np.ndarray, float]:
    """One k-means++-seeded run: (labels, summed similarity of papers to their group mean)."""
    centres = [int(rng.integers(len(vectors)))]
    distance = np.maximum(1 - vectors @ vectors[centres[0]], 0)
    while len(centres) < k and distance.sum() > 1e-9:
        pick = int(rng.choice(len(vectors), p=distance / distance.sum()))
        centres.append(pick)
        distance = np.minimum(distance, np.maximum(1 - vectors @ vectors[pick], 0))
    means = vectors[centres].copy()
    labels = np.full(len(vectors), -1, dtype=np.int64)
    for _ in range(iterations):
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
