"""ingest.records through read_file: metadata fields of the wrong kind are left out with a warning."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ingest.readers import RawRecord, read_file


def _read_jsonl(tmp_path: Path, *rows: dict[str, object]) -> tuple[list[RawRecord], list[str]]:
    path = tmp_path / "x.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    warnings: list[str] = []
    return read_file(path, warnings=warnings), warnings


def test_wrong_typed_fields_keep_the_paper_and_say_what_was_left_out(tmp_path: Path) -> None:
    # Regression: these were dropped silently, exit 0.
    records, warnings = _read_jsonl(
        tmp_path,
        {"abstract": "A."},
        {"abstract": "B."},
        {"abstract": "C.", "authors": 123, "year": "nineteen", "title": ["not", "text"]},
    )
    assert [(r.text, r.authors, r.year, r.title) for r in records][2] == ("C.", (), None, None)
    path = tmp_path / "x.jsonl"
    assert warnings == [
        f"{path} line 3: 'title' is ['not', 'text'], not text; stored without it",
        f"{path} line 3: 'authors' is 123, not a list of names or 'A; B'; stored without it",
        f"{path} line 3: 'year' is 'nineteen', not a year; stored without it",
    ]


@pytest.mark.parametrize(
    ("authors", "year", "expected"),
    [
        (["Ada Lovelace", " Alan Turing "], 2023, (("Ada Lovelace", "Alan Turing"), 2023)),
        ("Ada Lovelace; Alan Turing", "2023", (("Ada Lovelace", "Alan Turing"), 2023)),
        ("Ada Lovelace and Alan Turing", "May 2023", (("Ada Lovelace", "Alan Turing"), 2023)),
        ([{"name": "Ada Lovelace", "id": 7}], 2023.0, (("Ada Lovelace",), 2023)),
        ("", "n/a", ((), None)),
        ([], None, ((), None)),
    ],
)
def test_reasonable_forms_are_read_without_warnings(
    tmp_path: Path, authors: object, year: object, expected: tuple[tuple[str, ...], int | None]
) -> None:
    (record,), warnings = _read_jsonl(tmp_path, {"abstract": "A.", "authors": authors, "year": year})
    assert (record.authors, record.year) == expected
    assert warnings == []


def test_an_author_that_is_not_a_name_is_left_out_with_a_warning(tmp_path: Path) -> None:
    # Regression: [None, 1] was stored as the authors 'None' and '1'.
    (record,), warnings = _read_jsonl(tmp_path, {"abstract": "A.", "authors": ["Ada Lovelace", None, 1], "year": True})
    assert (record.authors, record.year) == (("Ada Lovelace",), None)
    assert [w.split(": ", 1)[1] for w in warnings] == [
        "'authors' holds 1, not a name; stored without it",
        "'year' is True, not a year; stored without it",
    ]


def test_csv_year_that_is_not_a_year_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "x.csv"
    path.write_text("abstract,year\nA.,2021\nB.,nineteen\n")
    warnings: list[str] = []
    assert [r.year for r in read_file(path, warnings=warnings)] == [2021, None]
    assert warnings == [f"{path} line 3: 'year' is 'nineteen', not a year; stored without it"]


def test_many_such_warnings_in_one_file_end_in_a_count(tmp_path: Path) -> None:
    records, warnings = _read_jsonl(tmp_path, *[{"abstract": f"A{n}.", "year": "soon"} for n in range(8)])
    assert len(records) == 8
    assert len(warnings) == 6
    assert warnings[-1] == f"{tmp_path / 'x.jsonl'}: 3 more fields like these stored without their value"
