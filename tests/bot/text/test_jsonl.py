"""bot.text.jsonl: the limits every JSON value is read within, and JSON Lines read line by line."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.errors import QueryError
from bot.text import jsonl


def test_nesting_deeper_than_the_limit_is_refused_not_a_recursion_error() -> None:
    """Found by the issue-16 audit: 100,000 '[' in a value raised RecursionError."""
    with pytest.raises(jsonl.JsonLimitError, match="nested more than 100 levels"):
        jsonl.loads("[" * 100_000 + "]" * 100_000)
    with pytest.raises(jsonl.JsonLimitError):
        jsonl.loads("[" * 101 + "]" * 101)  # parses in Python, refused by paperbot's own limit
    assert jsonl.loads("[" * 100 + "]" * 100) is not None


def test_an_integer_too_long_for_python_is_kept_as_its_digits() -> None:
    """Found by the issue-16 audit: a 5,000-digit "year" raised 'Exceeds the limit (4300 digits)'."""
    assert jsonl.loads('{"year": ' + "9" * 5000 + "}") == {"year": "9" * 5000}
    assert jsonl.loads('{"year": -' + "9" * 5000 + "}") == {"year": "-" + "9" * 5000}
    assert jsonl.loads('{"year": 2020, "n": 1.5}') == {"year": 2020, "n": 1.5}


def test_extra_text_after_the_value_is_an_error() -> None:
    with pytest.raises(json.JSONDecodeError, match="Extra data"):
        jsonl.loads('{"a": 1} x')
    assert jsonl.loads(' {"a": 1}\n ') == {"a": 1}


def test_each_line_is_read_on_its_own_with_what_was_replaced(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    lines = [
        b'{"id": 1, "text": "caf\\ud800"}',
        b"",
        b"{not json",
        '{"text": "a\u2028b"}'.encode(),  # a line separator inside a string is not a line break
        b'{"text": "caf\xe9"}',  # Latin-1, not UTF-8
        b"[" * 5000,
    ]
    path.write_bytes(b"\n".join(lines) + b"\n")
    entries = jsonl.entries(path, QueryError)
    assert [(e.number, e.value, e.replaced) for e in entries if e.problem is None] == [
        (1, {"id": 1, "text": "caf\ufffd"}, 1),
        (4, {"text": "a\u2028b"}, 0),
        (5, {"text": "caf\ufffd"}, 1),
    ]
    assert [(e.number, e.problem) for e in entries if e.problem is not None] == [
        (3, "not valid JSON (Expecting property name enclosed in double quotes, column 2)"),
        (6, "lists or objects nested more than 100 levels deep, more than paperbot reads"),
    ]
    with pytest.raises(QueryError, match=r"q\.jsonl line 3: not valid JSON .*; fix it"):
        list(jsonl.read(path, QueryError, "fix it"))


def test_a_document_nested_too_deeply_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "turns.json"
    path.write_text("[" * 50_000)
    with pytest.raises(QueryError, match=r"^--history .*turns\.json: lists or objects nested more than 100"):
        jsonl.read_document(path, QueryError, f"--history {path}", "turns")
    path.write_text('{"a": 1}\n' + "[" * 50_000 + "\n")
    with pytest.raises(QueryError, match=r"turns\.json line 2: lists or objects nested more than 100"):
        jsonl.read_document(path, QueryError, f"--history {path}", "turns")


def test_a_document_says_what_it_replaced(tmp_path: Path) -> None:
    path = tmp_path / "turns.jsonl"
    path.write_bytes(b'{"question": "caf\xe9"}\n{"question": "x\\udc00"}\n')
    notes: list[str] = []
    values = jsonl.read_document(path, QueryError, "--history turns.jsonl", "turns", notes)
    assert values == [{"question": "caf\ufffd"}, {"question": "x\ufffd"}]
    assert notes == ["--history turns.jsonl: 2 characters that are not valid Unicode " + notes[0].split("Unicode ")[1]]


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@settings(derandomize=True, max_examples=200, deadline=None, database=None)
@given(JSON)
def test_loads_reads_what_json_writes(value: object) -> None:
    assert jsonl.loads(json.dumps(value)) == value


@settings(derandomize=True, max_examples=300, deadline=None, database=None)
@given(st.text(max_size=80))
def test_loads_never_fails_but_with_a_value_error(text: str) -> None:
    with contextlib.suppress(ValueError):  # JSONDecodeError and JsonLimitError both are
        jsonl.loads(text)


def test_a_json_error_says_where_without_garbling_the_message() -> None:
    """ "Unterminated string starting at" ends where its position goes: no comma before the column."""
    try:
        json.loads('{"abstract": "We propose Y')
    except json.JSONDecodeError as exc:
        assert jsonl.problem(exc) == "not valid JSON (Unterminated string starting at column 14)"
    try:
        json.loads("{oops")
    except json.JSONDecodeError as exc:
        assert jsonl.problem(exc) == "not valid JSON (Expecting property name enclosed in double quotes, column 2)"
