"""Normalise abstracts: the content key behind paper ids, and readable display text.

The raw text is never changed; `display` renders markdown emphasis and LaTeX fragments
("**bold**", "\\textbf{X}", "$\\chi$") as plain readable text. This module does not split
sentences or count tokens.
"""

from __future__ import annotations

import hashlib
import logging
import re
import unicodedata
from functools import lru_cache

from pylatexenc import latex2text
from pylatexenc.latex2text import LatexNodes2Text

# pylatexenc logs a warning for every macro it cannot render (\url in an abstract); the
# fragment is then kept as written, which is all we need, so its warnings are noise.
logging.getLogger("pylatexenc").setLevel(logging.ERROR)

# Pandoc's rule: math hugs its dollars and is not followed by a digit, so "$5 to $10" is money.
_MATH = re.compile(r"(?<!\\)\$(?=\S)(.+?)(?<=\S)(?<!\\)\$(?!\d)")
# \cmd{arg} or \cmd (text-mode commands outside math)
_COMMAND = re.compile(r"\\[a-zA-Z]+\*?(?:\{[^{}]*\})*")
_EMPHASIS = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1|(?<![\w*])\*(?=\S)([^*]+?)(?<=\S)\*(?![\w*])")
_DOUBLE_BACKSLASH = re.compile(r"\\\\(?=[a-zA-Z])")
_ESCAPED = re.compile(r"\\([%&#_$])")  # \% -> %
# LaTeX's tie (non-breaking space): "Gemini~3", "Fig.~2", "models~(PLMs)". Not after a lone letter
# ("O~(dT)" is soft-O), a space or a slash ("/~user"), nor between digits ("4~16x" is a range),
# nor before a distribution ("x_t~N(0, I)", "z~Bern(p)": "distributed as").
_TIE = re.compile(r"(?<=\w\w|[\w)]\.)~(?=[\w(\[])(?![A-Z][A-Za-z]{0,5}\()")
# LaTeX's dashes between words or numbers: "bound---that is" (em), "encode--evolve--decode", "4--16" (en);
# a longer run or one touching other marks ("--flag", "<-->") is left as written.
_DASHES = re.compile(r"(?<=[\w)\]])(?:(---)|--)(?=[\w(\[])|(?<= )(?:(---)|--)(?= )")


def normalised(text: str) -> str:
    """The comparison form of an abstract: NFKC, one space between words, lower case.

    Example: normalised("A  Study\\nof X") -> 'a study of x'
    """
    return " ".join(unicodedata.normalize("NFKC", text).split()).lower()


def paper_id(text: str) -> str:
    """Stable id of an abstract, from its normalised content.

    Example: paper_id("A study of X.") == paper_id("a  study of X.")
    """
    return "p" + hashlib.sha256(normalised(text).encode()).hexdigest()[:12]


def content_hash(*parts: str | None) -> str:
    """Hash of everything that decides what is embedded and indexed for a paper."""
    blob = "\x1f".join(p or "" for p in parts)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


# Typewriter and sans-serif text are names in abstracts (\texttt{verify\_answer}, \textsf{WDRO}):
# pylatexenc drops the first two, and writes the math ones in styled letters no query matches.
_PLAIN_MACROS = ("texttt", "textsf", "mathtt", "mathsf")


@lru_cache(maxsize=1)
def _latex() -> LatexNodes2Text:
    context = latex2text.get_default_latex_context_db()
    plain = [latex2text.MacroTextSpec(name, simplify_repl="%(1)s") for name in _PLAIN_MACROS]
    context.add_context_category("paperbot-plain", prepend=True, macros=plain)
    return LatexNodes2Text(latex_context=context, math_mode="text", strict_latex_spaces=True)


def _latex_to_text(fragment: str) -> str:
    try:
        return _latex().latex_to_text(fragment).strip()
    except Exception:  # pylatexenc is lenient, but never let display rendering fail ingest
        return fragment


def _untie(match: re.Match[str]) -> str:
    before, after = match.string[match.start() - 1], match.string[match.end()]
    return "~" if before.isdigit() and after.isdigit() else " "


def display(text: str) -> str:
    """`text` with markdown emphasis and LaTeX rendered readably, on one line per paragraph.

    Example: display("**STAR** beats $\\chi$-Bench by \\textbf{5}%") -> 'STAR beats χ-Bench by 5%';
        display("a bound---that is, 4--16 steps") -> 'a bound—that is, 4–16 steps'
    """
    out = " ".join(text.split())
    out = _MATH.sub(lambda m: _latex_to_text(_DOUBLE_BACKSLASH.sub(r"\\", m.group(1))), out)
    out = _COMMAND.sub(lambda m: _latex_to_text(m.group(0)), out)
    out = _EMPHASIS.sub(lambda m: m.group(2) or m.group(3) or "", out)
    out = _ESCAPED.sub(r"\1", out)
    out = _TIE.sub(_untie, out)
    out = _DASHES.sub(lambda m: "\u2014" if m.group(1) or m.group(2) else "\u2013", out)
    # Rendering can leave nothing of a fragment ("\\qubegin" is an unknown macro): keep it as written,
    # so that every paper has text to show, chunk and embed.
    return out if re.search(r"\w", out) or not text.strip() else " ".join(text.split())
