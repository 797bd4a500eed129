"""Read reference-manager exports, BibTeX (.bib) and RIS (.ris), into raw records.

bibtexparser splits BibTeX into entries (this module resolves `@string` macros, `#` joins and
`crossref`, and pylatexenc turns LaTeX into Unicode); rispy reads a RIS record's tags. What a
field means maps onto paperbot's fields here; limits and notes are ingest.records' job. An entry
without an abstract is skipped and counted in one warning per file, a malformed entry raises
BadRecordError (with `skip_bad`, a warning), and a file with no abstract at all raises
FormatError. Knows nothing of vectors or the store.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import bibtexparser
import rispy
from bibtexparser.middlewares.names import split_multiple_persons_names
from bibtexparser.model import DuplicateBlockKeyBlock, DuplicateFieldKeyBlock, Entry, ParsingFailedBlock, String
from pylatexenc import latex2text

from bot.errors import BadRecordError, FormatError
from ingest.decoding import split_lines
from ingest.records import YEAR, Limits, Notes, RawRecord, doi_of, from_mapping

# bibtexparser logs every malformed block; each becomes an error or warning of ours instead.
logging.getLogger("bibtexparser").setLevel(logging.CRITICAL)

# What bot/library/export.py writes in the note of a paper that had no title in its source.
_UNTITLED = re.compile(r"paperbot id p[0-9a-f]+; (untitled in the source, )?title is the (label paperbot )?generated")
_SHOWN_KEYS = 3
# Fields an entry takes from the one its `crossref` names, when it lacks them: where and when it
# appeared. A proceedings' doi, url or abstract is the volume's, not the paper's.
_INHERITED = ("booktitle", "journal", "journaltitle", "year", "date")
_MONTH_NAMES = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
_MONTHS = {name: str(number) for number, name in enumerate(_MONTH_NAMES, start=1)}


def read_bib(file: Path, text: str, skip_bad: bool, warnings: list[str], limits: Limits) -> Iterator[RawRecord]:
    """The records of a BibTeX or BibLaTeX file, one per entry with an abstract."""
    try:
        library = bibtexparser.parse_string(text, parse_stack=[])
    except Exception as exc:  # the splitter's own state errors: the file cannot be split into entries
        raise FormatError(f"{file}: cannot be read as BibTeX ({exc}); check the file's braces and @ signs") from exc
    strings = _strings(library.strings)
    entries = {e.key.lower(): e for e in library.entries}
    containers = {_fields(e, strings).get("crossref", "").lower() for e in library.entries} - {""}
    notes, missing, found, number = Notes(file), [], 0, 0
    for block in library.blocks:
        if not isinstance(block, Entry | ParsingFailedBlock):
            continue
        number += 1
        line = (block.start_line or 0) + 1
        try:
            if isinstance(block, ParsingFailedBlock):
                raise _bad_block(file, line, block)
            fields = _with_crossref(block, _fields(block, strings), entries, strings, notes, file, line)
            if not fields.get("abstract", "").strip():
                if block.key.lower() not in containers:  # a proceedings volume holds papers, not an abstract
                    missing.append(block.key)
                continue
            found += 1
            yield _bib_record(block.key, fields, file, line, number, notes, limits)
        except BadRecordError as exc:
            if not skip_bad:
                raise
            warnings.append(exc.skipped)
    warnings.extend(notes.lines())
    _report_missing(file, missing, found, number, "entries", "BibTeX entries (@article{key, ...})", warnings)


def read_ris(file: Path, text: str, skip_bad: bool, warnings: list[str], limits: Limits) -> Iterator[RawRecord]:
    """The records of a RIS file (TY ... ER), one per record with an abstract."""
    if not re.search(r"^TY  -", text, re.MULTILINE):
        raise FormatError(f"{file}: no RIS records (TY  - JOUR ... ER  -) found; export the library again as RIS")
    notes, missing, found, number = Notes(file), [], 0, 0
    for line, lines, problem in _ris_blocks(text):
        number += 1
        try:
            if problem:
                raise BadRecordError(f"{file} line {line}", problem, "fix the record or remove it")
            tags = _ris_tags(lines)
            key = _first(tags, "ID") or _first(tags, "TI", "T1") or f"record {number}"
            if not _first(tags, "AB", "N2"):
                missing.append(key if len(key) <= 40 else key[:39] + "…")
                continue
            found += 1
            yield _ris_record(tags, file, line, number, notes, limits)
        except BadRecordError as exc:
            if not skip_bad:
                raise
            warnings.append(exc.skipped)
    warnings.extend(notes.lines())
    _report_missing(file, missing, found, number, "records", "RIS records (TY  - JOUR ... ER  -)", warnings)


def _report_missing(
    file: Path, missing: list[str], found: int, seen: int, kind: str, example: str, warnings: list[str]
) -> None:
    """One warning naming the first few entries skipped for want of an abstract; an error if none had one.

    Example: 12 of 40 skipped -> 'refs.bib: 12 entries without an abstract skipped (knuth1984, lamport1994,
    dijkstra1968, ...); paperbot needs the abstract to search a paper'
    """
    if not seen:
        raise FormatError(f"{file}: no {example} found; export the library again from your reference manager")
    if not missing:
        return
    named = ", ".join(missing[:_SHOWN_KEYS]) + (", ..." if len(missing) > _SHOWN_KEYS else "")
    if not found:
        raise FormatError(
            f"{file}: {_none_of(len(missing), kind)} ({named}); paperbot needs the abstract "
            "to search a paper: export the library again with abstracts, or add them to the file"
        )
    what = f"{len(missing):,} {_ONE[kind] if len(missing) == 1 else kind}"
    warnings.append(
        f"{file}: {what} without an abstract skipped ({named}); paperbot needs the abstract to search a paper"
    )


_ONE = {"entries": "entry", "records": "record"}


def _none_of(count: int, kind: str) -> str:
    """Example: _none_of(12, "entries") -> 'none of its 12 entries has an abstract'"""
    return f"its one {_ONE[kind]} has no abstract" if count == 1 else f"none of its {count:,} {kind} has an abstract"


# BibTeX


def _bad_block(file: Path, line: int, block: ParsingFailedBlock) -> BadRecordError:
    """The error for an entry bibtexparser could not read, naming its line and key."""
    key = re.match(r"\s*@\s*\w+\s*[{(]\s*([^,\s{}()]+)", block.raw or "")
    where = f"{file} line {line}" + (f" (entry {key.group(1)})" if key else "")
    if isinstance(block, DuplicateBlockKeyBlock):
        first = (block.previous_block.start_line or 0) + 1
        return BadRecordError(
            where, f"the key is also used by the entry on line {first}", "give each entry its own key"
        )
    if isinstance(block, DuplicateFieldKeyBlock):
        named = re.search(r"entry: (.*?)\. Note", str(block.error))
        problem = f"the field {named.group(1)} is given twice" if named else "a field is given twice"
        return BadRecordError(where, problem, "keep one of them")
    reason = (getattr(block.error, "abort_reason", None) or str(block.error) or type(block.error).__name__).strip()
    return BadRecordError(where, f"not valid BibTeX ({reason})", "close its braces and quotes, or remove the entry")


def _strings(blocks: list[String]) -> dict[str, str]:
    """The `@string` macros by lower-case name, each resolved with those defined before it."""
    strings: dict[str, str] = {}
    for block in blocks:
        strings[block.key.lower()] = _resolve(str(block.value), strings)
    return strings


def _fields(entry: Entry, strings: dict[str, str]) -> dict[str, str]:
    """An entry's field values by lower-case name, macros resolved and outer braces or quotes removed."""
    return {f.key.lower(): _resolve(str(f.value), strings) for f in entry.fields}


def _resolve(value: str, strings: dict[str, str]) -> str:
    """A raw BibTeX value as text: `#` joins its parts, a macro becomes its @string.

    Example: _resolve('nips # " 2019"', {"nips": "NeurIPS"}) -> 'NeurIPS 2019'
    """
    out = []
    for part in _parts(value):
        if len(part) > 1 and (part[0], part[-1]) in (("{", "}"), ('"', '"')):
            out.append(part[1:-1])
        else:  # a number, or a macro; one never defined is kept as written, as BibTeX does with a warning
            out.append(strings.get(part.lower(), _MONTHS.get(part.lower(), part)))
    return "".join(out)


def _parts(value: str) -> list[str]:
    """The `#`-joined parts of a value. Example: _parts('a # {b # c}') -> ['a', '{b # c}']"""
    parts, depth, quoted, start, escaped = [], 0, False, 0, False
    for i, char in enumerate(value):
        if escaped or char == "\\":
            escaped = not escaped
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == '"' and depth == 0:
            quoted = not quoted
        elif char == "#" and depth == 0 and not quoted:
            parts.append(value[start:i].strip())
            start = i + 1
    parts.append(value[start:].strip())
    return [p for p in parts if p]


def _with_crossref(
    entry: Entry,
    fields: dict[str, str],
    entries: dict[str, Entry],
    strings: dict[str, str],
    notes: Notes,
    file: Path,
    line: int,
) -> dict[str, str]:
    """`fields` with where and when it appeared taken from the entry `crossref` names (and its own crossref)."""
    seen = {entry.key.lower()}
    target = fields.get("crossref", "").strip().lower()
    while target and target not in seen:
        parent = entries.get(target)
        if parent is None:
            notes.add("crossrefs like these", f"{file} line {line}: crossref '{target}' names no entry in the file")
            break
        inherited = _fields(parent, strings)
        if "booktitle" not in fields and "title" in inherited and parent.entry_type.lower() in _CONTAINERS:
            fields["booktitle"] = inherited["title"]  # BibLaTeX: a proceedings' title is its papers' booktitle
        for name in _INHERITED:
            if name in inherited:
                fields.setdefault(name, inherited[name])
        seen.add(target)
        target = inherited.get("crossref", "").strip().lower()
    return fields


_CONTAINERS = {"proceedings", "book", "collection", "mvproceedings", "mvbook", "mvcollection", "reference"}


def _bib_record(
    key: str, fields: dict[str, str], file: Path, line: int, number: int, notes: Notes, limits: Limits
) -> RawRecord:
    """The record of one entry with an abstract (see from_mapping for `limits` and `notes`)."""
    untitled = bool(_UNTITLED.search(_latex(fields.get("note", ""))))
    venue = next((fields[f] for f in ("booktitle", "journaltitle", "journal") if fields.get(f, "").strip()), None)
    mapping: dict[str, Any] = {
        "id": key,
        "abstract": _latex(fields["abstract"], math="verbatim"),
        "title": None if untitled else _latex(fields.get("title", "")),
        "authors": [a for a in (_latex(_first_last(n)) for n in _names(fields.get("author", ""))) if a],
        "year": fields.get("year") or fields.get("date"),
        "venue": _latex(venue) if venue else None,
        "url": _verbatim(fields.get("url", "")),
    }
    record = from_mapping(mapping, file, f"{file} line {line} (entry {key})", number, notes, limits)
    return replace(
        record,
        source=replace(record.source, line=line),
        doi=doi_of(_verbatim(fields.get("doi", ""))),
        keywords=_keywords(_latex(fields.get("keywords", ""))),
    )


def _names(authors: str) -> list[str]:
    """Example: _names('Knuth, Donald and {Barnes and Noble} and others') -> ['Knuth, Donald', '{Barnes and Noble}']"""
    return [n for n in split_multiple_persons_names(" ".join(authors.split())) if n.lower() != "others"]


def _first_last(name: str) -> str:
    """A BibTeX name as written in text. Example: _first_last('van der Maaten, Laurens') -> 'Laurens van der Maaten';
    _first_last('King, Jr., Martin') -> 'Martin King Jr.'"""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(name):
        depth += char == "{"
        depth -= char == "}"
        if char == "," and depth == 0:
            parts.append(name[start:i].strip())
            start = i + 1
    parts.append(name[start:].strip())
    if len(parts) == 2:
        return f"{parts[1]} {parts[0]}".strip()
    if len(parts) >= 3:
        return f"{parts[2]} {parts[0]} {parts[1]}".strip()
    return name.strip()


@lru_cache(maxsize=2)
def _decoder(math: str) -> latex2text.LatexNodes2Text:
    context = latex2text.get_default_latex_context_db()
    # Ligatures and ties stay what they were typed as, so that text paperbot exported reads back as
    # written: a '--' in an abstract is two hyphens, not an en dash; '&' is text, not a table column.
    kept = ["--", "---", "``", "''", "!`", "?`", "&"]
    specials = [latex2text.SpecialsTextSpec(s, s) for s in kept] + [latex2text.SpecialsTextSpec("~", " ")]
    macros = [
        latex2text.MacroTextSpec("url", simplify_repl="%s"),
        latex2text.MacroTextSpec("textasciicircum", simplify_repl="^"),  # not the modifier letter U+02C6
        *(latex2text.MacroTextSpec(name, simplify_repl="%s") for name in ("texttt", "textsf")),
    ]
    context.add_context_category("paperbot-bibtex", prepend=True, macros=macros, specials=specials)
    return latex2text.LatexNodes2Text(latex_context=context, math_mode=math, strict_latex_spaces=True)


def _latex(value: str, math: str = "text") -> str:
    """A BibTeX field as Unicode text on one line: accents, escapes and braces decoded; with
    math="verbatim", $...$ kept for display to render, as in abstracts read from other formats.

    Example: _latex(r"M{\\"u}ller's 5\\% {BERT}") -> "Müller's 5% BERT"
    """
    if not _LATEX_LEFT.search(_ESCAPES.sub("", value)):
        # Only braces and the escapes paperbot's export writes: pylatexenc, which reads a character at a
        # time, gives the same text (checked on 3,000 strings) 13 times slower: 36 s instead of 2.7 s
        # for 5,300 exported abstracts.
        text = _ESCAPES.sub(lambda m: _ESCAPED.get(m.group(1) or "", m.group(2) or ""), value)
    else:
        # In a BibTeX value '%' is text; to LaTeX it starts a comment that would drop the rest of the line.
        value = re.sub(r"(?<!\\)%", r"\\%", value)
        try:
            text = _decoder(math).latex_to_text(value)
        except Exception:  # pylatexenc is lenient, but never let one odd field fail the file
            text = value.replace("{", "").replace("}", "")
    return unicodedata.normalize("NFC", " ".join(text.split()))


# What latex_escape in bot/library/export.py writes, and bare braces (which only group).
_ESCAPES = re.compile(r"\\(?:(textbackslash|textasciitilde|textasciicircum)\{\}|([%&#_${}]))|[{}]")
_ESCAPED = {"textbackslash": "\\", "textasciitilde": "~", "textasciicircum": "^"}
_LATEX_LEFT = re.compile(r"[\\$~]")


def _verbatim(value: str) -> str | None:
    """A URL or DOI field: braces and escaped specials undone, nothing else decoded (a '%' is part of a URL)."""
    text = re.sub(r"\\([_%&#~])", r"\1", value).replace("{", "").replace("}", "")
    text = re.sub(r"^\\url", "", text).strip()
    return text or None


# RIS

_TAG = re.compile(r"^([A-Z][A-Z0-9])  -(?: |$)")
# rispy names tags itself (AB -> "abstract"); these read tags by the codes RIS files use.
_RIS_TAGS = {tag: tag for tag in [*rispy.TAG_KEY_MAPPING, "BT"]}


def _ris_blocks(text: str) -> Iterator[tuple[int, list[str], str | None]]:
    """(first line, lines, problem or None) of each record from 'TY  -' to 'ER  -', and of any text
    outside records (a record that lost its TY line); counter lines like '1.' are not text."""
    lines: list[str] = []
    start = stray = 0
    for number, line in enumerate(split_lines(text), start=1):
        tag = _TAG.match(line)
        name = tag.group(1) if tag else None
        if name == "TY":
            if lines:
                yield start, lines, f"the record is not closed by 'ER  -' before the next 'TY  -' on line {number}"
            elif stray:
                yield stray, [], "text outside a record; a record starts with 'TY  - ' and a type, e.g. 'TY  - JOUR'"
            start, lines, stray = number, [line], 0
        elif lines:
            lines.append(line)
            if name == "ER":
                yield start, lines, None
                lines = []
        elif name == "ER" or (line.strip() and not re.fullmatch(r"\s*\d+\.?\s*", line)):
            stray = stray or number
            if name == "ER":
                yield stray, [], "a record without its 'TY  -' line; a record starts with 'TY  - ' and a type"
                stray = 0
    if lines:
        yield start, lines, "the record is not closed: the file ends before its 'ER  -' line"
    elif stray:
        yield stray, [], "text outside a record; a record starts with 'TY  - ' and a type, e.g. 'TY  - JOUR'"


def _ris_name(name: str) -> str:
    """RIS writes "Last, First, Suffix". Example: _ris_name("King, Martin Luther, Jr.") -> 'Martin Luther King Jr.'"""
    last, _, rest = name.partition(",")
    first, _, suffix = rest.partition(",")
    return " ".join(p.strip() for p in (first, last, suffix) if p.strip())


def _ris_tags(lines: list[str]) -> dict[str, Any]:
    """One record's values by tag, read by rispy: a line without a tag continues the one before."""
    records = rispy.loads("\n".join(lines), mapping=_RIS_TAGS, skip_unknown_tags=True)
    return records[0] if records else {}


def _first(tags: dict[str, Any], *names: str) -> str | None:
    """The first non-empty value of the first of `names` the record has."""
    for name in names:
        values = tags.get(name)
        for value in values if isinstance(values, list) else [values]:
            if isinstance(value, str) and value.strip():
                return value.strip()
    return None


def _all(tags: dict[str, Any], *names: str) -> list[str]:
    """Every non-empty value of the first of `names` the record has."""
    for name in names:
        values = tags.get(name)
        found = [v.strip() for v in (values if isinstance(values, list) else [values]) if isinstance(v, str)]
        if any(found):
            return [v for v in found if v]
    return []


def _ris_record(tags: dict[str, Any], file: Path, line: int, number: int, notes: Notes, limits: Limits) -> RawRecord:
    """The record of one RIS record with an abstract (see from_mapping for `limits` and `notes`)."""
    untitled = any(_UNTITLED.search(n) for n in _all(tags, "N1"))
    key = _first(tags, "ID")
    mapping: dict[str, Any] = {
        "id": key,
        "abstract": _first(tags, "AB", "N2"),
        "title": None if untitled else _first(tags, "TI", "T1"),
        "authors": [_ris_name(name) for name in _all(tags, "AU", "A1")],
        "year": next((v for v in _all(tags, "PY", "Y1", "DA") if YEAR.search(v)), _first(tags, "PY", "Y1", "DA")),
        "venue": _first(tags, "T2", "JF", "JO", "BT"),
        "url": _first(tags, "UR"),
    }
    where = f"{file} line {line}" + (f" (record {key})" if key else "")
    record = from_mapping(mapping, file, where, number, notes, limits)
    keywords = _keywords("; ".join(_all(tags, "KW")), commas=False)  # one keyword a line; a comma may be in one
    return replace(record, source=replace(record.source, line=line), doi=doi_of(_first(tags, "DO")), keywords=keywords)


# Both


def _keywords(value: str, commas: bool = True) -> tuple[str, ...]:
    """Example: _keywords("Deep learning; transformers, attention") -> ('Deep learning', 'transformers', 'attention')"""
    words = re.split(r"[;,]" if commas else ";", value)
    return tuple(dict.fromkeys(w.strip() for w in words if w.strip()))
