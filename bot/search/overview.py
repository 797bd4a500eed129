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


def _phrases(text: str) -> set[str]:
    # An acronym (LLMs, SFT) ends a phrase: "large language models (LLMs)" is one phrase.
    tokens = [w.lower() if not w.isupper() and not w[:-1].isupper() else "" for w in _WORD.findall(_URL.sub(" ", text))]
    out: set[str] = set()
    for n in (2, 3):
        for i in range(len(tokens) - n + 1):
            gram = tokens[i : i + n]
            if any(not w or w in STOPWORDS or w in _FUNCTION or w in _VAGUE or len(w) < 3 for w in gram):
                continue
            out.add(" ".join(gram))
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
