"""The citation format shared by every answer path: `[n]` markers numbering cited papers.

Both the extractive composer and the language-model prompts use these definitions, so
there is one place that says what a citation looks like.
"""

from __future__ import annotations

import re

# Said whenever the corpus holds nothing about the question; code, prompts and tests share it.
ABSTAIN_MESSAGE = "I found nothing in these abstracts that answers this question."
NO_CITATIONS_MESSAGE = "The answer below cites no abstract, so it cannot be checked."

MARKER = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")


def marker(numbers: tuple[int, ...] | list[int]) -> str:
    """Example: marker([1, 3]) -> '[1, 3]'"""
    return "[" + ", ".join(str(n) for n in numbers) + "]"


def cite(sentence: str, numbers: tuple[int, ...] | list[int]) -> str:
    """`sentence` with its citation placed before the final punctuation.

    Example: cite("GRPO is unstable.", [2]) -> 'GRPO is unstable [2].'
    """
    body = sentence.rstrip()
    end = ""
    while body and body[-1] in ".!?":
        end = body[-1] + end
        body = body[:-1]
    return f"{body} {marker(numbers)}{end or '.'}"


def numbers_in(text: str) -> list[int]:
    """Every citation number in `text`, in order. Example: numbers_in("a [1] b [2, 3]") -> [1, 2, 3]"""
    return [int(n) for group in MARKER.findall(text) for n in group.split(",")]
