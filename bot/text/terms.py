"""Words and index terms of text: how a paper or a question is cut into the terms lexical search uses.

Jargon stays whole ("cal-spi", "χ-bench", "fp4") and its stemmed parts are also terms ("cal",
"spi"), so both spellings match; neighbouring word pairs serve proximity scoring. Questions
lose the words of how they are asked ("which papers", "as part of"). It builds no index and
scores nothing (bot.store.lexical does).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from functools import lru_cache

import Stemmer
from bm25s.stopwords import STOPWORDS_EN


def _listed(text: str) -> frozenset[str]:
    """Example: _listed("what which\nwho") -> frozenset({'what', 'which', 'who'})"""
    return frozenset(text.split())


_WORD = re.compile(r"[\w\u0370-\u03ff]+(?:[-.+/][\w\u0370-\u03ff]+)*")
_JOINS = re.compile(r"[-.+/]")  # what joins a compound's parts: "cal-spi", "fp4/fp8"
# Latin abbreviations too: "e.g." would otherwise be a word ("e.g"), matching half the corpus.
STOPWORDS = frozenset(STOPWORDS_EN) | _listed("we our us paper papers propose proposed e.g i.e etc cf vs viz et al")
# Words of how a question is asked, not of what it is about; dropped from queries only.
QUESTION_WORDS = _listed(
    """
    what which who whom whose when where why how does do did doing is are was were can could would
    should may might any some there here i me my you your about tell explain describe show find list
    give get work works study studies article articles abstract abstracts research approach approaches
    method methods use uses using used has have had been being from than so very also more most other
    others its it's them those one ones like way ways summarize summarise summary overview compare
    comparison propose proposes proposed introduce introduces
    """
)
# Set phrases of how a question is worded: "part" in "as part of" or "time" in "at the same time"
# says nothing about the topic. Dropped from queries only.
_PHRASES = re.compile(
    r"(?i)\b(?:as part of|as well as|at the same time|in terms of|with respect to|in order to|"
    r"in the context of|on top of|deals? with|dealing with|takes? into account|accounts? for)\b"
)
_VOWELS = frozenset("aeiouy")
# A name with a capital after a small letter (MuJoCo, WebArena): others are built on it by a prefix,
# "MaMuJoCo" for the multi-agent MuJoCo, so a word ending with it names it too.
_INNER_CAPITAL = re.compile(r"(?<![\w-])[A-Za-z]*[a-z][A-Z][A-Za-z]*(?![\w-])")
_BASE_NAME_LETTERS = 5  # shorter names end too many words by chance


@lru_cache(maxsize=1)
def _stemmer() -> Stemmer.Stemmer:
    return Stemmer.Stemmer("english")


@lru_cache(maxsize=100_000)
def stem(word: str) -> str:
    """Snowball's English stem, with plural acronyms made singular, which Snowball leaves alone
    (it strips an s only after a vowel), so "LLMs" matches "LLM-based".

    Example: [stem(w) for w in ["models", "llms", "gnns", "gans", "class"]] -> ['model', 'llm', 'gnn', 'gan', 'class']
    """
    stemmed = _stemmer().stemWord(word)
    if len(stemmed) >= 3 and stemmed[-1] == "s" and stemmed[-2] != "s" and not _VOWELS & set(stemmed[:-1]):
        return stemmed[:-1]
    return stemmed


def words(text: str) -> list[str]:
    """Surface words of `text`, lower case, jargon kept whole.

    Example: words("Cal-SPI beats GRPO.") -> ['cal-spi', 'beats', 'grpo']
    """
    return _WORD.findall(text.lower())  # a match starts and ends with a word character: no dots to strip


def query_words(text: str) -> list[str]:
    """The words of a query that say what it is about: question words and set phrases dropped.

    Example: query_words("Which papers use GRPO as part of training?") -> ['grpo', 'training']
    """
    return [w for w in words(_PHRASES.sub(" ", text)) if w not in QUESTION_WORDS and w not in STOPWORDS]


# Plain words for a comparison that abstracts write otherwise: "does it beat plain SFT?" is answered by "can
# outperform standard supervised fine-tuning". Stems; a query word of a family is found as any of them.
_AKIN = (frozenset({"beat", "outperform", "surpass"}), frozenset({"plain", "vanilla", "standard"}))


def akin(word: str) -> frozenset[str]:
    """The index terms standing for the same as a one-part query word, besides its own; empty for most words.

    Example: akin("beating") -> frozenset({'outperform', 'surpass'}); akin("grpo") -> frozenset()
    """
    terms = word_tokens(word)
    if len(terms) != 1:
        return frozenset()
    return next((family - {terms[0]} for family in _AKIN if terms[0] in family), frozenset())


def base_names(text: str) -> frozenset[str]:
    """The names in `text` that others are built on, lower case (see _INNER_CAPITAL).

    Example: base_names("Runs on MuJoCo with GRPO and WebArena") -> frozenset({'mujoco', 'webarena'})
    """
    return frozenset(w.lower() for w in _INNER_CAPITAL.findall(text) if len(w) >= _BASE_NAME_LETTERS)


def word_tokens(word: str) -> list[str]:
    """Index terms of one word: the whole compound and its stemmed parts, stopwords dropped.

    Example: word_tokens("cal-spi") -> ['cal-spi', 'cal', 'spi']
    """
    return list(_word_tokens(word))


@lru_cache(maxsize=200_000)
def _word_tokens(word: str) -> tuple[str, ...]:
    """word_tokens, kept for the words seen last: a corpus repeats its words, and building the BM25
    index cuts every word of every paper (13 million at 100,000 papers)."""
    if word in STOPWORDS:
        return ()
    parts = [p for p in _JOINS.split(word) if p]
    out: list[str] = []
    if len(parts) > 1:
        out.append(word)
    out.extend(stem(p) for p in parts if p not in STOPWORDS and (len(p) > 1 or p.isdigit()))
    return tuple(out)


def tokenize(text: str) -> list[str]:
    """All index terms of `text`. Example: tokenize("Safe RL agents") -> ['safe', 'rl', 'agent']"""
    return [t for w in words(text) for t in _word_tokens(w)]


def tokenize_query(text: str) -> list[str]:
    """Index terms of a query, question words dropped.

    Example: tokenize_query("Which papers use GRPO?") -> ['grpo']
    """
    return [t for w in query_words(text) for t in word_tokens(w)]


def search_terms(words: Iterable[str]) -> list[str]:
    """The index terms a query's words are searched by: each word's, a compound by its stemmed parts.

    The index holds compounds whole and split, but a query matches them by their parts, so
    "IL-6 expression" also finds "IL6 expression ... IL-6" and "multi-agent" finds "multi
    agent". Whole compounds still count for coverage and names. On SciFact train this took
    BM25 from 0.687 to 0.693 nDCG@10 and the hybrid from 0.753 to 0.755 (docs/retrieval.md).
    Example: search_terms(["multi-agent", "mujoco"]) -> ['multi', 'agent', 'mujoco']
    """
    terms: list[str] = []
    for word in words:
        tokens = word_tokens(word)
        terms.extend([t for t in tokens if t != word] or tokens)
    return terms


def _pairs(words: list[str]) -> list[str]:
    stems = [stem(w) for w in words]
    return ["_".join(sorted(pair)) for pair in itertools.pairwise(stems)]


def pair_tokens(text: str) -> list[str]:
    """Neighbouring word pairs of `text`, stemmed, in either order, stopwords skipped.

    Example: pair_tokens("expression of the IL-6 gene") -> ['express_il-6', 'gene_il-6']
    """
    return _pairs([w for w in words(text) if w not in STOPWORDS])


def query_pair_tokens(text: str) -> list[str]:
    """Neighbouring pairs of a query's content words. Example: query_pair_tokens("Which papers use GRPO?") -> []"""
    return _pairs(query_words(text))


@lru_cache(maxsize=20000)
def term_set(text: str) -> frozenset[str]:
    """The index terms of `text` as a set, cached: papers are checked against many queries, and
    tokenising each abstract once is enough."""
    return frozenset(tokenize(text))


@lru_cache(maxsize=20000)
def pair_set(text: str) -> frozenset[str]:
    """The neighbouring word pairs of `text` as a set, cached like `term_set`."""
    return frozenset(pair_tokens(text))
