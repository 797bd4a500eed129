"""Sentence splitting tuned for scientific abstracts.

Knows abbreviations ("e.g.", "et al.", "Fig."), decimals ("0.95") and initials, so that
"We reach 3.5 points, e.g. on MMLU." stays one sentence. It does not tokenise words.
"""

from __future__ import annotations

import re

# Words after which a period does not end a sentence.
_ABBREVIATIONS = {
    "e.g",
    "i.e",
    "etc",
    "et al",
    "al",
    "fig",
    "figs",
    "eq",
    "eqs",
    "vs",
    "cf",
    "approx",
    "resp",
    "sec",
    "tab",
    "no",
    "dr",
    "prof",
    "ref",
    "refs",
    "viz",
    "ca",
    "incl",
    "st",
}
_END = re.compile(r"""([.!?]["')\]]*)\s+(?=["'(\[]?[A-Z0-9\u0370-\u03ff*$\\])""")


def split(text: str) -> list[str]:
    """Sentences of `text`, whitespace-trimmed, none empty.

    Example: split("We use e.g. GRPO. It works.") -> ['We use e.g. GRPO.', 'It works.']
    """
    text = " ".join(text.split())
    if not text:
        return []
    sentences: list[str] = []
    start = 0
    for match in _END.finditer(text):
        end = match.end(1)
        candidate = text[start:end]
        if _ends_with_abbreviation(candidate):
            continue
        sentences.append(candidate.strip())
        start = match.end()
    tail = text[start:].strip()
    if tail:
        sentences.append(tail)
    return [s for s in sentences if s]


def _ends_with_abbreviation(candidate: str) -> bool:
    if not candidate.endswith("."):
        return False
    words = candidate[:-1].rsplit(None, 2)
    if not words:
        return False
    last = words[-1].lower().lstrip("(")
    two = " ".join(w.lower() for w in words[-2:])
    if last in _ABBREVIATIONS or two in _ABBREVIATIONS:
        return True
    # A single capital letter is an initial ("J. Smith"), not the end of a sentence.
    return len(last) == 1 and last.isalpha()
