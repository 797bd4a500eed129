"""What each sentence of an abstract does: the problem, the contribution, how it works, what it found.

A researcher's summary of a paper names its contribution and what it found; the problem statement
(the sentences before the contribution) mostly restates the question, so it is used only when the
question asks why. This module also knows which sentences lean on the one before them ("This
problem is further amplified ...", "It then submits ...") and which openers can be dropped without
changing what a sentence says ("To bridge this gap, we propose ..." -> "We propose ...").
It reads one abstract's sentences; it does not score them against a question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PROBLEM, CONTRIBUTION, METHOD, FINDING = "problem", "contribution", "method", "finding"

# "We propose X", "This paper introduces X", "Here we present X": the paper's own contribution.
_PROPOSE = re.compile(
    r"\b(?:we|this (?:paper|work|study)|here,? we|our (?:work|paper))\b[^.;]{0,60}?\b(?:propose|introduce|present)\w*",
    re.IGNORECASE,
)
# Other ways of saying what the paper makes, when no sentence proposes: "we develop / design ...".
_MAKE = re.compile(
    r"\b(?:we|this (?:paper|work|study)|here,? we|our (?:work|paper))\b[^.;]{0,60}?\b(?:develop|design|formulate|"
    r"formali[sz]e|build|release|construct|curate|contribute|devise|derive)\w*",
    re.IGNORECASE,
)
# Weaker: "We study / analyse / show ..." when no sentence proposes anything.
_STUDY = re.compile(
    r"\b(?:we|this (?:paper|work|study))\b[^.;]{0,40}?\b(?:stud|investigat|analy[sz]|examin|identif|show|prove|"
    r"establish|revisit|characteri[sz]|argue|find|demonstrat|provide|offer|frame|cast|theori[sz])\w*",
    re.IGNORECASE,
)
# A sentence saying the paper made a kind of thing (bot.query's `artifact`): its making verb, then within a
# few words the thing ("We introduce χ-Bench, a benchmark of ...", "they present a benchmark that ...").
_MADE = re.compile(
    r"\b(?:we|they|the authors|this (?:paper|work|study)|here,? we|our (?:work|paper))\b[^.;]{0,40}?"
    r"\b(?:propose|introduce|present|develop|design|build|release|construct|curate|contribute|collect|create|"
    r"open-source)[sd]?\b([^.;]{0,80})",
    re.IGNORECASE,
)
_ARTIFACT_WORDS = {
    "benchmark": re.compile(r"\b(?:benchmark|testbed|evaluation (?:suite|framework))s?\b|\w-?bench\b", re.IGNORECASE),
    "dataset": re.compile(r"\b(?:datasets?|data sets?|corpus|corpora)\b", re.IGNORECASE),
    "simulator": re.compile(r"\b(?:simulators?|simulation (?:environment|platform)s?)\b", re.IGNORECASE),
}


def makes(sentence: str, artifact: str) -> bool:
    """Whether the sentence says the paper made a thing of this kind ("benchmark", "dataset", "simulator"),
    not only that it used one.

    Example: makes("We introduce C2G-BENCH, a cyber-physical benchmark for hierarchical RL.", "benchmark") -> True;
    makes("Experiments on DUD-E and LIT-PCBA benchmarks show gains.", "benchmark") -> False
    """
    words = _ARTIFACT_WORDS.get(artifact)
    return words is not None and any(words.search(m.group(1)) for m in _MADE.finditer(sentence))


# What the paper found: experiments, numbers, comparisons.
_FINDING = re.compile(
    r"\b(?:experiment\w*|results?|empirical\w*|outperform\w*|achiev\w*|improv\w*|surpass\w*|beat|yield\w*|"
    r"reduc\w*|boost\w*|gains?|speed-?ups?|faster|accura\w*|state-of-the-art|sota|benchmarks?|evaluat\w*|"
    r"we find|we show|we observe|we demonstrate|demonstrat\w*|show (?:that|consistent)|across \d+|"
    r"guarantee[sd]?|we (?:also )?prove|provabl[ey]|"
    r"(?:regret|error|excess-risk|complexity|improvement|generali[sz]ation|lower|upper) bounds?)\b"
    r"|\d+(?:\.\d+)?\s*(?:%|x\b|×|points?\b|pp\b)",
    re.IGNORECASE,
)
# A sentence giving a reason: what a "why" question asks for ("this limitation primarily stems from ...").
_CAUSE = re.compile(
    r"\b(?:because|due to|owing to|stem(?:s|med|ming)? from|aris(?:es|ing) from|caused by|root cause|"
    r"(?:is|are) driven by|attribut\w+ to|the reason|explains? why|lead(?:s|ing)? to|result(?:s|ing)? in)\b",
    re.IGNORECASE,
)
# ", reducing impact on aligned data" ends a sentence saying what the method does: the effect it is for, not a result.
_PURPOSE = re.compile(r",\s+(?:\w+ly\s+)?\w+ing\b")


# A claim about the method's theory, not how it works: "Theoretically, X decomposes ...", "We provide a
# first-order analysis showing that ...", "We prove that ...".
_THEORY = re.compile(
    r"^\W*(?:theoretically|in theory)\b|\bwe (?:also )?(?:prove|derive (?:a |an )?(?:\w+ )?bound)|"
    r"\b(?:theoretical|first-order|formal|convergence) analys[ie]s\b|\banalys[ie]s (?:showing|shows?)\b",
    re.IGNORECASE,
)


# What a paper proves rather than measures: "Our main theoretical result is a PAC-Bayesian bound ...".
_PROOF = re.compile(r"\b(?:theor\w*|bounds?|guarantee\w*|prov(?:e|es|ed|en|ably|able)|certif\w*|lemma|theorem)\b", re.I)


def measured(source: str) -> bool:
    """Whether a finding reports what was measured (experiments, numbers) rather than what was proved.

    Example: measured("STARE outperforms DAPO by 4% on AIME24.") -> True;
    measured("Our main theoretical result is an excess-risk bound.") -> False
    """
    return not _PROOF.search(source)


def theory(source: str) -> bool:
    """Whether a sentence states what the paper proves about its method rather than how the method works.

    Example: theory("We provide a first-order analysis showing that CURE descends a surrogate.") -> True;
    theory("CURE gates critic suppression by gradient alignment.") -> False
    """
    return bool(_THEORY.search(source))


def _finds(source: str) -> bool:
    """Whether a sentence after the contribution reports what the paper found: a finding's word outside a
    closing ", ...ing" clause, or any number with one.
    Example: _finds("CURE gates updates by alignment, reducing impact on aligned data.") -> False;
    _finds("CURE reduces forgetting on MuJoCo.") -> True"""
    # "... whether deviating would yield a gain", "... designed to improve ...": what a step is for, not a result
    if _SCOPE.search(source) and not _NUMBER.search(source):
        return False  # "Most of the results focus on the soft case": where the results are, not what they are
    found = list(_FINDING.finditer(source))
    cues = [m for m in found if not _AIM.search(source, 0, m.start())]
    if not cues:
        return bool(found) and bool(_NUMBER.search(source))
    purposes = [m.start() for m in _PURPOSE.finditer(source)]
    if not purposes or _NUMBER.search(source):
        return True
    return any(m.start() < purposes[0] for m in cues)


# What the results or experiments are about, not what they found: "Most of the results focus on X".
_SCOPE = re.compile(
    r"\b(?:results?|experiments?|analys[ie]s|evaluations?|study|studies)\s+(?:\w+ly\s+)?"
    r"(?:focus(?:es|ed)?|concentrat(?:e|es|ed)|cent(?:er|re)(?:s|d)?)\s+on\b",
    re.IGNORECASE,
)
# A modal or "to" just before a finding's word: "would yield", "to improve", "can reduce".
_AIM = re.compile(r"\b(?:would|could|might|must|should|to)\s+(?:\w+ly\s+)?$", re.IGNORECASE)

_NUMBER = re.compile(r"\d+(?:\.\d+)?\s*(?:%|x\b|×|points?\b|pp\b)|\b\d+(?:\.\d+)?\b")
# Openers that only link a sentence to the one before: dropping them leaves the same claim.
_CONNECTIVE = re.compile(
    r"^(?:moreover|further|furthermore|additionally|in addition|however|thus|therefore|hence|consequently|as a result|"
    r"to this end|in particular|specifically|finally|crucially|importantly|notably|in practice|overall|"
    r"building on (?:this|these)(?: \w+)?|to (?:address|bridge|tackle|overcome|close|fill|solve|fix|resolve|remedy|"
    r"mitigate|accomplish|achieve|realize|realise|meet|handle|answer|study|investigate|explore|enable|pursue) "
    r"(?:this|these|that|those|such|the|both)(?: \w+){0,3}|to do (?:so|this)|with (?:this|these) (?:in mind|goals?)|"
    r"in light of (?:this|these)(?: \w+)?|given (?:this|these)(?: \w+)?|for this (?:purpose|reason)|"
    r"motivated by (?:this|these|it|that|them)(?: \w+)?|"
    r"inspired by (?:this|these|it|that|them)(?: \w+)?|"
    r"(?:and )?(?:perhaps )?(?:surprisingly|interestingly|remarkably|strikingly)|"
    # "Using this dataset,", "To equip the model with these capabilities,": what an earlier sentence made
    r"(?:using|leveraging|with|given|based on|equipped with) (?:this|these|such)(?: [\w-]+){1,3}|"
    r"to [a-z]+(?: [\w-]+){0,4} (?:this|these|such|those)(?: [\w-]+){1,2}|"
    r"(?:first|second|third|fourth|next|then|lastly)(?:ly)?)\s*,\s+",
    re.IGNORECASE,
)
# What continues a phrase rather than starting the claim after a linking opener.
_EXAMPLE = re.compile(r"(?:e\.g\.|i\.e\.|such as|including|namely)", re.IGNORECASE)
# Openers that point back at something the summary may not have said.
_DANGLING = re.compile(
    r"^(?:this|these|that|those|such|it|its|they|their|both|the latter|the former|the resulting|then|"
    r"further|also|here|there|thereby|doing so|in doing so|in turn|by contrast|in contrast|instead|"
    r"similarly|likewise|nevertheless|yet|still|accordingly|together|combined|combining|beyond|"
    r"on top of|at the same time|meanwhile|conversely)\b",
    re.IGNORECASE,
)
# "On such trajectories, ...", "In these settings, ...": a short preposition, then the pointing word.
_DANGLING_AFTER = re.compile(
    r"^(?:on|in|for|from|with|under|at|by|across|over|within|beyond|unlike|despite)\s+(?:this|these|those|such)\b",
    re.IGNORECASE,
)
# "This paper ...", "In this work ...": a self-reference, not a dangling one.
_SELF = re.compile(r"^(?:(?:in|from|of) )?(?:this|our) (?:paper|work|study|article|abstract)\b", re.IGNORECASE)
# "This work formalizes these failure modes, ...", "We address such settings by ...": the paper, a verb,
# then a pointing word: the failure modes are named in the sentence before.
_SELF_POINTING = re.compile(
    r"^(?:(?:this|our) (?:paper|work|study|article)|we)\s+(?:[a-z-]+\s+){1,2}?(?:these|those|such)\s+[a-z]",
    re.IGNORECASE,
)

# Inside the sentence, a word pointing at what an earlier one said: "We show that this choice creates ...",
# "... unifies these two forms of user representation", "budgeted acquisition of such annotations". Not "this
# paper", "such as", "such that".
_POINTING = re.compile(
    r"\b(?:these|those)\s+[a-z]|\bsuch\s+(?!as\b|that\b)[a-z]|"
    r"\bthis\b(?!\s+(?:paper|work|study|article|abstract|end)\b)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Sentence:
    """One sentence of an abstract, with its place and role."""

    position: int
    text: str  # connective opener dropped where that is safe
    source: str  # as in the abstract
    role: str  # problem, contribution, method or finding
    leans_back: bool  # still points at an earlier sentence after the opener is dropped
    numbers: int  # how many numbers it states (findings with numbers say more)
    explains: bool = False  # gives a reason ("stems from", "because"): what a "why" question asks
    points: bool = False  # a word inside it points at an earlier sentence ("We show that this choice ...")


def stand_alone(sentence: str) -> str:
    """The sentence without an opener that only links it to the one before.

    Example: stand_alone("To bridge this gap, we propose X.") -> 'We propose X.'
    """
    out = sentence
    for _ in range(2):  # "However, to address this, we ..."
        dropped = _CONNECTIVE.sub("", out, count=1)
        # "To mitigate the challenges, e.g., sparsity, we propose X": the comma opened an example, not the claim
        if dropped == out or len(dropped) < 20 or _EXAMPLE.match(dropped):
            break
        out = dropped[0].upper() + dropped[1:]
    return out


def leans_back(sentence: str) -> bool:
    """Whether the sentence needs the one before it to be understood.

    Example: leans_back("It then submits the plan.") -> True; leans_back("This paper proposes X.") -> False;
    leans_back("On such trajectories, supervision is noisy.") -> True;
    leans_back("This work formalizes these failure modes.") -> True
    """
    if _SELF_POINTING.match(sentence):
        return True
    return bool(_DANGLING.match(sentence) or _DANGLING_AFTER.match(sentence)) and not _SELF.match(sentence)


def points_back(sentence: str) -> bool:
    """Whether a word inside the sentence points at something only an earlier sentence says.

    Example: points_back("We show that this choice creates a mismatch.") -> True;
    points_back("In this paper, methods such as PPO are compared.") -> False
    """
    return bool(_POINTING.search(sentence))


# Where a sentence's first clause ends: what a pointing word after it points at may be earlier in the sentence.
_CLAUSE_END = re.compile(r"[,;:]|\s(?:but|while|whereas|yet)\s")


def opens_pointing(sentence: str) -> bool:
    """Whether the sentence's first clause points at something an earlier sentence said: "Our analysis reveals
    that this limitation stems from ..." does; "X regularizes toward the data, but this reference can mismatch
    the policy" points within itself.

    Example: opens_pointing("We find that this gap stems from noise.") -> True;
    opens_pointing("Methods fit the data, but this reference can mismatch.") -> False
    """
    return points_back(_CLAUSE_END.split(sentence, maxsplit=1)[0])


def read(texts: list[str], name: str | None = None) -> list[Sentence]:
    """Each of an abstract's sentences (in order) with its role.

    The contribution is the first sentence proposing something ("we propose ..."), preferring one
    that says the paper's `name`; else the first that develops or designs something, else the first
    saying what the paper studies or shows. Sentences before it state the problem; those after it
    are findings when they report results, the method otherwise.
    Example: read(["X is hard.", "We propose Y.", "Y wins by 5%."]) roles -> problem, contribution, finding
    """
    named = [i for i, s in enumerate(texts) if name and name in s]
    contribution = None
    for pattern in (_PROPOSE, _MAKE, _STUDY):
        found = [i for i, s in enumerate(texts) if pattern.search(s)]
        if found:
            # "We propose X" over another proposal; "we release the X pipeline" is no better than "we formalize"
            contribution = next((i for i in found if i in named), found[0]) if pattern is _PROPOSE else found[0]
            break
    if contribution is None:
        contribution = 1 if len(texts) > 2 else 0  # the opening sentence is most often background
    out: list[Sentence] = []
    for i, source in enumerate(texts):
        text = stand_alone(source)
        if i < contribution:
            # "Since ..., we formalize this prior via ..." before "We propose X" is already the method.
            role = METHOD if _MAKE.search(source) or _STUDY.search(source) else PROBLEM
            if role == PROBLEM and _FINDING.search(source) and _NUMBER.search(source):
                role = FINDING  # "The property holds under 30% label noise" reports a result wherever it stands
        elif i == contribution:
            role = CONTRIBUTION
        else:
            role = FINDING if _finds(source) else METHOD
        explains = bool(_CAUSE.search(source))
        leaning = leans_back(text)
        points = not leaning and points_back(text)  # one leaning back already needs the sentence before it
        out.append(Sentence(i, text, source, role, leaning, len(_NUMBER.findall(source)), explains, points))
    return out
