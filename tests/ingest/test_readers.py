"""ingest.readers on small files written in tmp_path: formats, positions, metadata, bad input."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Any

import pytest

from bot.errors import FormatError, InputError, MissingPathError
from ingest.readers import read_file, read_paths


def test_seed_text_header_is_collection_metadata_not_a_record(tmp_path: Path) -> None:
    path = tmp_path / "x.txt"
    path.write_text("NeurIPS 2026 论文列表\n\nFirst abstract.\n\nSecond abstract\nwraps here.\n")
    first, second = read_file(path)
    assert [first.text, second.text] == ["First abstract.", "Second abstract\nwraps here."]
    assert (first.source.line, first.source.record) == (3, 1)
    assert (second.source.line, second.source.record) == (5, 2)
    assert first.source.collection == "NeurIPS 2026 论文列表"
    assert (first.venue, first.year) == ("NeurIPS", 2026)
    assert first.source.file == str(path.resolve())


def test_abstracts_in_chinese_are_abstracts_not_collection_names(tmp_path: Path) -> None:
    """Written without spaces, a Chinese abstract counted as one word, a collection name: a file of them
    had "no abstracts", and one among English abstracts named the papers after it (a fuzzing helper's find)."""
    chinese = "我们提出了一种新的强化学习方法，用于机器人操作任务，在多个基准上取得了最先进的结果。"
    path = tmp_path / "x.txt"
    path.write_text(f"NeurIPS 2026 论文列表\n\n{chinese}\n\nWe study graph neural networks and their depth.\n")
    first, second = read_file(path)
    assert first.text == chinese and first.source.collection == second.source.collection == "NeurIPS 2026 论文列表"
    only = tmp_path / "only.txt"
    only.write_text(f"{chinese}\n\n本文研究了大语言模型的推理能力，并提出了一种基于强化学习的训练方法。\n")
    warnings: list[str] = []
    assert [r.source.collection for r in read_file(only, warnings=warnings)] == [None, None]
    assert warnings == []  # each character a word: not "an abstract of 1 word, too short to be one"


def test_text_without_header_has_no_venue(tmp_path: Path) -> None:
    path = tmp_path / "x.txt"
    path.write_text("An abstract that ends with a period.\n\nAnother one.\n")
    records = read_file(path)
    assert [r.text for r in records] == ["An abstract that ends with a period.", "Another one."]
    assert all(r.source.collection is None and r.venue is None for r in records)


def test_crlf_bom_and_unicode_line_separators_keep_text_and_line_numbers(tmp_path: Path) -> None:
    # U+2028 and form feeds are not line breaks for editors or for the line numbers we report.
    body = "\ufeffICML 2025\r\n\r\nOne\u2028abstract\x0cwith odd spaces.\r\n\r\nTwo.\r\n"
    path = tmp_path / "x.txt"
    path.write_bytes(body.encode("utf-8"))
    first, second = read_file(path)
    assert first.text == "One\u2028abstract\x0cwith odd spaces."
    assert (first.source.line, second.source.line) == (3, 5)
    assert first.source.collection == "ICML 2025"


def test_jsonl_metadata_and_own_ids(tmp_path: Path) -> None:
    rows = [
        {
            "id": "W1",
            "title": "Foo",
            "abstract": "A.",
            "authors": ["Ada L", " Alan T "],
            "year": 2021,
            "venue": "ACL",
            "url": "https://x.org/1",
        },
        {"_id": 42, "text": "B.", "authors": "Grace H; Edsger D", "year": "2019-05-01"},
        {"doc_id": "", "abstract": "  C.  ", "venue": "  "},
    ]
    path = tmp_path / "x.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n")
    a, b, c = read_file(path)
    assert (a.text, a.title, a.authors, a.year, a.venue, a.url) == (
        "A.",
        "Foo",
        ("Ada L", "Alan T"),
        2021,
        "ACL",
        "https://x.org/1",
    )
    assert (a.source.source_id, a.source.record) == ("W1", 1)
    assert (b.text, b.source.source_id, b.year) == ("B.", "42", 2019)
    assert b.authors == ("Grace H", "Edsger D")
    assert (c.text, c.source.source_id, c.venue, c.title) == ("C.", None, None, None)


def test_jsonl_string_with_a_raw_line_separator_is_one_record(tmp_path: Path) -> None:
    # json.dumps(ensure_ascii=False) writes U+2028 and U+0085 raw; they are not line breaks.
    rows = [{"id": "a", "abstract": "First\u2028part and\u0085more."}, {"id": "b", "text": "B."}]
    path = tmp_path / "x.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n")
    first, second = read_file(path)
    assert first.text == "First\u2028part and\u0085more."
    assert (second.source.source_id, second.source.record) == ("b", 2)


def test_csv_keeps_quoted_quotes_commas_and_newlines(tmp_path: Path) -> None:
    # Regression: with a comma before the first `""` the sniffer guessed doublequote=False,
    # and the abstract was cut there.
    rows = [
        {
            "id": "W1",
            "title": "Foo: a net",
            "authors": "Ada Lovelace; Alan Turing",
            "year": "2024",
            "venue": "ICML",
            "url": "https://x.org/1",
            "abstract": 'We propose Foo, a net; it uses "attention", convolutions, and more.',
        },
        {
            "id": "W2",
            "title": "Bar",
            "authors": "Grace Hopper",
            "year": "",
            "venue": "",
            "url": "",
            "abstract": "Two lines,\nin one field.",
        },
    ]
    path = tmp_path / "x.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    first, second = read_file(path)
    assert first.text == 'We propose Foo, a net; it uses "attention", convolutions, and more.'
    assert (first.title, first.authors, first.year, first.venue) == (
        "Foo: a net",
        ("Ada Lovelace", "Alan Turing"),
        2024,
        "ICML",
    )
    assert first.source.source_id == "W1"
    assert second.text == "Two lines,\nin one field."
    assert (second.year, second.venue, second.url, second.source.record) == (None, None, None, 2)


def test_csv_semicolon_delimiter_and_column_case(tmp_path: Path) -> None:
    path = tmp_path / "x.csv"
    path.write_text('Title;Abstract\nCats;"We study cats, dogs, and birds, in detail."\n')
    (record,) = read_file(path)
    assert (record.title, record.text) == ("Cats", "We study cats, dogs, and birds, in detail.")


def test_folder_reads_known_suffixes_in_order_and_skips_readme_and_hidden(tmp_path: Path) -> None:
    (tmp_path / "b.txt").write_text("Second file abstract.\n")
    (tmp_path / "a.jsonl").write_text('{"abstract": "First file abstract."}\n')
    (tmp_path / "README.md").write_text("How to use this folder.\n")
    (tmp_path / "notes.pdf").write_bytes(b"%PDF\x00binary")
    (tmp_path / ".cache").mkdir()
    (tmp_path / ".cache" / "c.txt").write_text("Hidden abstract.\n")
    result = read_paths([tmp_path])
    assert [r.text for r in result.records] == ["First file abstract.", "Second file abstract."]
    assert result.files == [(tmp_path / "a.jsonl").resolve(), (tmp_path / "b.txt").resolve()]


def test_beir_folder_reads_only_the_corpus(tmp_path: Path) -> None:
    (tmp_path / "corpus.jsonl").write_text(
        '{"_id": "d1", "title": "T1", "text": "Doc one."}\n{"_id": "d2", "text": "Doc two."}\n'
    )
    (tmp_path / "queries.jsonl").write_text('{"_id": "q1", "text": "A query."}\n')
    (tmp_path / "qrels").mkdir()
    (tmp_path / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n")
    result = read_paths([tmp_path])
    assert [(r.source.source_id, r.text) for r in result.records] == [
        ("d1", "Doc one."),
        ("d2", "Doc two."),
    ]
    assert result.files == [(tmp_path / "corpus.jsonl").resolve()]


def test_missing_path_names_it(tmp_path: Path) -> None:
    with pytest.raises(MissingPathError, match=r"nope\.txt: no such file or folder"):
        read_paths([tmp_path / "nope.txt"])


def test_empty_folder_says_what_it_needs(tmp_path: Path) -> None:
    (tmp_path / "notes.pdf").write_bytes(b"x")
    with pytest.raises(FormatError, match=r"no \.txt, \.md, \.jsonl, \.ndjson, \.csv, \.bib, \.ris files inside"):
        read_paths([tmp_path])


def test_undecodable_byte_reports_line_and_character_column(tmp_path: Path) -> None:
    path = tmp_path / "x.txt"
    # Line 3 holds two valid 2-byte characters before the bad byte: column 3, not byte 5.
    path.write_bytes("Header\n\nçé\xff rest.\n".encode().replace(b"\xc3\xbf", b"\xff"))
    with pytest.raises(FormatError) as info:
        read_file(path)
    message = str(info.value)
    assert message.startswith(f"{path} line 3: not valid utf-8 (byte 0xff at column 3)")
    assert "--encoding latin-1" in message


def test_unknown_encoding_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "x.txt"
    path.write_text("Abstract.\n")
    with pytest.raises(InputError, match="unknown encoding 'klingon'"):
        read_file(path, encoding="klingon")
    for codec in ("rot13", "base64"):  # known to Python's codecs, but they do not decode bytes to text
        with pytest.raises(InputError, match=f"'{codec}' is not a text encoding"):
            read_file(path, encoding=codec)


def test_latin1_file_reads_with_its_encoding(tmp_path: Path) -> None:
    path = tmp_path / "x.txt"
    path.write_bytes("Café études.\n".encode("latin-1"))
    assert [r.text for r in read_file(path, encoding="latin-1")] == ["Café études."]


def test_jsonl_non_object_line_is_named(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text('{"abstract": "A."}\n["not", "an", "object"]\n')
    with pytest.raises(FormatError, match=r"x\.jsonl line 2: expected a JSON object, got list"):
        read_file(path)


def test_skip_bad_collects_warnings_and_keeps_good_records(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text('{"abstract": "A."}\n{oops\n{"title": "no abstract"}\n{"text": "B."}\n')
    warnings: list[str] = []
    records = read_file(path, skip_bad=True, warnings=warnings)
    assert [r.text for r in records] == ["A.", "B."]
    assert [w.split(":")[0] for w in warnings] == ["skipped", "skipped"]
    assert "line 2: not valid JSON" in warnings[0]
    assert "line 3: no 'abstract' or 'text' field" in warnings[1]
    # Skipped already: the warning does not suggest --skip-bad, but still says how to fix the line.
    assert warnings[0].endswith("fix the line or remove it")
    assert not any("--skip-bad" in w for w in warnings)


def test_file_of_only_bad_records_fails_even_with_skip_bad(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text('{"title": "no abstract"}\n')
    with pytest.raises(FormatError, match="no abstracts found"):
        read_file(path, skip_bad=True, warnings=[])


def test_csv_bad_row_names_its_physical_line(tmp_path: Path) -> None:
    path = tmp_path / "x.csv"
    path.write_text('title,abstract\nA,"first\nspans two lines."\nB,\n')
    with pytest.raises(FormatError, match=r"x\.csv line 4: its 'abstract' field is empty; add the abstract"):
        read_file(path)


@pytest.mark.parametrize(
    ("name", "hint"),
    [
        ("papers.xml", "save the abstracts as .txt (one per paragraph)"),
        ("papers.orig", "save the abstracts as .txt (one per paragraph)"),
        ("papers.tsv", "rename it to .csv: tab-separated columns are read too"),
        ("abstracts", "add the suffix of its format"),
    ],
)
def test_a_file_of_another_format_fails_instead_of_becoming_one_paper(tmp_path: Path, name: str, hint: str) -> None:
    # Regression: these were read as seed text, the whole file stored as one abstract.
    path = tmp_path / name
    path.write_text("<papers><paper>An abstract that is long enough.</paper></papers>\n")
    with pytest.raises(FormatError) as info:
        read_file(path)
    message = str(info.value)
    assert message.startswith(f"{path}: ")
    assert "paperbot reads (.txt, .md, .jsonl, .ndjson, .csv, .bib, .ris, or .json holding an array)" in message
    assert hint in message


def test_folder_leaves_json_files_alone(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("An abstract.\n")
    (tmp_path / "settings.json").write_text('{"theme": "dark"}\n')
    assert [r.text for r in read_paths([tmp_path]).records] == ["An abstract."]


def _sentence_line(n: int, words: int = 60) -> str:
    return " ".join(f"word{n}x{i}" for i in range(words)) + "."


def test_one_abstract_per_line_without_blank_lines_is_read_line_by_line(tmp_path: Path) -> None:
    # Regression: five abstracts, one a line, were stored as one paper.
    abstracts = [_sentence_line(n) for n in range(5)]
    assert all(len(a) >= 300 for a in abstracts)
    path = tmp_path / "x.txt"
    path.write_text("ICML 2025\n" + "\n".join(abstracts) + "\n")
    warnings: list[str] = []
    records = read_file(path, warnings=warnings)
    assert [r.text for r in records] == abstracts
    assert [(r.source.line, r.source.record) for r in records] == [(2, 1), (3, 2), (4, 3), (5, 4), (6, 5)]
    assert records[0].source.collection == "ICML 2025"
    assert warnings == [
        f"{path} lines 2-6: 5 lines of 300+ characters with no blank line between them, read as 5 "
        "abstracts, one a line; separate abstracts by a blank line to make this explicit"
    ]


def test_hard_wrapped_paragraphs_stay_one_abstract_each(tmp_path: Path) -> None:
    wrapped = "\n".join(_sentence_line(n, words=9) for n in range(8))  # lines of ~80 characters
    long_then_short = _sentence_line(1) + "\nends here."
    path = tmp_path / "x.txt"
    path.write_text(f"{wrapped}\n\n{long_then_short}\n")
    warnings: list[str] = []
    assert [r.text for r in read_file(path, warnings=warnings)] == [wrapped, long_then_short]
    assert warnings == []


def test_seed_files_read_to_their_paragraphs_without_warnings(seeds_dir: Path, seed_paragraphs: list[Any]) -> None:
    result = read_paths([seeds_dir])
    assert [(Path(r.source.file).name, r.source.line, r.text) for r in result.records] == [
        (p.file.name, p.line, p.text) for p in seed_paragraphs
    ]
    assert result.warnings == []


def test_an_abstract_longer_than_any_real_one_is_a_bad_record(tmp_path: Path) -> None:
    # Regression: a 2.6 MB paragraph was stored as one abstract and took a minute to embed.
    huge = "word " * 5000  # 25,000 characters
    path = tmp_path / "x.txt"
    path.write_text(f"The first abstract of the file.\n\n{huge}\n\nThe last abstract of the file.\n")
    with pytest.raises(FormatError) as info:
        read_file(path)
    assert str(info.value).startswith(
        f"{path} line 3: an abstract of 24,999 characters, more than the 20,000 an abstract can have; "
    )
    warnings: list[str] = []
    records = read_file(path, skip_bad=True, warnings=warnings)
    assert [(r.text, r.source.record) for r in records] == [
        ("The first abstract of the file.", 1),
        ("The last abstract of the file.", 3),
    ]
    assert len(warnings) == 1 and warnings[0].startswith(f"skipped: {path} line 3: an abstract of 24,999")


def test_an_over_long_jsonl_abstract_is_kept_with_a_warning_naming_its_line(tmp_path: Path) -> None:
    """A record's field says where its text ends (BEIR corpora hold full texts): kept, and noted."""
    path = tmp_path / "x.jsonl"
    path.write_text(json.dumps({"abstract": "A."}) + "\n" + json.dumps({"abstract": "x" * 20_001}) + "\n")
    warnings: list[str] = []
    records = read_file(path, warnings=warnings)
    assert [len(r.text) for r in records] == [2, 20_001]
    assert len(warnings) == 1 and re.search(r"x\.jsonl line 2: an abstract of 20,001 characters.*kept", warnings[0])


def test_an_empty_abstract_field_gives_way_to_a_filled_text_field(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text(json.dumps({"abstract": "", "text": "The abstract is here."}) + "\n")
    assert [r.text for r in read_file(path)] == ["The abstract is here."]


def test_a_title_over_long_lines_below_the_first_paragraph_is_no_collection_name(tmp_path: Path) -> None:
    """An abstract pasted as a title and two long lines stays one abstract, and names no collection."""
    long_a, long_b = "A" * 299 + ".", "B" * 299 + "."
    path = tmp_path / "x.txt"
    path.write_text(f"NeurIPS 2026\n\nDeep RL Survey 2019\n{long_a}\n{long_b}\n\nA second abstract here.\n")
    records = read_file(path)
    assert len(records) == 2
    assert records[0].text.startswith("Deep RL Survey 2019\n")
    assert {r.source.collection for r in records} == {"NeurIPS 2026"}


def test_a_paragraph_too_short_to_be_an_abstract_is_kept_with_a_warning(tmp_path: Path) -> None:
    """A stray line of a text file that ends with a stop ("Short.") is kept (it may be meant) and said, with
    where it is; a paragraph of four words or more is not. A record's abstract field is taken as meant."""
    text = tmp_path / "x.txt"
    text.write_text("NeurIPS 2026\n\nShort.\n\nWe propose a method that works well.\n\nNo abstract available.\n")
    warnings: list[str] = []
    assert len(read_file(text, warnings=warnings)) == 3
    assert warnings == [
        f"{text} line {line}: an abstract of {shown}, too short to be one; kept as a paper: remove it if it is not "
        "an abstract"
        for line, shown in ((3, "1 word ('Short.')"), (7, "3 words ('No abstract available.')"))
    ]


def test_an_abstract_that_is_not_text_is_named_for_what_it_is_and_skipping_every_record_says_why(
    tmp_path: Path,
) -> None:
    """A number, list or object in 'abstract' was called "empty"; with --skip-bad, a file of only bad
    records said "no abstracts found" and kept the reasons to itself (a fuzzing helper's finds)."""
    path = tmp_path / "x.jsonl"
    path.write_text('{"abstract": 12345}\n{"abstract": ["a", "b"]}\n{"abstract": true}\n')
    with pytest.raises(FormatError, match=r"x\.jsonl line 1: its 'abstract' field is 12345, a number, not text"):
        read_file(path)
    with pytest.raises(FormatError) as error:
        read_file(path, skip_bad=True, warnings=[])
    assert str(error.value).startswith(
        f"no abstracts found: every record was skipped as bad; the first: {path} line 1: its 'abstract' field is "
        "12345, a number, not text"
    )
    assert str(error.value).endswith("(and 2 more skipped as bad)")
