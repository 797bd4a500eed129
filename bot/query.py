"""A question parsed once: its words, index terms, names, what it asks for and what it refers to.

Every stage reads the same `Query`: retrieval its terms, pairs and names; the composer whether it
asks for a list, a summary or a comparison; follow-up resolution its references to an earlier
answer ("[2]", "paper 3", "the second one", "these", "it"). The patterns for all of these live
here and nowhere else, together with the rewrites a follow-up makes with them (a reference
replaced by a paper's label). It reads text only: it does not search, compose, or know which
papers an answer cited.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from bot.text.citations import MARKER, citation_numbers, is_citation, marker_numbers
from bot.text.terms import query_pair_tokens, query_words, search_terms, word_tokens

# --- What a question asks for (the extractive composer) ---

# "Which papers use GRPO?", "any approaches that ...", "papers on safe RL": a list of papers.
# ("What results did the paper on X report?" points at one paper: "the paper" is no list)
_LIST = re.compile(
    r"^\s*(?:which|what|list|show|find|are there|is there|any)\b.{0,40}?\b(?:papers|"
    r"works(?!\s+(?:best|better|well|worse|poorly)\b)|abstracts|studies|"
    r"articles|methods|approaches|(?<!the )(?<!this )(?<!that )(?:paper|work|abstract|article))\b|"
    r"^\s*(?:papers?|works?)\s+(?:on|about|that)\b",
    re.IGNORECASE,
)
# "What did the street-level bureaucracy paper observe?": one paper, named by what it is about, not a list.
_ONE_PAPER = re.compile(r"\b(?:the|this|that)\s+(?:[\w-]+\s+){0,4}?(?:paper|work|abstract|article)\b", re.IGNORECASE)
# ... not one an earlier answer cited ("this paper"): "the early-exit paper", "the paper on offline RL unlearning"
_ABOUT_ONE = re.compile(
    r"\bthe\s+(?!(?:first|second|third|fourth|fifth|last|other|same|previous|above|next|latter|former|cited|"
    r"one|two|three|four|five)\b)(?:[\w-]+\s+){1,4}?(?:paper|abstract|article)\b|"
    r"\bthe\s+(?:paper|abstract|article)\s+(?:on|about|that|which|proposing|introducing)\b",
    re.IGNORECASE,
)
# "Which papers introduce new benchmarks?", "... whose main contribution is a dataset?": a list asking for the
# papers that made a kind of thing, not those that use one. The kind's noun comes within three words of
# the making verb ("propose methods evaluated on MuJoCo benchmarks" asks for methods).
_ARTIFACT = re.compile(
    r"\b(?:introduc|propos|present|releas|contribut|creat|build|built|construct|curat|collect|design|new|novel)\w*"
    r"\s+(?:[\w-]+\s+){0,3}?"
    r"(benchmark|testbed|dataset|data set|corpus|corpora|simulator|evaluation (?:framework|suite))",
    re.IGNORECASE,
)
# Words a question asking who made a kind of thing uses besides a topic: "Which papers' main contribution is a
# benchmark or evaluation framework rather than a new learning method?" names no topic.
_ARTIFACT_FRAME = frozenset(
    "introduce introduces introducing propose proposes present presents release releases contribute contributes "  # noqa: SIM905
    "contribution contributions create creates build builds construct constructs curate curates collect collects "
    "design designs rather than learning method methods approach approaches evaluation framework frameworks suite "
    "benchmark benchmarks testbed testbeds dataset datasets data set sets corpus corpora simulator simulators "
    "paper papers work works primary whose".split()
)
_ARTIFACT_KIND = {"testbed": "benchmark", "evaluation framework": "benchmark", "evaluation suite": "benchmark",
                  "data set": "dataset", "corpus": "dataset", "corpora": "dataset"}  # fmt: skip
# "Summarize X", "tl;dr of X": one paper's structured summary even when X is described, not named.
_SUMMARY = re.compile(r"^\s*(?:please\s+)?(?:summari[sz]e|give (?:me )?(?:a )?summary|tl;?dr)\b", re.IGNORECASE)
# A request to compare the papers it names: it opens with the verb ("Compare CURE and SORT").
_COMPARE_REQUEST = re.compile(r"^\s*(?:compare|contrast)\b", re.IGNORECASE)
# "summarize these papers" asks about several papers, not one.
_PAPERS_WORD = re.compile(r"\b(?:papers|abstracts|works)\b", re.IGNORECASE)
# Name-like words: at least three characters with two or more capitals (CURE, Q-MMR, fMRI, ReFPO).
_NAME = re.compile(r"(?<![\w-])(?=(?:[\w-]*[A-Z]){2})(?=[\w-]{3})[A-Za-z][\w-]*[\w](?![\w-])")

# What kind of answer the question wants, after a list, a comparison and a summary: its results,
# a reason, a way of doing something, or what something is.
_RESULTS = re.compile(
    r"\b(?:results?|findings?|find(?=\s*[?.!]|\s*$)|(?:did|do) (?:[\w-]+ ){1,4}(?:find|observe)|found that|"
    r"how (?:much|well|many|fast|large|big|accurate)|perform\w*|outperform\w*|"
    r"improv\w*|gains?|speed-?ups?|accuracy|numbers|evidence|empirical\w*|experiments?|effective\w*|"
    r"better than|beat|work well|does it work|shown|show|"
    r"(?:what|which) (?:\w+ )?(?:datasets?|benchmarks?|tasks)|(?:evaluated|tested) on)\b",
    re.IGNORECASE,
)
# Asks what goes wrong with something: the problems the abstracts state answer it ("What are the weaknesses of GRPO
# that these papers point out?"), not their contributions.
_PROBLEMS = re.compile(
    r"\b(?:weakness(?:es)?|limitations?|drawbacks?|shortcomings?|failure modes?|pitfalls?|"
    r"(?:problems?|issues?) (?:with|of)|(?:goes|go|went) wrong)\b",
    re.IGNORECASE,
)
# "what causes X?", "the cause of X", "caused by": not a statement that one thing causes another ("SFT followed by
# RL causes drift, any method that ...?" asks for a method)
_WHY = re.compile(
    r"\bwhy\b|\breasons?\b|\bmotivat\w*|\bwhat (?:\w+ )?causes\b|\bcauses? (?:of|for)\b|\bthe cause\b|\bcaused\b",
    re.IGNORECASE,
)
_HOW = re.compile(
    r"^\s*(?:how|in what way)\b|\bhow (?:do|does|can|could|to|is|are|would|should|did)\b|\bways? (?:to|of)\b|"
    r"\btechniques? (?:for|to)\b|\bapproach(?:es)? (?:to|for)\b|\bmethods? (?:for|to)\b",
    re.IGNORECASE,
)
INTENTS = ("which", "compare", "summary", "results", "why", "how", "what")
# Words of how a "which papers" question frames its topic, not the topic: "Which papers try to fix
# problems with on-policy distillation?" is about on-policy distillation, and every paper "reports
# experiments". Dropped from the topic the relevance cut scores (they dilute its word coverage).
_TOPIC_FRAME = frozenset(
    (
        "try",
        "tries",
        "trying",
        "attempt",
        "attempts",
        "fix",
        "fixes",
        "address",
        "addresses",
        "tackle",
        "tackles",
        "solve",
        "solves",
        "problem",
        "problems",
        "issue",
        "issues",
        "main",
        "key",
        "major",
        "different",
        "various",
        "existing",
        "new",
        "novel",
        "report",
        "reports",
        "reported",
        "run",
        "runs",
        "evaluate",
        "evaluates",
        "evaluated",
        "test",
        "tests",
        "tested",
        "experiment",
        "experiments",
        "rely",
        "relies",
        "variant",
        "variants",
        "analyse",
        "analyses",
        "analyze",
        "analyzes",
        "kind",
        "kinds",
        "type",
        "types",
        "include",
        "includes",
        "including",
        "based",
        # how a question says what it asks about, in a researcher's words (2026-12-08: "Which papers are about
        # getting agents to explore more effectively?", "... involve several agents that must coordinate ...")
        "get",
        "gets",
        "getting",
        "make",
        "makes",
        "making",
        "involve",
        "involves",
        "involving",
        "care",
        "cares",
        "worry",
        "worries",
        "concerned",
        "deal",
        "deals",
        "dealing",
        "bring",
        "brings",
        "must",
        "each",
        "allowed",
        "see",
        "look",
        "looks",
        "effectively",
        "ideas",
        "way",
        "ways",
    )
)

# --- What a follow-up refers to (follow-up resolution) ---

ORDINALS = {
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
    "seventh": 6,
    "7th": 6,
    "eighth": 7,
    "8th": 7,
    "ninth": 8,
    "9th": 8,
    "tenth": 9,
    "10th": 9,
    "last": -1,
}
_ORDINAL = re.compile(
    r"\b(?:the\s+)?(" + "|".join(ORDINALS) + r")(\s+(?:one|paper|abstract|result|work|study|item|citation)s?)?\b",
    re.IGNORECASE,
)
_PAPER_NUMBER = re.compile(r"\b(?:paper|abstract|reference|citation|source|number|no\.|#)\s*#?(\d+)\b", re.IGNORECASE)
_COLLECTIVE = re.compile(
    r"\b(?:(?:all\s+)?(?:these|those)(?:\s+(?:papers|abstracts|works|studies|ones|methods))?|them|they|their|"
    r"the above|the papers|the abstracts|each of them|both)\b",
    re.IGNORECASE,
)
_SINGULAR = re.compile(r"\b(?:this|that)\s+(?:paper|one|abstract|work|method)\b|\bit(?:s)?\b", re.IGNORECASE)
# Pronouns that may stand for an earlier answer's papers, or for something the question names first.
_PRONOUN = re.compile(r"\b(?:it|its|they|them|their|this|these|those|both)\b", re.IGNORECASE)
# "it" that stands for nothing: "why is it so hard to ...", "it is known that ...".
_EXPLETIVE = re.compile(
    r"\b(?:is|was|isn't|wasn't)\s+it\s+(?:\w+\s+){0,2}?(?:to|that)\b|\bit(?:\s+is|\s+was|'s)\s+(?:\w+\s+){0,2}?(?:to|that)\b",
    re.IGNORECASE,
)
# "Which papers run their experiments on MuJoCo?": "their" after the papers a question asks for is theirs
# ("What methods do they propose?" still points back).
_OWN_SUBJECT = re.compile(
    r"^\s*(?:which|what|list|show|find|are there|any)\b.{0,40}?\b(?:papers|works|studies|articles|abstracts|methods|"
    r"approaches)\b",
    re.IGNORECASE,
)
# Plural acronyms are kinds of things, not names of papers: "LLMs", "VLMs".
_KIND = re.compile(r"[A-Z]+s")
# References that point at an earlier answer whatever else the question says ("which of these ...",
# "the above", "this paper"); "it", "they", "them", "their" and "both" also stand for things the
# question itself names ("... by recording the undo action and playing it backwards?").
_POINTING = re.compile(
    r"\b(?:(?:all\s+)?(?:these|those)(?:\s+(?:papers|abstracts|works|studies|ones|methods))?(?!\s+\w+(?:s|ing|ed)\b)|"
    r"the above|the papers|the abstracts|each of them|(?:this|that)\s+(?:paper|one|abstract|work|method))\b",
    re.IGNORECASE,
)
# "Is there another paper on grid safety?", "any other methods for this?": papers besides those shown.
_WORKS = r"(?:papers?|works?|stud(?:y|ies)|methods?|approach(?:es)?|abstracts?|articles?|ones?)"
_ANOTHER = re.compile(
    rf"\banother\s+{_WORKS}\b|"
    rf"^\s*(?:is there|are there|any|which|what|show|find|list|give me|do you have)\b.{{0,30}}?\b(?:other|else)\s+"
    rf"{_WORKS}\b|\banything else\b",
    re.IGNORECASE,
)
# In a question asking for another paper, "this one" is the earlier paper ("it" may be the other one) ...
_THIS_ONE = re.compile(r"\b(?:this|that|the previous|the first)\s+(?:one|paper|work|study|method)\b", re.IGNORECASE)
# ... and these words only frame the request: "is there another paper here ..., how does it differ?"
_ANOTHER_FRAME = re.compile(r"\b(?:another|other|else|papers?|works?|ones?|here|any|there)\b", re.IGNORECASE)
_ANOTHER_ASKING = {"differ", "differs", "different", "compare", "compared", "similar"}
# Any comparison word, anywhere: "how does ASCPO differ from Cal-SPI?", "CURE vs SORT".
_COMPARISON_WORD = re.compile(r"\b(?:compare|comparison|contrast|differ\w*|versus|vs\.?)\b", re.IGNORECASE)
# "which of these use MuJoCo?" (group 1: what they do) or "only the theoretical ones" (group 2: what they are).
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


@dataclass(frozen=True)
class Filter:
    """A follow-up narrowing the earlier papers to those with a property.

    Example: "which of these use MuJoCo?" -> Filter('use MuJoCo', asks_which=True);
    "only the theoretical ones" -> Filter('theoretical', asks_which=False)
    """

    predicate: str  # what the papers must do or be, as written
    asks_which: bool  # "which of these <predicate>" rather than "only the <predicate> ones"


@dataclass(frozen=True)
class Query:
    """One question, parsed: read its fields instead of matching the text again."""

    text: str  # as given
    words: tuple[str, ...]  # content words: question words and set phrases dropped
    terms: tuple[str, ...]  # index terms of those words: compounds whole and by stemmed parts
    search_terms: tuple[str, ...]  # what BM25 is asked: compounds by their parts only
    pairs: tuple[str, ...]  # neighbouring content-word pairs, stemmed (proximity)
    names: tuple[str, ...]  # words with two capitals, as written (CURE, Q-MMR)
    asks_for_list: bool  # "Which papers use GRPO?"
    asks_for_summary: bool  # "Summarize CausalBind"
    asks_to_compare: bool  # opens with "compare"/"contrast": compare the papers it names
    mentions_papers: bool  # says "papers", "abstracts" or "works"
    compares: bool  # has a comparison word anywhere ("differ", "vs")
    collective: bool  # refers to several earlier papers ("these", "they", "both")
    singular: bool  # refers to one earlier paper ("it", "its", "this paper")
    pointing: bool  # refers to earlier papers by more than a pronoun ("these", "the above", "this paper")
    pronoun_lead: int | None  # content words before its first pronoun: "how well does it" -> 1; None when it has
    # no pronoun, or names something before it ("summarize CRAFT and what it contributes")
    continues: bool  # opens like a continuation ("what about ...", "and ...")
    another: bool  # asks for papers besides those already shown ("is there another paper on ...?")
    filter: Filter | None  # narrows the earlier papers; None without a content word to narrow by
    citations: tuple[int, ...]  # `[n]` numbers that can only be citations (not "[0, 1]")
    paper_numbers: tuple[int, ...]  # "paper 2", "#3", "reference 1"
    ordinals: tuple[int, ...]  # "the second one" -> 1, "the last" -> -1 (indices into the cited papers)
    intent: str = "what"  # one of INTENTS: what the answer should lead with
    artifact: str | None = None  # a list asking who made one: "benchmark", "dataset" or "simulator"
    # words said only in parentheses after a name: "on MuJoCo (single- or multi-agent versions)" elaborates MuJoCo
    aside: tuple[str, ...] = ()
    asks_for_problems: bool = False  # "What are the weaknesses of GRPO?": what goes wrong, which problems state
    about_one: bool = False  # names one paper by what it is about: "the early-exit paper", "the paper on X"

    @property
    def topic(self) -> str:
        """What a "which papers" question is about: its content words without the question's framing.

        Example: "Which papers use GRPO?" -> 'GRPO'; "Which papers report experiments with Qwen3 models?" ->
        'qwen3 models'; "Which papers run their experiments on MuJoCo (single- or multi-agent versions)?" -> 'MuJoCo'
        """
        kept = [w for w in self.words if w not in _TOPIC_FRAME]
        # names as written: "MuJoCo" is still said inside "MaMuJoCo" (bot.text.terms.base_names), and "LLMs" is
        # still read as the acronym the corpus spells out ("Large Language Model (LLM)"), as triage reads it
        written = {name.lower(): name for name in self.names}
        words = [w for w in kept if w not in self.aside] or kept or list(self.words)
        return " ".join(written.get(w, w) for w in words)

    @property
    def name_words(self) -> frozenset[str]:
        """The words of the names it writes (`names`), as its words are. Example: "Which papers use MuJoCo and
        Q-MMR?" -> frozenset({'mujoco', 'q-mmr'})"""
        return frozenset(word for name in self.names for word in query_words(name))

    @property
    def artifact_topic(self) -> str:
        """For a question asking who made a kind of thing (`artifact`), its topic beyond that kind: empty
        when it asks about every such paper.

        Example: "Which papers introduce benchmarks for AI agents in healthcare?" -> 'ai agents healthcare';
        "Which papers introduce new benchmarks?" -> ''
        """
        return " ".join(w for w in self.words if w not in _TOPIC_FRAME and w not in _ARTIFACT_FRAME)

    def label_position(self, label: str) -> int | None:
        """Where the question names `label` (see `label_position`)."""
        return label_position(self.text, label)


@lru_cache(maxsize=4096)
def parse(text: str) -> Query:
    """The parsed question; cached, so stages handed the same text share one parse.

    Example: parse("Which papers use GRPO?") -> Query(text='Which papers use GRPO?', words=('grpo',),
        terms=('grpo',), ..., names=('GRPO',), asks_for_list=True, ...)
    """
    words = query_words(text)
    listing = _lists(_last_question(text))
    return Query(
        text=text,
        words=tuple(words),
        terms=tuple(t for w in words for t in word_tokens(w)),
        search_terms=tuple(search_terms(words)),
        pairs=tuple(query_pair_tokens(text)),
        names=tuple(_NAME.findall(text)),
        asks_for_list=listing,
        asks_for_summary=bool(_SUMMARY.match(text)),
        asks_to_compare=bool(_COMPARE_REQUEST.match(text)),
        mentions_papers=bool(_PAPERS_WORD.search(text)),
        compares=bool(_COMPARISON_WORD.search(text)),
        collective=bool(_COLLECTIVE.search(text)),
        singular=bool(_SINGULAR.search(text)),
        pointing=bool(_POINTING.search(text)),
        pronoun_lead=_pronoun_lead(text),
        continues=bool(_CONTINUE.search(text)),
        another=bool(_ANOTHER.search(text)),
        filter=_filter(text),
        citations=tuple(citation_numbers(text)),
        paper_numbers=tuple(int(m.group(1)) for m in _PAPER_NUMBER.finditer(text)),
        ordinals=tuple(ORDINALS[m.group(1).lower()] for m in _ORDINAL.finditer(text)),
        intent=_intent(_last_question(text)),
        artifact=_artifact(text) if listing else None,
        aside=_aside(text),
        asks_for_problems=bool(_PROBLEMS.search(text)),
        about_one=not listing and bool(_ABOUT_ONE.search(text)),
    )


_PARENTHESES = re.compile(r"\(([^()]*)\)")


def _aside(text: str) -> tuple[str, ...]:
    """The content words said only in parentheses, when the words outside them name something (a word with
    two capitals): an aside elaborating a name, not the topic. Without a name outside, a parenthesis may
    hold the topic's name ("the physics simulator (MuJoCo)") and nothing is set aside.

    Example: _aside("Which papers run experiments on MuJoCo (single- or multi-agent versions)?") ->
    ('single', 'multi-agent', 'versions'); _aside("Which papers use the simulator (MuJoCo)?") -> ()
    """
    inside = " ".join(_PARENTHESES.findall(text))
    outside = _PARENTHESES.sub(" ", text)
    if not inside or not _NAME.search(outside):
        return ()
    said = set(query_words(outside))
    return tuple(w for w in dict.fromkeys(query_words(inside)) if w not in said)


def _artifact(text: str) -> str | None:
    """The kind of thing a list question asks to have been made, if it asks that.

    Example: _artifact("Which papers introduce new benchmarks?") -> 'benchmark';
    _artifact("Which papers propose methods evaluated on MuJoCo benchmarks?") -> None
    """
    match = _ARTIFACT.search(text)
    if match is None:
        return None
    noun = match.group(1).lower()
    return _ARTIFACT_KIND.get(noun, noun)


def _lists(text: str) -> bool:
    """Whether the question asks for a list of papers (_LIST), unless the one paper it names by its topic does.

    Example: _lists("Which papers use GRPO?") -> True; _lists("What did the street-level bureaucracy paper
    observe?") -> False; _lists("What learning-rate schedule works best?") -> False
    """
    found = _LIST.search(text)
    if found is None:
        return False
    return not any(m.end() == found.end() for m in _ONE_PAPER.finditer(text))


def _last_question(text: str) -> str:
    """The last of several questions: a follow-up searched with its predecessor ("Which papers are about
    X? What datasets do they use?") asks what the last one asks.

    Example: _last_question("Which papers use GRPO? What datasets do they use?") -> 'What datasets do they use?'
    """
    parts = [p for p in re.split(r"(?<=\?)\s+", text.strip()) if p.strip()]
    return parts[-1] if parts else text


# Where one question asks a second thing: "What is X and how is it kept cheap?", "..., and why does it ...".
_SECOND_ASK = re.compile(
    r"\s*,?\s+and\s+(?=(?:(?:on|in|for|with|from|at|by|to|under|against|over)\s+)?"
    r"(?:how|why|what|which|where|when|who|does|do|did|is|are|was|were|can|could)\b)",
    re.IGNORECASE,
)


_DEFINES = re.compile(r"^\W*what\s+(?:is|are)\b", re.IGNORECASE)


def defines(text: str) -> bool:
    """Whether a question (or one thing a question asks, `asks`) asks what something is.

    Example: defines("What is the Heterogeneous Policy Bottleneck in CHAIN?") -> True;
    defines("What reference policy does it build on?") -> False
    """
    return bool(_DEFINES.match(text))


def asks(text: str) -> list[str]:
    """The things the last question of `text` asks, each as its own question (one, for most questions).

    Example: asks("What is IEES and how is it kept cheap?") -> ['What is IEES', 'how is it kept cheap?']
    """
    return [p for p in _SECOND_ASK.split(_last_question(text)) if query_words(p)] or [text]


def _pronoun_lead(text: str) -> int | None:
    """Content words before the first pronoun that may stand for an earlier answer's papers.

    Example: _pronoun_lead("How well does it hold up?") -> 1; _pronoun_lead("Why is it hard to X?") -> None;
    _pronoun_lead("Summarize CRAFT and what it adds") -> None (it is CRAFT);
    _pronoun_lead("Which papers run their experiments on MuJoCo?") -> None (their papers)
    """
    found = _PRONOUN.search(_EXPLETIVE.sub(lambda m: " " * len(m.group(0)), text))
    if found is None:
        return None
    before = text[: found.start()]
    if any(not _KIND.fullmatch(name) for name in _NAME.findall(before)):
        return None
    if found.group(0).lower() == "their" and _OWN_SUBJECT.match(before):
        return None  # "Which papers use deep Q-learning as part of their method?"
    return len(query_words(before))


# Two or more capitalised words after the first word: a name ("Conditional Information Gain").
_TITLED = re.compile(r"(?<=\S )(?:[A-Z][\w-]*\s+){1,}[A-Z][\w-]*")


def _intent(text: str) -> str:
    """Example: _intent("How does CURE forget data?") -> 'how'; _intent("How much faster is X?") -> 'results'"""
    if _lists(text):
        return "which"
    if _COMPARE_REQUEST.match(text) or _COMPARISON_WORD.search(text):
        return "compare"
    if _SUMMARY.match(text):
        return "summary"
    plain = _TITLED.sub(" ", text)  # "Conditional Information Gain" names a reward; it asks for no gains
    for intent, pattern in (("results", _RESULTS), ("why", _WHY), ("why", _PROBLEMS), ("how", _HOW)):
        if pattern.search(plain):
            return intent
    return "what"


# Full-width forms of ASCII ("ＧＲＰＯ", as an East Asian input method types it) and the ideographic space
_FULL_WIDTH = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}


def typed(text: str) -> str:
    """A question or topic as abstracts write its words: full-width letters, digits and signs as ASCII.

    Example: typed("Ｃａｌ－ＳＰＩ？") -> 'Cal-SPI?'
    """
    return text.translate(_FULL_WIDTH)


def as_query(question: str | Query) -> Query:
    """`question` parsed, unless it already is. Example: as_query("GRPO?").words -> ('grpo',)"""
    return question if isinstance(question, Query) else parse(question)


def _filter(text: str) -> Filter | None:
    found = _FILTER.match(text)
    if not found:
        return None
    predicate = (found.group(1) or "").strip(" ?.!") or (found.group(2) or "").strip(" ?.!")
    return Filter(predicate, bool(found.group(1))) if query_words(predicate) else None


def label_position(text: str, label: str) -> int | None:
    """Where `text` names `label` as a whole word, ignoring case; labels under 3 letters never count.

    Example: label_position("how does ASCPO differ from Cal-SPI?", "cal-spi") -> 27
    """
    label, text = label.lower(), text.lower()
    if len(label) < 3 or label not in text:  # most labels are not in the question: no pattern to compile
        return None
    found = re.search(rf"(?<![\w-]){re.escape(label)}(?![\w-])", text)
    return found.start() if found else None


def distinctive(label: str) -> bool:
    """Whether a paper's label is a name that a question can only mean as that paper (CURE, Cal-SPI,
    CausalBind, χ-Bench, Qwen3-Judge), not a phrase that is also a topic ("Off-policy evaluation",
    "Imitation Learning").

    Example: distinctive("Q-MMR") -> True; distinctive("Off-policy evaluation") -> False
    """
    return any(_NAME.fullmatch(word) or re.search(r"\d|[\u0370-\u03ff]", word) for word in re.split(r"[\s/]+", label))


def without_label(text: str, label: str) -> str:
    """Example: without_label("compare CURE and cure-all", "cure") -> 'compare   and cure-all'"""
    return re.sub(rf"(?<![\w-]){re.escape(label)}(?![\w-])", " ", text, flags=re.IGNORECASE)


def rewrite_references(
    text: str,
    citation: Callable[[list[int]], str | None],
    number: Callable[[int], str | None],
    ordinal: Callable[[int, bool], str | None],
) -> str:
    """`text` with each reference to an earlier answer replaced by what the callbacks return for it
    (None leaves it as written): `[n]` markers (not intervals), then "paper n", then ordinals.

    `ordinal` is told whether a noun follows ("the second one", not "the first step").
    Example: rewrite_references("compare [1] and the last one", lambda ns: "A", str, lambda i, noun: "C")
        -> 'compare A and C'
    """

    def by_marker(match: re.Match[str]) -> str:
        found = citation(marker_numbers(match)) if is_citation(match) else None
        return match.group(0) if found is None else found

    def by_number(match: re.Match[str]) -> str:
        found = number(int(match.group(1)))
        return match.group(0) if found is None else found

    def by_ordinal(match: re.Match[str]) -> str:
        found = ordinal(ORDINALS[match.group(1).lower()], bool(match.group(2)))
        return match.group(0) if found is None else found

    text = MARKER.sub(by_marker, text)
    text = _PAPER_NUMBER.sub(by_number, text)
    return _ORDINAL.sub(by_ordinal, text)


def without_comparison(text: str) -> str:
    """`text` without its comparison words and collective references, each left as a space.

    Example: without_comparison("how do they compare on data?") -> 'how do     on data?'
    """
    return _COMPARISON_WORD.sub(" ", _COLLECTIVE.sub(" ", text))


def replace_collective(text: str, words: str) -> str:
    """Example: replace_collective("what do they use?", "these papers") -> 'what do these papers use?'"""
    return _COLLECTIVE.sub(words, text)


def name_this_one(text: str, label: str) -> str:
    """`text`, asking for another paper, with "this one" (the earlier paper) named by its label.

    Example: name_this_one("another paper, and how does it differ from this one?", "CURE")
        -> 'another paper, and how does it differ from CURE?'
    """
    return _THIS_ONE.sub(label, text)


def asked_about(text: str) -> list[str]:
    """The content words of a request for another paper, without those that frame the request.

    Example: asked_about("Is there another paper here on grid safety, and how does it differ?") -> ['grid', 'safety']
    """
    return [w for w in query_words(_ANOTHER_FRAME.sub(" ", text)) if w not in _ANOTHER_ASKING]


def replace_singular(text: str, label: str) -> str:
    """The first reference to one paper ("it", "its", "this paper") replaced by its label.

    Example: replace_singular("what are its limitations?", "CURE") -> "what are CURE's limitations?"
    """
    return _SINGULAR.sub(lambda m: f"{label}'s" if m.group(0).lower() == "its" else label, text, 1)
