"""Follow-up questions resolved against the previous answer, with no language model.

"tell me more about [2]", "compare [1] and [3]", "what about the second one?", "which of these
use MuJoCo?", "only the theoretical ones", "what datasets do they use?": `[n]`, ordinals, paper
labels and these/them/they become the previous answer's cited papers, and a short question that
continues the topic keeps it. It rewrites the question and names the papers to search among; it
does not search or compose.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.errors import QueryError
from bot.text.citations import MARKER, citation_numbers, is_citation, marker_numbers
from bot.text.terms import query_words
from bot.types import Answer, Citation, Paper


@dataclass(frozen=True)
class Followup:
    """What to search for a question asked after `previous`: the standalone question and the papers."""

    question: str  # as asked
    standalone: str  # what is searched and shown; the question itself when it stands alone
    paper_ids: tuple[str, ...] = ()  # search only among these papers (empty: the whole corpus)
    kind: str = "new"  # new, paper (one paper), compare, papers, filter or continue


_ORDINALS = {
    "first": 0,
    "1st": 0,
    "second": 1,
    "2nd": 1,
    "third": 2,
    "3rd": 2,
    "fourth": 3,
    "4th": 3,
    "fifth": 4,
    "5th": 4,
    "sixth": 5,
    "6th": 5,
    "last": -1,
}
_ORDINAL = re.compile(
    r"\b(?:the\s+)?(" + "|".join(_ORDINALS) + r")(?:\s+(?:one|paper|abstract|result|work|study|item|citation))?\b",
    re.IGNORECASE,
)
_PAPER_NUMBER = re.compile(r"\b(?:paper|abstract|reference|citation|source|number|no\.|#)\s*#?(\d+)\b", re.IGNORECASE)
_COLLECTIVE = re.compile(
    r"\b(?:(?:all\s+)?(?:these|those)(?:\s+(?:papers|abstracts|works|studies|ones|methods))?|them|they|their|"
    r"the above|the papers|the abstracts|each of them|both)\b",
    re.IGNORECASE,
)
_SINGULAR = re.compile(r"\b(?:this|that)\s+(?:paper|one|abstract|work|method)\b|\bit(?:s)?\b", re.IGNORECASE)
_COMPARE = re.compile(r"\b(?:compare|comparison|contrast|differ\w*|versus|vs\.?)\b", re.IGNORECASE)
_FILTER = re.compile(
    r"^\s*(?:(?:and|so|ok,?)\s+)?(?:which|what)\s+(?:ones?|of\s+(?:these|those|them)(?:\s+papers)?|among\s+(?:these|them))"
    r"\s+(.*)$|^\s*(?:(?:and|so)\s+)?(?:only|just)\s+(?:the\s+)?(.*?)\s*(?:ones?|papers?|works?)?\s*[?.!]*$",
    re.IGNORECASE,
)
# Short openers that continue the previous topic: "what about offline data?", "and for robots?"
_CONTINUE = re.compile(
    r"^\s*(?:what|how)\s+about\b|^\s*(?:and|also|but|so)\b|^\s*(?:what|anything)\s+else\b|^\s*(?:why|how)\s*\??\s*$"
    r"|^\s*more\s+(?:on|about)\b|^\s*tell me more\b",
    re.IGNORECASE,
)


def resolve(question: str, previous: Answer | None, known: Sequence[Paper] = ()) -> Followup:
    """The standalone question and paper restriction for `question` asked after `previous`.

    Example: resolve("compare [1] and [3]", answer citing Cal-SPI, ASCPO, CURE)
        -> Followup(standalone='Compare Cal-SPI and CURE', paper_ids=(cal_spi_id, cure_id), kind='compare')
    """
    question = " ".join(question.split())
    cited = {c.n: c.paper for c in sorted(previous.citations, key=lambda c: c.n)} if previous else {}
    papers = list(cited.values())
    _check_markers(question, list(cited))  # in citation order, as `cited` was built
    if previous is None or not papers:
        return Followup(question, question)
    topic = previous.standalone_question or previous.question
    named, text = _references(question, cited)
    if _COMPARE.search(question):
        if len(papers) == 1 and _SINGULAR.search(question):  # "compare it with ASCPO"
            named, text = [*named, *papers], _singular(text, papers[0])
        # Papers named by label that the previous answer did not cite ("compare [1] with CURE").
        others = [p for p in known if p.paper_id not in {n.paper_id for n in papers}]
        named = _in_order(text, named + [p for p in others if _label_at(text.lower(), p) is not None])
    if _COMPARE.search(question) and (len(named) >= 2 or (not named and _COLLECTIVE.search(question))):
        named = named or papers
        rest = _COMPARE.sub(" ", _COLLECTIVE.sub(" ", text))
        for paper in named:
            rest = re.sub(rf"(?<![\w-]){re.escape(paper.label)}(?![\w-])", " ", rest, flags=re.IGNORECASE)
        glue = {"and", "with", "to", "the", "between", "how", "do", "does", "can", "you", "please", "among"}
        rest = " ".join(w for w in rest.split() if w.lower().strip("?.,") not in glue).strip(" ?.,")
        extra = f" {rest}" if query_words(rest) else ""
        return Followup(question, f"Compare {_join([p.label for p in named])}{extra}", _ids(named), "compare")
    if named:
        kind = "paper" if len(named) == 1 else "papers"
        return Followup(question, _sentence(text), _ids(named), kind)
    filtered = _FILTER.match(question)
    if filtered:
        predicate = (filtered.group(1) or "").strip(" ?.!") or (filtered.group(2) or "").strip(" ?.!")
        if query_words(predicate):
            verb = "" if filtered.group(1) else "are "
            return Followup(question, f"Which papers {verb}{predicate}?", _ids(papers), "filter")
    if _COLLECTIVE.search(question) or (len(papers) == 1 and _SINGULAR.search(question)):
        rewritten = _COLLECTIVE.sub("these papers", question) if len(papers) > 1 else _singular(question, papers[0])
        return Followup(question, _join_questions(topic, _sentence(rewritten)), _ids(papers), "continue")
    if _CONTINUE.search(question) and len(query_words(question)) <= 6:
        return Followup(question, _join_questions(topic, _sentence(question)), (), "continue")
    return Followup(question, question)


def _check_markers(question: str, cited: list[int]) -> None:
    """A citation number like [3] points into the previous answer: it must have one to point at.

    `cited` holds the previous answer's citation numbers whose papers are still stored.
    Example: _check_markers("compare [1] and [4]", [1, 2, 3]) raises "... cites [1], [2], [3]; there is no [4] ..."
    """
    numbers = citation_numbers(question)
    if not numbers:
        return
    if not cited:
        raise QueryError(
            f"{question!r} refers to citation [{numbers[0]}] of an earlier answer, but there is no earlier "
            "answer with citations to refer to; ask a question first, then follow it up"
        )
    missing = [n for n in numbers if n not in cited]
    if missing:
        have = ", ".join(f"[{n}]" for n in cited)
        gone = " (the others' papers are no longer stored)" if cited != list(range(1, len(cited) + 1)) else ""
        use = f"use {have}" if len(cited) == 1 else "use one of those numbers"
        raise QueryError(f"the previous answer cites {have}{gone}; there is no [{missing[0]}] in it, so {use}.")


def _references(question: str, cited: dict[int, Paper]) -> tuple[list[Paper], str]:
    """The previous answer's papers that `question` points at, and the question with each pointer
    replaced by the paper's label ("what does [3] propose?" -> "what does CURE propose?").

    `[n]` and "paper n" are citation numbers; "the second one" counts the cited papers in order.
    """
    papers = list(cited.values())
    found: list[Paper] = []

    def take(paper: Paper | None) -> Paper | None:
        if paper is not None:
            found.append(paper)
        return paper

    def by_marker(match: re.Match[str]) -> str:
        if not is_citation(match):
            return match.group(0)
        chosen = [take(cited.get(n)) for n in marker_numbers(match)]
        return _join([p.label for p in chosen if p is not None]) or match.group(0)

    def by_ordinal(match: re.Match[str]) -> str:
        index = _ORDINALS[match.group(1).lower()]
        paper = take(papers[index] if -len(papers) <= index < len(papers) else None)
        return paper.label if paper is not None else match.group(0)

    def by_number(match: re.Match[str]) -> str:
        paper = take(cited.get(int(match.group(1))))
        return paper.label if paper is not None else match.group(0)

    text = MARKER.sub(by_marker, question)
    text = _PAPER_NUMBER.sub(by_number, text)
    text = _ORDINAL.sub(by_ordinal, text)
    lowered = text.lower()
    found += [p for p in papers if _label_at(lowered, p) is not None]
    return _in_order(text, found), text


def _label_at(lowered: str, paper: Paper) -> int | None:
    """Where `paper`'s label is written in the lower-cased text, if it is (labels under 3 letters never are)."""
    label = paper.label.lower()
    match = re.search(rf"(?<![\w-]){re.escape(label)}(?![\w-])", lowered) if len(label) >= 3 else None
    return match.start() if match else None


def _in_order(text: str, papers: list[Paper]) -> list[Paper]:
    """Papers once each, in the order the text names them ("how does ASCPO differ from Cal-SPI?")."""
    unique = list({p.paper_id: p for p in papers}.values())
    lowered = text.lower()
    return sorted(unique, key=lambda p: at if (at := _label_at(lowered, p)) is not None else len(text))


def _singular(question: str, paper: Paper) -> str:
    """Example: _singular("how does it work?", cure) -> 'how does CURE work?'"""
    return _SINGULAR.sub(lambda m: f"{paper.label}'s" if m.group(0).lower() == "its" else paper.label, question, 1)


def _join_questions(topic: str, question: str) -> str:
    """Example: _join_questions("How is RL made safe?", "What datasets do these papers use?")
    -> 'How is RL made safe? What datasets do these papers use?'"""
    topic = topic.strip()
    return f"{topic}{'' if topic.endswith(('?', '.', '!')) else '.'} {question}"


def _sentence(text: str) -> str:
    """Example: _sentence("what does CURE propose?") -> 'What does CURE propose?'"""
    text = text.strip()
    return text[:1].upper() + text[1:] if text else text


def _join(labels: list[str]) -> str:
    """Example: _join(["A", "B", "C"]) -> 'A, B and C'"""
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1] if labels else ""


def _ids(papers: list[Paper]) -> tuple[str, ...]:
    return tuple(p.paper_id for p in papers)


def previous_answer(turns: Sequence[Any], papers: Mapping[str, Paper]) -> Answer | None:
    """The last turn of a saved conversation as the Answer follow-ups resolve against.

    A turn is an `ask --json` object, or {"question": ..., "answer": <ask --json object>}; cited
    papers are looked up by paper_id among `papers` (ones no longer stored are left out).
    Example: previous_answer([{"question": "q", "citations": [{"n": 1, "paper_id": "p1", ...}]}], papers)
    """
    if not turns:
        return None
    last = turns[-1]
    data = last.get("answer") if isinstance(last, dict) and isinstance(last.get("answer"), dict) else last
    if (
        not isinstance(data, dict)
        or not any(key in data for key in ("question", "answer", "citations"))
        or not isinstance(data.get("citations", []), list)
    ):
        raise QueryError(
            'each history turn must be an `ask --json` object or {"question": ..., "answer": <ask --json object>}'
        )
    cited: list[Citation] = []
    for item in data.get("citations", []):
        if not isinstance(item, dict) or "n" not in item or "paper_id" not in item:
            raise QueryError('each history citation needs "n" and "paper_id", as `ask --json` prints them')
        if item["paper_id"] in papers:
            cited.append(Citation(int(item["n"]), papers[item["paper_id"]]))
    question = str(data.get("question") or (last.get("question") if isinstance(last, dict) else "") or "")
    standalone = data.get("standalone_question")
    return Answer(
        question=question,
        markdown=str(data.get("answer", "")) if isinstance(data.get("answer", ""), str) else "",
        abstained=bool(data.get("abstained", False)),
        citations=tuple(cited),
        sentences=(),
        standalone_question=str(standalone) if standalone else None,
    )
