"""Dense retrieval with chunk vectors made from sentence vectors, against the chunk vectors ingest stores.

Not a test (pytest does not collect it): a benchmark that prints measured numbers. It asks whether ingest
could embed each abstract sentence once (about the raw model's word pieces, and every answer sentence's
vector for free) and make each chunk's vector the normalised mean of its sentences' (and its title's)
vectors, as benchmarks/scale.py composes its synthetic corpus. On a BEIR store built by `paperbot eval`,
it embeds every chunk's sentences and every title in float32, then ranks papers for each query by their
best chunk (dense only, no BM25) with each kind of chunk vector, and prints nDCG@10 for each.

Run: .venv/bin/paperbot --store /tmp/sf eval ../shared/corpora/scifact --split train   # builds the store
     .venv/bin/python benchmarks/sentence_means.py --store /tmp/sf/eval-scifact --beir ../shared/corpora/scifact
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from bot.app import Paperbot
from bot.errors import PaperbotError
from bot.eval.data import read_beir
from bot.eval.metrics import mean, ndcg_at_k
from bot.settings import load_settings
from bot.text import sentences
from bot.text.chunking import paper_chunks
from bot.types import Paper

Rows = tuple[np.ndarray, list[str]]  # unit vectors, and the paper each belongs to


def unit(matrix: np.ndarray) -> np.ndarray:
    return matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)


def composed(papers: dict[str, Paper], app: Paperbot, vector: dict[str, np.ndarray], title_weight: float) -> Rows:
    """One row a chunk: the mean of its sentences' vectors, plus `title_weight` times its title's."""
    rows, owners = [], []
    for pid, paper in papers.items():
        prefix = f"{paper.title}. " if paper.title else ""
        for chunk in paper_chunks(paper, app.settings.chunk):
            total = np.sum([vector[s] for s in sentences.split(chunk.text.removeprefix(prefix))], axis=0)
            if paper.title and title_weight:
                total = total + title_weight * vector[paper.title]
            rows.append(total)
            owners.append(pid)
    return unit(np.array(rows, dtype=np.float32)), owners


def single(papers: dict[str, Paper], app: Paperbot, vector: dict[str, np.ndarray]) -> Rows:
    """One row a sentence: a paper ranked by its best sentence."""
    pairs = [(vector[s], pid) for pid, p in papers.items() for s in dict.fromkeys(sentences.split(p.display))]
    return unit(np.array([v for v, _ in pairs], dtype=np.float32)), [pid for _, pid in pairs]


def ndcg(queries: np.ndarray, rows: Rows, qids: list[str], qrels: dict, docs: dict[str, list[str]]) -> float:
    matrix, owners = rows
    ids, index = np.unique(np.array(owners), return_inverse=True)
    scores = queries @ matrix.T
    out = []
    for row, qid in zip(scores, qids, strict=True):
        best = np.full(len(ids), -np.inf, dtype=np.float32)
        np.maximum.at(best, index, row)
        ranking = [d for pid in ids[np.argsort(-best)[:100]] for d in docs[pid]]
        out.append(ndcg_at_k(list(dict.fromkeys(ranking)), qrels[qid], 10))
    return mean(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", type=Path, required=True, help="a store `paperbot eval` built of a BEIR corpus")
    parser.add_argument("--beir", type=Path, required=True, help="the BEIR folder it was built from")
    parser.add_argument("--split", default="train", help="the split whose queries are ranked (default train)")
    args = parser.parse_args()
    if not (args.store / "papers.sqlite").is_file():
        parser.exit(2, f"{args.store} holds no paperbot store; build one with `paperbot --store DIR eval BEIR`\n")
    try:
        data = read_beir(args.beir, args.split)
    except PaperbotError as exc:
        parser.exit(2, f"{exc}\n")
    app = Paperbot(load_settings(store=args.store))
    papers = dict(app.store.papers())
    docs = {pid: [s.source_id for s in p.sources if s.source_id] or [pid] for pid, p in papers.items()}
    qids = list(data.queries)
    queries = app.embed([data.queries[q] for q in qids])
    texts = {p.title for p in papers.values() if p.title}
    for paper in papers.values():
        texts.update(sentences.split(paper.display))
        prefix = f"{paper.title}. " if paper.title else ""
        for chunk in paper_chunks(paper, app.settings.chunk):
            texts.update(sentences.split(chunk.text.removeprefix(prefix)))
    ordered = sorted(texts)
    started = time.perf_counter()
    vectors = app.embedder.exact(ordered)  # float32, as answers embed
    print(f"{len(papers):,} papers, {len(qids)} queries; {len(ordered):,} sentences and titles embedded in "
          f"{time.perf_counter() - started:.0f} s")  # fmt: skip
    vector = dict(zip(ordered, vectors, strict=True))
    stored = app.store.vectors.all_vectors()  # every chunk vector in Chroma, as ingest wrote it
    rows = {
        "the chunk vectors ingest stored": (unit(np.asarray(stored.matrix, dtype=np.float32)), list(stored.paper_ids)),
        "mean of the chunk's sentences and its title": composed(papers, app, vector, 1.0),
        "mean of the chunk's sentences": composed(papers, app, vector, 0.0),
        "the paper's best single sentence": single(papers, app, vector),
    }
    print("| chunk vectors | dense nDCG@10 |\n|---|---:|")
    for name, made in rows.items():
        print(f"| {name} | {ndcg(queries, made, qids, data.qrels, docs):.4f} |")


if __name__ == "__main__":
    main()
