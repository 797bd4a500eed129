"""The citation format shared by every answer path, and the one place that reads citation markers.

Answers number their cited papers with `[n]` markers (`[1, 3]` for two). Language models write
them more loosely (`[Abstract 2]`, `[1-3]`, `[paper 1; 4]`), after the full stop, or opening a
line; those are put in the shared form here. A bracket pair such as "[0, 1]" is often
mathematics, not a citation: the interval rule below says which. This module finds and rewrites
markers; it does not decide which papers they name or whether those papers support the text
(bot.answer.check does).
"""

from __future__ import annotations

import re

# Said whenever the corpus holds nothing about the question; code, prompts and tests share it.
ABSTAIN_MESSAGE = "I found nothing in these abstracts that answers this question."
NO_CITATIONS_MESSAGE = "The answer below cites no abstract, so it cannot be checked."
# What an answer that finds nothing says instead of citing papers: what the corpus is about.
_OVERVIEW = "abstracts here are mostly about"


def overview(papers: int, about: str) -> str:
    """The sentence saying what the corpus is about. Example: overview(53, "RL (25 papers)")
    -> 'The 53 abstracts here are mostly about RL (25 papers).'"""
    return f"The {papers} {_OVERVIEW} {about}." if papers else f"The {_OVERVIEW} {about}."


def is_overview(text: str) -> bool:
    """Whether `text` is the sentence `overview` writes (it describes the corpus, not a finding)."""
    return _OVERVIEW in text and text.startswith("The ")


_NUMBERS = r"\d+(?:\s*,\s*\d+)*"  # "2" or "1, 3"
# The strict marker answers are written with: "[2]", "[1, 3]"; group 1 holds the numbers.
MARKER = re.compile(rf"\[({_NUMBERS})\]")
# A strict marker group after the sentence's stop ("It works. [2]") belongs before it.
_MARKERS_AFTER_STOP = re.compile(rf"([.!?])((?:\s*\[{_NUMBERS}\])+)")
# The markers that close a sentence, before its final punctuation: "It works [1] [2]."
_TRAILING_MARKERS = re.compile(rf"\s*\[{_NUMBERS}\]\s*(?=[.!?]*$)")
# What follows a sentence's words in an answer: its markers, then its stop ("[1] [2].").
_MARKERS_THEN_STOP = re.compile(rf"(?:\s*\[{_NUMBERS}\])*[.!?]*")
_AFTER_BRACKET = re.compile(r"(?<=\])")
# Words before a pair of numbers in brackets that make it an interval: "in [0, 1]", "range [1, 10]".
_INTERVAL_WORDS = ("in", "within", "range", "to")

# Markers as models write them: [2], [1, 3], [1-3], [Abstract 2], [paper 1; 4].
_LOOSE_MARKER = re.compile(
    r"\[\s*(?:(?:abstract|paper|ref\.?|source)\s*)?(\d+(?:\s*(?:[,;]|-|–|and)\s*(?:(?:abstract|paper)\s*)?\d+)*)\s*\]",
    re.IGNORECASE,
)
# A loose marker written after the full stop ("... works. [2]") belongs to the sentence before it.
_LOOSE_AFTER_STOP = re.compile(rf"([.!?])((?:[ \t]*{_LOOSE_MARKER.pattern})+)", re.IGNORECASE)
# Small models echo the prompt's entries ("[2] TideBench: We introduce ..."): the marker opens the line.
_LOOSE_OPENS_LINE = re.compile(
    rf"^([ \t]*(?:[-*][ \t]+)?)({_LOOSE_MARKER.pattern})[ \t]*[:.]?[ \t]*(\S.*?)([.!?]?)[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)
_LOOSE_SEPARATOR = re.compile(r"\s*(?:[,;]|and)\s*")
_DIGITS = re.compile(r"\d+")
# "[1-3]" is the run 1, 2, 3; a longer "run" ("[1-25]") is more likely a typo than 25 citations.
_LONGEST_RUN = 20


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


def marker_numbers(match: re.Match[str]) -> list[int]:
    """The numbers of one MARKER match. Example: the match of "[1, 3]" -> [1, 3]"""
    return [int(n) for n in match.group(1).split(",")]


def is_citation(match: re.Match[str]) -> bool:
    """Whether a MARKER match in a question can only be a citation: "[0, 1]", "in [1, 10]" or
    "range [2, 4]" are intervals (mathematics), and no citation is numbered 0.

    Example: is_citation(MARKER.search("lr in [1, 10]")) -> False
    """
    values = marker_numbers(match)
    before = match.string[: match.start()].rstrip().lower()
    interval = len(values) == 2 and values[0] < values[1] and before.endswith(_INTERVAL_WORDS)
    return 0 not in values and not interval


def citation_numbers(text: str) -> list[int]:
    """The numbers of the `[n]` markers in `text` that can only be citations (see `is_citation`).

    Example: citation_numbers("compare [1] and [3] on rewards in [0, 1]") -> [1, 3]
    """
    return [n for match in MARKER.finditer(text) if is_citation(match) for n in marker_numbers(match)]


def markers_before_stop(text: str) -> str:
    """Strict markers written after a sentence's stop moved before it.

    Example: markers_before_stop("It works. [2] Yes.") -> 'It works [2]. Yes.'
    """
    return _MARKERS_AFTER_STOP.sub(r"\2\1", text)


def without_trailing_markers(sentence: str) -> str:
    """`sentence` without the markers that close it (those inside it stay).

    Example: without_trailing_markers("A [1] and B [2].") -> 'A [1] and B.'
    """
    return _TRAILING_MARKERS.sub("", sentence)


def markers_and_stop(text: str) -> int:
    """How many characters at the start of `text` are markers and closing punctuation.

    Example: markers_and_stop(" [1] [2]. Next") -> 9
    """
    found = _MARKERS_THEN_STOP.match(text)
    return found.end() if found else 0


def split_after_brackets(text: str) -> list[str]:
    """`text` cut after each closing bracket, so each piece ends with its markers.

    Example: split_after_brackets("A [1]; B [2].") -> ['A [1]', '; B [2]', '.']
    """
    return _AFTER_BRACKET.split(text)


def canonical_markers(text: str) -> str:
    """Markers as models write them put in the shared form, before the sentence's full stop.

    Example: canonical_markers("It works. [Abstract 1-2] Yes [3; 5].") -> 'It works [1, 2]. Yes [3, 5].'
    Example: canonical_markers("[2] TideBench: It forecasts tides.") -> 'TideBench: It forecasts tides [2].'
    """
    text = _LOOSE_OPENS_LINE.sub(lambda m: f"{m.group(1)}{m.group(4)} {m.group(2)}{m.group(5)}", text)
    moved = _LOOSE_AFTER_STOP.sub(lambda m: f" {m.group(2).strip()}{m.group(1)}", text)
    return _LOOSE_MARKER.sub(lambda m: marker(list(dict.fromkeys(loose_numbers(m.group(0))))), moved)


def loose_numbers(text: str) -> list[int]:
    """The numbers of every loosely written marker in `text`, runs spelled out.

    Example: loose_numbers("X [1-3] and [Abstract 5].") -> [1, 2, 3, 5]
    """
    out: list[int] = []
    for group in _LOOSE_MARKER.findall(text):
        for part in _LOOSE_SEPARATOR.split(group):
            bounds = [int(x) for x in _DIGITS.findall(part)]
            if len(bounds) == 2 and 0 < bounds[1] - bounds[0] < _LONGEST_RUN:
                out.extend(range(bounds[0], bounds[1] + 1))
            else:
                out.extend(bounds)
    return out
