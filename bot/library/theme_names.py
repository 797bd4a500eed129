"""Theme names: the noun phrases that set one group of papers apart from the other groups and the corpus.

Candidates are the phrases bot.library.theme_phrases reads from each paper ("on-policy distillation",
"reward models", "mixture of experts", "GNNs"). Each is scored c-TF-IDF style: share of the group's
papers using it x how much more than the other groups use it x its rarity in the whole corpus,
phrases preferred. A name has one or two terms that together occur in as many of the group's papers
as the candidates allow. The topic's own words (and the acronyms that spell them) are never part of
a name. How much each rule weighs is the triage's ThemeSettings. It does not group papers
(bot.library.themes does).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from bot.library import theme_phrases
from bot.library.theme_phrases import Text
from bot.library.theme_words import NOUN_ENDINGS
from bot.settings import ThemeSettings
from bot.store.lexical import LexicalIndex
from bot.text.terms import query_words, word_tokens
from bot.types import Paper


@dataclass(frozen=True)
class _Candidate:
    key: tuple[str, ...]
    score: float
    papers: frozenset[int]


def name_groups(
    members: list[list[int]],
    papers: list[Paper],
    lexical: LexicalIndex,
    topic: str,
    settings: ThemeSettings | None = None,
) -> list[str]:
    """One distinct name per group of `papers` (each group a list of indices), in the groups' order;
    `settings` None means the defaults (bot.library.themes does not pass the triage's section yet).

    Example: for three abstracts on reward models becoming sparse and three on message passing
    in "graph neural networks (GNNs)", topic "GNNs" -> ['Reward models', 'Message passing']
    """
    settings = settings or ThemeSettings.model_validate({})  # the defaults
    texts = [theme_phrases.read(p.searchable_text(), settings.longest_phrase) for p in papers]
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
        loose = _ranked(member, others, texts, lexical, banned, rarity, alone, min(2, len(member)), settings)
        # papers sharing nothing but the topic: a term of each, rather than a title
        loose = loose or _ranked(member, others, texts, lexical, banned, rarity, alone, 1, settings)
        loose = [c for c in loose if not used & set(c.key)] + [c for c in loose if used & set(c.key)]
        ranked = [c for c in loose if len(c.papers) >= _least(len(member), settings)] or loose
        name, keys = _compose(ranked, loose, member, texts, set(names), papers, settings)
        names.append(name)
        used |= keys
    return names


def _ranked(
    member: list[int],
    others: list[int],
    texts: list[Text],
    lexical: LexicalIndex,
    banned: Callable[[str], bool],
    rarity: dict[tuple[str, ...], float],
    alone: Callable[[str], bool],
    need: int,
    settings: ThemeSettings,
) -> list[_Candidate]:
    """The group's candidate phrases, best first, each promoted to a longer phrase most of its papers use."""
    inside: dict[tuple[str, ...], set[int]] = {}
    for i in member:
        for key in texts[i].phrases:
            inside.setdefault(key, set()).add(i)
    outside = Counter(key for i in others for key in texts[i].phrases)
    scored: dict[tuple[str, ...], _Candidate] = {}
    for key, holders in inside.items():
        if len(holders) < need or any(banned(k) for k in key) or all(k in theme_phrases.GENERIC_KEYS for k in key):
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
        bonus = 1 + settings.phrase_bonus * (len(key) - 1)
        scored[key] = _Candidate(key, share * contrast * rarity[key] * bonus, frozenset(holders))
    ranked = sorted(scored.values(), key=lambda c: (-c.score, c.key))
    holding: dict[tuple[str, ...], list[_Candidate]] = {}  # each phrase under every shorter phrase inside it
    for c in scored.values():
        for n in range(1, len(c.key)):
            for i in range(len(c.key) - n + 1):
                holding.setdefault(c.key[i : i + n], []).append(c)
    promoted: dict[tuple[str, ...], _Candidate] = {}
    for candidate in ranked:
        least = settings.promote_share * len(candidate.papers)
        longer = [c for c in holding.get(candidate.key, []) if len(c.papers) >= least]
        best = max(longer, key=lambda c: (len(c.papers), c.score, c.key), default=candidate)
        promoted.setdefault(best.key, best)
    return list(promoted.values())


def _least(size: int, settings: ThemeSettings) -> int:
    """Papers of a group that must use a term for it to name the group. Example: _least(40, ThemeSettings()) -> 8"""
    return 1 if size == 1 else max(settings.least_papers, math.ceil(settings.least_share * size))


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
    texts: list[Text],
    taken: set[str],
    papers: list[Paper],
    settings: ThemeSettings,
) -> tuple[str, set[str]]:
    """The best term, with a second when the first alone is in under half the papers (the one that adds
    the most papers) or one nearly as good says something else; the first such name not already taken."""
    for first_index, first in enumerate(ranked):
        second: _Candidate | None = None
        if len(first.papers) < settings.first_term_share * len(member):
            # e.g. first in 3 of 10, candidates adding 4 and 2 more papers: the one adding 4
            rest = [c for c in loose[: settings.second_term_pool] if not set(c.key) & set(first.key)]
            second = max(rest, key=lambda c: len(c.papers - first.papers), default=None)
        else:
            rest = [c for c in ranked[first_index + 1 :] if not set(c.key) & set(first.key)]
            second = rest[0] if rest and rest[0].score >= settings.second_term_score * first.score else None
        terms = [c for c in (first, second) if c is not None and (c is first or c.papers - first.papers)]
        name = heading([_surface(c.key, member, texts) for c in terms])
        if name not in taken:
            return name, {k for c in terms for k in c.key}
    label = papers[member[0]].label  # no candidate at all: the group's best paper speaks for it
    return (label if label not in taken else f"{label} ({len(member)})"), set()


def heading(terms: list[str]) -> str:
    """A theme's terms as a section heading: the first capitalised, the second joined with "and".

    Example: heading(["supervised fine-tuning", "rollouts"]) -> 'Supervised fine-tuning and rollouts';
    heading(["GRPO variants"]) -> 'GRPO variants'
    """
    first = terms[0][:1].upper() + terms[0][1:]
    return " and ".join([first, *terms[1:]])


def terms(name: str) -> list[str]:
    """The terms of a theme's heading, as the papers write them (a name's phrases never hold "and").

    Example: terms("Supervised fine-tuning and rollouts") -> ['supervised fine-tuning', 'rollouts'];
    terms("GRPO variants") -> ['GRPO variants']
    """
    parts = name.split(" and ")
    first = parts[0]
    if first[1:2].islower():  # "Reward models" was "reward models"; "GRPO" stays
        first = first[:1].lower() + first[1:]
    return [first, *parts[1:]]


def _surface(key: tuple[str, ...], member: list[int], texts: list[Text]) -> str:
    """The spelling the group's papers use most; lower case unless it holds an acronym ("GRPO", "LoRA")."""
    forms = Counter(texts[i].phrases[key] for i in member if key in texts[i].phrases)
    form = min(forms, key=lambda f: (-forms[f], not f.lower().endswith(NOUN_ENDINGS), f))
    return form if any(theme_phrases.is_acronym(w) for w in form.split()) else form.lower()


def _topic_keys(topic: str, lexical: LexicalIndex) -> Callable[[str], bool]:
    """Whether a key is one of the topic's words (or starts with one), of the long forms of its
    acronyms, or an acronym spelling it.

    Example: for "graph neural networks": 'graph', 'networked', 'gnns' -> True; 'node' -> False
    """
    words = query_words(topic)
    keys = {theme_phrases.word_key(w) for w in words} | {t for w in words for t in word_tokens(w)}
    prefixes = tuple(k for k in keys if len(k) >= 4)  # "safe" also bans "safety"
    for acronym, long_form in lexical.acronyms.items():
        spelled = {theme_phrases.word_key(w) for w in query_words(long_form)}
        if acronym.lower() in words:
            keys |= spelled
        elif spelled and spelled <= keys:
            keys |= {theme_phrases.word_key(acronym.lower()), acronym.lower()}
    return lambda key: key in keys or key.startswith(prefixes)
