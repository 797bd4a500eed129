"""Candidate phrases for theme names: the one- to `longest`-word n-grams of a text that start and end
like noun phrases, and how the text uses each word (as a noun or as a verb).

Phrases do not cross punctuation: no stopword, generic verb ("show", "become") or adverb at either end,
no adjective or participle at the end or alone ("sparse", "token-level"), a single word only when it is
an acronym, a compound or used as a noun, and never only words such as "model" or "data". It reads one
text at a time; scoring phrases for a group of papers is bot.library.theme_names's business.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

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
from bot.text.terms import query_words, word_tokens

# Phrases stop at punctuation, and at dashes and slashes between spaces.
_BOUNDARY = re.compile(r"[,;:()\[\]{}\"“”!?]|\.(?=\s|$)|\s[-–—/]+\s")
_TOKEN = re.compile(r"[\w\u0370-\u03ff]+(?:[-+/][\w\u0370-\u03ff]+)*")


@dataclass(frozen=True)
class _Word:
    key: str  # stemmed: "models" and "model" share one
    start: bool  # may open a phrase
    end: bool  # may close a phrase
    middle: bool  # may sit inside a three-word phrase
    alone: bool  # may be a one-word name when used as a noun
    strong: bool  # an acronym, a compound or a noun by its ending: a one-word name without further evidence


@dataclass(frozen=True)
class Text:
    """One paper's candidate phrases (by key, with their first spelling) and how its words are used."""

    phrases: dict[tuple[str, ...], str]
    as_noun: frozenset[str]
    as_verb: frozenset[str]
    strong: frozenset[str]  # keys of words that are a name on their own (acronyms, compounds, "-tion" nouns)


@lru_cache(maxsize=4096)
def read(text: str, longest: int) -> Text:
    """Each noun-phrase-like n-gram of a text (up to `longest` words), by key, with the spelling it first has.

    Example: read("Reward models score.", 3).phrases -> {('reward',): 'Reward', ('reward', 'model'): 'Reward models'}
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
            for n in range(2, longest + 1):
                last = info[i + n - 1] if i + n - 1 < len(info) else None
                if last is None or not all(w.middle for w in info[i + 1 : i + n - 1]):
                    break
                if last.end:
                    phrases.setdefault(tuple(w.key for w in info[i : i + n]), " ".join(tokens[i : i + n]))
    return Text(phrases, frozenset(as_noun), frozenset(as_verb), frozenset(strong))


@lru_cache(maxsize=100_000)
def _word(surface: str) -> _Word:
    """What place a word may take in a name. Example: _word("become") -> nowhere; _word("GRPO") -> anywhere"""
    word = surface.lower()
    key = word_key(word)
    if sum(ch.isalpha() for ch in word) < 2 or word in NEVER:
        return _Word(key, False, False, False, False, False)
    stop = not query_words(word)
    acronym = is_acronym(surface)
    compound = "-" in word and not _adjective(word)
    start = not stop and not word.endswith("ly")
    end = start and (acronym or not _adjective(word))
    alone = end and word not in NOT_ALONE and key not in GENERIC_KEYS and sum(ch.isalpha() for ch in word) > 2
    strong = alone and (acronym or compound or word.endswith(NOUN_ENDINGS) or word in NOUNS)
    return _Word(key, start, end, not stop or word == "of", alone, strong)


def is_acronym(surface: str) -> bool:
    """Example: is_acronym("LoRA") -> True; is_acronym("BERT-based") -> True; is_acronym("Fine-Tuning") -> False"""
    return any(sum(ch.isupper() for ch in part) >= 2 for part in surface.split("-"))


def _adjective(word: str) -> bool:
    """Example: _adjective("token-level") -> True; _adjective("retrieval") -> False"""
    tail = word.rsplit("-", 1)[-1]
    if word in NOUNS or tail in NOUNS:
        return False
    if word in ADJECTIVES or tail in ADJECTIVES or ("-" in word and tail in ADJECTIVE_PARTS):
        return True
    return len(tail) > 4 and tail.endswith(ADJECTIVE_ENDINGS)


def word_key(word: str) -> str:
    """The stem a word counts under. Example: word_key("models") -> 'model'; word_key("on-policy") -> 'on-policy'"""
    if "-" in word or "/" in word or "+" in word:
        return word
    terms = word_tokens(word)
    return terms[0] if terms else word


GENERIC_KEYS = frozenset(word_key(w) for w in NOT_ALONE | NEVER)
