"""Which sentences of one abstract answer a question: its contribution, then what the question asks.

Every paper an answer relies on is said in its own words: what it proposes (the contribution
sentence), then, by the question's intent, how it works (how), why (the problem it starts from),
or what it found (results); otherwise the sentences closest to the question. Sentences keep the
abstract's order, and one that leans on an unchosen predecessor is left out. Scoring a sentence
against the question is dense similarity plus shared index terms (bot.settings.AnswerSettings).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from bot.answer import roles
from bot.query import Query, distinctive
from bot.settings import AnswerSettings
from bot.text import sentences
from bot.text.terms import tokenize
from bot.types import Hit

Embed = Callable[[list[str]], np.ndarray]

# What each intent wants after the contribution, in order of preference.
_WANTS = {
    "how": (roles.METHOD,),
    "why": (roles.PROBLEM, roles.METHOD),
    "results": (roles.FINDING,),
    "what": (roles.METHOD,),
    "summary": (roles.METHOD, roles.FINDING),
    "which": (roles.FINDING,),
    "compare": (roles.METHOD, roles.FINDING),
}


@dataclass(frozen=True)
class Pick:
    """One sentence chosen from a paper, with its score against the question."""

    hit: Hit
    sentence: roles.Sentence
    score: float


def scored(embed: Embed, query: Query, hit: Hit, settings: AnswerSettings) -> list[Pick]:
    """Every sentence of the paper with its role and score against the question, in the abstract's order."""
    label = hit.paper.label
    read = roles.read(sentences.split(hit.paper.display), label if distinctive(label) else None)
    if not read:
        return []
    vectors = embed([query.text] + [s.source for s in read])
    sims = vectors[1:] @ vectors[0]
    # The paper's own name says which paper, not which of its sentences answers.
    terms = set(query.terms) - set(tokenize(label))
    out = []
    for sentence, sim in zip(read, sims, strict=True):
        overlap = len(terms & set(tokenize(sentence.source))) / len(terms) if terms else 0.0
        score = settings.sentence_dense_weight * float(sim) + settings.sentence_overlap_weight * overlap
        out.append(Pick(hit, sentence, score))
    return out


def value(pick: Pick, settings: AnswerSettings, numbers: bool) -> float:
    """The pick's score, plus settings.number_bonus for each number a finding states (at most two)
    when `numbers` count for the question."""
    counts = numbers and pick.sentence.role == roles.FINDING
    return pick.score + (settings.number_bonus * min(pick.sentence.numbers, 2) if counts else 0.0)


def _usable(picks: list[Pick], settings: AnswerSettings) -> list[Pick]:
    """The sentences long enough to say something (not a heading or 'Code is available.')."""
    return [p for p in picks if len(p.sentence.source) >= settings.min_sentence_chars]


def choose(picks: list[Pick], intent: str, count: int, settings: AnswerSettings) -> list[Pick]:
    """Up to `count` sentences: the contribution, then those answering the question best (what
    `intent` wants counts for more, settings.intent_bonus), in the abstract's order.

    A finding that states numbers counts for more for results, summaries and comparisons (`value`);
    a sentence that leans on its predecessor is taken only with that predecessor; the best answering
    sentence is always taken, another only when it scores settings.next_sentence_floor of it.
    Example: choose(picks, "results", 3, settings) -> [contribution, best finding, next finding]
    """
    usable = _usable(picks, settings)
    if not usable or count < 1:
        return []
    chosen: dict[int, Pick] = {}
    numbers = intent in ("results", "summary", "compare")
    wants = _WANTS.get(intent, _WANTS["what"])

    def fits(pick: Pick) -> bool:
        return not pick.sentence.leans_back or pick.sentence.position - 1 in chosen

    def answers(pick: Pick) -> float:
        return value(pick, settings, numbers) + (settings.intent_bonus if pick.sentence.role in wants else 0.0)

    contribution = next((p for p in usable if p.sentence.role == roles.CONTRIBUTION and fits(p)), None)
    if contribution is None:
        contribution = max((p for p in usable if fits(p)), key=lambda p: value(p, settings, numbers), default=None)
    if contribution is None:
        return []
    chosen[contribution.sentence.position] = contribution
    # Then the sentences that answer best, what the intent wants counting for more; each further one
    # only when nearly as good as the first, so that an answer does not pad.
    allowed = [
        p for p in usable if p.sentence.position not in chosen and (p.sentence.role != roles.PROBLEM or intent == "why")
    ]
    first = None
    for pick in sorted(allowed, key=lambda p: -answers(p)):
        if len(chosen) >= count:
            break
        if not fits(pick):
            continue
        if first is None:
            first = answers(pick)
        elif answers(pick) < settings.next_sentence_floor * first:
            break
        chosen[pick.sentence.position] = pick
    return [chosen[i] for i in sorted(chosen)]


def headline(picks: list[Pick], settings: AnswerSettings) -> Pick | None:
    """The one sentence a "which papers" list shows for a paper: its contribution, unless another
    sentence (not leaning on its predecessor) says much better why the paper matches."""
    lead = choose(picks, "which", 1, settings)
    closest = max(
        (p for p in _usable(picks, settings) if not p.sentence.leans_back), key=lambda p: p.score, default=None
    )
    if lead and closest and lead[0].score < settings.next_sentence_floor * closest.score:
        return closest
    return lead[0] if lead else None
