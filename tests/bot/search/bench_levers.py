"""Measure retrieval levers that are not in the product, on a BEIR store that `paperbot eval` built.

Not a test (pytest does not collect it): it prints nDCG@10 of the hybrid retriever with one lever
changed at a time, for the "levers tried" section of docs/retrieval.md. Each lever is scored
beside the unchanged retriever in the same run. Build the store first with
`paperbot --store /tmp/evalstores/scifact eval ../shared/corpora/scifact --split train`, then:

    .venv/bin/python tests/bot/search/bench_levers.py --store /tmp/evalstores/scifact/eval-scifact \\
        --beir ../shared/corpora/scifact ablations weights coverage tokens prf proximity \\
        centring words importance centroid sentences chunks

`sentences` and `chunks` embed the corpus again (5-10 min each on 2 cores); the others take
seconds to a minute.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import itertools
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from bot.app import Paperbot
from bot.eval import data as beir
from bot.eval.baselines import lexical_ranking
from bot.eval.metrics import ndcg_at_k
from bot.query import parse
from bot.search.retrieve import Retriever
from bot.settings import ChunkSettings, LexicalSettings, Settings
from bot.store.corpus import Corpus, PaperVectors
from bot.store.lexical import LexicalIndex
from bot.store.vectors import ChunkVectors
from bot.text import sentences, terms
from bot.text.chunking import chunk_texts, paper_chunks
from bot.text.terms import pair_set, query_words, term_set, word_tokens


class Bench:
    """One store and one BEIR split, with the query vectors computed once."""

    def __init__(self, store: Path, folder: Path, split: str) -> None:
        self.settings = Settings(store=store)
        self.bot = Paperbot(self.settings)
        self.corpus = self.bot.corpus()
        self.papers = self.bot.papers()
        self.data = beir.read_beir(folder, split)
        self.docs = {pid: [s.source_id for s in p.sources if s.source_id] or [pid] for pid, p in self.papers.items()}
        self.qids = list(self.data.queries)
        self.texts = [self.data.queries[q] for q in self.qids]
        self.queries = self.bot.embed([self.corpus.lexical.expand(t) for t in self.texts])

    def ndcg(self, rankings: list[list[str]]) -> float:
        """Mean nDCG@10 of paper-id rankings (one per query, in `qids` order)."""
        scores = []
        for qid, ranking in zip(self.qids, rankings, strict=True):
            ids = list(dict.fromkeys(d for pid in ranking for d in self.docs.get(pid, [pid])))
            scores.append(ndcg_at_k(ids, self.data.qrels[qid], 10))
        return round(float(np.mean(scores)), 4)

    def hybrid(
        self,
        dense: np.ndarray | None = None,
        corpus: Corpus | None = None,
        extra: list[np.ndarray] | None = None,
        **update: float,
    ) -> float:
        """nDCG@10 of the product's ranking with other dense scores, vectors, settings, or an extra
        z-scored lexical signal per query added to the BM25 side."""
        corpus = corpus or self.corpus
        retriever = Retriever(corpus, self.bot.embed, self.settings.retrieval.model_copy(update=update))
        dense = corpus.vectors.similarity(self.queries) if dense is None else dense
        rankings = []
        for text, vector, row in zip(self.texts, self.queries, dense, strict=True):
            query = parse(text)
            rankings.append(
                [h.paper.paper_id for h in retriever._rank(query, vector, retriever._bm25(query), row, 10).hits]
            )
        return self.ndcg(rankings)

    def vectors(self, texts: dict[str, list[str]]) -> PaperVectors:
        """Embed `texts` {paper id: its pieces} into per-paper vectors (best piece wins)."""
        ids = [(pid, i) for pid in self.corpus.paper_ids for i in range(len(texts[pid]))]
        matrix = self.bot.embed([texts[pid][i] for pid, i in ids])
        chunks = ChunkVectors(tuple(f"{pid}-{i}" for pid, i in ids), tuple(pid for pid, _ in ids), matrix)
        return PaperVectors(chunks, self.corpus.paper_ids)


@contextlib.contextmanager
def swapped(index: LexicalIndex, method: str, replacement: Callable[..., Any]) -> Iterator[None]:
    """`index.<method>` replaced by `replacement` inside the block, the class's own method after it."""
    setattr(index, method, replacement)
    try:
        yield
    finally:
        delattr(index, method)


def ablations(b: Bench) -> None:
    """The product with one of its parts turned off, as the PAPERBOT_RETRIEVAL__* variables would."""
    print(f"ablations: name_weight 0: {b.hybrid(name_weight=0.0)}")
    print(f"ablations: match_weight 0: {b.hybrid(match_weight=0.0)}")
    print(f"ablations: complete_weight 0: {b.hybrid(complete_weight=0.0)}")
    as_typed = b.corpus.vectors.similarity(b.bot.embed(b.texts))
    print(f"ablations: acronyms as typed: {b.hybrid(as_typed, expand_acronyms=False)}")


def weights(b: Bench) -> None:
    for lexical_weight, candidates in itertools.product((0.35, 0.4, 0.45, 0.5, 0.55), (50, 100, 200, 1000)):
        score = b.hybrid(lexical_weight=lexical_weight, candidates=candidates)
        print(f"weights: lexical_weight {lexical_weight}, candidates {candidates}: {score}")


def coverage(b: Bench) -> None:
    """The weight of the coverage bonus (the idf-weighted share of query words a paper contains)."""
    for weight in (2.0, 3.0, 4.0, 4.5, 5.0):
        print(f"coverage: match_weight {weight}: {b.hybrid(match_weight=weight)}")
    for weight in (0.0, 0.6, 1.5, 3.0, 4.5):
        print(f"coverage: complete_weight {weight}: {b.hybrid(complete_weight=weight)}")


def prf(b: Bench) -> None:
    """Rocchio on the query vector: add beta x the mean centroid of the first `m` papers, mix with the original."""
    dense = b.corpus.vectors.similarity(b.queries)
    retriever = Retriever(b.corpus, b.bot.embed, b.settings.retrieval)
    first = [
        retriever._rank(parse(t), v, retriever._bm25(parse(t)), row, 10)
        for t, v, row in zip(b.texts, b.queries, dense, strict=True)
    ]
    print(f"prf: none: {b.hybrid(dense)}")
    for m, beta in itertools.product((1, 3, 5), (0.3, 1.0)):
        moved = []
        for vector, result in zip(b.queries, first, strict=True):
            rows = [b.corpus.position(h.paper.paper_id) for h in result.hits[:m]]
            q = vector + beta * b.corpus.vectors.centroids_of(rows).mean(axis=0)
            moved.append(q / np.linalg.norm(q))
        second = b.corpus.vectors.similarity(np.array(moved))
        print(f"prf: top {m}, beta {beta}: {b.hybrid(0.5 * dense + 0.5 * second)}")


def proximity(b: Bench) -> None:
    """The weight of BM25 over neighbouring word pairs (0 turns proximity off)."""
    for weight in (0.0, 0.1, 0.15, 0.2, 0.3):
        print(f"proximity: proximity_weight {weight}: {b.hybrid(proximity_weight=weight)}")


def tokens(b: Bench) -> None:
    """Query compounds ("IL-6", "multi-agent") matched whole when the index knows them, instead of by parts."""
    index = b.corpus.lexical

    def bm25_alone() -> float:
        return b.ndcg([lexical_ranking(index, text, 10) for text in b.texts])

    print(f"tokens: compounds by their parts (product): BM25 alone {bm25_alone()}, hybrid {b.hybrid()}")
    vocab = index._vocab

    def whole(query: str) -> list[str]:
        out: list[str] = []
        for word in query_words(query):
            pieces = word_tokens(word)
            if len(pieces) > 1 and pieces[0] == word and word in vocab:
                out.append(word)
            else:
                out.extend(t for t in pieces if t != word or len(pieces) == 1)
        return out

    with swapped(index, "query_terms", whole):
        print(f"tokens: compounds whole when indexed: BM25 alone {bm25_alone()}, hybrid {b.hybrid()}")


def words(b: Bench) -> None:
    """Acronyms matched by their spelled-out long form, and plural acronyms stemmed to the singular."""
    print(f"words: long forms and plural acronyms (product): {b.hybrid()}")
    with swapped(b.corpus.lexical, "spelled_out", lambda word: []):
        print(f"words: no long forms: {b.hybrid()}")
    # Plural acronyms as Snowball leaves them ("llms"): the index is rebuilt with the old stemmer.
    original = terms.stem
    terms.stem = lambda word: terms._stemmer().stemWord(word)  # type: ignore[assignment]
    try:
        term_set.cache_clear()
        pair_set.cache_clear()
        terms._word_tokens.cache_clear()  # its terms were cut with the product's stemmer
        docs = {pid: b.papers[pid].searchable_text() for pid in b.corpus.paper_ids}
        corpus = dataclasses.replace(b.corpus, lexical=LexicalIndex.build(docs, LexicalSettings()))
        print(f"words: plural acronyms as Snowball leaves them: {b.hybrid(corpus=corpus)}")
    finally:
        terms.stem = original
        term_set.cache_clear()
        pair_set.cache_clear()
        terms._word_tokens.cache_clear()


def importance(b: Bench) -> None:
    """Query words weighted for coverage by how far MiniLM's query vector moves without them."""
    index = b.corpus.lexical
    presence = index.word_presence

    def weighted(query: str) -> list[tuple[str, float, np.ndarray]]:
        out = presence(query)
        if len(out) < 2:
            return out
        texts = [query] + [re.sub(rf"(?i)(?<![\w-]){re.escape(w)}(?![\w-])", " ", query) for w, _, _ in out]
        vectors = b.bot.embed(texts)
        moved = np.maximum(1 - vectors[1:] @ vectors[0], 1e-4)
        moved = moved / moved.mean()
        return [(w, weight * float(m), p) for (w, weight, p), m in zip(out, moved, strict=True)]

    print(f"importance: idf weights (product): {b.hybrid()}")
    with swapped(index, "word_presence", weighted):
        print(f"importance: idf x leave-one-out movement of the query vector: {b.hybrid()}")


def centroid(b: Bench) -> None:
    """The dense score mixed with the cosine to the paper's mean chunk vector (its whole abstract)."""
    best = b.corpus.vectors.similarity(b.queries)
    whole = b.queries @ b.corpus.vectors.centroids_of(np.arange(len(b.corpus.paper_ids))).T
    for mix in (0.0, 0.3, 0.5):
        print(f"centroid: mix {mix}: {b.hybrid((1 - mix) * best + mix * whole)}")


def centring(b: Bench) -> None:
    """Subtract the mean chunk vector (or also the top principal components) before the cosine."""
    vectors = b.corpus.vectors
    matrix = vectors._matrix
    owners = tuple(vectors.paper_ids[i] for i in vectors._owner)
    mean = matrix.mean(axis=0)

    def unit(x: np.ndarray) -> np.ndarray:
        return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)

    def score(transform: Callable[[np.ndarray], np.ndarray]) -> float:
        moved = PaperVectors(
            ChunkVectors(tuple(vectors._chunk_ids), owners, unit(transform(matrix))), b.corpus.paper_ids
        )
        corpus = dataclasses.replace(b.corpus, vectors=moved)
        return b.hybrid(moved.similarity(unit(transform(b.queries))), corpus)

    print(f"centring: none: {b.hybrid()}")
    print(f"centring: mean removed: {score(lambda x: x - mean)}")
    _, _, components = np.linalg.svd(matrix - mean, full_matrices=False)
    for k in (1, 4):
        projection = np.eye(matrix.shape[1], dtype=np.float32) - components[:k].T @ components[:k]
        print(f"centring: mean and top {k} components removed: {score(lambda x, p=projection: (x - mean) @ p)}")


def sentence_vectors(b: Bench) -> None:
    """Every sentence embedded alone; its best cosine mixed into the best-chunk cosine."""
    texts = {pid: sentences.split(b.papers[pid].display) or [b.papers[pid].display] for pid in b.corpus.paper_ids}
    started = time.perf_counter()
    vectors = b.vectors(texts)
    print(f"sentences: {vectors.chunk_count:,} embedded in {time.perf_counter() - started:.0f} s")
    chunks, alone = b.corpus.vectors.similarity(b.queries), vectors.similarity(b.queries)
    print(f"sentences: none: {b.hybrid(chunks)}")
    for mix, lexical_weight in itertools.product((0.2, 0.3, 0.5), (0.35, 0.45)):
        score = b.hybrid((1 - mix) * chunks + mix * alone, lexical_weight=lexical_weight)
        print(f"sentences: mix {mix}, lexical_weight {lexical_weight}: {score}")


def chunk_sizes(b: Bench) -> None:
    """Other chunk sizes, overlaps and title placements, embedded afresh."""
    print(f"chunks: as stored ({b.corpus.vectors.chunk_count:,} chunks): {b.hybrid()}")
    for max_tokens, overlap, title_everywhere in ((80, 1, True), (120, 0, True), (120, 1, False), (180, 0, True)):
        settings = ChunkSettings(max_tokens=max_tokens, overlap_sentences=overlap)
        texts = {}
        for pid in b.corpus.paper_ids:
            paper = b.papers[pid]
            if title_everywhere:
                texts[pid] = [c.text for c in paper_chunks(paper, settings)]
            else:
                body = chunk_texts(paper.display, settings)
                texts[pid] = [f"{paper.title}. {t}" if i == 0 and paper.title else t for i, t in enumerate(body)]
        started = time.perf_counter()
        vectors = b.vectors(texts)
        seconds = time.perf_counter() - started
        corpus = dataclasses.replace(b.corpus, vectors=vectors)
        title = "every chunk" if title_everywhere else "first chunk"
        print(
            f"chunks: {max_tokens} tokens, overlap {overlap}, title on {title} "
            f"({vectors.chunk_count:,} chunks, {seconds:.0f} s): {b.hybrid(corpus=corpus)}"
        )


LEVERS = {
    "ablations": ablations,
    "weights": weights,
    "coverage": coverage,
    "prf": prf,
    "proximity": proximity,
    "tokens": tokens,
    "centring": centring,
    "words": words,
    "importance": importance,
    "centroid": centroid,
    "sentences": sentence_vectors,
    "chunks": chunk_sizes,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--store", type=Path, required=True, help="the eval store, e.g. /tmp/evalstores/scifact/eval-scifact"
    )
    parser.add_argument("--beir", type=Path, required=True, help="the BEIR folder the store was built from")
    parser.add_argument("--split", default="train")
    parser.add_argument("levers", nargs="+", choices=sorted(LEVERS))
    args = parser.parse_args()
    bench = Bench(args.store, args.beir, args.split)
    print(f"{len(bench.qids)} queries, {len(bench.corpus.paper_ids):,} papers; product settings: {bench.hybrid()}")
    for name in args.levers:
        LEVERS[name](bench)


if __name__ == "__main__":
    main()
