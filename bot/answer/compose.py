"""The extractive answer composer: a short cited summary from the abstracts' own sentences.

Needs no language model. It ranks the sentences of the retrieved papers against the
question (dense similarity plus shared terms), keeps the best few, most relevant first,
and cites each with `[n]`. "Which papers ..." questions get a list of papers with their key
sentence. What the question asks for (a list, one paper, a comparison) is read by bot.query.
It does not search; it is given a SearchResult.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from bot.query import Query, as_query
from bot.settings import AnswerSettings
from bot.text import citations, sentences
from bot.text.terms import tokenize, words
from bot.types import Answer, AnswerSentence, Citation, Hit, SearchResult

Embed = Callable[[list[str]], np.ndarray]

# First-person openers rewritten so sentences from several papers read as a summary.
_PRONOUNS = [
    # "Second, we propose ..." is one step of a list the answer does not show: drop the counter.
    (re.compile(r"^(?:First|Second|Third|Fourth|Finally|Lastly|Next)(?:ly)?,\s+(?=[Ww]e\b|[Oo]ur\b)"), ""),
    (re.compile(r"^(?:In this (?:paper|work),?\s+)?[Ww]e\b"), "The authors"),
    (re.compile(r"^(?:This|[Oo]ur) (?:paper|work)\b"), "The paper"),
    (re.compile(r"^[Oo]ur\b"), "Their"),
    (re.compile(r"\bwe\b"), "they"),
    (re.compile(r"\bour\b"), "their"),
    (re.compile(r"\bus\b"), "them"),
]


# Sentences that lean on the one before them read poorly on their own.
_ANAPHORA = re.compile(
    r"^(?:these|this|such|together|specifically|inspired|it|they|moreover|furthermore|"
    r"in addition|however|thus|therefore|to this end|to address)\b",
    re.IGNORECASE,
)
_PROPOSAL = re.compile(r"\b(?:we|this paper|this work)\b.{0,60}?\b(?:propose|introduce|present|develop)", re.I)
_FINDING = re.compile(
    r"\b(?:experiments?|results?|outperform\w*|achiev\w*|improv\w*|show\w*|demonstrat\w*|reduc\w*)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class _Scored:
    hit: Hit
    sentence: str
    score: float
    position: int


def third_person(sentence: str) -> str:
    """Example: third_person("We propose X, our method.") -> 'The authors propose X, their method.'
    third_person("Second, we propose Y.") -> 'The authors propose Y.'"""
    out = sentence
    for pattern, repl in _PRONOUNS:
        out = pattern.sub(repl, out)
    return out


class Composer:
    """Builds Answers from search results with the embedding model for sentence scoring."""

    def __init__(self, embed: Embed, settings: AnswerSettings) -> None:
        self._embed = embed
        self._settings = settings

    def compose(self, question: str | Query, result: SearchResult) -> Answer:
        """A cited answer to `question` from the papers in `result`."""
        query = as_query(question)
        if result.abstained or not result.hits:
            return self._abstain(query.text, result)
        listing = query.asks_for_list
        named = _named_papers(query, result, self._settings.named_depth)
        if len(named) >= 2 and query.asks_to_compare:
            return self._compare(query, result, named)
        # "Summarize X" is about one paper even when X is described, not named; "summarize these papers" is not.
        one = query.asks_for_summary and not query.mentions_papers
        if not listing and (named or one or len(result.hits) == 1):
            return self._paper_summary(query, result, named[0] if named else result.hits[0])
        relevant = self._listed(result) if listing else self._relevant(result)
        scored = self._score_sentences(query, relevant)
        if listing:
            return self._list(query.text, result, relevant, scored)
        return self._summary(query.text, result, scored)

    def _relevant(self, result: SearchResult) -> list[Hit]:
        best = result.hits[0].score
        cutoff = self._settings.relative_cutoff * best
        return [h for h in result.hits if h.score >= cutoff][: self._settings.max_papers]

    def _listed(self, result: SearchResult) -> list[Hit]:
        """Papers for a "which papers" answer: close in score, and about the query's words or
        about as close in meaning as the best."""
        conf = self._settings
        best = result.hits[0].score
        best_dense = max(h.dense for h in result.hits)
        keep = []
        for hit in result.hits:
            # e.g. every paper naming GRPO for "which papers use GRPO?", even at 0.3 of the best
            names_all = hit.coverage >= conf.list_named_coverage and hit.score >= conf.list_named_cutoff * best
            near = hit.coverage >= conf.list_close_coverage or hit.dense >= conf.list_close_dense * best_dense
            close = hit.score >= conf.list_close_cutoff * best and near
            if hit is result.hits[0] or names_all or close:
                keep.append(hit)
        return keep[: self._settings.list_max]

    def _score_sentences(self, query: Query, hits: list[Hit]) -> list[_Scored]:
        pairs = [(h, s) for h in hits for s in sentences.split(h.paper.display)]
        if not pairs:
            return []
        vectors = self._embed([query.text] + [s for _, s in pairs])
        sims = vectors[1:] @ vectors[0]
        query_terms = set(query.terms)
        best = hits[0].score or 1.0
        conf = self._settings
        out: list[_Scored] = []
        position: dict[str, int] = {}
        for (hit, sentence), sim in zip(pairs, sims, strict=True):
            terms = set(tokenize(sentence))
            overlap = len(query_terms & terms) / len(query_terms) if query_terms else 0.0
            index = position.get(hit.paper.paper_id, 0)
            position[hit.paper.paper_id] = index + 1
            # e.g. sim 0.55, overlap 0.5, paper at 0.8 of the best -> (0.385 + 0.15) * (0.5 + 0.4) = 0.48
            weight = conf.paper_floor + (1 - conf.paper_floor) * hit.score / best
            relevance = (conf.sentence_dense_weight * float(sim) + conf.sentence_overlap_weight * overlap) * weight
            if _ANAPHORA.match(sentence):
                relevance *= conf.anaphora_penalty
            out.append(_Scored(hit, sentence, relevance, index))
        return out

    def _summary(self, question: str, result: SearchResult, scored: list[_Scored]) -> Answer:
        ranked = sorted(scored, key=lambda s: -s.score)
        if not ranked:
            return self._abstain(question, result)
        conf = self._settings
        floor = conf.sentence_floor * ranked[0].score
        chosen: list[_Scored] = []
        per_paper: dict[str, int] = {}
        for item in ranked:
            pid = item.hit.paper.paper_id
            if len(chosen) >= conf.max_sentences or item.score < floor:
                break
            if per_paper.get(pid, 0) >= conf.sentences_per_paper or len(item.sentence) < conf.min_sentence_chars:
                continue
            per_paper[pid] = per_paper.get(pid, 0) + 1
            chosen.append(item)
        numbers = _numbering(chosen)
        parts: list[AnswerSentence] = []
        for item in chosen:
            n = numbers[item.hit.paper.paper_id]
            parts.append(AnswerSentence(third_person(item.sentence), (n,), item.sentence))
        markdown = " ".join(citations.cite(p.text, p.citations) for p in parts)
        return Answer(
            question=question,
            markdown=markdown,
            abstained=False,
            citations=_citations(chosen, numbers),
            sentences=tuple(parts),
            hits=result.hits,
        )

    def _roles(self, query: Query, hit: Hit, extra: bool = True) -> list[tuple[str, _Scored]]:
        """One abstract's problem, method and results sentences (and the one closest to the
        question, when `extra`), in the abstract's own order."""
        scored = self._score_sentences(query, [hit])
        if not scored:
            return []
        by_position = sorted(scored, key=lambda s: s.position)
        roles = {by_position[0].position: "Problem"}  # the problem it starts from
        proposal = next((s for s in by_position if _PROPOSAL.search(s.sentence)), None)
        if proposal is not None:
            roles[proposal.position] = "Method"
        after = [s for s in by_position if s.position > max(roles) and _FINDING.search(s.sentence)]
        if after:
            roles[after[0].position] = "Results"
        others = [s for s in scored if s.position not in roles]
        if extra and others and len(roles) < 4:
            roles[max(others, key=lambda s: s.score).position] = "Also"
        return [(roles[s.position], s) for s in by_position if s.position in roles]

    def _paper_summary(self, query: Query, result: SearchResult, hit: Hit) -> Answer:
        """What one paper is about, point by point: its problem, what it proposes, what it finds."""
        roles = self._roles(query, hit)
        if not roles:
            return self._abstain(query.text, result)
        block, parts = _points(hit, roles, 1)
        return Answer(
            question=query.text,
            markdown=block,
            abstained=False,
            citations=(Citation(1, hit.paper),),
            sentences=tuple(parts),
            hits=result.hits,
        )

    def _compare(self, query: Query, result: SearchResult, hits: list[Hit]) -> Answer:
        """Several named papers side by side: each one's problem, method and results, cited."""
        blocks: list[str] = []
        parts: list[AnswerSentence] = []
        chosen = hits[: self._settings.max_papers]
        for n, hit in enumerate(chosen, start=1):
            block, mine = _points(hit, self._roles(query, hit, extra=False), n)
            blocks.append(block)
            parts += mine
        return Answer(
            question=query.text,
            markdown="\n\n".join(blocks),
            abstained=False,
            citations=tuple(Citation(n, h.paper) for n, h in enumerate(chosen, start=1)),
            sentences=tuple(parts),
            hits=result.hits,
        )

    def _list(self, question: str, result: SearchResult, hits: list[Hit], scored: list[_Scored]) -> Answer:
        key: dict[str, _Scored] = {}
        for item in scored:
            pid = item.hit.paper.paper_id
            if pid not in key or item.score > key[pid].score:
                key[pid] = item
        chosen = [key[h.paper.paper_id] for h in hits if h.paper.paper_id in key]
        numbers = _numbering(chosen)
        parts: list[AnswerSentence] = []
        lines = [f"{len(chosen)} paper{'s' if len(chosen) != 1 else ''} in the corpus match:", ""]
        for item in chosen:
            n = numbers[item.hit.paper.paper_id]
            text = third_person(item.sentence)
            parts.append(AnswerSentence(text, (n,), item.sentence))
            lines.append(f"- **{item.hit.paper.label}**: {citations.cite(text, (n,))}")
        return Answer(
            question=question,
            markdown="\n".join(lines),
            abstained=False,
            citations=_citations(chosen, numbers),
            sentences=tuple(parts),
            hits=result.hits,
        )

    def _abstain(self, question: str, result: SearchResult) -> Answer:
        nearest = list(result.hits[: self._settings.abstain_nearest])
        parts = [AnswerSentence(citations.ABSTAIN_MESSAGE, ())]
        numbers = {h.paper.paper_id: i for i, h in enumerate(nearest, start=1)}
        if nearest:
            most = self._settings.gist_words  # numbered as in `numbers`: a search lists each paper once
            topics = [f"{h.paper.label} ({_gist(h, most)}) {citations.marker([n])}" for n, h in enumerate(nearest, 1)]
            closest = "The nearest abstracts are about: " + "; ".join(topics) + "."
            parts.append(AnswerSentence(closest, tuple(numbers.values())))
        return Answer(
            question=question,
            markdown=" ".join(p.text for p in parts),
            abstained=True,
            citations=tuple(Citation(numbers[h.paper.paper_id], h.paper) for h in nearest),
            sentences=tuple(parts),
            hits=result.hits,
        )


def _points(hit: Hit, roles: list[tuple[str, _Scored]], n: int) -> tuple[str, list[AnswerSentence]]:
    """A paper's label, then one cited line per role. Example: '**X**\n- Problem: ... [1].'"""
    parts = [AnswerSentence(third_person(s.sentence), (n,), s.sentence) for _, s in roles]
    lines = [f"- {role}: {citations.cite(p.text, p.citations)}" for (role, _), p in zip(roles, parts, strict=True)]
    return "\n".join([f"**{hit.paper.label}**", *lines]), parts


def _named_papers(query: Query, result: SearchResult, depth: int) -> list[Hit]:
    """The papers among the `depth` best whose labels the question names ("What is CausalBind?"), in the
    question's order."""
    found = [(at, hit) for hit in result.hits[:depth] if (at := query.label_position(hit.paper.label)) is not None]
    return [hit for _, hit in sorted(found, key=lambda x: x[0])]


def _gist(hit: Hit, most: int) -> str:
    """A few words saying what a paper is about: its title or the start (`most` words) of its first sentence."""
    if hit.paper.title:
        return hit.paper.title
    first = (sentences.split(hit.paper.display) or [hit.paper.display])[0]
    cut = words(first)[:most]
    return " ".join(first.split()[: len(cut)]).rstrip(",;:") + "…"


def _numbering(chosen: list[_Scored]) -> dict[str, int]:
    numbers: dict[str, int] = {}
    for item in chosen:
        numbers.setdefault(item.hit.paper.paper_id, len(numbers) + 1)
    return numbers


def _citations(chosen: list[_Scored], numbers: dict[str, int]) -> tuple[Citation, ...]:
    papers = {item.hit.paper.paper_id: item.hit.paper for item in chosen}
    return tuple(Citation(n, papers[pid]) for pid, n in sorted(numbers.items(), key=lambda x: x[1]))
