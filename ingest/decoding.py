"""Turn a file's bytes into text and text into lines, for every reader of abstract files.

Knows encodings and line breaks; knows nothing of formats or records.
"""

from __future__ import annotations

import re
from pathlib import Path

from bot.errors import FormatError, InputError


def decode(file: Path, encoding: str, formats: str) -> str:
    """The text of `file`, without a byte-order mark; raises FormatError for binary or undecodable files.

    `formats` names the suffixes paperbot reads, for the message about a binary file.
    """
    data = file.read_bytes()
    nul = data.find(b"\x00")
    if nul >= 0:
        raise FormatError(
            f"{file}: looks like a binary file (NUL byte at offset {nul}); paperbot reads text "
            f"files ({formats}): export the abstracts to one of them"
        )
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        # Count characters, not bytes, as editors do: the bytes before the bad one decode fine.
        column = len(data[line_start : exc.start].decode(encoding, errors="replace")) + 1
        raise FormatError(
            f"{file} line {line}: not valid {encoding} (byte 0x{data[exc.start]:02x} at column "
            f"{column}); save the file as UTF-8 or pass --encoding latin-1"
        ) from exc
    except LookupError as exc:
        raise InputError(f"unknown encoding {encoding!r}; pass e.g. --encoding latin-1") from exc
    return text.removeprefix("\ufeff")


def split_lines(text: str) -> list[str]:
    """Lines split at line breaks only.

    str.splitlines() also splits at U+2028, U+0085 and form feeds, which JSON strings and
    PDF-extracted text may hold; that broke JSONL records and shifted line numbers.
    Example: split_lines("a\u2028b\r\nc") -> ['a\u2028b', 'c']
    """
    return re.split(r"\r\n|\r|\n", text.removesuffix("\n").removesuffix("\r"))
