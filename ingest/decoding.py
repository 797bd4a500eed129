"""Turn a file's bytes into text and text into lines, for every reader of abstract files.

Knows encodings, byte-order marks and line breaks; knows nothing of formats or records.
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path

from bot.errors import FormatError, InputError
from bot.text.clean import clean, replaced_note

# UTF-32 first: its little-endian mark starts with UTF-16's.
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


# Text has no control characters but tabs and line breaks; bytes read as UTF-16 by mistake do.
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f]")


def decode(file: Path, encoding: str, formats: str, warnings: list[str] | None = None) -> str:
    """The text of `file`, without a byte-order mark; raises FormatError for binary or undecodable files.

    A UTF-16 or UTF-32 byte-order mark (Excel's "Unicode text") decides the encoding. `formats`
    names the suffixes paperbot reads, for the message about a binary file. A lone surrogate, which
    a few codecs decode to (utf-7, unicode_escape), becomes U+FFFD with a note in `warnings`.
    """
    _check_known(encoding)
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise FormatError(f"{file}: cannot read the file ({exc.strerror}); check its permissions") from exc
    codec = next((name for bom, name in _BOMS if data.startswith(bom)), None) or encoding
    # NUL bytes are half of UTF-16 text, so for wide encodings they are looked for after decoding.
    wide = codecs.lookup(codec).name.startswith(("utf-16", "utf-32"))
    if not wide:
        _refuse_nul(file, data.find(b"\x00"), "byte", formats, _utf16_hint(data))
    try:
        text = data.decode(codec)
    except UnicodeDecodeError as exc:
        raise _undecodable(file, data, codec, exc) from exc
    if wide and (control := _CONTROL.search(text)):
        _refuse_nul(file, control.start(), f"or control character U+{ord(control.group()):04X}", formats)
    text, replaced = clean(text)
    if replaced and warnings is not None:
        warnings.append(f"{file}: {replaced_note(replaced)} (decoded as {codec})")
    return text.removeprefix("\ufeff")


def _check_known(encoding: str) -> None:
    try:
        info = codecs.lookup(encoding)
    except LookupError as exc:
        raise InputError(f"unknown encoding {encoding!r}; pass e.g. --encoding latin-1") from exc
    if not getattr(info, "_is_text_encoding", True):  # rot13, base64, hex: codecs, but not of text
        raise InputError(f"{encoding!r} is not a text encoding; pass e.g. --encoding latin-1 or utf-16")


def _refuse_nul(file: Path, offset: int, what: str, formats: str, hint: str = "") -> None:
    if offset >= 0:
        raise FormatError(
            f"{file}: looks like a binary file (NUL {what} at offset {offset}); paperbot reads text files "
            f"({formats}): export the abstracts to one of them{hint}"
        )


def _utf16_hint(data: bytes) -> str:
    guess = _utf16_without_bom(data)
    return f"; if it is UTF-16 text without a byte-order mark, pass --encoding {guess}" if guess else ""


def _utf16_without_bom(data: bytes) -> str | None:
    """Mostly-ASCII UTF-16 has a NUL in every other byte. Example: "ab".encode("utf-16-le") -> 'utf-16-le'"""
    sample = data[:4096]
    for name, zeros, chars in (("utf-16-le", sample[1::2], sample[0::2]), ("utf-16-be", sample[0::2], sample[1::2])):
        if len(sample) >= 4 and zeros.count(0) >= 0.9 * len(zeros) and chars.count(0) <= 0.1 * len(chars):
            return name
    return None


def _undecodable(file: Path, data: bytes, codec: str, exc: UnicodeDecodeError) -> FormatError:
    # Count characters, not bytes, as editors do: the bytes before the bad one decode fine.
    before = data[: exc.start].decode(codec, errors="replace")
    line = before.count("\n") + 1
    column = len(before) - (before.rfind("\n") + 1) + 1
    return FormatError(
        f"{file} line {line}: not valid {codec} (byte 0x{data[exc.start]:02x} at column {column}); "
        "save the file as UTF-8 or pass --encoding latin-1"
    )


def split_lines(text: str) -> list[str]:
    """Lines split at line breaks only.

    str.splitlines() also splits at U+2028, U+0085 and form feeds, which JSON strings and
    PDF-extracted text may hold; that broke JSONL records and shifted line numbers.
    Example: split_lines("a\u2028b\r\nc") -> ['a\u2028b', 'c']
    """
    return re.split(r"\r\n|\r|\n", text.removesuffix("\n").removesuffix("\r"))
