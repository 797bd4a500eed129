"""Follow-up questions resolved against the previous answer, with no language model.

"tell me more about [2]", "compare [1] and [3]", "what about the second one?", "which of these
use MuJoCo?", "only the theoretical ones", "what datasets do they use?": `[n]`, ordinals, paper
labels and these/them/they become the previous answer's cited papers, and a short question that
continues the topic keeps it. The question is read once by bot.query; this module decides what
its references mean for the previous answer, rewrites it and names the papers to search among.
It does not search or compose.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.errors import QueryError
from bot.query import (
    ORDINALS,
    Query,
    asked_about,
    distinctive,
    label_position,
    name_this_one,
    parse,
    replace_collective,
    replace_singular,
    rewrite_references,
    without_comparison,
    without_label,
)
from bot.settings import RetrievalSettings
from bot.text.terms import query_words
from bot.text.wording import plural
from bot.types import Answer, Citation, Paper


@dataclass(frozen=True)
class Followup:
    """What to search for a question asked after `previous`: the standalone question and the papers."""

    question: str  # as asked
    standalone: str  # what is searched and shown; the question itself when it stands alone
    paper_ids: tuple[str, ...] = ()  # search only among these papers (empty: the whole corpus)
    kind: str = "new"  # new, paper (one paper), compare, papers, filter, continue or another
    # "another": papers besides these (the previous answer's) are searched for; bot.answer.service finds them.
    excluded: tuple[str, ...] = ()
    # Taken as a follow-up on a pronoun alone, after a few words of its own: a new search instead when
    # the question by itself is about other papers (bot.answer.service decides, with the relevance cut).
    tentative: bool = False


def resolve(
    question: str | Query, previous: Answer | None, settings: RetrievalSettings, known: Iterable[Paper] = ()
) -> Followup:
    """The standalone question and paper restriction for `question` asked after `previous`.

    A question that refers to no earlier paper continues the previous topic when it is short
    (`settings.continue_words`: "what about offline data?" has 2 content words).
    Example: resolve("compare [1] and [3]", answer citing Cal-SPI, ASCPO, CURE, settings)
        -> Followup(standalone='Compare Cal-SPI and CURE', paper_ids=(cal_spi_id, cure_id), kind='compare')
    """
    text = question.text if isinstance(question, Query) else question
    query = parse(" ".join(text.split()))  # the same parse when `question` came parsed and tidy
    question = query.text
    cited = {c.n: c.paper for c in sorted(previous.citations, key=lambda c: c.n)} if previous else {}
    papers = list(cited.values())
    _check_markers(query, list(cited))  # in citation order, as `cited` was built
    if previous is None or not papers:
        return Followup(question, question)
    topic = previous.standalone_question or previous.question
    if query.another and not query.citations and not query.ordinals:
        return _another(query, papers, topic, settings)
    # A question that names its own subject is a new search, whatever pronouns it uses: "... by
    # recording the undo action and playing it backwards?". A pronoun leans on the previous answer
    # when it comes before the question names anything ("how well does it hold up ...?") or the
    # question is very short ("does any real data back this up?"); bare ordinals ("the first step")
    # and labels count only in brief ones.
    lead = query.pronoun_lead
    brief = len(query.words) <= settings.pronoun_words
    leaning = lead is not None and (lead <= settings.pronoun_lead + 1 or brief)
    tentative = leaning and not brief and lead is not None and lead > settings.pronoun_lead and not query.pointing
    named, text = _references(question, cited, brief)
    collective = query.collective and (leaning or query.pointing)
    singular = query.singular and (leaning or query.pointing)
    refers = bool(named) or leaning or query.pointing or brief
    if singular and not collective and len(papers) > 1:
        # "it" after "What is CURE?" answered with both papers calling a method CURE: the one labelled so
        labelled = [p for p in papers if label_position(topic, p.label) is not None]
        papers = labelled if len(labelled) == 1 else papers
    if query.compares and refers:
        if len(papers) == 1 and singular:  # "compare it with ASCPO"
            named, text = [*named, *papers], replace_singular(text, papers[0].label)
        # Papers named by label that the previous answer did not cite ("compare [1] with CURE").
        others = [p for p in known if p.paper_id not in {n.paper_id for n in papers}]
        named = _in_order(text, named + [p for p in others if label_position(text, p.label) is not None])
    if query.compares and refers and (len(named) >= 2 or (not named and collective)):
        named = named or papers
        rest = without_comparison(text)
        for paper in named:
            rest = without_label(rest, paper.label)
        glue = {"and", "with", "to", "the", "between", "how", "do", "does", "can", "you", "please", "among"}
        rest = " ".join(w for w in rest.split() if w.lower().strip("?.,") not in glue).strip(" ?.,")
        extra = f" {rest}" if query_words(rest) else ""
        return Followup(question, f"Compare {_join([p.label for p in named])}{extra}", _ids(named), "compare")
    if named:
        kind = "paper" if len(named) == 1 else "papers"
        return Followup(question, _sentence(text), _ids(named), kind)
    if query.filter is not None:
        verb = "" if query.filter.asks_which else "are "
        return Followup(question, f"Which papers {verb}{query.filter.predicate}?", _ids(papers), "filter")
    if collective or (len(papers) == 1 and singular) or (leaning and not query.singular):
        one = papers[0].label
        rewritten = replace_collective(question, "these papers") if len(papers) > 1 else replace_singular(question, one)
        asked = _join_questions(topic, _sentence(rewritten))
        return Followup(question, asked, _ids(papers), "continue", tentative=tentative and not named)
    if query.continues and len(query.words) <= settings.continue_words:
        return Followup(question, _join_questions(topic, _sentence(question)), (), "continue")
    return Followup(question, question)


def _another(query: Query, papers: list[Paper], topic: str, settings: RetrievalSettings) -> Followup:
    """ "Is there another paper on grid safety, and how does it differ from this one?": the question searched
    with "this one" named, its earlier papers set aside; a question with few words of its own ("any other
    papers?") keeps the earlier topic.
    """
    text = name_this_one(query.text, papers[0].label) if len(papers) == 1 else query.text
    own = len(asked_about(text)) > settings.continue_words
    asked = text if own else _join_questions(topic, _sentence(text))
    return Followup(query.text, asked, (), "another", excluded=_ids(papers))


# A question of bracketed numbers and nothing else (stops and spaces aside): "[0]", "[-1]", "[1-3]".
_ONLY_BRACKETS = re.compile(r"[\s.,;:!?]*(?:\[[^\]\w]*(?:\d[^\]\w]*)+\][\s.,;:!?]*)+")


def _check_markers(query: Query, cited: list[int]) -> None:
    """A citation number like [3] points into the previous answer: it must have one to point at.

    `cited` holds the previous answer's citation numbers whose papers are still stored.
    Example: _check_markers(parse("compare [1] and [4]"), [1, 2, 3])
        raises "... cites [1], [2], [3]; there is no [4] ..."
    """
    numbers = query.citations
    if not numbers and _ONLY_BRACKETS.fullmatch(query.text):
        # "[0]", "[-1]", "[1-3]": a bracket and nothing to search for, yet not a citation this reads
        raise QueryError(
            f"{query.text!r} holds no words to search for and no citation this can follow up: citations are "
            "numbered from [1], one to a bracket ([1] or [1, 3], not [1-3]); ask a question in words, or refer "
            "to an earlier answer's [n]"
        )
    if not numbers:
        return
    if not cited:
        raise QueryError(
            f"{query.text!r} refers to citation [{numbers[0]}] of an earlier answer, but there is no earlier "
            "answer with citations to refer to; ask a question first, then follow it up"
        )
    missing = [n for n in numbers if n not in cited]
    if missing:
        have = ", ".join(f"[{n}]" for n in cited)
        gone = " (the others' papers are no longer stored)" if cited != list(range(1, len(cited) + 1)) else ""
        use = f"use {have}" if len(cited) == 1 else "use one of those numbers"
        raise QueryError(f"the previous answer cites {have}{gone}; there is no [{missing[0]}] in it, so {use}.")


def _references(question: str, cited: dict[int, Paper], short: bool = True) -> tuple[list[Paper], str]:
    """The previous answer's papers that `question` points at, and the question with each pointer
    replaced by the paper's label ("what does [3] propose?" -> "what does CURE propose?").

    `[n]` and "paper n" are citation numbers; "the second one" counts the cited papers in order (a
    bare ordinal, "the first", only in a `short` question); a label counts only when it is a name
    (`distinctive`), not a phrase that is also a topic. An ordinal past the last paper is an error.
    """
    papers = list(cited.values())
    found: list[Paper] = []

    def take(paper: Paper | None) -> Paper | None:
        if paper is not None:
            found.append(paper)
        return paper

    def by_marker(numbers: list[int]) -> str | None:
        chosen = [take(cited.get(n)) for n in numbers]
        return _join([p.label for p in chosen if p is not None]) or None

    def no_such(what: str) -> QueryError:
        have = ", ".join(f"[{n}] {p.label}" for n, p in cited.items())
        return QueryError(
            f"the previous answer cites {plural(len(papers))} ({have}); there is no {what}, "
            "so ask about one of those, or ask a new question"
        )

    def by_number(number: int) -> str | None:
        paper = take(cited.get(number))
        if paper is None and short and number > max(cited, default=0):  # "tell me about paper 9" after eight
            raise no_such(f"paper {number} in it")
        return paper.label if paper is not None else None

    def by_ordinal(index: int, noun: bool) -> str | None:
        if not (noun or short):
            return None
        if not -len(papers) <= index < len(papers):
            raise no_such(f"{_ordinal_word(index)} one")
        paper = take(papers[index])
        return paper.label if paper is not None else None

    text = rewrite_references(question, by_marker, by_number, by_ordinal)
    if short or found:  # "how does ASCPO differ from Cal-SPI?", "compare [1] with CURE"
        found += [p for p in papers if distinctive(p.label) and label_position(text, p.label) is not None]
    return _in_order(text, found), text


def _in_order(text: str, papers: list[Paper]) -> list[Paper]:
    """Papers once each, in the order the text names them ("how does ASCPO differ from Cal-SPI?")."""
    unique = list({p.paper_id: p for p in papers}.values())
    return sorted(unique, key=lambda p: at if (at := label_position(text, p.label)) is not None else len(text))


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
            raise QueryError(
                'each history citation needs a whole number "n" and a text "paper_id", as `ask --json` prints them'
            )
        n, paper_id = item["n"], item["paper_id"]
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise QueryError(f'a citation\'s "n" is {n!r:.40}; give its number, as `ask --json` does')
        if not isinstance(paper_id, str):
            raise QueryError(f'a citation\'s "paper_id" is {paper_id!r:.40}; give the id `ask --json` printed')
        if paper_id in papers:
            cited.append(Citation(n, papers[paper_id]))
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


def _ordinal_word(index: int) -> str:
    """Example: _ordinal_word(1) -> 'second'; _ordinal_word(-1) -> 'last'"""
    return next(word for word, at in ORDINALS.items() if at == index)
