"""Retrieval evaluation: ranking metrics, and runs of paperbot beside its baselines.

Metrics are pure functions of one ranking and its relevant ids. The runners search an
already ingested store with our retriever, BM25 alone, dense alone and (BEIR) RRF of the two,
and return an EvalReport; they do not ingest (the CLI does) and print nothing.
"""

from __future__ import annotations

import logging
import math
import statistics
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bot.app import Paperbot
from bot.beir import BeirSplit, Question
from bot.errors import QueryError
from bot.lexical import LexicalIndex
from bot.retrieve import Retriever
from bot.store import VectorStore
from bot.types import Answer, IngestReport, SearchResult

log = logging.getLogger(__name__)

RRF_K = 60
NAMES = {
    "paperbot": "paperbot (hybrid)",
    "bm25": "BM25 alone",
    "dense": "dense alone (MiniLM)",
    "rrf": "RRF of BM25 + dense (k=60)",
}


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


def _mean(values: Sequence[float]) -> float:
    return round(float(np.mean(values)), 4) if values else 0.0


@dataclass(frozen=True)
class EvalReport:
    """Metrics per system (None where a metric does not apply), notes for people, details for JSON."""

    title: str
    columns: tuple[str, ...]
    rows: dict[str, dict[str, float | None]]
    notes: tuple[str, ...] = ()
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"title": self.title, "metrics": self.rows, **self.details}

    def _cells(self) -> list[list[str]]:
        return [
            [NAMES.get(name, name)] + ["-" if m.get(c) is None else f"{m[c]:.3f}" for c in self.columns]
            for name, m in self.rows.items()
        ]

    def table(self) -> str:
        """Aligned plain-text table for a terminal."""
        head = ["system", *self.columns]
        cells = self._cells()
        widths = [max(len(r[i]) for r in [head, *cells]) for i in range(len(head))]
        lines = [self.title, ""] + [
            "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
            for r in [head, *cells]
        ]
        return "\n".join(lines + ([""] if self.notes else []) + list(self.notes))

    def markdown(self) -> str:
        """The table as markdown, for docs/."""
        lines = [f"### {self.title}", "", "| system | " + " | ".join(self.columns) + " |"]
        lines.append("|---|" + "---:|" * len(self.columns))
        lines += ["| " + " | ".join(r) + " |" for r in self._cells()]
        return "\n".join(lines + ([""] if self.notes else []) + [f"- {n}" for n in self.notes]) + "\n"


def lexical_index(bot: Paperbot) -> LexicalIndex:
    """The store's saved BM25 index (built first when missing)."""
    bot.retriever()  # builds and saves the lexical index when it is stale
    index = LexicalIndex.load(bot.settings.store / "lexical", bot.registry.version())
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


def _retriever(bot: Paperbot, lexical_weight: float) -> Retriever:
    """A baseline: BM25 alone (weight 1) or MiniLM alone (weight 0), with no coverage or acronym help."""
    update = {
        "lexical_weight": lexical_weight,
        "proximity_weight": 0.0,
        "match_weight": 0.0,
        "name_weight": 0.0,
        "complete_weight": 0.0,
        "expand_acronyms": False,
    }
    return Retriever(bot.corpus(), bot.embed, bot.settings.retrieval.model_copy(update=update))


def evaluate_beir(
    bot: Paperbot, data: BeirSplit, ingest: IngestReport | None = None, limit: int | None = None, batch: int = 64
) -> EvalReport:
    """nDCG@10, Recall@100 and MRR@10 of paperbot, BM25, dense and RRF on a BEIR split."""
    started = time.perf_counter()
    papers = bot.registry.papers()
    # A paper holds every corpus record with its text; a duplicate abstract counts for all its ids.
    docs = {pid: [s.source_id for s in p.sources if s.source_id] or [pid] for pid, p in papers.items()}
    index = lexical_index(bot)
    qids = list(data.queries)[:limit]
    depth = 100
    runs: dict[str, dict[str, list[str]]] = {name: {} for name in NAMES}
    short = 0
    for start in range(0, len(qids), batch):
        group = qids[start : start + batch]
        texts = [data.queries[q] for q in group]
        results = bot.search_many(texts, depth)
        dense = dense_rankings(bot.store, bot.embed(texts), papers, depth)
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
        rows[name] = {"nDCG@10": _mean(ndcg), "Recall@100": _mean(recall), "MRR@10": _mean(mrr)}
    weight = bot.settings.retrieval.lexical_weight
    retrieval = bot.settings.retrieval
    notes = [
        f"paperbot: lexical_weight {weight}, proximity_weight {retrieval.proximity_weight}, "
        f"match_weight {retrieval.match_weight}, complete_weight {retrieval.complete_weight}, "
        f"name_weight {retrieval.name_weight}, "
        f"acronyms {'expanded' if retrieval.expand_acronyms else 'as typed'}, candidates {retrieval.candidates}"
    ]
    if ingest is not None:
        notes.append(f"store {bot.settings.store}: {ingest.added} papers added, {ingest.unchanged} unchanged")
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
            "store": str(bot.settings.store),
            "ingest": None if ingest is None else {k: getattr(ingest, k) for k in ("added", "unchanged", "seconds")},
            "settings": bot.settings.retrieval.model_dump(),
            "short_rankings": short,
            "seconds": round(time.perf_counter() - started, 2),
            "per_query_ndcg@10": per_query,
        },
    )


def _expected_ids(papers: Mapping[str, Any], question: Question) -> list[set[str]]:
    """For each expected snippet, the stored papers whose text contains it."""
    groups = []
    for snippet in question.expected:
        ids = {pid for pid, p in papers.items() if snippet in p.text}
        if not ids:
            raise QueryError(
                f"question {question.qid}: no stored abstract contains {snippet!r}; ingest the abstracts "
                "the questions are about (e.g. `paperbot ingest` for the bundled seeds) or fix the snippet"
            )
        groups.append(ids)
    return groups


@dataclass(frozen=True)
class Judged:
    """Judgments (bot.beir.read_judgments) resolved to stored paper ids, per question id."""

    relevant: dict[str, set[str]]  # papers judged relevant
    seen: dict[str, set[str]]  # papers judged either way
    identified: dict[str, str]  # paper id -> record id, for every stored paper that has one

    @classmethod
    def resolve(cls, papers: Mapping[str, Any], judgments: Mapping[str, Mapping[str, bool]]) -> Judged:
        identified = {pid: p.source_id for pid, p in papers.items() if p.source_id}
        by_record: dict[str, set[str]] = {}
        for pid, record in identified.items():
            by_record.setdefault(record, set()).add(pid)
        relevant: dict[str, set[str]] = {}
        seen: dict[str, set[str]] = {}
        for qid, verdicts in judgments.items():
            for record, verdict in verdicts.items():
                ids = by_record.get(record, set())
                seen.setdefault(qid, set()).update(ids)
                if verdict:
                    relevant.setdefault(qid, set()).update(ids)
        return cls(relevant, seen, identified)

    def unjudged(self, qid: str, top: str, labelled: Collection[str]) -> bool:
        """A top paper with a record id that neither the question file nor a judgment covers.
        Papers without a record id (plain-text seeds) are covered by the question file's labels."""
        return top in self.identified and top not in labelled and top not in self.seen.get(qid, set())


def _question_metrics(
    questions: Sequence[Question],
    offtopic: Sequence[Question],
    expected: Mapping[str, list[set[str]]],
    results: Sequence[SearchResult],
    judged: Judged | None = None,
) -> tuple[dict[str, float | None], dict[str, list[str]]]:
    """Metrics of one system, and the ids it got wrong (missed at rank 1, wrongly abstained or
    answered); `results` holds the answerable questions first, then the off-topic ones. With
    `judged`, "judged hit@1" also credits a first paper judged relevant, and `unjudged` lists
    the questions whose first paper nobody has judged (as "qid:record id")."""
    n = len(questions)
    hits: dict[str, list[float]] = {"hit@1": [], "judged": [], "single": [], "hit@5": [], "mrr": [], "multi": []}
    missed: list[str] = []
    unjudged: list[str] = []
    for question, result in zip(questions, results[:n], strict=True):
        ranking = [h.paper.paper_id for h in result.hits]
        groups = expected[question.qid]
        relevant = set().union(*groups)
        hits["hit@1"].append(hit_at_k(ranking, relevant, 1))
        missed += [] if hits["hit@1"][-1] else [question.qid]
        if judged is not None:
            hits["judged"].append(hit_at_k(ranking, relevant | judged.relevant.get(question.qid, set()), 1))
            if ranking and judged.unjudged(question.qid, ranking[0], relevant):
                unjudged.append(f"{question.qid}:{judged.identified[ranking[0]]}")
        hits["hit@5"].append(hit_at_k(ranking, relevant, 5))
        hits["mrr"].append(mrr_at_k(ranking, relevant, 10))
        if question.kind == "multi":
            # e.g. 3 expected abstracts, 2 of them in the top 10 -> 0.667
            hits["multi"].append(sum(1 for g in groups if g & set(ranking[:10])) / len(groups))
        else:
            # Among distractors, unlabelled papers may rightly lead a multi-answer list; single
            # questions name the one abstract that should come first.
            hits["single"].append(hits["hit@1"][-1])
    wrong = [q.qid for q, r in zip(questions, results[:n], strict=True) if r.abstained]
    wrong += [q.qid for q, r in zip(offtopic, results[n:], strict=True) if not r.abstained]
    metrics: dict[str, float | None] = {"hit@1": _mean(hits["hit@1"])}
    if judged is not None:
        metrics["judged hit@1"] = _mean(hits["judged"])
    metrics |= {
        "single hit@1": _mean(hits["single"]) if hits["single"] else None,
        "hit@5": _mean(hits["hit@5"]),
        "MRR@10": _mean(hits["mrr"]),
        "multi recall@10": _mean(hits["multi"]) if hits["multi"] else None,
        "abstention acc": round(1 - len(wrong) / len(results), 4),
    }
    errors = {"missed_hit@1": missed, "wrong_abstention": wrong}
    return metrics, errors | ({"unjudged_top": unjudged} if judged is not None else {})


def answer_support(answers: Sequence[Answer], expected: Sequence[list[set[str]]]) -> dict[str, int]:
    """Counts of answer sentences making a claim, those the citation checker (bot.check) judged
    supported, those quoting their cited abstract verbatim, and those citing an expected abstract;
    abstained answers are left out. Answers come checked from Paperbot.ask_many."""
    counts = {"answers": 0, "sentences": 0, "supported": 0, "quoted": 0, "on_target": 0}
    for answer, groups in zip(answers, expected, strict=True):
        if answer.abstained:
            continue
        counts["answers"] += 1
        cited = {c.n: c.paper for c in answer.citations}
        relevant = set().union(*groups)
        # A sentence without a citation counts unless it makes no claim (support None).
        for sentence in (s for s in answer.sentences if s.citations or s.support is not None):
            papers = [cited[n] for n in sentence.citations if n in cited]
            source = sentence.paper_sentence or ""
            counts["sentences"] += 1
            counts["supported"] += sentence.supported is True
            counts["quoted"] += bool(source and papers) and all(source in p.display or source in p.text for p in papers)
            counts["on_target"] += any(p.paper_id in relevant for p in papers)
    return counts


def evaluate_questions(
    bot: Paperbot,
    questions: Sequence[Question],
    offtopic: Sequence[Question] = (),
    answers: bool = False,
    limit: int | None = None,
    judgments: Mapping[str, Mapping[str, bool]] | None = None,
) -> EvalReport:
    """hit@1, hit@5, MRR@10, multi-answer recall@10 and abstention accuracy of paperbot, BM25 and
    dense; with `judgments` (bot.beir.read_judgments) also hit@1 crediting papers judged relevant."""
    started = time.perf_counter()
    questions, offtopic = list(questions)[:limit], list(offtopic)[:limit]
    papers = bot.registry.papers()
    expected = {q.qid: _expected_ids(papers, q) for q in questions}
    judged = None if judgments is None else Judged.resolve(papers, judgments)
    bot.retriever()  # reads the store's vectors and BM25 index once, outside the latencies
    bot.embed(["warm up"])  # the first call loads the model; keep it out of the latencies
    k = max(10, bot.settings.retrieval.k)
    texts = [q.text for q in [*questions, *offtopic]]
    ours: list[SearchResult] = []
    latencies: list[float] = []
    for text in texts:  # one by one, as a user asks, to measure latency
        began = time.perf_counter()
        ours.append(bot.search(text, k))
        latencies.append(1000 * (time.perf_counter() - began))
    results = {
        "paperbot": ours,
        "bm25": _retriever(bot, 1.0).search_many(texts, k),
        "dense": _retriever(bot, 0.0).search_many(texts, k),
    }
    scored = {name: _question_metrics(questions, offtopic, expected, res, judged) for name, res in results.items()}
    rows = {name: metrics for name, (metrics, _) in scored.items()}
    abstained = sum(r.abstained for r in ours[: len(questions)])
    answered = sum(not r.abstained for r in ours[len(questions) :])
    median, p95 = statistics.median(latencies), float(np.percentile(latencies, 95))
    notes = [
        f"paperbot: {abstained} of {len(questions)} answerable questions abstained, "
        f"{answered} of {len(offtopic)} off-topic questions answered",
        f"search latency: median {median:.0f} ms, p95 {p95:.0f} ms ({len(texts)} single queries, k={k})",
    ]
    if judged is not None:
        unjudged = ", ".join(f"{name} {len(errors['unjudged_top'])}" for name, (_, errors) in scored.items())
        notes.append(
            "judged hit@1 also credits a first paper judged relevant to its question; first papers nobody "
            f"has judged yet (they count as misses; listed under errors.unjudged_top in --json): {unjudged}"
        )
    details: dict[str, Any] = {
        "kind": "questions",
        "questions": len(questions),
        "offtopic": len(offtopic),
        "papers": len(papers),
        "store": str(bot.settings.store),
        "latency_ms": {"median": round(median, 1), "p95": round(p95, 1)},
        "errors": {name: errors for name, (_, errors) in scored.items()},
    }
    if answers:
        counts = answer_support(bot.ask_many([q.text for q in questions]), [expected[q.qid] for q in questions])
        share = round(counts["supported"] / counts["sentences"], 4) if counts["sentences"] else None
        rows["paperbot"]["answers supported"] = share
        for name in ("bm25", "dense"):
            rows[name]["answers supported"] = None
        details["answers"] = counts
        notes.append(
            f"answers: {counts['sentences']} sentences in {counts['answers']} answers; {counts['supported']} "
            f"supported by the abstracts they cite (bot.check), {counts['quoted']} quote them verbatim, "
            f"{counts['on_target']} cite an expected abstract"
        )
    details["seconds"] = round(time.perf_counter() - started, 2)
    return EvalReport(
        title=f"questions: {len(questions)} answerable + {len(offtopic)} off-topic, {len(papers):,} papers",
        columns=tuple(rows["paperbot"]),
        rows=rows,
        notes=tuple(notes),
        details=details,
    )
