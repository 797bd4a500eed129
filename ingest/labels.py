"""Short labels for papers without titles, used in citations and lists.

A label is the name of the method, benchmark or framework an abstract introduces when it has
one ("CausalBind", "Cal-SPI", "χ-Bench"), otherwise a short descriptive title from the sentence
saying what it proposes ("Risk-constrained RL framework for grid operation"), studies, compares or
questions ("Questioning the standard LLM training pipeline"), and only when there is none a short
phrase from its first sentence.
Works on display text (markdown and LaTeX already rendered). Labels are made distinct within
a corpus by `assign`.
"""

from __future__ import annotations

import re
from collections import Counter

from bot.text import sentences
from bot.text.clean import without_controls

# A name-like token: mixed case, capitals with digits or hyphens, or a Greek letter prefix.
_TOKEN = re.compile(r"[A-Za-z0-9\u0370-\u03ff][A-Za-z0-9\u0370-\u03ff\-+.]*[A-Za-z0-9\u0370-\u03ff+]|[A-Z]{2,}")
_INTRO = re.compile(
    r"\b(?:we|this paper|this work|our)\s+(?:\w+\s+){0,2}?(?:propose|introduce|present|develop|"
    r"design|build|release|construct|contribute|curate|formalise|formalize|derive|call|term|dub|name)"
    r"|\b(?:called|named|dubbed|termed|coined)\b|\bour (?:method|algorithm|approach|framework|model|system),",
    re.IGNORECASE,
)
# Well-known acronyms that abstracts use but rarely introduce.
_COMMON = {
    "AI",
    "ML",
    "RL",
    "LLM",
    "LLMs",
    "LM",
    "LMs",
    "MDP",
    "MDPs",
    "POMDP",
    "SFT",
    "RLHF",
    "RLVR",
    "GRPO",
    "PPO",
    "DPO",
    "NLP",
    "CV",
    "GPU",
    "GPUs",
    "CPU",
    "API",
    "APIs",
    "SOTA",
    "OOD",
    "IID",
    "KL",
    "MLP",
    "CNN",
    "RNN",
    "GNN",
    "GNNs",
    "VLM",
    "VLMs",
    "LMM",
    "LMMs",
    "MoE",
    "ViT",
    "BERT",
    "GPT",
    "PAC",
    "SGD",
    "Adam",
    "MSE",
    "FP4",
    "FP8",
    "FP16",
    "BF16",
    "TD",
    "MARL",
    "OPE",
    "SPI",
    "PMD",
    "IL",
    "NCO",
    "AFE",
    "fMRI",
    "EEG",
    "MRI",
    "DR",
    "KV",
    "QA",
    "SCM",
    "CoT",
    "RAG",
    "TPU",
    "BC",
    "IRL",
    "MCTS",
    "AUC",
    "F1",
    "US",
    "UK",
    "EU",
    "IMU",
    "IMUs",
    "STPP",
    "STPPs",
    "OPD",
    "PDA",
    "NeurIPS",
    "ICML",
    "ICLR",
    "Qwen3",
    "Qwen2.5",
    "Llama",
}
_STOP_START = {"the", "a", "an", "this", "these", "we", "in", "on", "for", "of", "while", "as"}
_MAX_PHRASE_WORDS = 4
# Verbs that end the subject phrase of an opening sentence.
_VERBS = {
    "is",
    "are",
    "has",
    "have",
    "was",
    "were",
    "can",
    "often",
    "remains",
    "remain",
    "offers",
    "offer",
    "enables",
    "aims",
    "estimates",
    "improves",
    "operate",
    "operates",
    "model",
    "models",
    "applies",
    "apply",
    "begin",
    "begins",
    "stresses",
    "rely",
    "relies",
    "becomes",
    "become",
    "produce",
    "produces",
    "provide",
    "provides",
    "require",
    "requires",
    "use",
    "uses",
}


_GREEK = re.compile(r"[\u0370-\u03ff]")


def _name_like(token: str) -> bool:
    if token[1:].islower() and not _GREEK.search(token):
        return False  # most words of an abstract ("learning"): no capital after the first letter, no Greek
    if len(token) < 2 or token in _COMMON or token.rstrip("s") in _COMMON or token[0].isdigit():
        return False
    if _GREEK.search(token) and "-" in token:
        return True
    parts = token.split("-")
    if len(parts) > 1:
        if any(p.islower() for p in parts):
            return False  # LLM-based, Reflow-regularized, Stimulus-to-Brain
        if len(parts) == 2 and all(p[:1].isupper() and p[1:].islower() for p in parts):
            return False  # Multi-Agent, Off-Policy: descriptive compounds, not names
    if any(re.match(r"[A-Z]{2}[a-z]{4,}$", p) for p in parts):
        return False  # REinforcement, GRouped: capitals spelling out an acronym
    inner_caps = sum(c.isupper() for c in token[1:])
    has_lower = any(c.islower() for c in token)
    if token.isupper() and len(token) >= 3 and token.isalpha():
        return True  # PRISM, STAR, CARD, NCTS
    if inner_caps >= 1 and has_lower:
        return True  # CausalBind, ReFPO, Cal-SPI
    return inner_caps >= 1 and any(c.isdigit() or c == "-" for c in token)  # Q-MMR, X2-Y


def candidates(text: str) -> list[str]:
    """Names the abstract seems to introduce, best first.

    Example: candidates("We propose CausalBind, a binder. CausalBind wins.") -> ['CausalBind']
    """
    sents = sentences.split(text)
    counts: Counter[str] = Counter()
    score: Counter[str] = Counter()
    for index, sentence in enumerate(sents):
        intro = bool(_INTRO.search(sentence))
        for match in _TOKEN.finditer(sentence):
            token = match.group(0).rstrip(".-")
            if not _name_like(token):
                continue
            counts[token] += 1
            if intro:
                score[token] += 4
                # The first name after the introducing verb is the one introduced.
                verb = _INTRO.search(sentence)
                if verb and 0 <= match.start() - verb.end() <= 40:
                    score[token] += 3
                # "Long Name (ACRONYM)": the acronym is what later sentences use.
                if sentence[max(0, match.start() - 1) : match.start()] == "(":
                    score[token] += 2
            if index == 0 and not intro:
                score[token] -= 1  # background terms are defined in the opening sentence
    for token, n in counts.items():
        score[token] += min(n, 4)
        # Plural or possessive forms of a longer name count towards it.
        for other in counts:
            if other != token and other.startswith(token) and len(other) - len(token) <= 2:
                score[token] += counts[other]
            if other.endswith("-" + token) or other.startswith(token + "-"):
                score[other] += score[token] // 2  # CS-DICE is the named variant of DICE
    ranked = sorted(score, key=lambda t: (-score[t], text.find(t)))
    return [t for t in ranked if score[t] >= 4]


_WORD = re.compile(r"[\w\u0370-\u03ff][\w\u0370-\u03ff'\-]*")


def phrase(text: str) -> str:
    """A short phrase from the first sentence, for papers that name nothing.

    Example: phrase("Critical sequential decisions are rarely single-timescale.")
        -> 'Critical sequential decisions'
    """
    sentence = (sentences.split(text) or [text])[0]
    first = re.split(r"[(:;,\[]| - | – | — ", sentence)[0]
    # A sentence that opens with punctuation (": the teacher ...") has nothing before it: use it all.
    words = _WORD.findall(first) or _WORD.findall(sentence) or _WORD.findall(text)
    while words and words[0].lower() in _STOP_START:
        words = words[1:]
    picked: list[str] = []
    for word in words:
        if picked and word.lower() in _VERBS:
            break
        picked.append(word)
        if len(picked) >= _MAX_PHRASE_WORDS:
            break
    while len(picked) > 1 and picked[-1].lower() in _STOP_START | {"to", "with", "and", "from"}:
        picked.pop()
    label = " ".join(picked) or text.strip()[:40] or "Abstract"
    return label[0].upper() + label[1:]


# "We propose <what>": the verb whose object says what the paper contributes.
_SUBJECT = (
    r"\b(?:we|this paper|this work|this study|this article|our work|our paper)\s+"
    r"(?:(?:\w+ly|also|further|then|here|now)\s+)?"
)
_OFFER = re.compile(
    _SUBJECT + r"(?:propose|introduce|present|develop|design|build|construct|formali[sz]e|formulate|devise)s?\s+",
    re.IGNORECASE,
)
# Where the object of "we propose" ends: a clause, a purpose or a means.
_OBJECT_END = re.compile(
    r"[,;:(.]| - | – | — |\s(?:that|which|who|where|whereby|whose|to|by|using|via|consisting|comprising|called|named|"
    r"dubbed|termed|in which|and (?:show|demonstrate|prove|evaluate|use|apply|compare))\b",
    re.IGNORECASE,
)
_LEADING = {"a", "an", "the", "novel", "new", "simple", "general", "principled", "unified", "first"}
# Praise joined to a leading word: "a simple and effective method".
_PRAISE = {"effective", "efficient", "practical", "scalable", "flexible", "powerful", "accurate", "fast", "elegant"}
_BREAK = {"for", "of", "over", "in", "on", "with", "under", "from", "across", "as", "and", "or", "at", "vs", "versus"}
_MAX_TITLE_WORDS = 8
_MIN_TITLE_WORDS = 2


# Weaker: "we study / analyse / give ...", read only when no sentence proposes anything that names the work.
_STUDY_VERBS = r"(?:stud(?:y|ies)|analy[sz]es?|gives?|provides?|investigates?|examines?|characteri[sz]es?|revisits?)\s+"
_STUDIED = re.compile(_SUBJECT + _STUDY_VERBS, re.IGNORECASE)
# "We frame this choice as a budget problem and compare three constructions of ...": the second verb says it.
_ALSO_STUDIED = re.compile(_SUBJECT + r"(?:[^\s.;]+\s+){1,12}?and\s+compares?\s+", re.IGNORECASE)
# "We question this status quo ...": what the paper argues against, named by the opening sentence's subject.
_CRITIQUE = re.compile(
    r"\bwe\s+(?:\w+ly\s+)?(question|challenge|rethink)\s+(?:this|these)\s+(?:status quo|assumptions?|paradigms?|"
    r"views?|practices?|beliefs?|conventions?|notions?|recipes?|pipelines?)\b",
    re.IGNORECASE,
)
_GERUND = {"question": "Questioning", "challenge": "Challenging", "rethink": "Rethinking"}
# "the problem of learning from noisy labels": the problem is the title.
_FRAMING = {"problem", "problems", "task", "question", "challenge", "challenges"}
_NO_OBJECT = {"this", "these", "that", "those", "it", "them", "to", "how", "what"}
# "an initial attempt", "one way to interpret": what kind of work, not what it is about (unless "... of X").
_VAGUE = {"one", "initial", "attempt", "step", "steps", "way", "ways", "direction", "insight", "insights", "look"}
_VAGUE |= {"perspective", "glimpse", "common"}


def described(text: str) -> str | None:
    """A short descriptive title from the sentence saying what the paper proposes, when no name
    does: the object of "we propose/introduce/develop ...", else of "we study/analyse/give ...",
    without leading articles, at most eight words (cut before a preposition when longer). None when
    no sentence says it.

    Example: described("Grids are hard. We propose a risk-constrained RL framework for grid operation.")
        -> 'Risk-constrained RL framework for grid operation'
    Example: described("We study long-horizon forecasting of event sequences as a generative problem.")
        -> 'Long-horizon forecasting of event sequences'
    """
    split = sentences.split(text)
    for verbs in (_OFFER, _STUDIED, _ALSO_STUDIED):
        for sentence in split:
            verb = verbs.search(sentence)
            title = _object_title(sentence[verb.end() :]) if verb else None
            if title is not None:
                return f"Comparing {_lower_first(title)}" if verbs is _ALSO_STUDIED else title
    return _critique(split, text)


def _critique(split: list[str], text: str) -> str | None:
    """ "Questioning the standard LLM training pipeline": for a paper whose second sentence questions,
    challenges or rethinks "this status quo" (or assumption, paradigm, ...), the opening sentence's
    subject, which is what it points back to. None otherwise."""
    # Only right after the opening sentence does "this status quo" surely point at what it says.
    found = _CRITIQUE.search(split[1]) if len(split) > 1 else None
    opening = phrase(text)
    if found is None or len(opening.split()) < 2:
        return None
    return f"{_GERUND[found.group(1).lower()]} the {_lower_first(opening)}"


def _lower_first(title: str) -> str:
    """A title's first letter in lower case to follow another word, unless it starts an acronym.

    Example: _lower_first("Standard LLM pipeline") -> 'standard LLM pipeline'; _lower_first("LLM x") -> 'LLM x'
    """
    return (title[0].lower() if title[1:2].islower() else title[0]) + title[1:]


def _object_title(rest: str) -> str | None:
    """The object at the start of `rest` (what follows "we propose") as a title, or None."""
    end = _OBJECT_END.search(rest)
    # "a finite-time, finite-sample analysis of ...": a comma after one hyphenated adjective goes on.
    while end and rest[end.start()] == "," and _one_adjective(rest[: end.start()]):
        end = _OBJECT_END.search(rest, end.end())
    words = list(_WORD.finditer(rest, 0, end.start() if end else len(rest)))
    while words and words[0].group().lower() in _LEADING:
        words = words[1:]
    while len(words) > 2 and words[0].group().lower() == "and":
        if words[1].group().lower() in _LEADING | _PRAISE:  # "a novel and simple algorithm" -> 'Simple algorithm'
            words = words[1:]
            break
        # "we propose and (theoretically) analyze a principle": the object of the second verb
        words = [w for i, w in enumerate(words[1:]) if i > 0 or not w.group().lower().endswith("ly")][1:]
        while words and words[0].group().lower() in _LEADING:
            words = words[1:]
    if len(words) > 2 and words[0].group().lower() in _FRAMING and words[1].group().lower() == "of":
        words = words[2:]  # "the problem of learning from noisy labels" -> 'Learning from noisy labels'
    if words and (words[0].group().lower() in _NO_OBJECT or (len(words) <= 2 and words[0].group().lower() in _VAGUE)):
        return None  # "we propose to ...", "we study it", "we give an initial attempt": no object naming the work
    if len(words) > _MAX_TITLE_WORDS:
        cut = max((i for i, w in enumerate(words[: _MAX_TITLE_WORDS + 1]) if w.group().lower() in _BREAK), default=0)
        words = words[:cut] if cut >= _MIN_TITLE_WORDS else words[:_MAX_TITLE_WORDS]
    while words and words[-1].group().lower() in _BREAK | _LEADING:
        words.pop()
    if len(words) == 1 and words[0].group()[:1].isupper() and end and rest[end.start()] == ",":
        return words[0].group()  # "We present Seahorse, a framework for ...": a name with one capital
    if len(words) < _MIN_TITLE_WORDS:
        return None
    title = " ".join(rest[words[0].start() : words[-1].end()].split())  # as written: "Finite-time, finite-sample"
    return title[0].upper() + title[1:]


def _one_adjective(text: str) -> bool:
    """Whether `text` is one lower-case hyphenated word after articles ("a finite-time")."""
    found = [w for w in _WORD.findall(text) if w.lower() not in _LEADING]
    return len(found) == 1 and found[0].islower() and "-" in found[0]


def from_title(title: str) -> str:
    """A paper's label from its title: the name before a colon when there is a short one.

    Example: from_title("CausalBind: Causal Binding for Screening") -> 'CausalBind'
    """
    head, sep, _ = title.partition(":")
    return head.strip() if sep and 0 < len(head.strip()) <= 40 else title.strip()


def assign(texts: dict[str, str], taken: set[str], titles: dict[str, str] | None = None) -> dict[str, str]:
    """Distinct labels for papers {paper_id: display text}, avoiding labels already `taken`.

    Papers with a title are labelled from it; the others by the name they introduce.
    Example: assign({"p1": "We propose Foo-Net. Foo-Net ..."}, set()) -> {'p1': 'Foo-Net'}
    """
    # Labels are printed on terminals and in pages: made of printable text only, whatever the abstract holds.
    texts = {pid: without_controls(text) for pid, text in texts.items()}
    titles = {pid: without_controls(title) for pid, title in (titles or {}).items()}
    used = {label.lower() for label in taken}
    labels: dict[str, str] = {}
    for pid in sorted(texts):
        title = titles.get(pid)
        if title:
            options = [from_title(title), title.strip()]
        else:
            options = [*candidates(texts[pid]), *filter(None, [described(texts[pid])]), phrase(texts[pid])]
        label = next((o for o in options if o.lower() not in used), None)
        if label is None:
            base, n = options[0], 2
            while f"{base} ({n})".lower() in used:
                n += 1
            label = f"{base} ({n})"
        used.add(label.lower())
        labels[pid] = label
    return labels
