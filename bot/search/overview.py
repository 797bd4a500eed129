"""What a corpus is about, in a few phrases: said when a question is off-topic, instead of citing papers.

The phrases are the two- and three-word terms the most abstracts use ("reinforcement learning",
"large language models"), a longer phrase standing in for the shorter ones it contains when most
of their papers use it. It reads papers' text only.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from bot.text.terms import STOPWORDS

_WORD = re.compile(r"[A-Za-z][A-Za-z-]*[A-Za-z]")
_URL = re.compile(r"\S+://\S+|www\.\S+")
# Function words the index's stopword list leaves in ("has been", "rather than", "which can").
_FUNCTION_WORDS = (
    "has have had been being was were are is can could may might must shall should will would which what who "
    "whom whose where when than rather then thus hence more most less least many much few both each either "
    "neither via upon into onto from over under between among about against toward towards since because "
    "even though although whereas yet only just very also further"
)
_FUNCTION = frozenset(_FUNCTION_WORDS.split())
# Words that make a phrase about the writing, not the subject ("this paper", "extensive experiments").
_VAGUE_WORDS = (
    "paper papers work works approach approaches method methods results result experiments experimental "
    "extensive existing prior previous recent novel new key main first second third show shows across "
    "state-of-the-art art code available different various several significant significantly strong "
    "propose proposed using based while however achieves achieve outperforms improves framework task tasks "
    "problem problems setting settings performance model-based without within such often also well average "
    "accuracy large-scale real-world wide range demonstrate demonstrates"
)
_VAGUE = frozenset(_VAGUE_WORDS.split())
_LEFT_OUT = STOPWORDS | _FUNCTION | _VAGUE


def _phrases(text: str) -> set[str]:
    # An acronym (LLMs, SFT) ends a phrase: "large language models (LLMs)" is one phrase.
    plain = _URL.sub(" ", text) if "://" in text or "www." in text else text  # the search only where it can match
    tokens = [w.lower() if not w.isupper() and not w[:-1].isupper() else "" for w in _WORD.findall(plain)]
    # Whether each word may be part of a phrase, decided once for the two- and three-word phrases it is in.
    fits = [len(w) >= 3 and w not in _LEFT_OUT for w in tokens]
    out: set[str] = set()
    for i in range(len(tokens) - 1):
        if fits[i] and fits[i + 1]:
            out.add(f"{tokens[i]} {tokens[i + 1]}")
            if i + 2 < len(tokens) and fits[i + 2]:
                out.add(f"{tokens[i]} {tokens[i + 1]} {tokens[i + 2]}")
    return out


def topics(texts: Iterable[str], most: int) -> list[tuple[str, int]]:
    """The `most` phrases the most texts use, each with how many use it, most used first (ties:
    alphabetical); phrases used by one text only are left out.

    Example: topics(["Safe reinforcement learning ...", "reinforcement learning for ..."], 3)
        -> [('reinforcement learning', 2)]
    """
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(_phrases(text))
    shared = {p: n for p, n in counts.items() if n >= 2}
    # "large language models" stands in for "large language" and "language models" when it has
    # most of their papers.
    for phrase, n in list(shared.items()):
        words = phrase.split()
        if len(words) == 3:
            for part in (" ".join(words[:2]), " ".join(words[1:])):
                if part in shared and n >= 0.6 * shared[part]:
                    shared[part] = 0
    ranked = sorted((p for p, n in shared.items() if n > 0), key=lambda p: (-shared[p], p))
    chosen: list[str] = []
    for phrase in ranked:
        if any(phrase in other or other in phrase for other in chosen):
            continue  # "reinforcement learning" and "safe reinforcement learning" are one topic
        chosen.append(phrase)
        if len(chosen) == most:
            break
    return [(p, shared[p]) for p in chosen]


def estimate(n: float) -> int:
    """A count estimated from a sample, to two significant figures. Example: estimate(41234.5) -> 41000"""
    return int(float(f"{n:.2g}")) if n >= 1 else 0
