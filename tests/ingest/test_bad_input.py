"""Every bad input fails with a message naming the file and line, and changes nothing stored."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bot.app import Paperbot
from bot.errors import FormatError, InputError, MissingPathError
from bot.settings import Settings

pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class Bad:
    name: str
    error: type[InputError]
    # {path} in a fragment stands for the bad file's path as given.
    fragments: tuple[str, ...]
    write: Callable[[Path], None] | None


def _write_text(text: str) -> Callable[[Path], None]:
    return lambda path: path.write_text(text, encoding="utf-8")


def _write_bytes(data: bytes) -> Callable[[Path], None]:
    return lambda path: path.write_bytes(data)


BAD_INPUTS = [
    Bad("missing.txt", MissingPathError, ("{path}: no such file or folder",), None),
    Bad("empty.txt", FormatError, ("{path}: the file is empty",), _write_text("")),
    Bad("blank.txt", FormatError, ("{path}: the file is empty",), _write_text("\n  \n\t\n")),
    Bad(
        "binary.txt",
        FormatError,
        (
            "{path}: looks like a binary file (NUL byte at offset 5)",
            "(.txt, .md, .jsonl, .ndjson, .csv, .bib, .ris, .json)",
        ),
        _write_bytes(b"%PDF-\x00\x01\x02 abstract"),
    ),
    Bad(
        "latin1.txt",
        FormatError,
        ("{path} line 3: not valid utf-8 (byte 0xe9 at column 4)", "--encoding latin-1"),
        _write_bytes("ICML 2025\n\nCaf\xe9 owners study espresso.\n".encode("latin-1")),
    ),
    Bad(
        "huge.txt",
        FormatError,
        ("{path} line 3: an abstract of 30,000 characters, more than the 20,000", "--skip-bad"),
        _write_text("ICML 2025\n\n" + "x" * 30_000 + "\n"),
    ),
    Bad(
        "broken.jsonl",
        FormatError,
        ("{path} line 2: not valid JSON", "--skip-bad"),
        _write_text('{"abstract": "A fine abstract."}\n{"abstract": "unterminated\n'),
    ),
    Bad(
        "no_abstract.jsonl",
        FormatError,
        ("{path} line 2: no 'abstract' or 'text' field", "fields: id, title"),
        _write_text('{"abstract": "A fine abstract."}\n{"id": "x1", "title": "Only a title"}\n'),
    ),
    Bad(
        "renamed.json",
        FormatError,
        ("{path}: holds JSON lines (one object per line)", "rename it to renamed.jsonl"),
        _write_text('{"abstract": "A fine abstract."}\n{"abstract": "Another fine abstract."}\n'),
    ),
    Bad(
        "papers.xml",
        FormatError,
        ("{path}: .xml is not a format paperbot reads",),
        _write_text("<paper><abstract>A fine abstract.</abstract></paper>\n"),
    ),
    Bad(
        "unclosed.csv",
        FormatError,
        ("{path} line 2: a quoted field opens here and is never closed",),
        _write_text('abstract,title\n"An abstract with an unclosed quote,A\n'),
    ),
    Bad(
        "no_column.csv",
        FormatError,
        ("{path}: no 'abstract' or 'text' column (columns: id, title, summary)",),
        _write_text("id,title,summary\n1,A title,Some summary.\n"),
    ),
]


@pytest.fixture(scope="module")
def small_store(
    tmp_path_factory: pytest.TempPathFactory,
    settings_for: Callable[..., Settings],
    small_abstracts: dict[str, str],
    run_ingest: Callable[..., Any],
) -> Settings:
    """A store holding two small abstracts (module-wide; tests that change it copy it)."""
    root = tmp_path_factory.mktemp("bad-input")
    corpus = root / "good.txt"
    corpus.write_text("\n\n".join([small_abstracts["PenguinCount"], small_abstracts["TideBench"]]) + "\n")
    settings = settings_for(root / "store")
    assert run_ingest(settings, [corpus]).added == 2
    return settings


@pytest.fixture
def new_good_file(tmp_path: Path, small_abstracts: dict[str, str]) -> Path:
    """A valid file with an abstract the store does not have yet."""
    path = tmp_path / "new.txt"
    path.write_text(small_abstracts["QuillNet"] + "\n")
    return path


def _bad_file(case: Bad, folder: Path) -> Path:
    path = folder / case.name
    if case.write is not None:
        case.write(path)
    return path


@pytest.mark.parametrize("case", BAD_INPUTS, ids=[c.name for c in BAD_INPUTS])
def test_bad_input_fails_clearly_and_changes_nothing(
    case: Bad,
    small_store: Settings,
    new_good_file: Path,
    tmp_path: Path,
    snapshot: Callable[[Settings], Any],
    run_cli: Callable[..., Any],
    run_ingest: Callable[..., Any],
) -> None:
    bad = _bad_file(case, tmp_path)
    expected = [f.format(path=bad) for f in case.fragments]
    before = snapshot(small_store)

    # The good file comes first: nothing of it may be written when a later file is bad.
    with pytest.raises(case.error) as info:
        run_ingest(small_store, [new_good_file, bad])
    for fragment in expected:
        assert fragment in str(info.value)

    run = run_cli("ingest", new_good_file, bad, "--store", small_store.store)
    assert run.code == 2 and run.out == ""
    assert run.err.startswith("paperbot: error: ")
    for fragment in expected:
        assert fragment in run.err

    assert snapshot(small_store) == before
    assert len(before.papers) == 2


def test_latin1_file_ingests_with_encoding_flag(
    small_store: Settings,
    tmp_path: Path,
    settings_for: Callable[..., Settings],
    run_cli: Callable[..., Any],
) -> None:
    store = tmp_path / "store"
    shutil.copytree(small_store.store, store)
    bad = _bad_file(next(c for c in BAD_INPUTS if c.name == "latin1.txt"), tmp_path)
    run = run_cli("ingest", bad, "--encoding", "latin-1", "--json", "--store", store)
    assert run.code == 0, run.err
    assert (run.json()["papers"], run.json()["added"]) == (3, 1)
    texts = {p.text for p in Paperbot(settings_for(store)).papers().values()}
    assert "Café owners study espresso." in texts


def test_skip_bad_ingests_the_good_records_with_a_warning(
    small_store: Settings,
    tmp_path: Path,
    settings_for: Callable[..., Settings],
    run_cli: Callable[..., Any],
    small_abstracts: dict[str, str],
) -> None:
    store = tmp_path / "store"
    shutil.copytree(small_store.store, store)
    path = tmp_path / "mixed.jsonl"
    path.write_text(
        json.dumps({"id": "q", "abstract": small_abstracts["QuillNet"]})
        + "\n"
        + '{"id": "broken", "abstract": \n'
        + json.dumps({"id": "b", "text": small_abstracts["Beekeeping sensors"]})
        + "\n"
    )
    run = run_cli("ingest", path, "--skip-bad", "--json", "--store", store)
    assert run.code == 0
    assert (run.json()["papers"], run.json()["added"]) == (4, 2)
    warnings = run.messages.splitlines()
    assert len(warnings) == 1
    assert warnings[0].startswith(f"paperbot: warning: skipped: {path} line 2: not valid JSON")
    assert warnings[0].endswith("fix the line or remove it")
    ids = {p.source_id for p in Paperbot(settings_for(store)).papers().values()}
    assert {"q", "b"} <= ids and "broken" not in ids


def test_folder_without_abstract_files_is_an_error(
    small_store: Settings, tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    folder = tmp_path / "pdfs"
    folder.mkdir()
    (folder / "paper.pdf").write_bytes(b"%PDF")
    run = run_cli("ingest", folder, "--store", small_store.store)
    assert run.code == 2
    formats = ".txt, .md, .jsonl, .ndjson, .csv, .bib, .ris"
    assert run.err.startswith(f"paperbot: error: {folder}: no {formats} files inside")
