"""Which sentences of one abstract answer a question: its contribution, then what the question asks.

Every paper an answer relies on is said in its own words: what it proposes (the contribution
sentence), then, by the question's intent, how it works (how), why (the problem it starts from),
or what it found (results); otherwise the sentences closest to the question. Sentences keep the
abstract's order, and one that leans on an unchosen predecessor is left out. Scoring a sentence
against the question is dense similarity plus shared index terms (bot.settings.AnswerSettings).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from bot.answer import roles
from bot.query import Query, distinctive
from bot.settings import AnswerSettings
from bot.text import acronyms, sentences
from bot.text.terms import akin, tokenize
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


# Intents asking how or why, not what was found: a finding (or, for "how", any sentence after the contribution in
# the abstract) joins their answer only when it says a word of the question the contribution does not.
_NOT_RESULTS = ("how", "why")


@dataclass(frozen=True)
class Pick:
    """One sentence chosen from a paper, with its score against the question."""

    hit: Hit
    sentence: roles.Sentence
    score: float
    # The question's terms the sentence says, or words akin to them (its acronyms read spelled out; the
    # paper's name left out, the words of its spelled-out form kept: "Bottleneck" in CHAIN's).
    matched: frozenset[str] = frozenset()


def embed_ahead(embed: Embed, questions: list[str], hits: list[Hit]) -> None:
    """Embed the questions and every sentence of these papers in one call, before `scored` asks for
    them paper by paper: through a cache of recent vectors (bot.embedding), one large batch keeps
    the model's matrix products larger than one small batch a paper does."""
    embed(list(dict.fromkeys(questions + [s for hit in hits for s in sentence_texts(hit)])))


def sentence_texts(hit: Hit) -> list[str]:
    """The paper's sentences as `scored` reads and embeds them (and `embed_ahead` embeds them before)."""
    return sentences.paper_sentences(hit.paper)


def scored(embed: Embed, query: Query, hit: Hit, settings: AnswerSettings) -> list[Pick]:
    """Every sentence of the paper with its role and score against the question, in the abstract's order."""
    label = hit.paper.label
    read = roles.read(sentence_texts(hit), label if distinctive(label) else None)
    if not read:
        return []
    vectors = embed([query.text] + [s.source for s in read])
    sims = vectors[1:] @ vectors[0]
    # A sentence saying "SSCA" says "Span-Specific Credit Assignment" where the abstract defines it so.
    defined = acronyms.learn([hit.paper.display])
    # The paper's own name (and its spelled-out form) says which paper, not which of its sentences answers.
    named = set(query.terms) - set(tokenize(label))
    terms = named - set(tokenize(defined.get(label, "")))
    said = [set(tokenize(acronyms.expand(sentence.source, defined))) for sentence in read]
    # "beat plain SFT" is said by "outperform standard supervised fine-tuning": a family of plain words
    # (bot.text.terms.akin), and an acronym by the long form the abstract defines it by
    spelled = {term: set(tokenize(form)) for acronym, form in defined.items() for term in tokenize(acronym)}
    said = [
        words | {t for t in terms if not akin(t).isdisjoint(words) or (t in spelled and spelled[t] <= words)}
        for words in said
    ]
    weight = _weights(terms, said)
    total = sum(weight.values())
    out = []
    for sentence, sim, words in zip(read, sims, said, strict=True):
        overlap = sum(weight[t] for t in terms & words) / total if total else 0.0
        score = settings.sentence_dense_weight * float(sim) + settings.sentence_overlap_weight * overlap
        out.append(Pick(hit, sentence, score, frozenset(t for t in named if any(_akin(t, w) for w in words))))
    return out


def _akin(term: str, word: str) -> bool:
    """Whether two stems are one word's: the same first five letters, or the shorter one begins the other.

    Example: _akin("leak", "leakag") -> True ("leaking", "leakage"); _akin("stimuli", "stimulus") -> True
    """
    if len(term) >= 5 and len(word) >= 5:
        return term[:5] == word[:5]
    return word.startswith(term) if len(term) <= len(word) else term.startswith(word)


def _weights(terms: set[str], said: list[set[str]]) -> dict[str, float]:
    """How much each question term says about which sentence answers: 1 + log(sentences / sentences with
    it), 1 for a term the abstract lacks. In "How does CaC localize an anomaly in a generated video at
    inference time?" the abstract's every other sentence has "video" and "anomaly"; only one has "inference".

    Example: _weights({"video", "inference"}, [{"video"}, {"video", "inference"}])
        -> {'video': 1.0, 'inference': 1.69...}
    """
    count = len(said)
    out = {}
    for term in terms:
        holding = sum(term in words for words in said)
        out[term] = 1.0 + math.log(count / holding) if holding else 1.0
    return out


def value(pick: Pick, settings: AnswerSettings, numbers: bool) -> float:
    """The pick's score, plus settings.number_bonus for each number a finding states (at most two)
    when `numbers` count for the question."""
    counts = numbers and pick.sentence.role == roles.FINDING
    return pick.score + (settings.number_bonus * min(pick.sentence.numbers, 2) if counts else 0.0)


# "The code is available at https://...", "Our models will be publicly available": where to get it, not what it is.
_AVAILABILITY = re.compile(
    r"https?://|\bgithub\.com\b|\b(?:code|data|datasets?|models?|implementations?|weights)\b[^.]{0,40}?"
    r"\b(?:is|are|will be|has been|have been)\s+(?:\w+ly\s+)?(?:available|released|open-sourced)\b",
    re.IGNORECASE,
)

# "By combining automated collection, ... our method enables scalable training", "Overall, our results take a
# significant step toward ...": a recap of what the abstract said before it, without a number, says nothing new.
_RECAP = re.compile(
    r"^(?:by (?:combining|integrating|unifying|coupling)|overall|taken together|collectively|"
    r"in (?:summary|short|sum))\b",
    re.IGNORECASE,
)


def _usable(picks: list[Pick], settings: AnswerSettings) -> list[Pick]:
    """The sentences long enough to say something (not a heading or 'Code is available.'), not saying where
    the code is ("The code is available at https://..."), and not a recap without a number (_RECAP)."""
    return [
        p
        for p in picks
        if len(p.sentence.source) >= settings.min_sentence_chars
        and not _AVAILABILITY.search(p.sentence.source)
        and not (_RECAP.match(p.sentence.source) and not p.sentence.numbers)
    ]


def answering(pick: Pick, intent: str, settings: AnswerSettings) -> float:
    """How well the sentence answers a question with this intent: its `value`, plus settings.intent_bonus
    when its role is what the intent wants and settings.cause_bonus when it gives the reason a "why" asks."""
    numbers = intent in ("results", "summary", "compare")
    wants = _WANTS.get(intent, _WANTS["what"])
    reason = settings.cause_bonus if intent == "why" and pick.sentence.explains else 0.0
    return value(pick, settings, numbers) + reason + (settings.intent_bonus if pick.sentence.role in wants else 0.0)


def _mechanism(pick: Pick, intent: str, said: set[str]) -> bool:
    """Whether, for a question asking how a paper works or what something in it is, the sentence says how
    it works (its method) and holds a word of the question that `said` (the answering sentences shown) lacks:
    such a sentence joins at settings.method_floor."""
    return intent in ("how", "what") and pick.sentence.role == roles.METHOD and bool(pick.matched - said)


def each_part(
    chosen: list[Pick], parts: list[tuple[str, list[Pick]]], settings: AnswerSettings, one: bool = False
) -> list[Pick]:
    """`chosen` and, for each thing a question asks ("What is X and how is it kept cheap?"; its intent and the
    paper's sentences scored against it), the sentence answering it best, unless a chosen one answers it
    nearly as well (settings.part_floor); in the abstract's order. About `one` paper, a part asking how it
    works also gets the method sentence `choose` would add for it (settings.method_floor)."""
    have = {p.sentence.position: p for p in chosen}
    for intent, scored in parts if one else []:
        usable = _usable(scored, settings)
        shown = [p for p in scored if p.sentence.position in have and p.sentence.role != roles.CONTRIBUTION]
        said = set().union(*(p.matched for p in shown))
        top = max((answering(p, intent, settings) for p in usable), default=0.0)
        extra = [
            p
            for p in usable
            if p.sentence.position not in have
            and not p.sentence.leans_back
            and _mechanism(p, intent, said)
            and answering(p, intent, settings) >= settings.method_floor * top
        ]
        if shown and extra:
            pick = max(extra, key=lambda p: answering(p, intent, settings))
            have[pick.sentence.position] = pick
    for intent, scored in parts:
        allowed = [
            p
            for p in _usable(scored, settings)
            if (p.sentence.role != roles.PROBLEM or intent == "why")
            and (not p.sentence.leans_back or p.sentence.position - 1 in have)
        ]
        best = max(allowed, key=lambda p: answering(p, intent, settings), default=None)
        if best is None or best.sentence.position in have:
            continue
        # a part a chosen sentence answers nearly as well (settings.part_floor) needs nothing more
        covered = max((answering(p, intent, settings) for p in scored if p.sentence.position in have), default=0.0)
        if covered < settings.part_floor * answering(best, intent, settings):
            have[best.sentence.position] = best
    return [have[i] for i in sorted(have)]


# A sentence that only names what it proposes: "We ... propose Span-Specific Credit Assignment (SSCA)".
_NAMES_IT = re.compile(r"\b(?:propose|introduce|present)\w*|\bequipped with\b", re.IGNORECASE)


def defined(chosen: list[Pick], picks: list[Pick], settings: AnswerSettings) -> list[Pick]:
    """`chosen` and, after a chosen sentence that names a thing the question asks about as proposed ("We
    propose Span-Specific Credit Assignment (SSCA)"), the next sentence when it says how that thing works
    ("SSCA calculates advantages independently for different structural spans, ..."): for a question
    asking what something is, the name alone does not answer it."""
    at = {p.sentence.position: p for p in _usable(picks, settings)}
    have = {p.sentence.position: p for p in chosen}
    for pick in chosen:
        after = at.get(pick.sentence.position + 1)
        if (
            after is not None
            and after.sentence.position not in have
            and after.sentence.role == roles.METHOD
            and _NAMES_IT.search(pick.sentence.source)
            and pick.matched & after.matched
        ):
            have[after.sentence.position] = after
    return [have[i] for i in sorted(have)]


def opening(chosen: list[Pick]) -> list[Pick]:
    """`chosen` (in the abstract's order) without the sentences opening it that point at something no
    earlier sentence shown says ("The authors show that this choice can create a mismatch ..." before
    "The authors propose MPOPD ..."); the contribution, and a last sentence, stay.
    Example: [s1 pointing, contribution, finding] -> [contribution, finding]"""
    out = list(chosen)
    while len(out) > 1 and out[0].sentence.points and out[0].sentence.role != roles.CONTRIBUTION:
        out.pop(0)
    return out


def with_finding(chosen: list[Pick], picks: list[Pick], settings: AnswerSettings, measured: bool = False) -> list[Pick]:
    """`chosen` and, when none of it says what the paper found, its finding that says most (numbers counting
    for more): a researcher's summary of a paper names it, says what it proposes and what it found. With
    `measured`, only a finding from experiments counts (that a way works), not a bound it proves.
    Example: [contribution, method] -> [contribution, method, "... improves accuracy by 5% on X"]"""
    if any(p.sentence.role == roles.FINDING for p in chosen):
        return chosen
    have = {p.sentence.position: p for p in chosen}
    usable = [p for p in _usable(picks, settings) if not measured or roles.measured(p.sentence.source)]
    best = best_finding(usable, set(have), settings)
    if best is None:
        return chosen
    have[best.sentence.position] = best
    return [have[i] for i in sorted(have)]


def with_mechanism(chosen: list[Pick], picks: list[Pick], settings: AnswerSettings) -> list[Pick]:
    """`chosen` and, when none of it says how the paper works beyond what it proposes, its method sentence
    closest to the question (not one stating what the paper proves): an answer resting on one paper has room
    for its key mechanism.
    Example: [contribution, finding] -> [contribution, "X scores each trajectory by ...", finding]"""
    if any(p.sentence.role == roles.METHOD for p in chosen):
        return chosen
    have = {p.sentence.position: p for p in chosen}
    found = [
        p
        for p in _usable(picks, settings)
        if p.sentence.role == roles.METHOD
        and not roles.theory(p.sentence.source)
        and p.sentence.position not in have
        and (not p.sentence.leans_back or p.sentence.position - 1 in have)
        # nor one before them pointing at what is not shown ("We further demonstrate ... this phenomenon"), which
        # `opening` leaves out
        and not (p.sentence.points and have and p.sentence.position < min(have))
    ]
    if not found:
        return chosen
    best = max(found, key=lambda p: p.score)
    have[best.sentence.position] = best
    return [have[i] for i in sorted(have)]


def best_finding(picks: list[Pick], have: set[int], settings: AnswerSettings) -> Pick | None:
    """The finding among `picks` that says most (closest to the question, numbers counting for more),
    not one at a position in `have`, nor one leaning on a predecessor that is not there; None without one.
    Example: [method, "... improves accuracy by 5%", "It also ..."] with have {0} -> the 5% sentence"""
    found = [
        p
        for p in picks
        if p.sentence.role == roles.FINDING
        and p.sentence.position not in have
        and (not p.sentence.leans_back or p.sentence.position - 1 in have)
    ]
    return max(found, key=lambda p: value(p, settings, numbers=True)) if found else None


def choose(
    picks: list[Pick], intent: str, count: int, settings: AnswerSettings, lead: bool = True, one: bool = False
) -> list[Pick]:
    """Up to `count` sentences: the contribution, then those answering the question best (what
    `intent` wants counts for more, settings.intent_bonus), in the abstract's order.

    A finding that states numbers counts for more for results, summaries and comparisons (`value`);
    a sentence that leans on its predecessor is taken only with that predecessor (the best answering
    one brings it along); the best answering sentence is always taken, another only when it scores
    settings.next_sentence_floor of it, or, in an answer about `one` paper asking how it works or what
    something in it is, settings.method_floor for a sentence saying how it works that holds a word of
    the question the answering sentences chosen before it do not. Without
    `lead`, no contribution comes first.
    Example: choose(picks, "results", 3, settings) -> [contribution, best finding, next finding]
    """
    usable = _usable(picks, settings)
    if not usable or count < 1:
        return []
    chosen: dict[int, Pick] = {}
    contributed: int | None = None  # where the contribution chosen first stands in the abstract
    numbers = intent in ("results", "summary", "compare")

    def fits(pick: Pick) -> bool:
        return not _needs_before(pick) or pick.sentence.position - 1 in chosen

    def answers(pick: Pick) -> float:
        return answering(pick, intent, settings)

    answered: set[str] = set()  # the question's terms the answering sentences chosen so far say

    def floor(pick: Pick) -> float:
        return settings.method_floor if one and _mechanism(pick, intent, answered) else settings.next_sentence_floor

    if lead:  # without it (a follow-up already shown the contribution), only what answers
        contribution = next((p for p in usable if p.sentence.role == roles.CONTRIBUTION and fits(p)), None)
        if contribution is None:
            contribution = max((p for p in usable if fits(p)), key=lambda p: value(p, settings, numbers), default=None)
        if contribution is None:
            return []
        chosen[contribution.sentence.position] = contribution
        contributed = contribution.sentence.position
    said = set().union(*(p.matched for p in chosen.values()))  # the question's terms the contribution says
    # Then the sentences that answer best, what the intent wants counting for more; each further one
    # only when nearly as good as the first, so that an answer does not pad.
    allowed = [
        p for p in usable if p.sentence.position not in chosen and (p.sentence.role != roles.PROBLEM or intent == "why")
    ]
    by_position = {p.sentence.position: p for p in usable}
    first = None
    for pick in sorted(allowed, key=lambda p: -answers(p)):
        if len(chosen) >= count:
            break
        # the best answer leaning on its predecessor ("this limitation stems from ...") comes with it
        before = by_position.get(pick.sentence.position - 1)
        # (a cause pointing at the problem it explains is one thought with it: the pair may pass `count` by one)
        room = count + 1 if not pick.sentence.leans_back else count
        joined = not fits(pick) and before is not None and not _needs_before(before) and len(chosen) + 2 <= room
        if not fits(pick) and not joined:
            continue
        # "how does X stay tractable?": a result saying none of its words is not how, nor, for a "how", any
        # sentence after the contribution saying none of them the contribution does not ("CIG is instantiated
        # in a model-based setting" after "CIG is a tractable surrogate ..."); one before it may give the cause
        # the method answers ("the root cause is ..."), and for a "why" the contribution gives no reason
        after = intent == "how" and contributed is not None and pick.sentence.position > contributed
        if intent in _NOT_RESULTS and (after or pick.sentence.role == roles.FINDING) and not pick.matched - said:
            continue
        if first is None:
            first = answers(pick)
        elif answers(pick) < floor(pick) * first:
            continue  # a method sentence further down may still pass its own floor
        if joined and before is not None:
            chosen[before.sentence.position] = before
        chosen[pick.sentence.position] = pick
        answered |= pick.matched
    return [chosen[i] for i in sorted(chosen)]


def _needs_before(pick: Pick) -> bool:
    """Whether `pick` is shown only after the sentence before it: one leaning on it ("It then submits ..."), or
    a statement of the problem pointing at what it said ("Our analysis reveals that this limitation stems
    from ...", after "off-policy training often struggles to match on-policy training")."""
    sentence = pick.sentence
    return sentence.leans_back or (
        sentence.points
        and sentence.role == roles.PROBLEM
        and sentence.position > 0
        and roles.opens_pointing(sentence.text)
    )


def limitation(picks: list[Pick], settings: AnswerSettings) -> Pick | None:
    """For a list of what goes wrong ("the weaknesses of GRPO"), the paper's statement of a problem closest to the
    question that says one of its words ("GRPO becomes silent on hard prompts"); None without one."""
    return max(
        (
            p
            for p in _usable(picks, settings)
            if p.sentence.role == roles.PROBLEM and p.matched and not _needs_before(p)
        ),
        key=lambda p: p.score,
        default=None,
    )


def headline(picks: list[Pick], settings: AnswerSettings) -> Pick | None:
    """The one sentence a "which papers" list shows for a paper: its contribution, unless another
    sentence (not leaning on its predecessor) says much better why the paper matches."""
    lead = choose(picks, "which", 1, settings)
    closest = max(
        (p for p in _usable(picks, settings) if not p.sentence.leans_back), key=lambda p: p.score, default=None
    )
    # A problem statement says what the field is about, not the paper: the contribution stays when it names a word
    # of the question ("... for low-carbon grid operation", not "Deep decarbonization is transforming power grids").
    background = closest is not None and closest.sentence.role == roles.PROBLEM
    if lead and closest and lead[0].score < settings.next_sentence_floor * closest.score:
        if background and lead[0].matched:
            return lead[0]
        # nor when a sentence of the paper's own says every word of the question it says, and more: "thereby
        # providing a theoretical foundation for why OPD can outperform standard SFT" over "A central puzzle is
        # that ... OPD often outperforms SFT" for "which gives a theoretical reason why it can beat plain SFT?"
        own = max(
            (
                p
                for p in _usable(picks, settings)
                if not p.sentence.leans_back and p.sentence.role != roles.PROBLEM and p.matched > closest.matched
            ),
            key=lambda p: p.score,
            default=None,
        )
        return own if background and own is not None else closest
    return lead[0] if lead else None
