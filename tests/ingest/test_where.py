"""`ingest --where`: expressions parsed and matched (ingest.where), applied while files are read
(ingest.structured, ingest.readers), JSON lines read as a stream in bounded memory, and the command
line from the usage error to a real filtered ingest of the arXiv snapshot fixture."""

from __future__ import annotations

import json
import random
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.app import Paperbot
from bot.errors import FormatError
from bot.settings import Settings
from ingest import decoding, readers, structured
from ingest.readers import RawRecord, read_file
from ingest.where import Condition, RecordFilter, WhereError, keep_records, parse

SNAPSHOT = Path(__file__).resolve().parent.parent / "data" / "sources" / "arxiv_snapshot.jsonl"


@pytest.mark.parametrize(
    ("expression", "parsed"),
    [
        ("categories~cs.LG", ("keywords", "~", "cs.lg")),
        ("keywords !~ stat.ML", ("keywords", "!~", "stat.ml")),
        ("year>=2023", ("year", ">=", "2023")),
        (" year <= 1999 ", ("year", "<=", "1999")),
        ("year>2020", ("year", ">", "2020")),
        ("year<2020", ("year", "<", "2020")),
        ("year=2024", ("year", "=", "2024")),
        ("year==2024", ("year", "=", "2024")),
        ("year!=2024", ("year", "!=", "2024")),
        ("venue=ICLR  2024", ("venue", "=", "iclr 2024")),
        ('venue="ICLR 2024"', ("venue", "=", "iclr 2024")),
        ("Venue != 'NeurIPS 2023 oral'", ("venue", "!=", "neurips 2023 oral")),
        ("abstract~diffusion", ("text", "~", "diffusion")),
        ("text~diffusion", ("text", "~", "diffusion")),
        ("author~Lindqvist", ("authors", "~", "lindqvist")),
        ("doi=10.1162/TACL_a_00648", ("doi", "=", "10.1162/tacl_a_00648")),
        ("url~arxiv.org", ("url", "~", "arxiv.org")),
        ("title~a=b", ("title", "~", "a=b")),  # the first operator splits; the rest is the value
    ],
)
def test_expressions_parse(expression: str, parsed: tuple[str, str, str]) -> None:
    condition = parse(expression)
    assert (condition.field, condition.op, condition.value) == parsed
    assert condition.expression == expression


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("yaer>=2023", "--where 'yaer>=2023': no field 'yaer'; the fields are title, authors (author), year, venue"),
        ("cs.LG", "--where 'cs.LG': not FIELD OP VALUE; write e.g. --where 'categories~cs.LG'"),
        ("", "--where '': not FIELD OP VALUE"),
        ("year>=", "--where 'year>=': no value after '>='"),
        ("venue=''", "--where \"venue=''\": no value after '='"),
        ("year>=soon", "--where 'year>=soon': 'soon' is not a year"),
        ("year~202", "--where 'year~202': the year is a number; compare it with = != >= <= > <"),
        ("title>=b", "--where 'title>=b': >= compares numbers, and only year is one; use ~ (contains) or = for title"),
    ],
)
def test_bad_expressions_say_what_is_wrong(expression: str, message: str) -> None:
    with pytest.raises(WhereError) as raised:
        parse(expression)
    assert str(raised.value).startswith(message)


def test_every_error_lists_the_fields_or_shows_a_way_to_write_it() -> None:
    with pytest.raises(WhereError, match=r"keywords \(categories\), abstract \(text\)$"):
        parse("category~cs.LG")


@pytest.mark.parametrize(
    ("expression", "value", "holds"),
    [
        ("categories~cs.LG", ("cs.CL", "cs.LG"), True),  # any item
        ("categories~cs.lg", ("cs.CL", "CS.LG"), True),  # case ignored
        ("categories~cs.LG", ("cs.CV",), False),
        ("categories~cs.LG", (), False),
        ("categories!~cs.LG", (), True),  # a missing value has no item containing it
        ("categories!~cs.LG", ("stat.ML", "cs.LG"), False),
        ("keywords=bandits", ("Bandits", "causal inference"), True),  # equal: a whole item
        ("keywords=band", ("bandits",), False),
        ("authors~lindqvist", ("Mira Castellanos", "Tobias J. Lindqvist"), True),
        ("venue=ICLR 2024", "iclr  2024", True),  # spacing ignored
        ("venue=ICLR 2024", "ICLR 2024 poster", False),
        ("venue~ICLR 2024", "ICLR 2024 poster", True),
        ("venue=ICLR 2024", None, False),
        ("venue!=ICLR 2024", None, True),
        ("venue!=ICLR 2024", "ICLR 2024", False),
        ("year>=2023", 2023, True),
        ("year>=2023", 2022, False),
        ("year>2023", 2023, False),
        ("year<2023", 2022, True),
        ("year<=2023", 2023, True),
        ("year=2023", 2023, True),
        ("year!=2023", 2024, True),
        ("year>=2023", None, False),  # no year: left out by any comparison but !=
        ("year<2023", None, False),
        ("year!=2023", None, True),
        ("abstract~Sharpness", "We show that sharpness separates clean examples.", True),
    ],
)
def test_conditions_hold(expression: str, value: Any, holds: bool) -> None:
    assert parse(expression).holds(value) is holds


def _record(**fields: Any) -> RawRecord:
    from bot.types import Source

    return RawRecord(text=fields.pop("text", "We study X."), source=Source(file="x"), **fields)


def test_a_filter_needs_every_condition_and_counts_what_it_leaves_out() -> None:
    where = RecordFilter(["categories~cs.LG", "year>=2023"])
    records = [
        _record(keywords=("cs.LG",), year=2023),
        _record(keywords=("cs.LG",), year=2022),
        _record(keywords=("cs.CV",), year=2024),
        _record(keywords=("stat.ML", "cs.LG"), year=2024),
    ]
    assert [r.year for r in keep_records(records, where)] == [2023, 2024]
    assert where.left_out == 2
    assert keep_records(records, None) == records
    assert isinstance(where.conditions[0], Condition)


def test_the_snapshot_read_through_a_filter(tmp_path: Path) -> None:
    where = RecordFilter(["categories~cs.LG", "year>=2023"])
    records = read_file(SNAPSHOT, where=where)
    assert [r.source.source_id for r in records] == ["2301.01234", "2310.04567", "2405.11111", "2311.07777"]
    assert [r.source.record for r in records] == [1, 3, 6, 7]  # still their lines in the file
    assert where.left_out == 3  # 1999, cs.CV only, stat.ML in 2022


def test_a_file_whose_records_are_all_left_out_is_no_error(tmp_path: Path) -> None:
    where = RecordFilter(["venue=Nowhere 1900"])
    assert read_file(SNAPSHOT, where=where) == []
    assert where.left_out == 7


def test_records_left_out_are_never_checked(tmp_path: Path) -> None:
    """A record the filter leaves out is not read further: no abstract needed, no notes about its fields."""
    path = tmp_path / "mixed.jsonl"
    rows = [
        {"year": 2019, "title": "Old, no abstract"},
        {"year": "soon", "abstract": "Undated."},
        {"year": 2024, "abstract": "New."},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    warnings: list[str] = []
    (record,) = read_file(path, warnings=warnings, where=RecordFilter(["year>=2023"]))
    assert (record.text, warnings) == ("New.", [])


@pytest.mark.parametrize("suffix", [".csv", ".json", ".txt"])
def test_every_format_is_filtered(tmp_path: Path, suffix: str) -> None:
    rows = [{"abstract": "We study old bandits.", "year": 2019}, {"abstract": "We study new bandits.", "year": 2024}]
    path = tmp_path / f"papers{suffix}"
    if suffix == ".csv":
        path.write_text("abstract,year\n" + "".join(f"{r['abstract']},{r['year']}\n" for r in rows), encoding="utf-8")
    elif suffix == ".json":
        path.write_text(json.dumps(rows), encoding="utf-8")
    else:  # seed text takes its year from the header
        path.write_text("ICML 2024\n\nWe study new bandits.\n", encoding="utf-8")
    where = RecordFilter(["year>=2023"])
    assert [r.text for r in read_file(path, where=where)] == ["We study new bandits."]
    assert where.left_out == (0 if suffix == ".txt" else 1)


# --- streaming


_SENTENCES = [
    "We propose a method that learns sparse representations from unlabelled data.",
    "Experiments on three benchmarks show consistent gains over strong baselines.",
    "Our analysis reveals that the improvement comes from better calibration.",
    "We release code and data to support future research on this problem.",
    "The approach scales linearly with the number of training examples.",
]


def _snapshot_lines(path: Path, lines: int, every: int) -> None:
    """`lines` arXiv-snapshot records, one in `every` of them in cs.CL, the rest in cs.CV."""
    rng = random.Random(7)
    with path.open("w", encoding="utf-8") as out:
        for n in range(lines):
            abstract = " ".join(rng.choice(_SENTENCES) for _ in range(8)) + f" Paper {n}."
            record = {
                "id": f"2301.{n:05d}",
                "title": f"Paper number {n}",
                "authors": "A. Author and B. Author",
                "categories": "cs.CL cs.LG" if n % every == 0 else "cs.CV",
                "abstract": "  " + abstract.replace(". ", ".\n"),
                "update_date": "2023-02-01",
            }
            out.write(json.dumps(record) + "\n")


def test_json_lines_stream_through_the_filter_in_bounded_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "snapshot.jsonl"
    _snapshot_lines(path, 5_000, every=100)
    size = path.stat().st_size
    assert size > 3_000_000

    def whole_file(*_: Any, **__: Any) -> str:
        raise AssertionError("a JSON-lines file was decoded whole")

    monkeypatch.setattr(readers, "decode", whole_file)
    monkeypatch.setattr(decoding, "decode", whole_file)
    where = RecordFilter(["categories~cs.CL"])
    tracemalloc.start()
    try:
        records = read_file(path, where=where)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [r.source.source_id for r in records] == [f"2301.{n:05d}" for n in range(0, 5_000, 100)]
    assert all(r.keywords == ("cs.CL", "cs.LG") and "\n" not in r.text for r in records)
    assert where.left_out == 4_950
    assert peak < 1_000_000 < size // 3  # measured: 0.17 MB for 50 records kept of a 3.8 MB file


@pytest.mark.parametrize("encoding", ["utf-8", "latin-1", "utf-7", "utf-16"])
def test_a_stream_reads_the_lines_decoding_the_whole_file_reads(tmp_path: Path, encoding: str) -> None:
    """Random bytes (line breaks of every kind, bad and cut-off UTF-8, NUL, byte-order marks, U+2028,
    surrogates) give the lines, warnings and errors that decode + split_lines give."""
    pieces = [b"a", b"\n", b"\r", b"\r\n", b"\xc3\xa9", b"\xc3", b"\xff", b"\x00", b"\xe2\x80\xa8", b"\xef\xbb\xbf"]
    pieces += [b'{"x": 1}', b" ", b"\xf0\x9f\x98\x80", b"+2AA-"]
    rng = random.Random(encoding)
    path = tmp_path / "x.jsonl"

    def lines(read: Callable[[list[str]], list[str]]) -> tuple[str, Any, list[str]]:
        warnings: list[str] = []
        try:
            return "read", [line for line in read(warnings) if line.strip()], warnings
        except FormatError as exc:
            return "error", str(exc), []

    for _ in range(500):
        path.write_bytes(b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 30))))
        whole = lines(lambda w: decoding.split_lines(decoding.decode(path, encoding, "F", w)))
        streamed = lines(lambda w: [line for _, line in decoding.LineStream(path, encoding, "F", w)])
        assert streamed == whole, path.read_bytes()


def test_reading_a_large_file_says_how_far_it_got(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "snapshot.jsonl"
    _snapshot_lines(path, 3_000, every=10)
    monkeypatch.setattr(structured, "PROGRESS_EVERY", 0.0)  # as if each 1,024 lines took long
    said: list[str] = []
    records = read_file(path, where=RecordFilter(["categories~cs.CL"]), say=said.append)
    assert len(records) == 300
    assert [line.split(",")[0] for line in said] == [
        "reading snapshot.jsonl: 1",  # "1,024 lines" split at its comma
        "reading snapshot.jsonl: 2",
        "read snapshot.jsonl: 3",
    ]
    assert said[0].startswith("reading snapshot.jsonl: 1,024 lines, 34% of ") and "103 kept" in said[0]
    assert said[-1].startswith("read snapshot.jsonl: 3,000 lines in ") and said[-1].endswith("s, 300 kept")
    monkeypatch.undo()
    quiet: list[str] = []
    read_file(path, say=quiet.append)  # read in well under PROGRESS_EVERY seconds: nothing said
    assert quiet == []


# --- the command line


def test_a_bad_expression_is_a_usage_error_before_anything_is_read(tmp_path: Path, run_cli: Callable[..., Any]) -> None:
    store = tmp_path / "store"
    run = run_cli("ingest", SNAPSHOT, "--where", "year>=2023", "--where", "yaer>=2023", "--store", store)
    assert run.code == 2
    assert run.err.startswith("usage: paperbot ingest [OPTIONS] [PATHS]...\n")
    assert "paperbot: error: --where 'yaer>=2023': no field 'yaer'; the fields are title, authors" in run.err
    assert not store.exists()


@pytest.mark.slow
def test_ingest_where_keeps_the_papers_asked_for_and_leaves_the_rest_alone(
    tmp_path: Path, run_cli: Callable[..., Any], settings_for: Callable[..., Settings]
) -> None:
    store = tmp_path / "store"
    run = run_cli(
        "ingest", SNAPSHOT, "--where", "categories~cs.LG", "--where", "year>=2023", "--json", "--store", store
    )
    assert (run.code, run.messages) == (0, "")
    report = run.json()
    assert {k: report[k] for k in ("papers", "added", "filtered_out")} == {"papers": 4, "added": 4, "filtered_out": 3}

    def landed() -> dict[str, Any]:
        bot = Paperbot(settings_for(store))
        try:
            return {p.source_id: p for p in bot.papers().values()}
        finally:
            bot.store.close()

    papers = landed()
    assert sorted(papers) == ["2301.01234", "2310.04567", "2311.07777", "2405.11111"]
    acl = papers["2310.04567"]
    assert (acl.year, acl.doi, acl.keywords, acl.url) == (
        2023,
        "10.1162/tacl_a_00648",
        ("cs.CL", "cs.LG"),
        "https://arxiv.org/abs/2310.04567",
    )

    # Another filter over the same file adds its papers; those it leaves out stay, neither stale nor pruned.
    again = run_cli("ingest", SNAPSHOT, "--where", "categories=cs.CV", "--prune", "--json", "--store", store)
    assert (again.code, again.messages) == (0, "")
    assert {k: again.json()[k] for k in ("papers", "added", "removed", "unchanged", "filtered_out")} == {
        "papers": 5,
        "added": 1,
        "removed": 0,
        "unchanged": 0,
        "filtered_out": 6,
    }
    assert sorted(landed()) == ["2301.01234", "2310.04567", "2311.07777", "2402.00999", "2405.11111"]

    text = run_cli("ingest", SNAPSHOT, "--where", "year<2000", "--store", store)
    assert text.code == 0 and ", 6 left out by --where" in text.out
    assert "cs/9905014" in landed()
