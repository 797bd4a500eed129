"""The extractive answer composer: a short cited summary from the abstracts' own sentences.

Needs no language model. Each paper the answer relies on gets a paragraph under its label: what
it proposes, then what the question asks for (how it works, why, what it found; bot.answer.picks),
in the abstract's order, each sentence cited with `[n]` (bot.answer.wording writes them). Only
papers above the relevance cut that triage uses are cited beyond the best one, so the chat and the
Triage tab agree. "Which papers ..." questions list every relevant paper with its contribution; an
off-topic question is told what the corpus is about instead. It does not search; it is given a
SearchResult.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from bot.answer import picks, roles, wording
from bot.answer.picks import Pick
from bot.query import Query, as_query, asks, defines, distinctive, parse, replace_singular
from bot.settings import AnswerSettings
from bot.text import acronyms, citations, sentences
from bot.text.terms import tokenize, words
from bot.text.wording import plural
from bot.types import Answer, AnswerSentence, Citation, Hit, SearchResult

Embed = Callable[[list[str]], np.ndarray]

# Intents asking one thing of a named paper: answered in a paragraph, not point by point.
_FOCUSED = frozenset({"how", "why", "results"})
# Words of a comparison that say it compares, not what it compares ("both", "differ", "each").
_COMPARING = frozenset(
    {
        "both",
        "each",
        "differ",
        "differs",
        "difference",
        "differences",
        "different",
        "between",
        "compare",
        "compared",
        "comparison",
        "contrast",
        "versus",
        "vs",
        "two",
        "other",
        "way",
        "ways",
    }
)
# "How does the offline RL unlearning method decide ...?": how one particular thing works.
_THIS_ONE = re.compile(r"\s*how\s+(?:does|do|did|is|are|can|could|would)\s+(?:the|this|that|these|its|their)\b", re.I)
# A comparison asking about the papers' results: "how do their gains compare?", "which performs better?"
_RESULTS = re.compile(
    r"\b(?:gains?|results?|perform\w*|outperform\w*|accura\w*|better|worse|improv\w*|speed-?ups?|faster|"
    r"slower|benchmarks?|scores?|numbers?|experiments?|empirical\w*|win|wins|beats?)\b",
    re.IGNORECASE,
)
# A sentence reporting experiments: a comparison's results line, never the sentence on what it asks about.
_EXPERIMENTS = re.compile(
    r"\b(?:experiment\w*|empirical\w*|evaluat\w*|benchmarks?|outperform\w*|our results|"
    r"results (?:show|demonstrate|indicate))\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Context:
    """What the answer service knows beyond one search: the relevance cut and what the corpus holds."""

    relevant: frozenset[str] | None = None  # paper ids above the relevance cut; None: not computed
    # paper ids scoring close to the best paper's relevance, above the cut or not (Relevant.near)
    near: frozenset[str] = frozenset()
    topics: tuple[tuple[str, int], ...] = ()  # the corpus's most used phrases, with their papers
    papers: int = 0  # how many papers are stored
    # A follow-up about earlier papers: the question as asked (sentences are scored against it as well as
    # against the question it is searched as) and the abstract sentences the previous answer showed (a
    # paper's contribution shown there is not repeated).
    asked: str | None = None
    said: frozenset[str] = frozenset()


class Composer:
    """Builds Answers from search results with the embedding model for sentence scoring."""

    def __init__(self, embed: Embed, settings: AnswerSettings) -> None:
        self._embed = embed
        self._settings = settings

    def compose(self, question: str | Query, result: SearchResult, context: Context | None = None) -> Answer:
        """A cited answer to `question` from the papers in `result`."""
        query = as_query(question)
        context = context or Context()
        if result.abstained or not result.hits:
            return self._abstain(query.text, result, context)
        named = _named_papers(query, result, self._settings.named_depth)
        if len(named) == 1 and query.compares and not query.asks_for_list:
            # "How do Q-MMR and the budgeted annotation method differ?": the other is the best other relevant paper
            named += [h for h in self._relevant(result, context) if h is not named[0]][:1]
        if len(named) >= 2:  # "Compare X and Y", "Tell me about X and Y": each named paper in turn
            return self._compare(query, result, named, context)
        # "Summarize X" is about one paper even when X is described, not named; "summarize these papers" is not.
        # So is "What does the early-exit paper propose?": the paper search ranks first, not every paper saying "exit".
        one = (query.asks_for_summary or query.about_one) and not query.mentions_papers
        if not query.asks_for_list and (named or one or len(result.hits) == 1):
            paper = named[0] if named else result.hits[0]
            # "How does X decide ...?", "What benchmarks does X use?": what X proposes, then the answer;
            # "What is X?", "Summarize X": its problem, method and results point by point.
            if query.intent in _FOCUSED or (query.intent != "summary" and _asks_more(query, paper)):
                return self._summary(query, result, [paper], context, self._settings.lead_sentences + 1)
            return self._paper_summary(query, result, paper, context)
        if query.asks_for_list:
            if context.relevant is not None and not context.relevant and not self._unsure(result):
                return self._abstain(query.text, result, context)  # no paper is about the topic
            return self._list(query, result, self._listed(query, result, context), context)
        return self._summary(query, result, self._relevant(result, context), context)

    def _scored(self, query: Query, hit: Hit, context: Context, own: bool = False) -> list[Pick]:
        """The paper's sentences scored against the question; a follow-up's (unless `own`) by the mean of
        their scores against the question as asked and as searched (with the question before it), without
        the contribution when the previous answer showed it already."""
        scored = picks.scored(self._embed, query, hit, self._settings)
        if not context.asked or own or context.asked == query.text:
            return scored
        asked = picks.scored(self._embed, as_query(context.asked), hit, self._settings)
        both = [replace(p, score=(p.score + a.score) / 2) for p, a in zip(scored, asked, strict=True)]
        return [p for p in both if not _shown(p, context)]

    def _embed_ahead(self, query: Query, hits: list[Hit], context: Context) -> None:
        """The sentences of every paper the answer weighs, embedded together (picks.embed_ahead)."""
        picks.embed_ahead(self._embed, [query.text] + ([context.asked] if context.asked else []), hits)

    def _relevant(self, result: SearchResult, context: Context) -> list[Hit]:
        """The best paper, and the others above the relevance cut and close enough in score."""
        best = result.hits[0].score
        close = [h for h in result.hits[1:] if h.score >= self._settings.relative_cutoff * best]
        if context.relevant:  # the papers triage keeps for the question
            close = [h for h in close if h.paper.paper_id in context.relevant]
        elif context.relevant is not None:  # none: those nearly as much about it as the best (Relevant.near)
            close = [h for h in close if h.paper.paper_id in context.near]
        return [result.hits[0], *close][: self._settings.summary_papers]

    def _unsure(self, result: SearchResult) -> bool:
        """Whether a list question no paper passes the relevance cut for may still be answered from its
        search: the best paper holds most of its words (settings.list_unsure_coverage)."""
        return max(h.coverage for h in result.hits) >= self._settings.list_unsure_coverage

    def _listed(self, query: Query, result: SearchResult, context: Context) -> list[Hit]:
        """Papers for a "which papers" answer: those above the relevance cut (the service searched
        among them), else those close in score and about the query's words or as close in meaning."""
        if query.artifact:  # "which papers introduce benchmarks?": those saying they made one, if any do
            made = [h for h in result.hits if _maker(h, query.artifact) is not None]
            if made or not query.artifact_topic:  # asked about every such paper: only those
                return made[: self._settings.list_max]
        if context.relevant:
            return [h for h in result.hits if h.paper.paper_id in context.relevant][: self._settings.list_max]
        conf = self._settings
        best = result.hits[0].score
        best_dense = max(h.dense for h in result.hits)
        keep = []
        for hit in result.hits:
            # e.g. every paper naming GRPO for "which papers use GRPO?", even at 0.3 of the best
            names_all = hit.coverage >= conf.list_named_coverage and hit.score >= conf.list_named_cutoff * best
            near = hit.coverage >= conf.list_close_coverage or hit.dense >= conf.list_close_dense * best_dense
            close = hit.score >= conf.list_close_cutoff * best and near
            if hit is result.hits[0] or names_all or close:
                keep.append(hit)
        return keep[: self._settings.list_max]

    def _summary(
        self, query: Query, result: SearchResult, hits: list[Hit], context: Context, lead: int | None = None
    ) -> Answer:
        """A paragraph a paper: its label, what it proposes, then what the question asks of it (`lead`
        sentences of the best paper; settings.lead_sentences unless given)."""
        conf = self._settings
        blocks: list[str] = []
        parts: list[AnswerSentence] = []
        cited: list[Hit] = []
        self._embed_ahead(query, hits, context)
        # The paper whose sentences answer the question best leads, whatever its search rank.
        scored = [(hit, mine) for hit in hits if (mine := self._scored(query, hit, context))]
        best = {hit.paper.paper_id: max(p.score for p in mine) for hit, mine in scored}
        top = max(best.values(), default=0.0)
        scored = [
            (h, m)
            for h, m in scored
            if best[h.paper.paper_id] >= conf.paper_floor * top
            or (context.relevant and h.paper.paper_id in context.relevant)
        ]
        things = asks(context.asked or query.text)  # what the question asks, part by part
        defining = any(defines(ask) for ask in things)
        for hit, mine in sorted(scored, key=lambda x: -best[x[0].paper.paper_id]):
            # a further paper: its contribution and what answers; for a "why", its contribution (kept only when it
            # gives a reason, below), not the background of its own problem
            count = (lead or conf.lead_sentences) if not cited else 1 if query.intent == "why" else conf.other_sentences
            shown = bool(context.said) and not any(p.sentence.role == roles.CONTRIBUTION for p in mine)
            # one named paper asked about on its own (a follow-up's sentences are scored against two questions)
            one = lead is not None and not context.asked
            if cited and query.asks_for_problems:
                # "What are the limitations of GRPO?": a further paper says the problem it states with it
                found = picks.limitation(mine, conf)
                chosen = [found] if found is not None else []
            else:
                chosen = picks.choose(mine, query.intent, count, conf, lead=not shown, one=one)
            if not chosen or (
                cited and query.intent == "why" and all(p.sentence.role == roles.CONTRIBUTION for p in chosen)
            ):
                continue  # a further paper that only says what it proposes gives no reason a "why" asks for
            if not cited and len(things) > 1:
                # "What is X and how is it kept cheap?": the best paper answers each thing asked
                # a later part's "it" is the paper asked about: "why is it essentially free?" -> "why is ReFPO ..."
                named = distinctive(hit.paper.label)
                own = [things[0]] + [replace_singular(a, hit.paper.label) if named else a for a in things[1:]]
                each = [(parse(ask).intent, self._scored(parse(ask), hit, context, own=True)) for ask in own]
                chosen = picks.each_part(chosen, each, conf, one=one)
            if not cited and defining:
                chosen = picks.defined(chosen, mine, conf)  # "What is X?": what X does, not only its name
            if not cited and query.intent == "what" and not context.asked:
                # the one paper a question about a topic or "What is X?" rests on: how it works, too (not for
                # something particular asked of a named paper: "What does scPertCRL break an effect down into?")
                if len(scored) == 1 and (lead is None or defining):
                    chosen = picks.with_mechanism(chosen, mine, conf)
                chosen = picks.with_finding(chosen, mine, conf)  # and what it found
            elif not cited and query.intent == "how" and not context.asked and _seeks_a_way(query, hit):
                chosen = picks.with_finding(chosen, mine, conf, measured=True)  # how it works, and that it works
            elif (
                not cited
                and query.intent == "compare"
                and len(scored) == 1
                and not context.asked
                and _named_at(query, hit) is not None
            ):
                # "CS-DICE vs regular DICE, what's the difference?" answered by one paper: what it found against
                # the other, too ("incoherent pooled references collapse ..., while CS-DICE recovers ...")
                chosen = picks.with_finding(chosen, mine, conf)
            elif (
                not cited
                and query.intent == "how"
                and one
                and len(opened := picks.opening(chosen)) == 1
                and _names_only(hit, opened[0])
            ):
                # "How does Cal-SPI stay safe?": a contribution saying only the words of the paper's name
                # ("Calibrated Safe Policy Improvement") does not say how; its mechanism does (also when all else
                # chosen points at what is not shown: "We further demonstrate ... this phenomenon ...")
                chosen = picks.with_mechanism(opened, mine, conf)
            if query.intent != "why":  # a "why" follows the abstract's chain of reasons, pointing words and all
                chosen = picks.opening(chosen)
            cited.append(hit)
            block, said = wording.paragraph(hit, chosen, len(cited), conf.sentence_words, set(query.terms))
            blocks.append(block)
            parts += said
        if not cited:
            return self._abstain(query.text, result, Context())
        return _cited(query, result, "\n\n".join(blocks), cited, parts)

    def _roles(self, query: Query, hit: Hit, context: Context, extra: bool = True) -> list[tuple[str, Pick]]:
        """One abstract's problem, method and results sentences (and the one closest to the
        question, when `extra`; without it, for a comparison, no problem either), in the abstract's order."""
        scored = self._scored(query, hit, context)
        if not scored:
            return []
        chosen: dict[int, str] = {}
        problem = [p for p in scored if p.sentence.role == "problem"]
        if problem and extra:
            chosen[problem[0].sentence.position] = "Problem"  # the problem the abstract starts from
        lead = picks.choose(scored, "what", 1, self._settings)  # the contribution
        if lead:
            chosen.setdefault(lead[0].sentence.position, "Method")
        best = picks.best_finding(scored, set(chosen), self._settings)
        if best is not None:
            chosen[best.sentence.position] = "Results"
        others = [p for p in scored if p.sentence.position not in chosen and not p.sentence.leans_back]
        if extra and others and len(chosen) < 4:
            chosen[max(others, key=lambda p: p.score).sentence.position] = "Also"
        return [(chosen[p.sentence.position], p) for p in scored if p.sentence.position in chosen]

    def _paper_summary(self, query: Query, result: SearchResult, hit: Hit, context: Context) -> Answer:
        """What one paper is about, point by point: its problem, what it proposes, what it finds."""
        points = self._roles(query, hit, context)
        if not points:
            return self._abstain(query.text, result, Context())
        block, parts = wording.points(hit, points, 1)
        return _cited(query, result, block, [hit], parts)

    def _compare(self, query: Query, result: SearchResult, hits: list[Hit], context: Context) -> Answer:
        """Several named papers side by side: each one's method and results, cited. A comparison asking
        about something in particular ("differ in the kind of safety guarantee they provide") gives each
        paper's sentence closest to it, and its results only when it asks about them ("how do their
        gains compare?")."""
        blocks: list[str] = []
        parts: list[AnswerSentence] = []
        chosen = hits[: self._settings.max_papers]
        names = set().union(*(tokenize(h.paper.label) for h in chosen))
        aspect = [w for w in query.words if w not in _COMPARING and not set(tokenize(w)) <= names]
        results = not aspect or bool(_RESULTS.search(query.text))
        for n, hit in enumerate(chosen, start=1):
            points = self._roles(query, hit, context, extra=False)
            if aspect:
                points = self._aspect(query, hit, context, points, results)
            block, mine = wording.points(hit, points, n)
            blocks.append(block)
            parts += mine
        return _cited(query, result, "\n\n".join(blocks), chosen, parts)

    def _aspect(
        self, query: Query, hit: Hit, context: Context, points: list[tuple[str, Pick]], results: bool
    ) -> list[tuple[str, Pick]]:
        """A compared paper's method, its sentence closest to what the comparison asks about (under the
        heading of its role) and, when `results`, its results; in the abstract's order."""
        have = {p.sentence.position: (role, p) for role, p in points if results or role != "Results"}
        allowed = [
            p
            for p in self._scored(query, hit, context)
            if p.sentence.position not in have
            and len(p.sentence.source) >= self._settings.min_sentence_chars
            and p.sentence.role != roles.PROBLEM
            and (not p.sentence.leans_back or p.sentence.position - 1 in have)
            and not _EXPERIMENTS.search(p.sentence.source)  # results have their own line, when asked
        ]
        closest = max(allowed, key=lambda p: p.score, default=None)
        if closest is not None:
            heading = "Results" if closest.sentence.role == roles.FINDING else "Method"
            have[closest.sentence.position] = (heading, closest)
        return [have[i] for i in sorted(have)]

    def _list(self, query: Query, result: SearchResult, hits: list[Hit], context: Context) -> Answer:
        """Every relevant paper with one clause on its contribution."""
        chosen: list[tuple[Hit, Pick]] = []
        self._embed_ahead(query, hits, context)
        for hit in hits:
            scored = self._scored(query, hit, context)
            made = _maker(hit, query.artifact) if query.artifact else None
            line = (
                next((p for p in scored if p.sentence.position == made), None)
                or (picks.limitation(scored, self._settings) if query.asks_for_problems else None)
                or picks.headline(scored, self._settings)
            )
            if line is not None:
                chosen.append((hit, line))
        if not chosen:
            return self._abstain(query.text, result, Context())
        parts: list[AnswerSentence] = []
        verb = "matches" if len(chosen) == 1 else "match"
        lines = [f"{plural(len(chosen))} in the corpus {verb}:", ""]
        asked, conf = set(query.terms), self._settings
        for n, (hit, pick) in enumerate(chosen, start=1):
            text = wording.shorten(
                wording.third_person(pick.sentence.text), conf.list_clause_words, asked, conf.list_line_words
            )
            parts.append(AnswerSentence(text, (n,), pick.sentence.source))
            lines.append(f"- **{hit.paper.label}**: {citations.cite(text, (n,))}")
        return _cited(query, result, "\n".join(lines), [h for h, _ in chosen], parts)

    def _abstain(self, question: str, result: SearchResult, context: Context) -> Answer:
        """Nothing answers the question: say what the corpus is about (when known) instead of citing papers;
        a follow-up restricted to earlier papers names those nearest instead."""
        parts = [AnswerSentence(citations.ABSTAIN_MESSAGE, ())]
        if context.topics:
            counted = "about " if context.papers > self._settings.overview_sample else ""  # from a sample
            about = ", ".join(f"{phrase} ({counted}{plural(n)})" for phrase, n in context.topics)
            parts.append(AnswerSentence(citations.overview(context.papers, about), ()))
            return Answer(question, " ".join(p.text for p in parts), True, (), tuple(parts), result.hits)
        nearest = list(result.hits[: self._settings.abstain_nearest])
        numbers = {h.paper.paper_id: i for i, h in enumerate(nearest, start=1)}
        if nearest:
            most = self._settings.gist_words  # numbered as in `numbers`: a search lists each paper once
            topics = [f"{h.paper.label} ({_gist(h, most)}) {citations.marker([n])}" for n, h in enumerate(nearest, 1)]
            closest = "The nearest abstracts are about: " + "; ".join(topics) + "."
            parts.append(AnswerSentence(closest, tuple(numbers.values())))
        return Answer(
            question=question,
            markdown=" ".join(p.text for p in parts),
            abstained=True,
            citations=tuple(Citation(numbers[h.paper.paper_id], h.paper) for h in nearest),
            sentences=tuple(parts),
            hits=result.hits,
        )


def _shown(pick: Pick, context: Context) -> bool:
    """Whether the pick is the contribution the previous answer already showed."""
    return pick.sentence.role == roles.CONTRIBUTION and pick.sentence.source in context.said


def _cited(query: Query, result: SearchResult, markdown: str, hits: list[Hit], parts: list[AnswerSentence]) -> Answer:
    """The answer citing `hits` as [1], [2], ... in that order."""
    numbered = tuple(Citation(n, h.paper) for n, h in enumerate(hits, start=1))
    return Answer(query.text, markdown, False, numbered, tuple(parts), result.hits)


def _maker(hit: Hit, artifact: str) -> int | None:
    """Where the paper's abstract says it made a thing of this kind (roles.makes), if it does."""
    return next((i for i, s in enumerate(picks.sentence_texts(hit)) if roles.makes(s, artifact)), None)


def _named_papers(query: Query, result: SearchResult, depth: int) -> list[Hit]:
    """The papers among the `depth` best whose labels the question names ("What is CausalBind?"), in the
    question's order."""
    found = [(at, hit) for hit in result.hits[:depth] if (at := _named_at(query, hit)) is not None]
    # "What's CURE?" when a second abstract defines its own CURE (under another label): both are named
    labels = {hit.paper.label: at for at, hit in found}
    if not labels:
        return []
    found += [
        (labels[name], hit)
        for hit in result.hits[:depth]
        if hit.paper.label not in labels
        for name in acronyms.learn([hit.paper.display])
        if name in labels
    ][:1]
    return [hit for _, hit in sorted(found, key=lambda x: x[0])]


def _names_only(hit: Hit, pick: Pick) -> bool:
    """Whether the question's words `pick` says are all words of the name the abstract spells the paper's
    label out as, or of a name the sentence itself defines. Example: "safe" in Cal-SPI's "Calibrated Safe
    Policy Improvement (Cal-SPI) ..." -> True; "heterogeneous policy bottleneck" in CHAIN's "we propose ...
    (CHAIN), equipped with Heterogeneous Policy Bottleneck (HPB)" -> True: it names the part asked about"""
    defined = acronyms.learn([hit.paper.display])
    spelled = set(tokenize(defined.get(hit.paper.label, "")))
    for acronym, form in defined.items():
        if re.search(rf"(?<![\w-]){re.escape(acronym)}(?![\w-])", pick.sentence.source):
            spelled |= set(tokenize(form))
    return pick.matched <= spelled


def _seeks_a_way(query: Query, hit: Hit) -> bool:
    """Whether a "how" question asks for a way to do something ("how to stop entropy collapse?", "any way to
    use the reference?"), which the paper found for it answers with how it works and what that achieved, not
    how a paper it names or describes does something ("How does CURE decide ...?", "How does the unlearning
    method decide ...?"), whose results are padding (judged, round 46 in docs/answers.md).
    Example: "fp4 rollouts blow up, how to fix" -> True; "How does the CIG reward stay tractable?" -> False"""
    return _named_at(query, hit) is None and not _THIS_ONE.match(query.text)


def _named_at(query: Query, hit: Hit) -> int | None:
    """Where the question names the paper: its distinctive label, or the name its abstract spells the label
    out as ("Cross-Precision Alignment" for CPA)."""
    label = hit.paper.label
    if not distinctive(label):
        return None
    at = query.label_position(label)
    if at is None and (long := acronyms.spelled_out(label, hit.paper.display)) and len(long.split()) >= 2:
        at = query.label_position(long)
    return at


def _asks_more(query: Query, hit: Hit) -> bool:
    """Whether the question asks something particular of the paper it names, beyond what it is.

    Example: "What benchmarks does CURE use?" -> True; "What is CURE?" -> False
    """
    label = set(tokenize(hit.paper.label))
    return any(not set(tokenize(w)) <= label for w in query.words)


def _gist(hit: Hit, most: int) -> str:
    """A few words saying what a paper is about: its title or the start (`most` words) of its first sentence."""
    if hit.paper.title:
        return hit.paper.title
    first = (sentences.split(hit.paper.display) or [hit.paper.display])[0]
    cut = words(first)[:most]
    return " ".join(first.split()[: len(cut)]).rstrip(",;:") + "…"
