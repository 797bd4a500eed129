"""BEIR evaluation: nDCG@10, Recall@100 and MRR@10 of paperbot beside BM25, dense and RRF on one
split of an already ingested corpus, through the search service of its store. It does not ingest
(the CLI does) and prints nothing.
"""

from __future__ import annotations

import logging
import time

from bot.eval.baselines import dense_rankings, lexical_index, lexical_ranking
from bot.eval.data import BeirSplit
from bot.eval.metrics import mean, mrr_at_k, ndcg_at_k, recall_at_k, rrf
from bot.eval.report import NAMES, EvalReport
from bot.search.service import SearchService
from bot.types import IngestReport

log = logging.getLogger(__name__)


def evaluate_beir(
    search: SearchService,
    data: BeirSplit,
    ingest: IngestReport | None = None,
    limit: int | None = None,
    batch: int = 64,
) -> EvalReport:
    """nDCG@10, Recall@100 and MRR@10 of paperbot, BM25, dense and RRF on a BEIR split."""
    started = time.perf_counter()
    papers = search.store.papers()
    # A paper holds every corpus record with its text; a duplicate abstract counts for all its ids.
    docs = {pid: [s.source_id for s in p.sources if s.source_id] or [pid] for pid, p in papers.items()}
    index = lexical_index(search)
    qids = list(data.queries)[:limit]
    depth = 100
    runs: dict[str, dict[str, list[str]]] = {name: {} for name in NAMES}
    short = 0
    for start in range(0, len(qids), batch):
        group = qids[start : start + batch]
        texts = [data.queries[q] for q in group]
        results = search.search_many(texts, depth)
        dense = dense_rankings(search.store.vectors, search.embed(texts), papers, depth)
        for qid, text, result, dense_ids in zip(group, texts, results, dense, strict=True):
            short += len(result.hits) < min(depth, len(papers))
            runs["paperbot"][qid] = [h.paper.paper_id for h in result.hits]
            runs["bm25"][qid] = lexical_ranking(index, text, depth)
            runs["dense"][qid] = dense_ids
            runs["rrf"][qid] = rrf([runs["bm25"][qid], dense_ids])[:depth]
        log.info("evaluated %d of %d queries", start + len(group), len(qids))
    rows: dict[str, dict[str, float | None]] = {}
    per_query: dict[str, dict[str, float]] = {q: {} for q in qids}
    for name, run in runs.items():
        ndcg, recall, mrr = [], [], []
        for qid in qids:
            ranking = list(dict.fromkeys(d for pid in run[qid] for d in docs.get(pid, [pid])))
            rel = data.qrels[qid]
            ndcg.append(ndcg_at_k(ranking, rel, 10))
            recall.append(recall_at_k(ranking, rel, depth))
            mrr.append(mrr_at_k(ranking, rel, 10))
            per_query[qid][name] = round(ndcg[-1], 4)
        rows[name] = {"nDCG@10": mean(ndcg), "Recall@100": mean(recall), "MRR@10": mean(mrr)}
    retrieval = search.settings
    weight = retrieval.lexical_weight
    notes = [
        f"paperbot: lexical_weight {weight}, proximity_weight {retrieval.proximity_weight}, "
        f"match_weight {retrieval.match_weight}, complete_weight {retrieval.complete_weight}, "
        f"name_weight {retrieval.name_weight}, "
        f"acronyms {'expanded' if retrieval.expand_acronyms else 'as typed'}, candidates {retrieval.candidates}"
    ]
    if ingest is not None:
        notes.append(f"store {search.store.paths.folder}: {ingest.added} papers added, {ingest.unchanged} unchanged")
    if short:
        notes.append(f"paperbot returned fewer than {depth} papers for {short} of {len(qids)} queries")
    return EvalReport(
        title=f"{data.corpus.parent.name} {data.name}: {len(qids)} queries, {len(papers):,} papers",
        columns=("nDCG@10", "Recall@100", "MRR@10"),
        rows=rows,
        notes=tuple(notes),
        details={
            "kind": "beir",
            "dataset": data.corpus.parent.name,
            "split": data.name,
            "queries": len(qids),
            "papers": len(papers),
            "store": str(search.store.paths.folder),
            "ingest": None if ingest is None else {k: getattr(ingest, k) for k in ("added", "unchanged", "seconds")},
            "settings": retrieval.model_dump(),
            "short_rankings": short,
            "seconds": round(time.perf_counter() - started, 2),
            "per_query_ndcg@10": per_query,
        },
    )
