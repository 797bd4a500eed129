"""Search over the current store: a retriever per store version, batches of queries, and follow-up
questions searched among the papers they are about.

The retriever is made again whenever the store's version moves (an ingest by this process or
another). It does not work out what a follow-up refers to (bot.search.followup) and never
composes answers (bot.answer).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import replace

from bot.errors import QueryError
from bot.search import overview
from bot.search.followup import Followup
from bot.search.relevance import Relevant, relevant
from bot.search.retrieve import Embed, Retriever
from bot.settings import RetrievalSettings, TriageSettings
from bot.store import Store
from bot.types import Paper, SearchResult

OVERVIEW_SEED = 17  # which papers an overview of a large store counts


class SearchService:
    """Hybrid search of one store, shared by the threads of a process."""

    def __init__(
        self, store: Store, embed: Embed, settings: RetrievalSettings, triage: TriageSettings | None = None
    ) -> None:
        self.store = store
        self.embed = embed
        self.settings = settings
        self.triage = triage or TriageSettings.model_validate({})
        self._retriever: Retriever | None = None
        self._topics: tuple[int, list[tuple[str, int]]] | None = None

    def retriever(self) -> Retriever:
        """The retriever over the current corpus (made again when the store changes)."""
        with self.store.lock:
            # The registry version changes with every ingest, from this process or another; reading
            # it is cheap, unlike counting the vectors, so it alone decides when to re-read.
            if self._retriever is None or self._retriever.corpus.version != self.store.version():
                self._retriever = Retriever(self.store.corpus(), self.embed, self.settings)
            return self._retriever

    def papers(self) -> Mapping[str, Paper]:
        """The papers searched now, by id."""
        return self.retriever().corpus.papers

    def relevant(self, texts: list[str]) -> list[Relevant]:
        """The papers each text is about, cut as triage cuts (bot.search.relevance): what an answer may cite."""
        if not texts:
            return []
        retriever = self.retriever()
        vectors = retriever.embed_queries(texts)
        corpus = retriever.corpus
        return [relevant(corpus, text, vector, self.triage) for text, vector in zip(texts, vectors, strict=True)]

    def topics(self, most: int, sample: int | None = None) -> list[tuple[str, int]]:
        """The phrases the most stored abstracts use, with how many use each (bot.search.overview).

        A store of more than `sample` papers is counted in a seeded sample of that many, the counts
        scaled up and rounded to two figures: at a million papers, counting them all took 106 s.
        """
        corpus = self.retriever().corpus
        if self._topics is None or self._topics[0] != corpus.version:
            ids = corpus.paper_ids
            if sample is None or len(ids) <= sample:
                found = overview.topics((p.display for p in corpus.papers.values()), most)
            else:
                picked = sorted(random.Random(OVERVIEW_SEED).sample(range(len(ids)), sample))
                counted = overview.topics((corpus.papers[ids[i]].display for i in picked), most)
                found = [(phrase, overview.estimate(n * len(ids) / sample)) for phrase, n in counted]
            self._topics = (corpus.version, found)
        return self._topics[1][:most]

    def search_many(self, queries: list[str], k: int | None = None) -> list[SearchResult]:
        """The `k` best papers for each query (default `settings.k`), or an abstention."""
        if k is not None and k < 1:
            raise QueryError(f"--k {k}: give a positive number of papers")
        return self.retriever().search_many(queries, k)

    def search_among(self, query: str, paper_ids: list[str]) -> SearchResult:
        """`query` searched among these papers only, every one of them ranked with its full scores."""
        return self.retriever().search_many([query], max(1, len(paper_ids)), only=tuple(paper_ids))[0]

    def search_followups(self, asked: list[Followup], k: int) -> list[SearchResult]:
        """Each standalone question searched, `k` papers deep; a follow-up about earlier papers is
        searched among those papers only (those still stored), each with its full scores.

        Example: "which of these use MuJoCo?" after three papers -> those of the three naming MuJoCo,
        or all three with `abstained` set when none does
        """
        open_questions = [f.standalone for f in asked if not f.paper_ids]
        results = self.search_many(open_questions, k) if open_questions else []
        retriever = self.retriever()
        deep = [
            retriever.search_many([f.standalone], len(f.paper_ids), only=f.paper_ids)[0] for f in asked if f.paper_ids
        ]
        plain, narrowed = iter(results), iter(deep)
        out = []
        for f in asked:
            if not f.paper_ids:
                out.append(next(plain))
                continue
            result = next(narrowed)
            hits = list(result.hits)
            # A filter keeps the papers naming enough of the question's words.
            matching = [h for h in hits if h.coverage >= self.settings.filter_coverage] if f.kind == "filter" else hits
            reason = "" if matching else f"none of the {len(hits)} papers asked about match"
            out.append(replace(result, hits=tuple(matching or hits), abstained=not matching, reason=reason))
        return out
