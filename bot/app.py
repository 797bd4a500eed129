"""Wires the stages into one object for the CLI and the UI: ingest, search, ask, triage, lists.

Opens the store once and loads the embedding model on first need. Holds no logic of its
own beyond choosing which stage to call; the CLI and UI turn its errors into messages.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from bot import embedder
from bot.answer import generate
from bot.answer.check import CheckedAnswer, check_answer, check_text
from bot.answer.compose import Composer
from bot.errors import GeneratorError, QueryError, StoreError
from bot.library import export as export_stage
from bot.library import lists as lists_stage
from bot.library import triage as triage_stage
from bot.search import followup
from bot.search import similar as similar_stage
from bot.search.retrieve import Retriever
from bot.settings import Settings, describe_fingerprint, index_fingerprint
from bot.store import lock as storelock
from bot.store.chroma import VectorStore
from bot.store.corpus import Corpus
from bot.store.lexical import LexicalIndex
from bot.store.lists import ReadingLists
from bot.store.registry import Registry
from bot.store.vectors import VectorCache
from bot.text import chunking, normalise
from bot.types import Answer, Citation, IngestReport, Paper, ReadingList, SearchResult, SimilarResult, TriageResult
from ingest import pipeline

log = logging.getLogger(__name__)
# Texts whose vectors are remembered (384 float32 each: 20,000 take about 31 MB).
_VECTOR_CACHE = 20_000


class Paperbot:
    """The product behind every entry point."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.registry = Registry(settings.store)
        self.store = VectorStore(
            settings.store,
            settings.chroma_url,
            settings.storage.collection,
            index_fingerprint(settings.embed, settings.chunk),
            describe_fingerprint(settings.embed, settings.chunk),
        )
        self._lock = threading.RLock()
        self._retriever: Retriever | None = None
        self._vectors: dict[str, np.ndarray] = {}  # insertion-ordered, oldest evicted first
        self._vectors_lock = threading.Lock()

    def embed(self, texts: list[str]) -> np.ndarray:
        """Vectors for `texts` from the configured model (loaded once per process).

        Recent vectors are remembered: composing and then checking an answer embeds the same
        abstract sentences, and a chat keeps returning to the same papers.
        """
        model = embedder.load(self.settings.embed)
        with self._vectors_lock:
            missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if not missing:
            if not texts:
                return model.embed([])
        else:
            fresh = model.embed(missing)
            with self._vectors_lock:
                self._vectors.update(zip(missing, fresh, strict=True))
                while len(self._vectors) > _VECTOR_CACHE:
                    self._vectors.pop(next(iter(self._vectors)))
        with self._vectors_lock:
            known = [self._vectors.get(t) for t in texts]
        if any(v is None for v in known):  # evicted meanwhile by a very large batch
            return model.embed(texts)
        return np.stack([v for v in known if v is not None])

    def _embed_fresh(self, texts: list[str]) -> np.ndarray:
        """Vectors for ingest: straight from the model, kept out of the cache of recent vectors,
        which serves questions and answers and would only churn through thousands of chunks."""
        return embedder.load(self.settings.embed).embed(texts)

    def paper_count(self) -> int:
        return len(self.registry.papers())

    def ingest(
        self,
        paths: list[Path] | None = None,
        prune: bool = False,
        rebuild: bool = False,
        skip_bad: bool = False,
        encoding: str = "utf-8",
        progress: pipeline.Progress | None = None,
    ) -> IngestReport:
        """Ingest `paths` (default: the bundled seeds) into the store."""
        with self._lock:
            report = pipeline.run(
                paths or [self.settings.seeds],
                self.settings,
                self.registry,
                self.store,
                self._embed_fresh,
                prune=prune,
                rebuild=rebuild,
                skip_bad=skip_bad,
                encoding=encoding,
                progress=progress,
            )
            self._retriever = None
            return report

    def retriever(self) -> Retriever:
        """The retriever over the current corpus (rebuilt when the store changes)."""
        with self._lock:
            # The registry version changes with every ingest, from this process or another; reading
            # it is cheap, unlike counting the vectors, so it alone decides when to re-read.
            if self._retriever is None or self._retriever.corpus.version != self.registry.version():
                self._retriever = Retriever(self.corpus(), self.embed, self.settings.retrieval)
            return self._retriever

    def search(self, query: str, k: int | None = None) -> SearchResult:
        return self.search_many([query], k)[0]

    def search_many(self, queries: list[str], k: int | None = None) -> list[SearchResult]:
        if k is not None and k < 1:
            raise QueryError(f"--k {k}: give a positive number of papers")
        return self.retriever().search_many(queries, k)

    def ask(self, question: str, generator: str | None = None, previous: Answer | None = None) -> Answer:
        """A checked, cited answer; `previous` (the last answer of a chat) resolves follow-ups."""
        return self.ask_many([question], generator, previous)[0]

    def ask_many(
        self, questions: list[str], generator: str | None = None, previous: Answer | None = None
    ) -> list[Answer]:
        backend = self._backend(generator)
        known = list(self.retriever().corpus.papers.values()) if previous is not None else []
        asked = [followup.resolve(q, previous, known) for q in questions]
        results = self._search_followups(asked)
        # Every answer path (extractive, model, fallback) and its checking lives in answer_stream.
        return [
            _as_asked(f, _last(self.answer_stream(f.standalone, r, backend)), self._labels(f))
            for f, r in zip(asked, results, strict=True)
        ]

    def _search_followups(self, asked: list[followup.Followup]) -> list[SearchResult]:
        """Each standalone question searched; a follow-up about earlier papers only among those papers."""
        # Answers draw on more papers than a search shows, for "which papers" lists.
        k = max(self.settings.retrieval.k, self.settings.answer.list_max)
        open_questions = [f.standalone for f in asked if not f.paper_ids]
        results = self.search_many(open_questions, k) if open_questions else []
        # A follow-up about earlier papers ranks those papers only (those still stored), each with
        # its full scores.
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
            # "which of these use MuJoCo?": only the papers naming at least half the question's words.
            matching = [h for h in hits if h.coverage >= 0.5] if f.kind == "filter" else hits
            reason = "" if matching else f"none of the {len(hits)} papers asked about match"
            out.append(replace(result, hits=tuple(matching or hits), abstained=not matching, reason=reason))
        return out

    # --- Language-model answers and streaming (see bot.generate) ---

    def _backend(self, generator: str | None) -> str:
        backend = generator or self.settings.generator.backend
        if backend not in generate.BACKENDS:
            raise QueryError(f"unknown generator {backend!r}; choose one of {', '.join(generate.BACKENDS)}")
        return backend

    def ask_stream(
        self, question: str, generator: str | None = None, previous: Answer | None = None
    ) -> Iterator[str | Answer]:
        """The answer to `question` as it is written: text pieces (str), then the finished Answer, last.

        Pieces are a model's tokens, or the extractive answer's sentences. The final Answer is
        authoritative (markers cleaned, sentences checked) and replaces the streamed text; its
        `generator` names the path that wrote it and `notice` says why a requested model did not.
        `previous` (the last answer of a chat) resolves follow-ups, as in `ask`.
        """
        backend = self._backend(generator)
        known = list(self.retriever().corpus.papers.values()) if previous else []
        asked = followup.resolve(question, previous, known)
        result = self._search_followups([asked])[0]
        for item in self.answer_stream(asked.standalone, result, backend):
            yield _as_asked(asked, item, self._labels(asked)) if isinstance(item, Answer) else item

    def _labels(self, asked: followup.Followup) -> tuple[str, ...]:
        """The labels of the papers a follow-up was limited to, for showing what was searched."""
        papers = self.retriever().corpus.papers if asked.paper_ids else {}
        return tuple(papers[pid].label if pid in papers else pid for pid in asked.paper_ids)

    def answer_stream(self, question: str, result: SearchResult, backend: str) -> Iterator[str | Answer]:
        """Like ask_stream, for a search already made. A model that fails, times out or is missing
        never fails the answer: the extractive one comes instead, with a notice saying what failed."""
        composer = Composer(self.embed, self.settings.answer)
        if backend != "extractive" and (result.abstained or not result.hits):
            notice = f"No retrieved abstract is about this question, so the {backend} model was not asked."
            answer = replace(composer.compose(question, result), notice=notice)
        elif backend != "extractive":
            settings = self.settings.generator
            retrieved = {h.paper.paper_id for h in result.hits}

            def check(markdown: str, cited: tuple[Citation, ...]) -> CheckedAnswer:
                return check_text(markdown, cited, self.embed, self.settings.check, retrieved)

            try:
                prompt = generate.prepare(question, result, settings)
                model = generate.chat_model(settings, backend)
                written: list[str] = []
                for piece in generate.stream(model, prompt, settings, backend):
                    written.append(piece)
                    yield piece
                yield replace(generate.finish(prompt, "".join(written), result, check), generator=backend)
                return
            except GeneratorError as exc:
                notice = f"The {backend} language model did not answer: {exc}. This is the extractive answer instead."
                log.info("%s", notice)
                answer = replace(composer.compose(question, result), notice=notice)
        else:
            answer = composer.compose(question, result)
        answer = check_answer(answer, self.embed, self.settings.check)
        yield from _pieces(answer.markdown)
        yield answer

    # --- Whole-corpus work: triage, more like this, reading lists, export (appended; see bot.triage) ---

    # The corpus read for triage and similar, with the (registry version, vector count) it was read at.
    _corpus: Corpus | None = None
    _corpus_key: tuple[int, int] | None = None
    _lists: ReadingLists | None = None

    def corpus(self) -> Corpus:
        """Every paper, the BM25 index and all chunk vectors in memory; re-read when the store changes."""
        with self._lock:
            key = (self.registry.version(), self.store.count())
            if self._corpus is None or self._corpus_key != key:
                started = time.perf_counter()
                fresh = Registry(self.settings.store)  # another process may have ingested since
                try:
                    papers = fresh.papers()
                    lexical = LexicalIndex.load(self.settings.store / "lexical", key[0])
                    if lexical is None:  # an ingest is under way, or stopped before it saved the index
                        lexical = pipeline.lexical_index(papers)
                        self._save_lexical(lexical, key[0])
                finally:
                    fresh.close()
                # a new process reads the vectors from the copy beside the store, not from Chroma
                fingerprint = index_fingerprint(self.settings.embed, self.settings.chunk)
                cache = VectorCache(self.settings.store, f"{key[0]}-{key[1]}-{fingerprint[:12]}")
                chunks = cache.load(key[1])
                if chunks is None:
                    chunks = self.store.all_vectors()
                    if len(chunks.chunk_ids) == key[1]:  # not when an ingest wrote meanwhile
                        cache.save(chunks)
                busy = storelock.writer(self.settings.store) if not papers else None
                if busy is not None:
                    raise StoreError(
                        f"the store in {self.settings.store} is still empty: an ingest ({busy}) is filling "
                        "it; try again when it finishes"
                    )
                self._corpus = Corpus.build(key[0], papers, lexical, chunks)
                self._corpus_key = key
                log.info("read %d papers' vectors in %.1f s", len(papers), time.perf_counter() - started)
            return self._corpus

    def _save_lexical(self, lexical: LexicalIndex, version: int) -> None:
        """Save an index built by a reader, unless an ingest is writing (it saves its own when done)."""
        try:
            with storelock.writing(self.settings.store):
                if self.registry.version() == version:
                    lexical.save(self.settings.store / "lexical", version)
        except StoreError:
            log.info("an ingest is writing to the store; the BM25 index is kept in memory only")

    def triage(self, topic: str) -> TriageResult:
        """Every paper about `topic`, scored over the whole corpus, with reasons and themes."""
        return triage_stage.triage(self.corpus(), topic, self.embed, self.chunk_texts, self.settings.triage)

    def chunk_texts(self, chunk_ids: Sequence[str]) -> dict[str, str]:
        """The text of each of these chunks, cut again from its paper as ingest cuts it (the store's
        fingerprint guarantees the same chunk settings); ids of unknown papers are left out.

        Example: chunk_texts(["p346e74853fce-1"]) -> {"p346e74853fce-1": "Hybrid methods combine ..."}
        """
        papers = self.registry.papers()
        wanted: dict[str, list[tuple[str, int]]] = {}
        for chunk_id in chunk_ids:
            paper_id, _, position = chunk_id.rpartition("-")
            if paper_id in papers and position.isdigit():
                wanted.setdefault(paper_id, []).append((chunk_id, int(position)))
        found: dict[str, str] = {}
        for paper_id, positions in wanted.items():
            chunks = chunking.paper_chunks(papers[paper_id], self.settings.chunk)
            found.update({cid: chunks[i].text for cid, i in positions if i < len(chunks)})
        return found

    def resolve(self, refs: list[str]) -> list[Paper]:
        """The stored papers named by ids, id prefixes, source ids, labels or titles (unknown ones raise)."""
        return lists_stage.resolve(self.registry.papers(), refs)

    def similar(self, ref: str | None = None, text: str | None = None, k: int | None = None) -> SimilarResult:
        """The papers nearest to a stored paper (by id or label) or to pasted abstract text."""
        if (ref is None) == (text is None):
            raise QueryError("give either a paper id or label, or --text with an abstract")
        if k is not None and k < 1:
            raise QueryError(f"--k {k}: give a positive number of papers")
        k = k or self.settings.triage.similar_k
        corpus = self.corpus()
        if ref is not None:
            (paper,) = lists_stage.resolve(corpus.papers, [ref])
            return similar_stage.like_paper(corpus, paper, k)
        assert text is not None
        if not text.strip():
            raise QueryError("the pasted text is empty; paste an abstract")
        # Chunked exactly as ingest chunks a paper, so a stored abstract pasted back scores ~1.0.
        pieces = chunking.chunk_texts(normalise.display(text), self.settings.chunk)
        return similar_stage.like_text(corpus, text, self.embed(pieces), k)

    def reading_lists(self) -> ReadingLists:
        """The store's reading lists (opened once)."""
        with self._lock:
            if self._lists is None:
                self._lists = ReadingLists(self.settings.store / "papers.sqlite")
            return self._lists

    def list_names(self) -> list[tuple[str, int]]:
        """Every reading list with its number of papers, by name."""
        return self.reading_lists().names()

    def reading_list(self, name: str) -> ReadingList:
        """A list's papers in the order added; ids whose papers left the store are reported as missing."""
        papers = self.registry.papers()
        entries = self.reading_lists().entries(name)
        return ReadingList(
            name,
            tuple(papers[pid] for pid, _ in entries if pid in papers),
            tuple(f"{pid} ({label})" for pid, label in entries if pid not in papers),
        )

    def add_to_list(self, name: str, refs: list[str]) -> int:
        """Add papers (ids or labels) to a list, creating it; returns how many were new to it."""
        if not refs:
            raise QueryError("name at least one paper to add (a paper_id or label)")
        return self.reading_lists().add(name, self.resolve(refs))

    def remove_from_list(self, name: str, refs: list[str]) -> int:
        """Take papers (ids or labels, also of papers since removed from the store) off a list."""
        if not refs:
            raise QueryError("name at least one paper to remove (a paper_id or label)")
        # Entries are matched by id or by the label they were added under first, so papers since
        # removed from the store can still be taken off; anything else is resolved against the store.
        known: dict[str, str] = {}
        for pid, label in self.reading_lists().entries(name):
            known[pid] = pid
            known.setdefault(label.casefold(), pid)
        ids = [known.get(r.strip(), known.get(r.strip().casefold(), "")) for r in refs]
        rest = [r for r, pid in zip(refs, ids, strict=True) if not pid]
        ids = [pid for pid in ids if pid] + [p.paper_id for p in self.resolve(rest)] if rest else ids
        return self.reading_lists().remove(name, list(dict.fromkeys(ids)))

    def export(
        self, fmt: str, list_name: str | None = None, topic: str | None = None, refs: list[str] | None = None
    ) -> str:
        """Papers of a reading list, a triage topic, or named papers, rendered in `fmt` (see bot.export)."""
        if sum(x is not None for x in (list_name, topic, refs)) != 1:
            raise QueryError("export needs exactly one of --list NAME, --topic TOPIC or --papers ID,...")
        if fmt not in export_stage.FORMATS:
            raise QueryError(f"unknown export format {fmt!r}; choose one of {', '.join(export_stage.FORMATS)}")
        if list_name is not None:
            reading = self.reading_list(list_name)
            papers, heading = list(reading.papers), f"Reading list: {list_name}"
            if reading.missing:
                log.warning(
                    "%d papers of %r are no longer in the store: %s",
                    len(reading.missing),
                    list_name,
                    ", ".join(reading.missing),
                )
            if not papers:
                raise QueryError(
                    f"the list {list_name!r} is empty; add papers with `paperbot list add {list_name} ID...`"
                )
        elif topic is not None:
            found = self.triage(topic)
            if not found.papers:
                raise QueryError(f"nothing to export: no paper is about {topic!r} ({found.cut.explanation})")
            papers, heading = [p.paper for p in found.papers], f"Papers about {topic}"
        else:
            papers, heading = self.resolve(refs or []), "Papers"
        return export_stage.render(papers, fmt, heading)


def _pieces(markdown: str) -> list[str]:
    """Sentence-sized pieces that join back into `markdown` exactly, for streaming an extractive answer.

    Example: _pieces("A [1]. B [2].") -> ['A [1].', ' B [2].']
    """
    return [p for p in re.split(r"(?<=[.!?])(?=\s)", markdown) if p]


def _as_asked(asked: followup.Followup, answer: Answer, labels: tuple[str, ...] = ()) -> Answer:
    """The answer to a standalone question, labelled with the question as asked and what was searched."""
    return replace(
        answer,
        question=asked.question,
        standalone_question=asked.standalone,
        restricted_to=asked.paper_ids,
        restricted_labels=labels,
    )


def _last(stream: Iterator[str | Answer]) -> Answer:
    """The Answer that ends an answer stream."""
    final = None
    for item in stream:
        final = item
    assert isinstance(final, Answer), "an answer stream ends with its Answer"
    return final
