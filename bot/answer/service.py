"""Answering questions: resolve follow-ups, search, then write the answer and check its citations.

It chooses who writes (the extractive composer or a language model), falls back to the
extractive answer with a notice when a model fails, and streams the text as it is written.
`ask_many` and `ask_stream` take the same steps. It does not search (bot.search.service) or
write sentences (bot.answer.compose, bot.answer.generate) itself.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import replace

import numpy as np

from bot.answer import generate
from bot.answer.check import CheckedAnswer, check_answer, check_text
from bot.answer.compose import Composer, Context
from bot.errors import GeneratorError, QueryError
from bot.query import Query, parse
from bot.search import followup
from bot.search.relevance import Relevant
from bot.search.service import SearchService
from bot.settings import AnswerSettings, CheckSettings, GeneratorSettings
from bot.text import sentences
from bot.types import Answer, Citation, SearchResult

log = logging.getLogger(__name__)

Embed = Callable[[list[str]], np.ndarray]
Stream = Iterator[str | Answer]


class AnswerService:
    """Checked, cited answers over one store."""

    def __init__(
        self,
        search: SearchService,
        embed: Embed,
        answer: AnswerSettings,
        check: CheckSettings,
        generator: GeneratorSettings,
    ) -> None:
        self.search = search
        self.embed = embed
        self.settings = answer
        self.check = check
        self.generator = generator

    def ask_many(
        self, questions: list[str], generator: str | None = None, previous: Answer | None = None
    ) -> list[Answer]:
        """Each question's checked answer; `previous` (the last answer of a chat) resolves follow-ups."""
        return [_last(stream) for stream in self._streams(questions, generator, previous)]

    def ask_stream(self, question: str, generator: str | None = None, previous: Answer | None = None) -> Stream:
        """The answer to `question` as it is written: text pieces (str), then the finished Answer, last.

        Pieces are a model's tokens, or the extractive answer's sentences. The final Answer is
        authoritative (markers cleaned, sentences checked) and replaces the streamed text; its
        `generator` names the path that wrote it and `notice` says why a requested model did not.
        """
        (stream,) = self._streams([question], generator, previous)
        yield from stream

    def _streams(self, questions: list[str], generator: str | None, previous: Answer | None) -> list[Stream]:
        """The steps every question takes: follow-ups resolved, all searched, then each answered in turn."""
        backend = self._backend(generator)
        known = self.search.papers().values() if previous is not None else ()  # read only if a follow-up names papers
        asked = [followup.resolve(q, previous, self.search.settings, known) for q in questions]
        asked = self._others(self._untangle(asked))
        # Answers draw on more papers than a search shows, for "which papers" lists.
        k = max(self.search.settings.k, self.settings.list_max)
        started = time.perf_counter()
        results = self.search.search_followups(asked, k)
        searched = time.perf_counter()
        contexts = self._contexts(asked, results, previous)
        log.info(
            "%d question(s): searched in %.3f s, relevance cut and lists in %.3f s",
            len(asked),
            searched - started,
            time.perf_counter() - searched,
        )
        out = []
        for f, (result, context) in zip(asked, contexts, strict=True):
            out.append(self._as_asked(f, self.answer_stream(f.standalone, result, backend, context)))
        return out

    def _untangle(self, asked: list[followup.Followup]) -> list[followup.Followup]:
        """Tentative follow-ups (a pronoun after a few words of the question's own) that are, by
        themselves, about other papers than the previous answer's are new searches instead."""
        tentative = [f for f in asked if f.tentative]
        if not tentative:
            return asked
        about = dict(
            zip((f.question for f in tentative), self.search.relevant([f.question for f in tentative]), strict=True)
        )
        out = []
        for f in asked:
            own = about.get(f.question) if f.tentative else None
            if own is not None and own.scores and not set(own.scores) & set(f.paper_ids):
                f = followup.Followup(f.question, f.question)
            out.append(f)
        return out

    def _others(self, asked: list[followup.Followup]) -> list[followup.Followup]:
        """Questions asking for papers besides the previous answer's ("is there another paper on grid
        safety?") become questions about the ones found: the relevant papers the previous answer did not
        cite, or, when the question asks how the other differs, the best of them compared with those it
        cited. With no other relevant paper, the question is searched as asked."""
        wanted = [f for f in asked if f.kind == "another"]
        if not wanted:
            return asked
        texts = [f.standalone for f in wanted]
        found = dict(
            zip(texts, zip(self.search.search_many(texts), self.search.relevant(texts), strict=True), strict=True)
        )
        papers = self.search.papers()
        out = []
        for f in asked:
            if f.kind != "another":
                out.append(f)
                continue
            result, cut = found[f.standalone]
            others = [h.paper.paper_id for h in result.hits if h.paper.paper_id not in f.excluded]
            others = [pid for pid in others if pid in cut.scores] or others[:1]
            if not others:
                out.append(followup.Followup(f.question, f.standalone))
            elif parse(f.question).compares:
                pair = (others[0], *(pid for pid in f.excluded if pid in papers))
                names = [papers[pid].label for pid in pair]
                compare = f"Compare {', '.join(names[:-1])} and {names[-1]}"
                out.append(followup.Followup(f.question, compare, pair, "compare"))
            else:
                kept = tuple(others[: self.settings.list_max])
                out.append(followup.Followup(f.question, f.standalone, kept, "paper" if len(kept) == 1 else "papers"))
        return out

    def _contexts(
        self, asked: list[followup.Followup], results: list[SearchResult], previous: Answer | None = None
    ) -> list[tuple[SearchResult, Context | None]]:
        """Each question's search with what the composer needs beyond it: the papers above the relevance
        cut triage uses, and what the corpus is about (said when nothing answers). A "which papers"
        question is searched again among every paper above the cut for its topic, so that its list is
        triage's, not a top-k sample. A follow-up about earlier papers keeps them all."""
        stored = len(self.search.papers())
        texts = [parse(f.standalone).topic if parse(f.standalone).asks_for_list else f.standalone for f in asked]
        open_ones = [t for f, t in zip(asked, texts, strict=True) if not f.paper_ids]
        relevant = iter(self.search.relevant(open_ones) if open_ones else [])
        # each question's search, the papers it may cite (None: a follow-up's own), those near the best (Relevant.near)
        searched: list[tuple[SearchResult, frozenset[str] | None, frozenset[str]]] = []
        for f, result in zip(asked, results, strict=True):
            if f.paper_ids:
                searched.append((result, None, frozenset()))
                continue
            cut = next(relevant)
            query = parse(f.standalone)
            ids = frozenset(cut.scores) | frozenset(_users(query, cut, self.settings.list_max))
            near = frozenset(cut.near)
            if query.asks_for_list and query.artifact and not query.artifact_topic:
                # "Which papers introduce new benchmarks?" has no topic to cut by: the papers nearest the kind
                # of thing, of which the composer lists those saying they made one (roles.makes).
                result = self.search.search_many([query.artifact], self.settings.list_max * 3)[0]
                searched.append((result, frozenset(h.paper.paper_id for h in result.hits), near))
                continue
            if query.asks_for_list and ids and not result.abstained:
                result = self.search.search_among(f.standalone, sorted(ids, key=lambda p: -cut.scores.get(p, 0.0)))
            searched.append((result, ids, near))
        # What the corpus is about is said only when nothing answers: not worked out otherwise.
        nothing = any(
            ids is not None and (r.abstained or not r.hits or (not ids and parse(f.standalone).asks_for_list))
            for f, (r, ids, _) in zip(asked, searched, strict=True)
        )
        topics = (
            tuple(self.search.topics(self.settings.overview_topics, self.settings.overview_sample)) if nothing else ()
        )
        # A follow-up about earlier papers is answered from them as asked; one about a single paper does not repeat
        # what the previous answer showed of it.
        said = frozenset(s.paper_sentence for s in previous.sentences if s.paper_sentence) if previous else frozenset()
        return [
            (
                r,
                Context(papers=stored, asked=f.question, said=said if len(f.paper_ids) == 1 else frozenset())
                if ids is None
                else Context(relevant=ids, topics=topics, papers=stored, near=close),
            )
            for f, (r, ids, close) in zip(asked, searched, strict=True)
        ]

    def _backend(self, generator: str | None) -> str:
        backend = generator or self.generator.backend
        if backend not in generate.BACKENDS:
            raise QueryError(f"unknown generator {backend!r}; choose one of {', '.join(generate.BACKENDS)}")
        return backend

    def _as_asked(self, asked: followup.Followup, stream: Stream) -> Stream:
        """The stream, its final Answer labelled with the question as asked and what was searched."""
        for item in stream:
            if not isinstance(item, Answer):
                yield item
                continue
            papers = self.search.papers() if asked.paper_ids else {}
            yield replace(
                item,
                question=asked.question,
                standalone_question=asked.standalone,
                restricted_to=asked.paper_ids,
                restricted_labels=tuple(papers[p].label if p in papers else p for p in asked.paper_ids),
            )

    def answer_stream(
        self, question: str, result: SearchResult, backend: str, context: Context | None = None
    ) -> Stream:
        """Like ask_stream, for a search already made. A model that fails, times out or is missing
        never fails the answer: the extractive one comes instead, with a notice saying what failed.
        `context` (the relevance cut, the corpus's topics) shapes the extractive answer."""
        composer = _Bound(Composer(self.embed, self.settings), context)
        if backend != "extractive" and (result.abstained or not result.hits):
            notice = f"No retrieved abstract is about this question, so the {backend} model was not asked."
            answer = replace(composer.compose(question, result), notice=notice)
        elif backend != "extractive":
            retrieved = {h.paper.paper_id for h in result.hits}

            def check(markdown: str, cited: tuple[Citation, ...]) -> CheckedAnswer:
                return check_text(markdown, cited, self.embed, self.check, retrieved)

            try:
                prompt = generate.prepare(question, result, self.generator)
                model = generate.chat_model(self.generator, backend)
                written: list[str] = []
                for piece in generate.stream(model, prompt, self.generator, backend):
                    written.append(piece)
                    yield piece
                yield replace(generate.finish(prompt, "".join(written), result, check), generator=backend)
                return
            except GeneratorError as exc:
                notice = f"The {backend} language model did not answer: {exc}. This is the extractive answer instead."
                log.info("%s", notice)
                answer = replace(composer.compose(question, result), notice=notice)
        else:
            started = time.perf_counter()
            answer = composer.compose(question, result)
            log.info("composed the extractive answer in %.3f s", time.perf_counter() - started)
        started = time.perf_counter()
        answer = check_answer(answer, self.embed, self.check)
        log.info("checked its %d sentences in %.3f s", len(answer.sentences), time.perf_counter() - started)
        yield from sentences.pieces(answer.markdown)
        yield answer


class _Bound:
    """A composer with one question's context."""

    def __init__(self, composer: Composer, context: Context | None) -> None:
        self.composer = composer
        self.context = context

    def compose(self, question: str, result: SearchResult) -> Answer:
        return self.composer.compose(question, result, self.context)


def _users(query: Query, cut: Relevant, most: int) -> tuple[str, ...]:
    """For a "which papers" question whose topic is only names ("Which papers run their experiments on
    MuJoCo?"), the papers naming them all (at most `most`): a paper using MuJoCo says so in passing, so its
    text is little like the name, and the cut alone would miss it. Example: topic 'mujoco' -> the papers
    whose abstracts say MuJoCo; topic 'safe reinforcement learning' -> ()"""
    names = query.name_words
    if not query.asks_for_list or not names or not set(query.topic.lower().split()) <= names:
        return ()
    return cut.holding[:most]


def _last(stream: Stream) -> Answer:
    """The Answer that ends an answer stream."""
    final = None
    for item in stream:
        final = item
    assert isinstance(final, Answer), "an answer stream ends with its Answer"
    return final
