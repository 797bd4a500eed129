"""Compare the themes' hand-written spherical k-means with scikit-learn's KMeans on real triage sets.

Not a test (pytest does not collect it): a benchmark that prints measured numbers, for the
docstring of bot/library/themes.py. For each topic it runs the real triage on a store, keeps the
papers and vectors the themes are grouped from, and clusters them both ways (with the same
rule that folds a group of one into its nearest group). Per method: cohesion (mean cosine of a
paper to its group's mean direction), silhouette (cosine), whether the grouping differs from
ours (adjusted Rand index), whether three runs and a reversed input order agree, and time.
Run (seeds store from `paperbot ingest`, SciFact store from `paperbot eval ../shared/corpora/scifact`):
  PYTHONPATH=. .venv/bin/python tests/bot/library/bench_themes.py --store SEEDS --topics tests/data/triage_topics.jsonl
  PYTHONPATH=. .venv/bin/python tests/bot/library/bench_themes.py --store SEEDS --random 200 --largest 53 --quiet
  PYTHONPATH=. .venv/bin/python tests/bot/library/bench_themes.py --store SCIFACT "vitamin D" tuberculosis microRNA \
    "stem cells" obesity "breast cancer" "HIV infection" malaria autophagy "Alzheimer's disease" \
    "influenza vaccination" "gut microbiota" statins "antibiotic resistance" "DNA methylation" "T cells"
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from sklearn.cluster import KMeans
from sklearn.metrics import adjusted_rand_score, silhouette_score

from bot.app import Paperbot
from bot.library import themes
from bot.settings import Settings
from bot.types import Paper

Cluster = Callable[[np.ndarray, int], np.ndarray]


def sklearn_kmeans(n_init: int) -> Cluster:
    """scikit-learn KMeans (Euclidean on unit vectors), then the same fold of lonely papers as ours."""

    def run(vectors: np.ndarray, k: int) -> np.ndarray:
        if k <= 1 or len(vectors) <= 1:
            return np.zeros(len(vectors), dtype=np.int64)
        labels = KMeans(n_clusters=k, n_init=n_init, random_state=0).fit_predict(vectors).astype(np.int64)
        return themes._fold_lonely(vectors, labels, k)

    return run


def ours_with(restarts: int) -> Cluster:
    """Our spherical k-means with more seeded restarts than the themes use."""

    def run(vectors: np.ndarray, k: int) -> np.ndarray:
        saved, themes._RESTARTS = themes._RESTARTS, restarts
        try:
            return themes._kmeans(vectors, k)
        finally:
            themes._RESTARTS = saved

    return run


def cohesion(vectors: np.ndarray, labels: np.ndarray) -> float:
    """Mean cosine of each paper to its group's mean direction (1.0 = every group is one point)."""
    total = 0.0
    for c in set(labels.tolist()):
        members = vectors[labels == c]
        mean = members.sum(axis=0)
        total += float(np.sum(members @ (mean / max(float(np.linalg.norm(mean)), 1e-12))))
    return total / len(vectors)


def silhouette(vectors: np.ndarray, labels: np.ndarray) -> float | None:
    groups = len(set(labels.tolist()))
    return float(silhouette_score(vectors, labels, metric="cosine")) if 1 < groups < len(vectors) else None


def same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(adjusted_rand_score(a, b) == 1.0)


def sets_of(store: Path, topics: list[str]) -> list[tuple[str, list[Paper], np.ndarray]]:
    """(topic, relevant papers, their unit mean chunk vectors) as the triage hands them to the themes."""
    captured: list[tuple[str, list[Paper], np.ndarray]] = []
    real = themes.group

    def spy(papers: list[Paper], vectors: np.ndarray, lexical: object, topic: str, most: int) -> object:
        captured.append((topic, list(papers), np.asarray(vectors, dtype=np.float32)))
        return real(papers, vectors, lexical, topic, most)  # type: ignore[arg-type]

    themes.group = spy  # type: ignore[assignment]
    try:
        bot = Paperbot(Settings(store=store))
        for topic in topics:
            bot.triage(topic)
    finally:
        themes.group = real  # type: ignore[assignment]
    return captured


def random_sets(store: Path, count: int, largest: int) -> list[tuple[str, list[Paper], np.ndarray]]:
    """`count` random subsets of the store's papers (6 to `largest` papers, seeded): more sets to
    cluster than a store's topics give, with real vectors."""
    corpus = Paperbot(Settings(store=store)).corpus()
    rng = np.random.default_rng(13)
    total = len(corpus.paper_ids)
    out = []
    for n in range(count):
        size = int(rng.integers(6, min(largest, total) + 1))
        rows = np.sort(rng.choice(total, size=size, replace=False))
        papers = [corpus.papers[corpus.paper_ids[i]] for i in rows]
        out.append((f"random set {n + 1}", papers, np.asarray(corpus.vectors.centroids_of(rows), dtype=np.float32)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--topics", type=Path, help="JSONL with a 'topic' field per line")
    parser.add_argument("topic", nargs="*")
    parser.add_argument("--random", type=int, default=0, help="also this many random subsets of the store")
    parser.add_argument("--largest", type=int, default=200, help="largest random subset")
    parser.add_argument("--quiet", action="store_true", help="only the summary")
    parser.add_argument("--most", type=int, default=Settings().triage.max_themes)
    args = parser.parse_args()
    topics = list(args.topic)
    if args.topics:
        topics += [json.loads(line)["topic"] for line in args.topics.read_text().splitlines() if line.strip()]
    sets = sets_of(args.store, topics) if topics else []
    if args.random:
        sets += random_sets(args.store, args.random, args.largest)
    compare(sets, args.most, args.quiet)


def compare(sets: list[tuple[str, list[Paper], np.ndarray]], most: int, quiet: bool) -> None:
    """Cluster every set each way and print per-set lines (unless quiet) and the summary."""
    methods: dict[str, Cluster] = {
        "ours": themes._kmeans,
        "ours, 10 restarts": ours_with(10),
        "sklearn n_init=4": sklearn_kmeans(4),
        "sklearn n_init=10": sklearn_kmeans(10),
    }
    totals: dict[str, dict[str, list[float]]] = {m: {"cohesion": [], "silhouette": [], "ms": []} for m in methods}
    changed = {m: 0 for m in methods}
    unstable = {m: 0 for m in methods}
    order_bound = {m: 0 for m in methods}
    fewer = {m: 0 for m in methods}
    wins = {m: 0 for m in methods}
    clustered = 0
    for topic, papers, vectors in sets:
        k = themes.theme_count(len(papers), most)
        if k <= 1:
            if not quiet:
                print(f"{topic!r}: {len(papers)} papers, 1 theme (nothing to cluster)")
            continue
        clustered += 1
        line = [f"{topic!r}: {len(papers)} papers, k={k}"]
        reference = methods["ours"](vectors, k)
        scores: dict[str, float] = {}
        for name, cluster in methods.items():
            times, runs = [], []
            for _ in range(3):
                started = time.perf_counter()
                runs.append(cluster(vectors, k))
                times.append((time.perf_counter() - started) * 1000)
            backwards = cluster(vectors[::-1].copy(), k)[::-1]
            labels = runs[0]
            stable = all(same_partition(labels, r) for r in runs[1:])
            order_free = same_partition(labels, backwards)
            unstable[name] += not stable
            order_bound[name] += not order_free
            differs = not same_partition(labels, reference)
            changed[name] += differs
            groups = len(set(labels.tolist()))
            fewer[name] += groups < k
            c, s = cohesion(vectors, labels), silhouette(vectors, labels)
            scores[name] = c
            totals[name]["cohesion"].append(c)
            totals[name]["silhouette"].append(s if s is not None else 0.0)
            totals[name]["ms"].append(statistics.median(times))
            sizes = sorted(np.bincount(labels).tolist(), reverse=True)
            line.append(
                f"  {name:18} cohesion {c:.4f} silhouette {'-' if s is None else f'{s:.4f}'} sizes {sizes} "
                f"{statistics.median(times):7.1f} ms{' DIFFERS' if differs else ''}{'' if stable else ' UNSTABLE'}"
                f"{'' if order_free else ' (input order changes it)'}"
            )
        best = max(scores.values())
        for name, c in scores.items():
            wins[name] += c >= best - 1e-6
        if not quiet:
            print("\n".join(line))
    print(f"\n{clustered} sets with k >= 2 (silhouette 0 where a set became one group)")
    for name, t in totals.items():
        if not t["cohesion"]:
            continue
        print(
            f"{name:18} cohesion {statistics.mean(t['cohesion']):.4f}  "
            f"silhouette {statistics.mean(t['silhouette']):.4f}"
            f"  most cohesive {wins[name]}/{clustered}  fewer groups than k {fewer[name]}  grouping differs from "
            f"ours {changed[name]}  unstable {unstable[name]}  input order matters {order_bound[name]}  "
            f"median {statistics.median(t['ms']):.1f} ms, max {max(t['ms']):.1f} ms"
        )


if __name__ == "__main__":
    main()
