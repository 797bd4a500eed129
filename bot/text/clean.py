"""Text made clean Unicode where it enters paperbot: every lone surrogate becomes U+FFFD.

Python hands over a byte that is not UTF-8 (in a command-line argument, a file name, stdin) as a
lone surrogate ('\\udce9' for a Latin-1 'é', by surrogateescape), and JSON's "\\ud800" escape
decodes to one. Neither can be written as UTF-8, so the tokenizer, hashlib and SQLite fail on them.
This module finds and replaces them, and counts what it replaced; saying where the text came from
is the caller's job. It leaves control characters alone (bot.render.text.printable shows those
escaped on a terminal).
"""

from __future__ import annotations

import re
from typing import Any

REPLACEMENT = "\ufffd"
_SURROGATE = re.compile("[\ud800-\udfff]")


def clean(text: str) -> tuple[str, int]:
    """`text` with each lone surrogate replaced by U+FFFD, and how many were replaced.

    A surrogate pair held as two characters is joined into the one character it stands for.
    Example: clean("caf\\udce9 au lait") -> ('caf\\ufffd au lait', 1)
    """
    if not _SURROGATE.search(text):
        return text, 0
    # UTF-16 is the one codec that takes surrogates as they are: pairs decode to their character,
    # and each lone one to U+FFFD.
    fixed = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return fixed, fixed.count(REPLACEMENT) - text.count(REPLACEMENT)


def clean_json(value: Any) -> tuple[Any, dict[str, int]]:
    """`value` (parsed JSON) with every string in it, keys too, cleaned; and the replacements made,
    counted by the top-level field (or item number) they were found under.

    Nesting is bounded by bot.text.jsonl's depth limit, so the recursion is too.
    Example: clean_json({"title": "T\\ud800", "year": 2020}) -> ({'title': 'T\\ufffd', 'year': 2020}, {'title': 1})
    """
    found: dict[str, int] = {}
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            fixed_key, in_key = clean(key)
            fixed, inside = _deep(item)
            if in_key or inside:
                found[fixed_key] = found.get(fixed_key, 0) + in_key + inside
            out[fixed_key] = fixed
        return out, found
    if isinstance(value, list):
        items = []
        for number, item in enumerate(value, start=1):
            fixed, inside = _deep(item)
            if inside:
                found[f"item {number}"] = inside
            items.append(fixed)
        return items, found
    fixed, replaced = _deep(value)
    return fixed, ({"the value": replaced} if replaced else {})


def _deep(value: Any) -> tuple[Any, int]:
    """`value` cleaned all the way down, and the number of replacements."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, dict | list):
        fixed, found = clean_json(value)
        return fixed, sum(found.values())
    return value, 0


# A terminal's escape sequences: OSC (a window title, ended by BEL or ESC \\), CSI (colours, clearing the
# screen), and any other ESC plus one character; then every other control or bidirectional override.
_ESCAPE_SEQUENCE = re.compile(
    r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b\[[0-?]*[ -/]*[@-~]?|\x1b[ -~]?|\x9b[0-?]*[ -/]*[@-~]?"
)
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]+")


def without_controls(text: str) -> str:
    """`text` with terminal escape sequences removed and other control characters made spaces: what
    a label or a name built from stored text may be made of.

    Example: without_controls("\x1b]0;pwned\x07We propose \x1b[31mRedNet\x1b[0m") -> 'We propose RedNet'
    """
    return _CONTROL.sub(" ", _ESCAPE_SEQUENCE.sub("", text)).strip()


def escaped(text: str) -> str:
    """`text` with its lone surrogates written as the bytes or escapes they stand for, for messages.

    Example: escaped("caf\\udce9.txt") -> 'caf\\\\xe9.txt' (the byte 0xe9 the file name holds)
    """
    return _SURROGATE.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    # surrogateescape keeps a byte 0x80-0xff as U+DC80-U+DCFF
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"


def json_escaped(text: str) -> str:
    """`text` with its lone surrogates written as JSON escapes, which keep JSON output valid.

    Example: json_escaped('"caf\udce9"') -> '"caf\\udce9"'
    """
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def replaced_note(count: int) -> str:
    """What a warning says about `count` replaced characters.

    Example: replaced_note(1) -> '1 character that is not valid Unicode (a byte that is not UTF-8,
    or a lone surrogate such as a \\ud800 escape) replaced by U+FFFD'
    """
    if count == 1:
        return (
            "1 character that is not valid Unicode (a byte that is not UTF-8, or a lone surrogate such as "
            "a \\ud800 escape) replaced by U+FFFD"
        )
    return (
        f"{count:,} characters that are not valid Unicode (bytes that are not UTF-8, or lone surrogates such as "
        "a \\ud800 escape) replaced by U+FFFD"
    )
