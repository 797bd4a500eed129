"""Property tests of the readers: whatever a file holds, reading it gives records whose text is
clean Unicode (ids and hashes can be made of it), or an InputError naming the file; never
another exception. Fixed seed, small budget; `python -m tests.fuzz` runs malformed files at length.
Nothing here embeds."""

from __future__ import annotations

import csv
import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.errors import InputError
from ingest.plan import merge_records
from ingest.readers import read_file

BUDGET = settings(derandomize=True, max_examples=120, deadline=None, database=None)
SUFFIXES = [".txt", ".md", ".jsonl", ".ndjson", ".csv", ".json"]

# Pieces of text that have broken readers: lone surrogates (raw, and as JSON escapes), controls,
# byte-order marks, separators that str.splitlines() splits at, quotes, long runs.
ODD = ["\udce9", "\ud800", "\\ud800", "\x00", "\x1b", "\ufeff", "\u2028", "\x0c", "\r", '"', ",", ";", "\t", "x" * 300]
PIECES = st.lists(st.one_of(st.sampled_from(ODD), st.characters(codec=None)), max_size=40).map("".join)
WORDS = st.sampled_from(["We propose TideNet.", "It forecasts tides", "from sparse gauges", "and wins by 5%."])
TEXT = st.lists(st.one_of(WORDS, PIECES), min_size=1, max_size=6).map(" ".join)
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), TEXT)
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3), max_leaves=6)
RECORDS = st.dictionaries(
    st.sampled_from(["abstract", "text", "title", "authors", "year", "id", "venue", "url", "other"]), VALUES, max_size=6
)


def _json_line(record: dict[str, object], depth: int, digits: int) -> str:
    """A JSON line of `record`, nested `depth` lists deep in 'other', with a `digits`-digit 'year' when > 0."""
    line = json.dumps(record, ensure_ascii=False)
    if depth:
        line = line[:-1] + (", " if record else "") + '"other": ' + "[" * depth + "]" * depth + "}"
    if digits:
        line = line[:-1] + (", " if line != "{}" else "") + '"year": ' + "7" * digits + "}"
    return line


@st.composite
def files(draw: st.DrawFn) -> tuple[str, bytes]:
    """(suffix, content) of a file that might be anything paperbot is handed."""
    suffix = draw(st.sampled_from(SUFFIXES))
    kind = draw(st.sampled_from(["bytes", "text", "records"]))
    if kind == "bytes":
        return suffix, draw(st.binary(max_size=300))
    if kind == "text":
        paragraphs = draw(st.lists(TEXT, min_size=1, max_size=4))
        return suffix, "\n\n".join(paragraphs).encode("utf-8", "surrogatepass")
    records = draw(st.lists(RECORDS, min_size=1, max_size=4))
    depth = draw(st.sampled_from([0, 0, 3, 150, 3000]))
    digits = draw(st.sampled_from([0, 0, 4, 5000]))
    if suffix == ".csv":
        out = io.StringIO()
        writer = csv.writer(out)
        columns = sorted({key for record in records for key in record}) or ["abstract"]
        writer.writerow(columns)
        for record in records:
            writer.writerow([str(record.get(c, "")) for c in columns])
        return suffix, out.getvalue().encode("utf-8", "surrogatepass")
    lines = [_json_line(r, depth if n == 0 else 0, digits) for n, r in enumerate(records)]
    text = "[" + ",\n".join(lines) + "]" if suffix == ".json" else "\n".join(lines)
    return suffix, text.encode("utf-8", "surrogatepass")


@BUDGET
@given(file=files(), skip_bad=st.booleans())
def test_any_file_reads_to_clean_records_or_fails_with_an_input_error_naming_it(
    tmp_path_factory: pytest.TempPathFactory, file: tuple[str, bytes], skip_bad: bool
) -> None:
    suffix, content = file
    path = tmp_path_factory.mktemp("case") / f"case{suffix}"
    path.write_bytes(content)
    warnings: list[str] = []
    try:
        records = read_file(path, skip_bad=skip_bad, warnings=warnings)
    except InputError as exc:
        assert str(path) in str(exc)
        return
    for record in records:
        for text in (record.text, record.title or "", *record.authors, record.source.source_id or ""):
            text.encode("utf-8")  # a lone surrogate would raise here, as it did in normalise.paper_id
        assert record.text.strip() and len(record.text) <= 50_000
    assert merge_records(records)
    assert all(str(path) in warning for warning in warnings)
