"""Input that once crashed or hung ingest is read, cut, skipped or refused with a message naming
where it is: lone surrogates, deep nesting, huge numbers, huge records, named pipes, links out of
the folder, file names that are not UTF-8. Nothing here embeds."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from bot.errors import BadRecordError, FormatError
from bot.settings import StoreSettings
from ingest.plan import merge_records
from ingest.readers import Limits, read_file, read_paths

ABSTRACT = "We propose TideNet, which forecasts harbour tides from sparse gauges and beats the baselines."


def _jsonl(path: Path, *lines: str) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_lone_surrogate_in_a_field_becomes_u_fffd_with_a_warning_naming_the_field(tmp_path: Path) -> None:
    """Found by the issue-16 audit: '\\ud800' in a JSONL abstract crashed ingest in normalise.paper_id."""
    path = _jsonl(tmp_path / "x.jsonl", '{"abstract": "Caf\\ud800 owners. ' + ABSTRACT + '", "title": "T\\udc00"}')
    warnings: list[str] = []
    (record,) = read_file(path, warnings=warnings)
    assert record.text.startswith("Caf\ufffd owners.") and record.title == "T\ufffd"
    assert [w.split(" held ")[0] for w in warnings] == [f"{path} line 1: 'abstract'", f"{path} line 1: 'title'"]
    assert all("1 character that is not valid Unicode" in w for w in warnings)
    (paper,) = merge_records([record]).values()  # ids and hashes encode the text as UTF-8
    assert paper.paper_id.startswith("p")


def test_a_codec_that_decodes_to_surrogates_is_cleaned_too(tmp_path: Path) -> None:
    path = tmp_path / "x.txt"
    path.write_bytes(b"Caf+2AA- owners study espresso, and we measure how much they drink each day.\n")
    warnings: list[str] = []
    (record,) = read_file(path, encoding="utf-7", warnings=warnings)
    assert record.text.startswith("Caf\ufffd owners")
    assert warnings == [f"{path}: 1 character that is not valid Unicode" + warnings[0].split("Unicode")[1]]


@pytest.mark.parametrize("suffix", [".jsonl", ".json"])
def test_deep_nesting_is_a_clear_error_naming_the_file_and_line(tmp_path: Path, suffix: str) -> None:
    """Found by the issue-16 audit: a deeply nested value raised RecursionError."""
    deep = "[" * 100_000 + "]" * 100_000
    path = tmp_path / f"x{suffix}"
    if suffix == ".jsonl":
        _jsonl(path, json.dumps({"abstract": ABSTRACT}), '{"abstract": "A.", "x": ' + deep + "}")
        where = f"{path} line 2"
    else:
        path.write_text(f'[\n{json.dumps({"abstract": ABSTRACT})},\n{{"abstract": "A.", "x": {deep}}}\n]\n')
        where = f"{path} line 3"
    with pytest.raises(FormatError) as raised:
        read_file(path)
    assert str(raised.value).startswith(f"{where}: lists or objects nested more than 100 levels deep")
    if suffix == ".jsonl":  # one bad line of JSON lines is a bad record, which --skip-bad skips
        warnings: list[str] = []
        assert [r.text for r in read_file(path, skip_bad=True, warnings=warnings)] == [ABSTRACT]
        assert warnings[0].startswith(f"skipped: {where}: lists or objects nested")


def test_a_json_file_that_is_one_deep_value_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('{"a": ' + "[" * 5000 + "]" * 5000 + "}")
    with pytest.raises(FormatError, match=r"x\.json: lists or objects nested more than 100 levels"):
        read_file(path)


def test_a_year_of_5000_digits_is_left_out_with_a_warning(tmp_path: Path) -> None:
    """Found by the issue-16 audit: it raised 'ValueError: Exceeds the limit (4300 digits)'."""
    path = _jsonl(tmp_path / "x.jsonl", '{"abstract": "' + ABSTRACT + '", "year": ' + "9" * 5000 + ', "id": 7}')
    warnings: list[str] = []
    (record,) = read_file(path, warnings=warnings)
    assert (record.year, record.source.source_id) == (None, "7")
    assert warnings == [f"{path} line 1: 'year' is '{'9' * 17}...{'9' * 18}', not a year; stored without it"]


def test_a_record_longer_than_the_record_limit_is_cut_at_a_space_with_a_warning(tmp_path: Path) -> None:
    """Found by the issue-16 audit: a 2 MB record took 377 s to embed."""
    path = _jsonl(tmp_path / "x.jsonl", json.dumps({"abstract": "word " * 400_000}), json.dumps({"text": ABSTRACT}))
    warnings: list[str] = []
    long, short = read_file(path, warnings=warnings, limits=Limits(abstract_chars=20_000, record_chars=50_000))
    assert len(long.text) == 49_999 and long.text.endswith("word") and short.text == ABSTRACT
    assert warnings == [
        f"{path} line 1: an abstract of 1,999,999 characters, cut to its first 50,000 so that embedding it takes "
        "seconds, not minutes (PAPERBOT_STORAGE__MAX_RECORD_CHARS sets the limit); check that 'abstract' or "
        "'text' holds the abstract"
    ]


def test_the_record_limit_is_a_storage_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Limits() == Limits.of(StoreSettings()) and Limits().record_chars == 50_000
    monkeypatch.setenv("PAPERBOT_STORAGE__MAX_RECORD_CHARS", "1234")
    from bot.settings import load_settings

    assert Limits.of(load_settings().storage).record_chars == 1234


def test_a_title_of_a_whole_file_is_left_out_with_a_warning(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "x.jsonl", json.dumps({"abstract": ABSTRACT, "title": "T" * 5000}))
    warnings: list[str] = []
    (record,) = read_file(path, warnings=warnings)
    assert record.title is None
    assert warnings == [
        f"{path} line 1: 'title' is 5,000 characters long, more than any title (1,000); stored without it"
    ]


def test_a_long_paragraph_is_still_a_bad_record(tmp_path: Path) -> None:
    path = tmp_path / "x.txt"
    path.write_text("ICML 2025\n\n" + "x " * 15_000 + "\n")
    with pytest.raises(BadRecordError, match="an abstract of 29,999 characters"):
        read_file(path)


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def test_a_named_pipe_given_by_name_is_refused_without_waiting(tmp_path: Path) -> None:
    """Found by the issue-16 audit: `paperbot ingest pipe.txt` waited for a writer forever."""
    pipe = _fifo(tmp_path / "pipe.txt")
    outcome: list[BaseException] = []

    def read() -> None:
        try:
            read_paths([pipe])
        except BaseException as exc:
            outcome.append(exc)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(10)
    if reader.is_alive():  # unblock the reader, so that the test ends
        with open(pipe, "w"):
            pass
        pytest.fail("reading a named pipe blocked")
    assert isinstance(outcome[0], FormatError)
    assert str(outcome[0]).startswith(f"{pipe}: a named pipe (FIFO), not a file")


def test_a_device_is_refused(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match=r"^/dev/zero: a device, not a file"):
        read_paths([Path("/dev/zero")])


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "papers"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "a.txt").write_text(ABSTRACT + "\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("root:x:0:0:root:/root:/bin/bash is not an abstract at all.\n")
    (folder / "secret.txt").symlink_to(outside / "secret.txt")
    (folder / "elsewhere").symlink_to(outside)
    (folder / "inside.txt").symlink_to(folder / "sub" / "a.txt")
    (folder / "sub" / "up").symlink_to(folder)  # a loop, for --follow-symlinks
    (folder / "gone.txt").symlink_to(tmp_path / "nothing.txt")
    _fifo(folder / "pipe.jsonl")
    return folder


def test_links_out_of_a_folder_and_pipes_in_it_are_skipped_with_a_warning(tmp_path: Path) -> None:
    """Found by the issue-16 audit: a link to /etc/passwd inside an ingested folder became a paper."""
    folder = _folder(tmp_path)
    read = read_paths([folder])
    assert [r.text for r in read.records] == [ABSTRACT]  # the link inside leads to a file read already
    assert read.files == [(folder / "sub" / "a.txt").resolve()]
    outside = (tmp_path / "outside").resolve()
    assert read.warnings == [
        f"skipped {folder}/elsewhere: a link to {outside}, outside {folder}; pass --follow-symlinks to read it",
        f"skipped {folder}/gone.txt: a link to something that does not exist",
        f"skipped {folder}/pipe.jsonl: a named pipe (FIFO), not a file: reading it would wait for a writer",
        f"skipped {folder}/secret.txt: a link to {outside}/secret.txt, outside {folder}; "
        "pass --follow-symlinks to read it",
    ]


def test_follow_symlinks_reads_what_the_links_lead_to_once_each(tmp_path: Path) -> None:
    read = read_paths([_folder(tmp_path)], follow_symlinks=True)
    assert sorted(Path(r.source.file).name for r in read.records) == ["a.txt", "secret.txt"]
    assert len(read.warnings) == 2  # the broken link and the pipe


def test_a_folder_of_nothing_but_a_link_out_says_why(tmp_path: Path) -> None:
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "passwd.txt").symlink_to("/etc/passwd")
    with pytest.raises(FormatError, match=r"no \.txt.* files inside to read \(skipped .*passwd\.txt: a link to"):
        read_paths([folder])


def test_a_file_name_that_is_not_utf8_is_refused_by_name_and_skipped_in_a_folder(tmp_path: Path) -> None:
    """Found while fixing issue 16: such a name reached SQLite as a lone surrogate and crashed ingest."""
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "good.txt").write_text(ABSTRACT + "\n")
    bad = Path(os.fsdecode(bytes(folder) + b"/caf\xe9.txt"))
    bad.write_text(ABSTRACT.replace("TideNet", "CafeNet") + "\n")
    with pytest.raises(FormatError, match=r"caf\\xe9\.txt: its name is not valid UTF-8"):
        read_file(bad)
    read = read_paths([folder])
    assert [Path(r.source.file).name for r in read.records] == ["good.txt"]
    assert read.warnings == [
        f"skipped {folder}/caf\\xe9.txt: its name is not valid UTF-8, and the store keeps file names as text; "
        "rename the file"
    ]
