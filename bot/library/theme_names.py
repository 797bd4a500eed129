"""Theme names: the noun phrases that set one group of papers apart from the other groups and the corpus.

Candidates are one- to three-word phrases that do not cross punctuation and that start and end
like noun phrases ("on-policy distillation", "reward models", "mixture of experts", "GNNs"):
no stopword, generic verb ("show", "become") or adverb at either end, no adjective or
participle at the end or alone ("sparse", "token-level"), a single word only when it is an
acronym, a compound or used as a noun, and never only words such as "model" or "data". Each
is scored c-TF-IDF style: share of the group's papers using it x how much more than the other
groups use it x its rarity in the whole corpus, phrases preferred. A name has one or two
terms that together occur in as many of the group's papers as the candidates allow. The
topic's own words (and the acronyms that spell them) are never part of a name. It does not
group papers (bot.library.themes does).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from bot.library.theme_words import (
    ADJECTIVE_ENDINGS,
    ADJECTIVE_PARTS,
    ADJECTIVES,
    DETERMINERS,
    NEVER,
    NOT_ALONE,
    NOUN_ENDINGS,
    NOUNS,
    VERB_CUES,
)
from bot.store.lexical import LexicalIndex
from bot.text.terms import query_words, word_tokens
from bot.types import Paper

# Phrases stop at punctuation, and at dashes and slashes between spaces.
_BOUNDARY = re.compile(r"[,;:()\[\]{}\"“”!?]|\.(?=\s|$)|\s[-–—/]+\s")
_TOKEN = re.compile(r"[\w\u0370-\u03ff]+(?:[-+/][\w\u0370-\u03ff]+)*")
_LONGEST = 3
# Each extra word multiplies a phrase's score: "node classification" says more than "node".
_PHRASE_BONUS = 0.6
# A shorter phrase gives way to a longer one holding it when this share of its papers use the longer.
_PROMOTE = 0.4
_SECOND_TERM = 0.6  # a second term joins a name that already covers most papers at this share of the score
_MOST = 0.5  # a first term in fewer than this share of the group's papers gets a second that adds papers
_SECOND_POOL = 15  # a second term that completes a name's coverage is one of this many best candidates


@dataclass(frozen=True)
class _Word:
    key: str  # stemmed: "models" and "model" share one
    start: bool  # may open a phrase
    end: bool  # may close a phrase
    middle: bool  # may sit inside a three-word phrase
    alone: bool  # may be a one-word name when used as a noun
    strong: bool  # an acronym, a compound or a noun by its ending: a one-word name without further evidence


@dataclass(frozen=True)
class _Text:
    """One paper's candidate phrases (by key, with their first spelling) and how its words are used."""

    phrases: dict[tuple[str, ...], str]
    as_noun: frozenset[str]
    as_verb: frozenset[str]
    strong: frozenset[str]  # keys of words that are a name on their own (acronyms, compounds, "-tion" nouns)


@dataclass(frozen=True)
class _Candidate:
    key: tuple[str, ...]
    score: float
    papers: frozenset[int]


def name_groups(members: list[list[int]], papers: list[Paper], lexical: LexicalIndex, topic: str) -> list[str]:
    """One distinct name per group of `papers` (each group a list of indices), in the groups' order.

    Example: for three abstracts on reward models becoming sparse and three on message passing
    in "graph neural networks (GNNs)", topic "GNNs" -> ['reward models', 'message passing']
    """
    texts = [_read(p.searchable_text()) for p in papers]
    nouns = Counter(k for t in texts for k in t.as_noun)
    verbs = Counter(k for t in texts for k in t.as_verb)
    strong = {k for t in texts for k in t.strong}

    def alone(key: str) -> bool:  # one word names a theme when it is strong or used as a noun more than as a verb
        return key in strong or nouns[key] > verbs[key]

    banned = _topic_keys(topic, lexical)
    rarity: dict[tuple[str, ...], float] = {}
    names: list[str] = []
    used: set[str] = set()  # a word of one theme's name names another only when nothing else can
    for index, member in enumerate(members):
        others = [i for j, m in enumerate(members) if j != index for i in m]
        # phrases a few of the papers share complete a name, or make one for a loose group
        loose = _ranked(member, others, texts, lexical, banned, rarity, alone, min(2, len(member)))
        # papers sharing nothing but the topic: a term of each, rather than a title
        loose = loose or _ranked(member, others, texts, lexical, banned, rarity, alone, 1)
        loose = [c for c in loose if not used & set(c.key)] + [c for c in loose if used & set(c.key)]
        ranked = [c for c in loose if len(c.papers) >= _least(len(member))] or loose
        name, keys = _compose(ranked, loose, member, texts, set(names), papers)
        names.append(name)
        used |= keys
    return names


def _ranked(
    member: list[int],
    others: list[int],
    texts: list[_Text],
    lexical: LexicalIndex,
    banned: Callable[[str], bool],
    rarity: dict[tuple[str, ...], float],
    alone: Callable[[str], bool],
    need: int,
) -> list[_Candidate]:
    """The group's candidate phrases, best first, each promoted to a longer phrase most of its papers use."""
    inside: dict[tuple[str, ...], set[int]] = {}
    for i in member:
        for key in texts[i].phrases:
            inside.setdefault(key, set()).add(i)
    outside = Counter(key for i in others for key in texts[i].phrases)
    scored: dict[tuple[str, ...], _Candidate] = {}
    for key, holders in inside.items():
        if len(holders) < need or any(banned(k) for k in key) or all(k in _GENERIC_KEYS for k in key):
            continue
        if len(key) == 1 and not alone(key[0]):
            continue
        share = len(holders) / len(member)
        # e.g. 4 of 5 papers here, 1 of 10 in the other groups: 0.8 * (0.8 - 0.1) = 0.56
        contrast = share - outside[key] / len(others) if others else 1.0
        if contrast <= 0:
            continue
        if key not in rarity:
            rarity[key] = _rarity(lexical, texts[next(iter(holders))].phrases[key])
        bonus = 1 + _PHRASE_BONUS * (len(key) - 1)
        scored[key] = _Candidate(key, share * contrast * rarity[key] * bonus, frozenset(holders))
    ranked = sorted(scored.values(), key=lambda c: (-c.score, c.key))
    holding: dict[tuple[str, ...], list[_Candidate]] = {}  # each phrase under every shorter phrase inside it
    for c in scored.values():
        for n in range(1, len(c.key)):
            for i in range(len(c.key) - n + 1):
                holding.setdefault(c.key[i : i + n], []).append(c)
    promoted: dict[tuple[str, ...], _Candidate] = {}
    for candidate in ranked:
        longer = [c for c in holding.get(candidate.key, []) if len(c.papers) >= _PROMOTE * len(candidate.papers)]
        best = max(longer, key=lambda c: (len(c.papers), c.score, c.key), default=candidate)
        promoted.setdefault(best.key, best)
    return list(promoted.values())


def _least(size: int) -> int:
    """Papers of a group that must use a term for it to name the group. Example: _least(40) -> 8"""
    return 1 if size == 1 else max(2, math.ceil(0.2 * size))


def _rarity(lexical: LexicalIndex, surface: str) -> float:
    """How rare the phrase's words are together in the corpus, 0..1: sqrt(log(N / papers with all) / log(N)).

    Example: in 8,700 papers, words found together in 87 -> sqrt(log(100) / log(8700)) = 0.71
    """
    n = len(lexical.paper_ids)
    presence = lexical.word_presence(surface)
    if n < 2 or not presence:
        return 0.5
    together = int(np.logical_and.reduce([mask for _, _, mask in presence]).sum())
    return math.sqrt(max(math.log(n / max(together, 1)), 0.0) / math.log(n))


def _compose(
    ranked: list[_Candidate],
    loose: list[_Candidate],
    member: list[int],
    texts: list[_Text],
    taken: set[str],
    papers: list[Paper],
) -> tuple[str, set[str]]:
    """The best term, with a second when the first alone is in under half the papers (the one that adds
    the most papers) or one nearly as good says something else; the first such name not already taken."""
    for first_index, first in enumerate(ranked):
        second: _Candidate | None = None
        if len(first.papers) < _MOST * len(member):
            # e.g. first in 3 of 10, candidates adding 4 and 2 more papers: the one adding 4
            rest = [c for c in loose[:_SECOND_POOL] if not set(c.key) & set(first.key)]
            second = max(rest, key=lambda c: len(c.papers - first.papers), default=None)
        else:
            rest = [c for c in ranked[first_index + 1 :] if not set(c.key) & set(first.key)]
            second = rest[0] if rest and rest[0].score >= _SECOND_TERM * first.score else None
        terms = [c for c in (first, second) if c is not None and (c is first or c.papers - first.papers)]
        name = " · ".join(_surface(c.key, member, texts) for c in terms)
        if name not in taken:
            return name, {k for c in terms for k in c.key}
    label = papers[member[0]].label  # no candidate at all: the group's best paper speaks for it
    return (label if label not in taken else f"{label} ({len(member)})"), set()


def _surface(key: tuple[str, ...], member: list[int], texts: list[_Text]) -> str:
    """The spelling the group's papers use most; lower case unless it holds an acronym ("GRPO", "LoRA")."""
    forms = Counter(texts[i].phrases[key] for i in member if key in texts[i].phrases)
    form = min(forms, key=lambda f: (-forms[f], not f.lower().endswith(NOUN_ENDINGS), f))
    return form if any(_acronym(w) for w in form.split()) else form.lower()


@lru_cache(maxsize=4096)
def _read(text: str) -> _Text:
    """Each noun-phrase-like n-gram of a text, by key, with the spelling it first has.

    Example: _read("Reward models score.").phrases -> {('reward',): 'Reward', ('reward', 'model'): 'Reward models'}
    """
    phrases: dict[tuple[str, ...], str] = {}
    as_noun: set[str] = set()
    as_verb: set[str] = set()
    strong: set[str] = set()
    for segment in _BOUNDARY.split(text):
        tokens = _TOKEN.findall(segment)
        info = [_word(t) for t in tokens]
        lowered = [t.lower() for t in tokens]
        for i, word in enumerate(info):
            before = lowered[i - 1] if i else ""
            after = lowered[i + 1] if i + 1 < len(tokens) else ""
            if before in DETERMINERS or after == "of":
                as_noun.add(word.key)
            elif before in VERB_CUES or after in DETERMINERS:
                as_verb.add(word.key)  # "to capture", "solving the": a verb
            if not word.start:
                continue
            if word.alone:
                phrases.setdefault((word.key,), tokens[i])
                if word.strong:
                    strong.add(word.key)
            for n in range(2, _LONGEST + 1):
                last = info[i + n - 1] if i + n - 1 < len(info) else None
                if last is None or not all(w.middle for w in info[i + 1 : i + n - 1]):
                    break
                if last.end:
                    phrases.setdefault(tuple(w.key for w in info[i : i + n]), " ".join(tokens[i : i + n]))
    return _Text(phrases, frozenset(as_noun), frozenset(as_verb), frozenset(strong))


@lru_cache(maxsize=100_000)
def _word(surface: str) -> _Word:
    """What place a word may take in a name. Example: _word("become") -> nowhere; _word("GRPO") -> anywhere"""
    word = surface.lower()
    key = _key(word)
    if sum(ch.isalpha() for ch in word) < 2 or word in NEVER:
        return _Word(key, False, False, False, False, False)
    stop = not query_words(word)
    acronym = _acronym(surface)
    compound = "-" in word and not _adjective(word)
    start = not stop and not word.endswith("ly")
    end = start and (acronym or not _adjective(word))
    alone = end and word not in NOT_ALONE and key not in _GENERIC_KEYS and sum(ch.isalpha() for ch in word) > 2
    strong = alone and (acronym or compound or word.endswith(NOUN_ENDINGS) or word in NOUNS)
    return _Word(key, start, end, not stop or word == "of", alone, strong)


def _acronym(surface: str) -> bool:
    """Example: _acronym("LoRA") -> True; _acronym("BERT-based") -> True; _acronym("Fine-Tuning") -> False"""
    return any(sum(ch.isupper() for ch in part) >= 2 for part in surface.split("-"))


def _adjective(word: str) -> bool:
    """Example: _adjective("token-level") -> True; _adjective("retrieval") -> False"""
    tail = word.rsplit("-", 1)[-1]
    if word in NOUNS or tail in NOUNS:
        return False
    if word in ADJECTIVES or tail in ADJECTIVES or ("-" in word and tail in ADJECTIVE_PARTS):
        return True
    return len(tail) > 4 and tail.endswith(ADJECTIVE_ENDINGS)


def _key(word: str) -> str:
    """Example: _key("models") -> 'model'; _key("on-policy") -> 'on-policy'; _key("of") -> 'of'"""
    if "-" in word or "/" in word or "+" in word:
        return word
    terms = word_tokens(word)
    return terms[0] if terms else word


def _topic_keys(topic: str, lexical: LexicalIndex) -> Callable[[str], bool]:
    """Whether a key is one of the topic's words (or starts with one), of the long forms of its
    acronyms, or an acronym spelling it.

    Example: for "graph neural networks": 'graph', 'networked', 'gnns' -> True; 'node' -> False
    """
    words = query_words(topic)
    keys = {_key(w) for w in words} | {t for w in words for t in word_tokens(w)}
    prefixes = tuple(k for k in keys if len(k) >= 4)  # "safe" also bans "safety"
    for acronym, long_form in lexical.acronyms.items():
        spelled = {_key(w) for w in query_words(long_form)}
        if acronym.lower() in words:
            keys |= spelled
        elif spelled and spelled <= keys:
            keys |= {_key(acronym.lower()), acronym.lower()}
    return lambda key: key in keys or key.startswith(prefixes)


_GENERIC_KEYS = frozenset(_key(w) for w in NOT_ALONE | NEVER)
