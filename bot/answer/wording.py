"""How chosen abstract sentences are written into an answer: in the third person, a long one cut at a
clause, a paragraph or one line per point under the paper's label, each sentence cited.

It writes; which sentences to write is bot.answer.picks's and bot.answer.compose's business.
"""

from __future__ import annotations

import re

from bot.answer.picks import Pick
from bot.text import citations
from bot.text.terms import tokenize
from bot.types import AnswerSentence, Hit

# First-person openers rewritten so sentences from several papers read as a summary.
_PRONOUNS = [
    # "Second, we propose ..." is one step of a list the answer does not show: drop the counter.
    (re.compile(r"^(?:First|Second|Third|Fourth|Finally|Lastly|Next)(?:ly)?,\s+(?=[Ww]e\b|[Oo]ur\b)"), ""),
    (re.compile(r"^(?:In this (?:paper|work),?\s+)?[Ww]e\b"), "The authors"),
    (re.compile(r"^(?:This|[Oo]ur) (?:paper|work)\b"), "The paper"),
    (re.compile(r"^[Oo]ur\b"), "Their"),
    (re.compile(r"\bwe\b"), "they"),
    (re.compile(r"\bour\b"), "their"),
    (re.compile(r"\bus\b"), "them"),
]
# A clause boundary where a long sentence can end ("..., which ...", "...: a, b and c").
_CLAUSE = re.compile(
    r"(?:,\s+(?:which|where|whereby|while|thereby|allowing|enabling|and thus|consisting|comprising)\b"
    r"|;\s+|:\s+|\s+[—–]\s+)"
)


def third_person(sentence: str) -> str:
    """Example: third_person("We propose X, our method.") -> 'The authors propose X, their method.'
    third_person("Second, we propose Y.") -> 'The authors propose Y.'"""
    out = sentence
    for pattern, repl in _PRONOUNS:
        out = pattern.sub(repl, out)
    return out


def paragraph(hit: Hit, chosen: list[Pick], n: int, most: int, asked: set[str]) -> tuple[str, list[AnswerSentence]]:
    """A paper's label in bold, then its chosen sentences, each cited; a sentence longer than `most`
    words ends at a clause boundary unless the rest says what was `asked` (index terms) and the
    start does not. Example: '**X**: The authors ... [1].'"""

    parts = [
        AnswerSentence(shorten(third_person(p.sentence.text), most, asked), (n,), p.sentence.source) for p in chosen
    ]
    text = " ".join(citations.cite(p.text, p.citations) for p in parts)
    return f"**{hit.paper.label}**: {text}", parts


def shorten(text: str, most: int, asked: set[str], longest: int | None = None) -> str:
    """`text` cut at a clause boundary when longer than `most` words (`clause`), unless the part cut off
    says what was `asked` (index terms) and the start does not, and the whole has at most `longest`
    words (any number when None): in "Offline learning from noisy trajectories is fundamentally hard:
    ... the sample complexity must grow exponentially", asked about sample complexity, the answer is
    after the colon.

    Example: shorten("X is hard: the sample complexity grows exponentially ...", 4, {"sampl"}) -> the whole text
    """
    cut = clause(text, most)
    said = set(tokenize(cut))
    fits = longest is None or len(text.split()) <= longest
    return text if cut != text and fits and (set(tokenize(text)) - said) & asked else cut


def clause(sentence: str, most: int) -> str:
    """A long sentence cut at its first clause boundary after a few words, for a list; short ones whole.

    Example: clause("The authors propose X, which does Y and Z.", 4) -> 'The authors propose X.'
    """
    if len(sentence.split()) <= most:
        return sentence
    for match in _CLAUSE.finditer(sentence):
        head = sentence[: match.start()].rstrip(" ,;")
        if len(head.split()) >= 8:
            return head + "."
    return sentence


def points(hit: Hit, roles: list[tuple[str, Pick]], n: int) -> tuple[str, list[AnswerSentence]]:
    """A paper's label, then one cited line per role. Example: '**X**\n- Problem: ... [1].'"""
    parts = [AnswerSentence(third_person(p.sentence.text), (n,), p.sentence.source) for _, p in roles]
    lines: list[str] = []
    for index, ((role, _), part) in enumerate(zip(roles, parts, strict=True)):
        cited = citations.cite(part.text, part.citations)
        if index and roles[index - 1][0] == role:
            lines[-1] += " " + cited  # two sentences of one role in a row: one line
        else:
            lines.append(f"- {role}: {cited}")
    return "\n".join([f"**{hit.paper.label}**", *lines]), parts
