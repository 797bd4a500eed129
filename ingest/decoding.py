"""Turn a file's bytes into text and text into lines, for every reader of abstract files: the whole
file at once (`decode`), or line by line without holding the file's text (`LineStream`, for JSON
lines: an arXiv snapshot is 4 GB).

Knows encodings, byte-order marks and line breaks; knows nothing of formats or records.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

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


class LineStream:
    """The lines of a file, numbered as `split_lines` numbers them, read one at a time: the text of the
    whole file is never held, and `position` says how many of its `size` bytes were read so far.

    Iterating raises what `decode` raises (unknown encoding, binary file, bytes that are not valid in
    the encoding, each named by file and line), when the line holding the problem is reached; a NUL
    byte in the first 64 KiB is refused before any line is read. A file in UTF-16 or UTF-32, or in an
    encoding whose line breaks are not the ASCII bytes, is decoded whole (such files are spreadsheet
    exports, not snapshots). Lone surrogates become U+FFFD, with one note in `warnings` at the end.
    Example: [line for line in LineStream(Path("a.jsonl"), "utf-8", FORMATS)] -> [(1, '{"abstract": ...}'), ...]
    """

    def __init__(self, file: Path, encoding: str, formats: str, warnings: list[str] | None = None) -> None:
        _check_known(encoding)
        self.file, self.encoding, self.formats, self.warnings = file, encoding, formats, warnings
        try:
            self.size = file.stat().st_size
        except OSError as exc:
            raise FormatError(f"{file}: cannot read the file ({exc.strerror}); check its permissions") from exc
        self.position = 0

    def __iter__(self) -> Iterator[tuple[int, str]]:
        try:
            handle = self.file.open("rb")
        except OSError as exc:
            raise FormatError(f"{self.file}: cannot read the file ({exc.strerror}); check its permissions") from exc
        with handle:
            head = handle.read(_SAMPLE)
            codec = next((name for bom, name in _BOMS if head.startswith(bom)), None) or self.encoding
            if not _line_safe(codec):
                text = decode(self.file, self.encoding, self.formats, self.warnings)
                self.position = self.size
                yield from enumerate(split_lines(text), start=1)
                return
            _refuse_nul(self.file, head.find(b"\x00"), "byte", self.formats, _utf16_hint(head))
            handle.seek(0)
            yield from self._lines(handle, codec)

    def _lines(self, handle: BinaryIO, codec: str) -> Iterator[tuple[int, str]]:
        decoder = codecs.getincrementaldecoder(codec)()
        # UTF-8 refuses encoded surrogates, so only other codecs (utf-7, unicode_escape) need cleaning.
        surrogates = codecs.lookup(codec).name != "utf-8"
        number = physical = replaced = 0  # lines as split_lines counts them; line feeds, as errors count them
        raw = b""
        for raw in handle:  # up to and including each b"\n": safe in an encoding whose line feed is that byte
            start, self.position = self.position, self.position + len(raw)
            nul = raw.find(b"\x00")
            if nul >= 0:
                _refuse_nul(self.file, start + nul, "byte", self.formats)
            try:
                text = decoder.decode(raw)
            except UnicodeDecodeError as exc:
                raise _undecodable_line(self.file, exc, codec, physical + 1) from exc
            if physical == 0:
                text = text.removeprefix("\ufeff")
            physical += 1
            if surrogates:
                text, count = clean(text)
                replaced += count
            if "\r" not in text:  # the usual line: one line feed at its end (or none, at the end of the file)
                number += 1
                yield number, text.removesuffix("\n")
                continue
            parts = _BREAK.split(text)
            if not parts[-1]:
                parts.pop()  # the line break that ends the text: the next line starts with the next read
            for part in parts:
                number += 1
                yield number, part
        try:
            decoder.decode(b"", final=True)
        except UnicodeDecodeError as exc:  # a multibyte character cut off by the end of the file
            before = raw[: len(raw) - len(exc.object)]
            raise _undecodable_line(self.file, exc, codec, max(physical, 1), before) from exc
        if replaced and self.warnings is not None:
            self.warnings.append(f"{self.file}: {replaced_note(replaced)} (decoded as {codec})")


_SAMPLE = 1 << 16  # the head of a file checked for NUL bytes before any line is read
_BREAK = re.compile(r"\r\n|\r|\n")


def _line_safe(codec: str) -> bool:
    """Whether a file in `codec` can be split into lines at its b"\\n" bytes before decoding.

    Example: _line_safe("utf-8") -> True; _line_safe("utf-16") -> False; _line_safe("cp500") -> False (EBCDIC)
    """
    if codecs.lookup(codec).name.startswith(("utf-16", "utf-32")):
        return False
    try:
        return "\r\n".encode(codec) == b"\r\n"
    except (UnicodeError, LookupError):
        return False


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
    return _not_valid(file, line, codec, data[exc.start], column)


def _undecodable_line(file: Path, exc: UnicodeDecodeError, codec: str, line: int, before: bytes = b"") -> FormatError:
    """The error for a bad byte in line `line`, of which `exc.object` holds the bytes read with it
    (and `before` those already decoded, when the end of the file cut a character off)."""
    data = before + bytes(exc.object)
    column = len(data[: len(before) + exc.start].decode(codec, errors="replace")) + 1
    return _not_valid(file, line, codec, data[len(before) + exc.start], column)


def _not_valid(file: Path, line: int, codec: str, byte: int, column: int) -> FormatError:
    return FormatError(
        f"{file} line {line}: not valid {codec} (byte 0x{byte:02x} at column {column}); "
        "save the file as UTF-8 or pass --encoding latin-1"
    )


def split_lines(text: str) -> list[str]:
    """Lines split at line breaks only.

    str.splitlines() also splits at U+2028, U+0085 and form feeds, which JSON strings and
    PDF-extracted text may hold; that broke JSONL records and shifted line numbers.
    Example: split_lines("a\u2028b\r\nc") -> ['a\u2028b', 'c']
    """
    return re.split(r"\r\n|\r|\n", text.removesuffix("\n").removesuffix("\r"))
