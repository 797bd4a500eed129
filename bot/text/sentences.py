"""Sentence splitting tuned for scientific abstracts.

Knows abbreviations ("e.g.", "et al.", "Fig."), decimals ("0.95") and initials, so that
"We reach 3.5 points, e.g. on MMLU." stays one sentence. It does not tokenise words.
"""

from __future__ import annotations

import re

from bot.types import Paper

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
# A stop that ends a line ends its sentence, whatever comes next ("... [1].\n- Method: ...").
_LINE_END = re.compile(r"([.!?:][\"')\]]*)[ \t]*\n")
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


def pieces(text: str) -> list[str]:
    """`text` cut where `split` ends sentences, and at each line ending a sentence, keeping every
    character, so the pieces join back into `text` exactly (each piece after the first starts with
    the whitespace before its sentence): how an answer is streamed sentence by sentence.

    Example: pieces("We use e.g. GRPO [1]. It works [2].") -> ['We use e.g. GRPO [1].', ' It works [2].']
    """
    cuts = {m.end(1) for m in _END.finditer(text)} | {m.end(1) for m in _LINE_END.finditer(text)}
    out: list[str] = []
    start = 0
    for end in sorted(cuts):
        rest = text[end:]
        at_line_end = "\n" in rest[: len(rest) - len(rest.lstrip())]
        if not at_line_end and _ends_with_abbreviation(" ".join(text[start:end].split())):
            continue
        out.append(text[start:end])
        start = end
    out.append(text[start:])
    return [p for p in out if p]


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


def paper_sentences(paper: Paper) -> list[str]:
    """The paper's sentences as answers read and embed them (bot.answer.picks) and `ingest --sentences`
    keeps their vectors (ingest.sentences): its display text, split."""
    return split(paper.display)


def compared(paper: Paper) -> list[str]:
    """What an answer's sentence citing the paper is compared with (bot.answer.check), every text of it an
    answer embeds and `ingest --sentences` keeps: its title, when it has one, and its sentences."""
    return ([paper.title] if paper.title else []) + paper_sentences(paper)
