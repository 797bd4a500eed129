"""Acronyms the corpus defines ("on-policy distillation (OPD)"), used to spell out a query's acronyms.

MiniLM knows "on-policy distillation" but not "OPD", so a question that only says "OPD" finds
the papers about it by words alone. Each abstract defines its own acronyms, so the corpus is
the dictionary: `learn` reads "long form (ACRONYM)" definitions and keeps each acronym's most
frequent long form; `expand` writes it beside the acronym in a query. It does not search.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable

# "(OPD)", "(Q-MMR)", "(LLMs)": one to ten letters, digits or hyphens in parentheses.
_DEFINED = re.compile(r"\(([A-Za-z][A-Za-z0-9-]{1,9})\)")
_WORD = re.compile(r"[A-Za-z0-9][\w-]*")
# A word in a query that could be an acronym: at least two characters, ends in a letter or digit.
_TOKEN = re.compile(r"(?<![\w-])[A-Za-z][\w-]*[A-Za-z0-9](?![\w-])")


def _letters(acronym: str) -> str:
    """Example: _letters("Q-MMRs") -> "qmmr" (a plural s is not a letter of the long form)."""
    core = acronym[:-1] if len(acronym) > 2 and acronym.endswith("s") and acronym[-2].isupper() else acronym
    return "".join(c.lower() for c in core if c.isalpha())


def long_form(before: str, acronym: str) -> str | None:
    """The words before "(acronym)" that spell it, or None.

    Words are matched by their initials first (hyphenated words count each part), then by
    letters anywhere in the words, the first letter starting a word (Schwartz and Hearst's rule).
    Example: long_form("trained with on-policy distillation", "OPD") -> "on-policy distillation"
    """
    if sum(c.isupper() for c in acronym) < 2:
        return None  # "(e.g.)", "(i)", "(Fig)" are not acronyms
    letters = _letters(acronym)
    words = _WORD.findall(before)[-(len(letters) + 3) :]
    if not letters or not words:
        return None
    # Initials: "proximal policy optimization" for PPO, "on-policy distillation" for OPD.
    for count in range(1, len(words) + 1):
        tail = words[-count:]
        initials = "".join(part[0].lower() for word in tail for part in word.split("-") if part)
        if initials == letters:
            return " ".join(tail).lower()
    text = " ".join(words).lower()
    i = len(text) - 1
    for n, letter in enumerate(reversed(letters)):
        first = n == len(letters) - 1
        while i >= 0 and (text[i] != letter or (first and i > 0 and text[i - 1].isalnum())):
            i -= 1
        if i < 0:
            return None
        i -= 1
    found = text[i + 1 :].strip()
    return found if 2 <= len(found.split()) <= len(letters) + 2 else None


def spelled_out(acronym: str, text: str) -> str | None:
    """How `text` spells out `acronym`, defined either way round, or None.

    Example: spelled_out("CPA", "we propose Cross-Precision Alignment (CPA), a ...") -> "cross-precision alignment";
    spelled_out("STAR", "we propose STAR (Staleness-Aware Replay), a ...") -> "staleness-aware replay"
    """
    after = re.search(rf"(?<![\w-]){re.escape(acronym)}\s*\(([^()]{{5,80}})\)", text)
    if after and (found := long_form(after.group(1), acronym)):
        return found
    before = re.search(rf"\({re.escape(acronym)}\)", text)
    return long_form(text[max(0, before.start() - 200) : before.start()], acronym) if before else None


def learn(texts: Iterable[str]) -> dict[str, str]:
    """Every acronym the texts define, with its most frequent long form.

    Example: learn(["... on-policy distillation (OPD) ..."]) -> {"OPD": "on-policy distillation"}
    """
    return most_frequent(definitions(text) for text in texts)


def definitions(text: str) -> list[tuple[str, str]]:
    """The (acronym, long form) definitions of one text, in its order.

    Example: definitions("... on-policy distillation (OPD) ...") -> [("OPD", "on-policy distillation")]
    """
    found = []
    for match in _DEFINED.finditer(text):
        form = long_form(text[max(0, match.start() - 200) : match.start()], match.group(1))
        if form:
            found.append((match.group(1), form))
    return found


def most_frequent(defined: Iterable[Iterable[tuple[str, str]]]) -> dict[str, str]:
    """Each acronym of the texts' `definitions` (in the texts' order) with its most frequent long form,
    the first seen among equally frequent ones."""
    seen: defaultdict[str, Counter[str]] = defaultdict(Counter)
    for pairs in defined:
        for acronym, form in pairs:
            seen[acronym][form] += 1
    return {acronym: forms.most_common(1)[0][0] for acronym, forms in sorted(seen.items())}


def expand(query: str, known: dict[str, str]) -> str:
    """The query with each known acronym followed by its long form, unless the query spells it out.

    Example: expand("Is OPD better than SFT?", {"OPD": "on-policy distillation"})
    -> "Is OPD (on-policy distillation) better than SFT?"
    """
    lowered = query.lower()

    def spell(match: re.Match[str]) -> str:
        word = match.group(0)
        found = known.get(word) or (known.get(word[:-1]) if word.endswith("s") else None)
        return f"{word} ({found})" if found and found not in lowered else word

    return _TOKEN.sub(spell, query) if known else query
