"""Read files into raw records: seed text, JSONL (incl. BEIR corpus.jsonl), CSV, BibTeX, RIS, folders.

Chooses each file's reader by its suffix and reads seed text itself (ingest.structured reads
JSONL and CSV, ingest.bibliography BibTeX and RIS). Knows file formats and nothing of vectors,
ids or the store. Every problem is raised as an InputError naming the file and line or record;
with `skip_bad` a bad record is skipped and reported as a warning instead, while a bad file
(missing, empty, binary, undecodable, a named pipe or device) always fails. In a folder, what
cannot be read safely (a link leading out of it, a pipe, a name that is not UTF-8) is skipped
with a warning.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from bot.errors import SKIPPED, BadRecordError, FormatError, MissingPathError
from bot.text.clean import clean, escaped
from bot.types import Source
from ingest.bibliography import read_bib, read_ris
from ingest.decoding import LineStream, decode, split_lines
from ingest.records import YEAR, Limits, RawRecord, check_length, cut, too_short, word_count
from ingest.structured import Say, read_csv, read_json, read_jsonl
from ingest.where import RecordFilter, keep_records

__all__ = ["SUFFIXES", "Limits", "RawRecord", "ReadResult", "read_file", "read_paths"]

SUFFIXES = {
    ".txt": "text",
    ".md": "text",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".csv": "csv",
    ".bib": "bib",
    ".ris": "ris",
}
# Read only when named: in a folder, a .json file is more often settings than abstracts.
NAMED_ONLY = {".json": "json"}
FORMATS = ", ".join([*SUFFIXES, *NAMED_ONLY])  # e.g. ".txt, .md, .jsonl, .ndjson, .csv, .bib, .ris, .json"
_NOT_ABSTRACTS = {"readme.md", "license.md", "changelog.md"}
# A header paragraph is one short line with no sentence-ending punctuation.
_HEADER_MAX_WORDS = 14
_HEADER_MAX_CHARS = 200  # a single 30,000-character "word" is no header, but an over-long abstract
# Hard-wrapped text has lines of 60-100 characters, while only 3 of the 13,830 abstracts in the
# shared corpora are shorter than 300: a paragraph of lines this long holds one abstract a line.
_LONG_LINE = 300


@dataclass
class ReadResult:
    """Records read from some paths, and what was skipped along the way."""

    records: list[RawRecord] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    partial: set[str] = field(default_factory=set)  # files with records skipped as bad (--skip-bad)


def read_paths(
    paths: list[Path],
    encoding: str = "utf-8",
    skip_bad: bool = False,
    limits: Limits | None = None,
    follow_symlinks: bool = False,
    where: RecordFilter | None = None,
    say: Say | None = None,
) -> ReadResult:
    """Every record in `paths` (files or folders) that `where` keeps; raises InputError on the first bad input.

    `limits` bound an abstract's length (see Limits). In a folder, a link to a file or folder
    outside it is skipped with a warning unless `follow_symlinks`; a named pipe, device or socket
    is skipped with a warning, and refused when named. `say` takes lines of progress while a large
    JSON-lines file is read.
    """
    result = ReadResult()
    for path in paths:
        if not path.exists():
            raise MissingPathError(
                f"{escaped(str(path))}: no such file or folder; check the path, or run `paperbot ingest` "
                "with no path to ingest the bundled seeds"
            )
        skipped = len(result.warnings)
        files = _files_under(path, follow_symlinks, result.warnings) if path.is_dir() else [path]
        if not files:
            why = f" to read ({result.warnings[skipped]})" if len(result.warnings) > skipped else ""
            raise FormatError(f"{path}: no {', '.join(SUFFIXES)} files inside{why}; point ingest at abstract files")
        for file in files:
            result.files.append(file.resolve())
            before = len(result.warnings)
            result.records.extend(read_file(file, encoding, skip_bad, result.warnings, limits, where, say))
            if any(w.startswith(SKIPPED) for w in result.warnings[before:]):
                result.partial.add(str(file.resolve()))
    return result


def _files_under(folder: Path, follow_symlinks: bool, warnings: list[str]) -> list[Path]:
    """The abstract files in `folder` and its subfolders, hidden ones left out, each file once.

    What cannot be read is skipped with a warning: a link leading out of `folder` (unless
    `follow_symlinks`), a named pipe or device (reading one blocks or never ends), a file name that
    is not UTF-8 (the store keeps names as text).
    """
    # A BEIR folder holds queries and qrels beside the corpus: read the corpus only.
    if (folder / "corpus.jsonl").is_file() and (folder / "queries.jsonl").is_file():
        return [folder / "corpus.jsonl"]
    root = folder.resolve()
    files: dict[Path, Path] = {}  # real path -> the path it was found at
    walked: set[Path] = set()  # real folders, so that a followed link back up does not loop
    for top, folders, names in os.walk(folder, followlinks=follow_symlinks):
        here = Path(top)
        if here.resolve() in walked:
            folders[:] = []
            continue
        walked.add(here.resolve())
        folders[:] = sorted(f for f in folders if not f.startswith("."))
        for name in folders:
            if not follow_symlinks and _outside(here / name, root):
                warnings.append(f"skipped {escaped(str(here / name))}: {_leaves(here / name, folder)}")
        for name in sorted(names):
            path = here / name
            if name.startswith(".") or path.suffix.lower() not in SUFFIXES or name.lower() in _NOT_ABSTRACTS:
                continue
            why = _unreadable(path) or (None if follow_symlinks or not _outside(path, root) else _leaves(path, folder))
            if why:
                warnings.append(f"skipped {escaped(str(path))}: {why}")
                continue
            files.setdefault(path.resolve(), path)
    return sorted(files.values())


def _outside(path: Path, root: Path) -> bool:
    """Whether the link `path` leads out of the folder `root` (a broken link leads nowhere: False)."""
    return path.is_symlink() and path.exists() and not path.resolve().is_relative_to(root)


def _leaves(link: Path, folder: Path) -> str:
    """Example: 'a link to /etc/passwd, outside papers; pass --follow-symlinks to read it'"""
    target, outside = escaped(str(link.resolve())), escaped(str(folder))
    return f"a link to {target}, outside {outside}; pass --follow-symlinks to read it"


def _unreadable(file: Path) -> str | None:
    """Why `file` cannot be read as a file of abstracts without opening it, or None.

    Example: a named pipe -> 'a named pipe (FIFO), not a file: reading it would wait for a writer'
    """
    if clean(str(file))[1]:
        return "its name is not valid UTF-8, and the store keeps file names as text; rename the file"
    try:
        mode = file.stat().st_mode
    except FileNotFoundError:
        return "a link to something that does not exist"
    except OSError as exc:
        return f"cannot be read ({exc.strerror})"
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO), not a file: reading it would wait for a writer"
    if stat.S_ISDIR(mode):
        return "a folder, not a file"
    kind = "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode) else "special"
    return f"{kind}, not a file"


def read_file(
    file: Path,
    encoding: str = "utf-8",
    skip_bad: bool = False,
    warnings: list[str] | None = None,
    limits: Limits | None = None,
    where: RecordFilter | None = None,
    say: Say | None = None,
) -> list[RawRecord]:
    """The records of one file that `where` keeps, by its suffix; raises FormatError for a suffix
    paperbot does not read and for what is not a regular file (a named pipe would block the read)."""
    limits = limits or Limits()
    left_out = where.left_out if where is not None else 0
    why = _unreadable(file)
    if why:
        raise FormatError(f"{escaped(str(file))}: {why}; paperbot reads files of abstracts ({FORMATS})")
    kind = _kind(file)
    sink = warnings if warnings is not None else []
    before = len(sink)
    # JSON lines are read as a stream, a line at a time: a 4 GB arXiv snapshot is never held as text.
    text = "" if kind == "jsonl" else decode(file, encoding, FORMATS, sink)
    if kind != "jsonl" and not text.strip():
        raise FormatError(f"{file}: the file is empty; add abstracts or remove it from the list")
    if kind == "jsonl":
        lines = LineStream(file, encoding, FORMATS, sink)
        records = list(read_jsonl(file, lines, skip_bad, sink, limits, where, say))
    elif kind == "json":
        records = list(read_json(file, text, skip_bad, sink, limits, where))
    elif kind == "csv":
        records = list(read_csv(file, text, skip_bad, sink, limits, where))
    elif kind == "bib":
        records = keep_records(read_bib(file, text, skip_bad, sink, limits), where)
    elif kind == "ris":
        records = keep_records(read_ris(file, text, skip_bad, sink, limits), where)
    else:
        records = keep_records(_read_text(file, text, skip_bad, sink, limits), where)
    if not records and (where is None or where.left_out == left_out):  # none left out: none there
        skipped = [w.removeprefix(SKIPPED) for w in sink[before:] if w.startswith(SKIPPED)]
        if skipped:  # --skip-bad skipped every record: say why, as the error without it would have
            more = f" (and {len(skipped) - 1:,} more skipped as bad)" if len(skipped) > 1 else ""
            raise FormatError(f"no abstracts found: every record was skipped as bad; the first: {skipped[0]}{more}")
        raise FormatError(f"{file}: no abstracts found; {_format_hint(kind)}")
    return records


def _kind(file: Path) -> str:
    """The reader for `file`'s suffix. A file with another suffix fails: read as seed text, a JSON
    or XML file became one paper holding the whole file."""
    suffix = file.suffix.lower()
    kind = SUFFIXES.get(suffix) or NAMED_ONLY.get(suffix)
    if kind is None:
        what = f"{suffix} is not a format" if suffix else "a file without a suffix is not a format"
        raise FormatError(
            f"{file}: {what} paperbot reads ({', '.join(SUFFIXES)}, or .json holding an array); "
            f"{_RENAME.get(suffix, _CONVERT)}"
        )
    return kind


_CONVERT = (
    "save the abstracts as .txt (one per paragraph), .jsonl (one JSON object per line) or .csv "
    "(a table with an 'abstract' column), or export them from a reference manager as .bib or .ris"
)
_RENAME = {
    "": "add the suffix of its format: .txt for one abstract per paragraph, .jsonl for one JSON "
    "object per line, .csv for a table",
    ".tsv": "rename it to .csv: tab-separated columns are read too",
    ".bibtex": "rename it to .bib",
}


def _format_hint(kind: str) -> str:
    if kind == "text":
        return "put one abstract per paragraph, paragraphs separated by a blank line"
    if kind in ("bib", "ris"):
        return "each entry needs an abstract"
    return "each record needs an 'abstract' or 'text' field"


def _read_text(file: Path, text: str, skip_bad: bool, warnings: list[str], limits: Limits) -> Iterator[RawRecord]:
    collection: str | None = None
    venue: str | None = None
    year: int | None = None
    number = 0
    for line_no, paragraph in _abstracts(file, text, warnings):
        if _is_header(paragraph):
            collection = paragraph
            venue, year = _venue_year(paragraph)
            continue
        number += 1
        try:
            fix = "put a blank line between abstracts, or remove the text"
            check_length(paragraph, f"{file} line {line_no}", fix, limits.abstract_chars)
        except BadRecordError as exc:
            if not skip_bad:
                raise
            warnings.append(exc.skipped)
            continue
        if short := too_short(paragraph):
            warnings.append(f"{file} line {line_no}: {short}")
        if len(paragraph) > limits.record_chars:  # only when the abstract limit is set above it
            warnings.append(
                f"{file} line {line_no}: a paragraph of {len(paragraph):,} characters, cut to its first "
                f"{limits.record_chars:,} (PAPERBOT_STORAGE__MAX_RECORD_CHARS sets the limit)"
            )
            paragraph = cut(paragraph, limits.record_chars)
        yield RawRecord(
            text=paragraph,
            source=Source(file=str(file.resolve()), line=line_no, record=number, collection=collection),
            venue=venue,
            year=year,
        )


def _abstracts(file: Path, text: str, warnings: list[str]) -> Iterator[tuple[int, str]]:
    """(first line number, text) of each paragraph, or of each line of a paragraph of long lines.

    Example: a paragraph of 5 lines of 1,200 characters each -> 5 abstracts, and a warning.
    """
    for index, (start, paragraph) in enumerate(_paragraphs(text)):
        lines = paragraph.split("\n")
        header = 1 if _is_header(lines[0]) else 0
        body = lines[header:]
        # Below the file's first paragraph, a short line over long ones is a title, not the
        # collection's name: such a paragraph is more likely one abstract than several.
        if len(body) < 2 or any(len(line) < _LONG_LINE for line in body) or (header and index > 0):
            yield start, paragraph
            continue
        warnings.append(
            f"{file} lines {start + header}-{start + len(lines) - 1}: {len(body)} lines of {_LONG_LINE}+ "
            f"characters with no blank line between them, read as {len(body)} abstracts, one a line; "
            "separate abstracts by a blank line to make this explicit"
        )
        yield from ((start + i, line) for i, line in enumerate(lines))


def _paragraphs(text: str) -> Iterator[tuple[int, str]]:
    """(first line number, paragraph) for each blank-line separated paragraph."""
    start: int | None = None
    lines: list[str] = []
    for number, line in enumerate(split_lines(text), start=1):
        if line.strip():
            if start is None:
                start = number
            lines.append(line.strip())
        elif start is not None:
            yield start, "\n".join(lines)
            start, lines = None, []
    if start is not None:
        yield start, "\n".join(lines)


def _is_header(paragraph: str) -> bool:
    """A line that names a collection ("NeurIPS 2026 论文列表"), not an abstract: short, and not ending a
    sentence. Chinese and Japanese write words without spaces: each of their characters counts as a word
    (`word_count`), so an abstract in them is no header.

    Example: _is_header("NeurIPS 2026 论文列表") -> True; _is_header("本文研究了大语言模型的推理能力。") -> False
    """
    words = word_count(paragraph)
    return (
        "\n" not in paragraph
        and len(paragraph) <= _HEADER_MAX_CHARS
        and words <= _HEADER_MAX_WORDS
        and not paragraph.rstrip().endswith((".", "?", "!", "。", "？", "！", "．"))
    )


def _venue_year(header: str) -> tuple[str | None, int | None]:
    """Example: _venue_year("NeurIPS 2026 论文列表") -> ('NeurIPS', 2026)"""
    match = YEAR.search(header)
    if not match:
        return None, None
    venue = header[: match.start()].strip(" -–:,") or None
    return venue, int(match.group(1))
