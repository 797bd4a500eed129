"""Citation checking for every answer path: does each answer sentence say what its cited abstracts say?

Local and deterministic (no network, no language model): a sentence's support for one cited paper
is a weighted sum of its MiniLM similarity to the abstract's best-matching sentence and the share of
its content words the abstract contains; every citation must hold, and every number it states must
be in the abstract. Markers to papers that are not listed (or were not retrieved) are removed and
the rest renumbered 1..k. It does not compose or search. See docs/citations.md.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace

import numpy as np

from bot.settings import CheckSettings
from bot.text import citations as cites
from bot.text import sentences as splitter
from bot.text.terms import tokenize
from bot.types import Answer, AnswerSentence, Citation, Paper

Embed = Callable[[list[str]], np.ndarray]

# Words that frame a summary sentence rather than carry its content ("The authors propose ...").
_FRAMING = frozenset(
    [
        *tokenize("author authors paper papers abstract abstracts nearest work works study studies approach method"),
        *["present", "introduc", "show", "also", "new", "novel"],
    ]
)
# Numbers standing alone ("13%", "10.8", "2025"), not inside names such as Qwen3-8B.
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w])|(?<![\w.])\d+(?:\.\d+)?(?=[%x×])")
# "one" is left out: "one-step", "one of" say no number.
_WORDS = ["two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"]
_NUMBER_WORDS = {w: str(i) for i, w in enumerate(_WORDS, start=2)}
_NUMBER_WORDS |= {"twice": "2", "hundred": "100", "thousand": "1000"}
_LETTERS = re.compile(r"[a-z]+")
# Markdown around an answer's sentences: list bullets, headings, a bold lead-in ("**CURE**: ...").
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_HEADING = re.compile(r"^\s*(?:#+\s.*|\*\*[^*]+\*\*:?)\s*$")
_BOLD_LEAD = re.compile(r"^\*\*[^*]+\*\*:\s*")
# Spaces a removed marker leaves: before punctuation, or two in a row.
_SPACE_BEFORE_STOP = re.compile(r"\s+([.,;:!?])")
_SPACES = re.compile(r"[ \t]{2,}")


@dataclass(frozen=True)
class CheckedAnswer:
    """An answer text after checking: markers cleaned and renumbered, each sentence judged."""

    markdown: str
    citations: tuple[Citation, ...]
    sentences: tuple[AnswerSentence, ...]
    removed: tuple[int, ...] = ()  # citation numbers that named no listed, retrieved paper


def content_terms(text: str) -> list[str]:
    """Stemmed content words of `text`, framing words dropped.

    Example: content_terms("The authors propose Cal-SPI [1].") -> ['cal-spi', 'cal', 'spi']
    """
    plain = cites.MARKER.sub(" ", text)
    return list(dict.fromkeys(t for t in tokenize(plain) if t not in _FRAMING))


def numbers(text: str) -> set[str]:
    """Numbers stated in `text`, number words as digits. Example: numbers("two of 3.5% in Qwen3") -> {'2', '3.5'}"""
    plain = cites.MARKER.sub(" ", text)
    found = set(_NUMBER.findall(plain))
    found |= {_NUMBER_WORDS[w] for w in _LETTERS.findall(plain.lower()) if w in _NUMBER_WORDS}
    return found


def makes_no_claim(text: str) -> bool:
    """Sentences that frame an answer rather than state a finding: abstention, headings, empty words.

    Example: makes_no_claim("3 papers in the corpus match:") -> True
    """
    stripped = text.strip()
    if stripped in (cites.ABSTAIN_MESSAGE, cites.NO_CITATIONS_MESSAGE) or stripped.endswith(":"):
        return True
    if cites.is_overview(stripped):
        return True
    return not content_terms(stripped)


class Checker:
    """Scores sentences against papers, embedding each paper's sentences once per check."""

    def __init__(self, embed: Embed, settings: CheckSettings | None = None) -> None:
        self._embed = embed
        self._settings = settings or CheckSettings.model_validate({})

    def support(self, claim: str, paper: Paper) -> float:
        """0..1: how well `paper` backs `claim`. Example: support("Cal-SPI works in MuJoCo.", cal_spi) -> 0.8"""
        return self._scores([(claim, paper)])[0]

    def _scores(self, pairs: list[tuple[str, Paper]], sources: dict[tuple[str, str], str] | None = None) -> list[float]:
        """Each claim's support from its paper. A (claim, paper id) in `sources` was taken from that sentence:
        when the sentence is one of that paper's abstract (a rewording: "We propose X" -> "The authors propose
        X", cut at a clause), the claim is compared as that sentence, whose vector every answer has made
        already, not embedded anew; otherwise (cited to another paper) as written."""
        if not pairs:
            return []
        papers = {p.paper_id: p for _, p in pairs}
        units = {pid: splitter.compared(p) for pid, p in papers.items()}  # the title and each sentence
        sources = sources or {}

        def embedded_as(claim: str, pid: str) -> str:
            source = sources.get((claim, pid))
            return source if source is not None and source in units[pid] else claim

        said = [embedded_as(c, p.paper_id) for c, p in pairs]  # what each pair's claim is embedded as
        # A claim that is one of its paper's sentences is as close to the paper as a text can be (its best
        # match is itself: similarity 1), so only papers with a claim of other words are embedded: a list's
        # ten papers' titles and sentences cost an extractive answer nothing.
        apart = [(text, p.paper_id) for (_, p), text in zip(pairs, said, strict=True) if text not in units[p.paper_id]]
        claims = list(dict.fromkeys(text for text, _ in apart))
        compared = list(dict.fromkeys(pid for _, pid in apart))
        texts = claims + [u for pid in compared for u in units[pid]]
        vectors = self._embed(texts) if texts else np.zeros((0, 0), dtype=np.float32)
        claim_vec = dict(zip(claims, vectors[: len(claims)], strict=True))
        paper_vecs: dict[str, np.ndarray] = {}
        start = len(claims)
        for pid in compared:
            paper_vecs[pid] = vectors[start : start + len(units[pid])]
            start += len(units[pid])
        weight = self._settings.dense_weight
        known = {pid: set(tokenize(f"{p.title or ''} {p.display}")) for pid, p in papers.items()}
        out = []
        for (claim, paper), text in zip(pairs, said, strict=True):
            pid = paper.paper_id
            if text in units[pid]:
                dense = 1.0
            else:
                dense = float(np.max(paper_vecs[pid] @ claim_vec[text])) if len(units[pid]) else 0.0
            terms = content_terms(claim)
            lexical = sum(t in known[pid] for t in terms) / len(terms) if terms else 0.0
            # e.g. similarity 0.78 to its best sentence, 5 of 6 words found: 0.5*0.78 + 0.5*0.83 = 0.81
            out.append(round(max(0.0, weight * dense + (1 - weight) * lexical), 4))
        return out

    def sentences(
        self, parts: Sequence[AnswerSentence], citations: Sequence[Citation], retrieved: Collection[str] | None = None
    ) -> tuple[AnswerSentence, ...]:
        """Each sentence judged against the papers it cites; numbers naming no listed paper are dropped."""
        listed = _listed(citations, retrieved)
        jobs: list[tuple[int, list[tuple[str, tuple[int, ...]]]]] = []
        out: list[AnswerSentence] = []
        for i, part in enumerate(parts):
            valid = tuple(n for n in part.citations if n in listed)
            bad = [n for n in part.citations if n not in listed]
            text = _drop_numbers(part.text, set(bad)) if bad else part.text
            checked = replace(part, text=text, citations=valid)
            if not valid:
                if makes_no_claim(text):
                    out.append(replace(checked, supported=True, support=None, reason="makes no claim about the papers"))
                else:
                    why = f"cites {cites.marker(bad)}, which names no retrieved paper" if bad else "cites no abstract"
                    out.append(replace(checked, supported=False, support=0.0, reason=f"states a finding but {why}"))
                continue
            out.append(checked)
            jobs.append((i, _clauses(text, valid)))
        pairs = [(claim, listed[n]) for _, clauses in jobs for claim, ns in clauses for n in ns]
        scores = iter(self._scores(pairs, _taken(parts, jobs, listed)))
        threshold = self._settings.supported_at
        for i, clauses in jobs:
            worst: tuple[float, int] | None = None
            missing: list[str] = []
            for claim, ns in clauses:
                for n in ns:
                    value = next(scores)
                    worst = (value, n) if worst is None or value < worst[0] else worst
                # A number needs to be in one of the papers the clause cites, not in all of them.
                have = set().union(*(numbers(f"{listed[n].title or ''} {listed[n].text}") for n in ns))
                missing += [f"{x} (not in {cites.marker(list(ns))})" for x in sorted(numbers(claim) - have)]
            assert worst is not None
            value, n = worst
            if missing:
                reason = "states numbers its citation does not: " + ", ".join(dict.fromkeys(missing))
            elif value < threshold:
                reason = f"{cites.marker([n])} does not support it (support {value:.2f} < {threshold:.2f})"
            else:
                reason = ""
            out[i] = replace(out[i], supported=not reason, support=value, reason=reason)
        return tuple(out)


def check_answer(answer: Answer, embed: Embed, settings: CheckSettings | None = None) -> Answer:
    """`answer` with every sentence checked, bad markers removed and citations renumbered 1..k.

    Papers not among `answer.hits` (when it has hits) count as not listed: nothing unretrieved is cited.
    """
    retrieved = {h.paper.paper_id for h in answer.hits} if answer.hits else None
    checked = Checker(embed, settings).sentences(answer.sentences, answer.citations, retrieved)
    listed = _listed(answer.citations, retrieved)
    markdown, citations, parts = _renumber(answer.markdown, answer.citations, checked, set(listed))
    return replace(answer, markdown=markdown, citations=citations, sentences=parts)


def check_text(
    markdown: str,
    citations: Sequence[Citation],
    embed: Embed,
    settings: CheckSettings | None = None,
    retrieved: Collection[str] | None = None,
) -> CheckedAnswer:
    """Any answer text with `[n]` markers, split into sentences and checked against `citations`.

    Example: check_text("Cal-SPI is safe [1]. It cures cancer [9].", [Citation(1, cal_spi)], embed)
        -> sentences judged; "[9]" removed from the markdown, that sentence flagged as citing nothing.
    """
    markdown = cites.markers_before_stop(markdown)
    parts: list[AnswerSentence] = []
    for line in markdown.splitlines():
        if not line.strip() or _HEADING.match(line):
            continue
        body = _BOLD_LEAD.sub("", _BULLET.sub("", line))
        for sentence in splitter.split(body):
            found = tuple(dict.fromkeys(cites.numbers_in(sentence)))
            trailing = cites.without_trailing_markers(sentence)
            text = trailing if not cites.MARKER.search(trailing) else sentence
            parts.append(AnswerSentence(_tidy(text), found))
    checked = Checker(embed, settings).sentences(parts, citations, retrieved)
    listed = _listed(citations, retrieved)
    clean, kept, renumbered = _renumber(markdown, tuple(citations), checked, set(listed))
    used = {n for s in parts for n in s.citations}
    return CheckedAnswer(clean, kept, renumbered, tuple(sorted(used - set(listed))))


def _listed(citations: Sequence[Citation], retrieved: Collection[str] | None) -> dict[int, Paper]:
    return {c.n: c.paper for c in citations if retrieved is None or c.paper.paper_id in retrieved}


def _taken(
    parts: Sequence[AnswerSentence], jobs: list[tuple[int, list[tuple[str, tuple[int, ...]]]]], listed: dict[int, Paper]
) -> dict[tuple[str, str], str]:
    """Claims taken whole from an abstract sentence and citing one paper (the extractive answer's):
    (claim, cited paper id) -> that sentence. `_scores` uses it only when the sentence is that paper's."""
    out = {}
    for i, clauses in jobs:
        source = parts[i].paper_sentence
        if source and len(clauses) == 1 and len(clauses[0][1]) == 1:
            claim, (n,) = clauses[0]
            out[(claim, listed[n].paper_id)] = source
    return out


def _clauses(text: str, valid: tuple[int, ...]) -> list[tuple[str, tuple[int, ...]]]:
    """A sentence with markers inside it ("A (...) [1]; B (...) [2].") as clauses each with its own
    citations; otherwise the whole sentence with all of them."""
    pieces = [p for p in cites.split_after_brackets(text) if p.strip()]
    marked = [(p, tuple(n for n in cites.numbers_in(p) if n in valid)) for p in pieces]
    # "A [1] and B [2] both work." states its claim after the last marker: check it whole.
    if len([m for m in marked if m[1]]) < 2 or (not marked[-1][1] and content_terms(marked[-1][0])):
        return [(cites.MARKER.sub("", text).strip(), valid)]
    return [(cites.MARKER.sub("", p).strip(" ;,."), ns) for p, ns in marked if ns]


def _drop_numbers(text: str, bad: set[int]) -> str:
    """`text` without the citation numbers in `bad`. Example: _drop_numbers("A [1, 7].", {7}) -> 'A [1].'"""

    def keep(match: re.Match[str]) -> str:
        ns = [n for n in cites.marker_numbers(match) if n not in bad]
        return cites.marker(ns) if ns else ""

    return _tidy(cites.MARKER.sub(keep, text))


def _renumber(
    markdown: str, citations: tuple[Citation, ...], parts: tuple[AnswerSentence, ...], listed: set[int]
) -> tuple[str, tuple[Citation, ...], tuple[AnswerSentence, ...]]:
    """Markers to unlisted papers removed, cited papers numbered 1..k in their listed order."""
    used = {n for n in cites.numbers_in(markdown) if n in listed} | {n for s in parts for n in s.citations}
    kept = [c for c in sorted(citations, key=lambda c: c.n) if c.n in used]
    new = {c.n: i for i, c in enumerate(kept, start=1)}

    def swap(match: re.Match[str]) -> str:
        ns = list(dict.fromkeys(new[n] for n in cites.marker_numbers(match) if n in new))
        return cites.marker(ns) if ns else ""

    def fix(text: str) -> str:
        return _tidy(cites.MARKER.sub(swap, text)) if cites.MARKER.search(text) else text

    if all(c.n == new[c.n] for c in kept) and set(cites.numbers_in(markdown)) <= set(new):
        return markdown, tuple(kept), parts
    lines = [_SPACE_BEFORE_STOP.sub(r"\1", _SPACES.sub(" ", fix(line))) for line in markdown.split("\n")]
    renumbered = tuple(replace(s, text=fix(s.text), citations=tuple(new[n] for n in s.citations)) for s in parts)
    return "\n".join(lines), tuple(Citation(new[c.n], c.paper) for c in kept), renumbered


def _tidy(text: str) -> str:
    """Example: _tidy("It works  .") -> 'It works.'"""
    return _SPACE_BEFORE_STOP.sub(r"\1", " ".join(text.split())).strip()
