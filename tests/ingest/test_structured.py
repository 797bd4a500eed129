"""ingest.structured through read_file: JSON arrays, JSON lines named .json, and CSV edge cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.errors import FormatError
from ingest.readers import read_file


def test_json_array_of_objects_is_read_as_records(tmp_path: Path) -> None:
    path = tmp_path / "papers.json"
    rows = [{"id": "a", "title": "Foo", "abstract": "First."}, {"id": "b", "text": "Second.", "year": 2021}]
    path.write_text(json.dumps(rows, indent=2))
    first, second = read_file(path)
    assert (first.text, first.title, first.source.source_id, first.source.record) == ("First.", "Foo", "a", 1)
    assert (second.text, second.year, second.source.record) == ("Second.", 2021, 2)


def test_json_array_bad_item_names_record_and_line_and_is_skippable(tmp_path: Path) -> None:
    path = tmp_path / "papers.json"
    path.write_text('[\n  {"abstract": "First."},\n  {"title": "no abstract"},\n  "a string"\n]\n')
    with pytest.raises(FormatError, match=r"papers\.json record 2 \(line 3\): no 'abstract' or 'text' field"):
        read_file(path)
    warnings: list[str] = []
    assert [r.text for r in read_file(path, skip_bad=True, warnings=warnings)] == ["First."]
    assert len(warnings) == 2
    assert "record 3 (line 4): expected a JSON object, got str" in warnings[1]


def test_broken_json_array_fails_the_file_with_its_line_even_with_skip_bad(tmp_path: Path) -> None:
    path = tmp_path / "papers.json"
    path.write_text('[\n  {"abstract": "First."},\n  {"abstract": "unterminated}\n]\n')
    with pytest.raises(FormatError, match=r"papers\.json line 3: not valid JSON"):
        read_file(path, skip_bad=True, warnings=[])


def test_json_lines_in_a_json_file_say_rename_to_jsonl(tmp_path: Path) -> None:
    path = tmp_path / "papers.json"
    path.write_text('{"abstract": "First."}\n{"abstract": "Second."}\n')
    with pytest.raises(FormatError) as info:
        read_file(path)
    assert str(info.value) == (
        f"{path}: holds JSON lines (one object per line), which paperbot reads from .jsonl files; "
        "rename it to papers.jsonl"
    )


def test_json_object_wrapping_the_papers_says_how_to_extract_them(tmp_path: Path) -> None:
    path = tmp_path / "export.json"
    path.write_text(json.dumps({"count": 1, "papers": [{"abstract": "First."}]}))
    with pytest.raises(
        FormatError, match=r"fields: count, papers\), not an array .*`jq '\.papers' export\.json > export-papers\.json"
    ):
        read_file(path)


def test_one_json_object_says_put_it_in_a_list(tmp_path: Path) -> None:
    path = tmp_path / "one.json"
    path.write_text(json.dumps({"abstract": "Only one."}, indent=1))
    with pytest.raises(FormatError, match=r"holds one JSON object, not an array of records; put it in \[ \]"):
        read_file(path)


def test_csv_unclosed_quote_fails_naming_the_line_even_with_skip_bad(tmp_path: Path) -> None:
    # Regression: the title was merged into the abstract and the file ingested silently.
    path = tmp_path / "x.csv"
    path.write_text('abstract,title\nA fine abstract.,T\n"unterminated quote here,A\n')
    with pytest.raises(FormatError) as info:
        read_file(path, skip_bad=True, warnings=[])
    assert str(info.value).startswith(f"{path} line 3: a quoted field opens here and is never closed; close the quote")


def test_csv_text_after_a_closing_quote_is_not_valid_csv(tmp_path: Path) -> None:
    path = tmp_path / "x.csv"
    path.write_text('abstract,title\n"Attention" is all we need,T\n')
    with pytest.raises(FormatError, match=r"x\.csv line 2: not valid CSV \(',' expected after '\"'\)"):
        read_file(path)


def test_csv_field_past_the_csv_module_limit_is_a_clear_error(tmp_path: Path) -> None:
    # Regression: csv.Error escaped as a crash.
    path = tmp_path / "x.csv"
    path.write_text('abstract,title\n"' + "x" * 200_000 + '",T\n')
    with pytest.raises(FormatError, match=r"x\.csv line 2: a field runs past 131,072 characters"):
        read_file(path)


def test_csv_row_with_more_fields_than_the_header_is_a_bad_record(tmp_path: Path) -> None:
    path = tmp_path / "x.csv"
    path.write_text("abstract,title\nWe study cats, dogs and birds.,Pets\nA fine abstract.,T,\n")
    with pytest.raises(FormatError) as info:
        read_file(path)
    assert str(info.value) == (
        f'{path} line 2: 3 fields but the header names 2 columns; quote a field that holds a comma ("..."), '
        "or remove the extra fields (or pass --skip-bad)"
    )
    warnings: list[str] = []
    (record,) = read_file(path, skip_bad=True, warnings=warnings)
    assert (record.text, record.title, record.source.record) == ("A fine abstract.", "T", 2)  # trailing comma is fine
    assert len(warnings) == 1 and warnings[0].startswith(f"skipped: {path} line 2: 3 fields")
