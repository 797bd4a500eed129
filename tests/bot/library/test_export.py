"""Export: BibTeX that a real parser reads back exactly, RIS tags, CSV round trips, Markdown lists."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable
from pathlib import Path

import bibtexparser
import pytest
import rispy
from bibtexparser import middlewares

from bot.errors import QueryError
from bot.library import export
from bot.settings import Settings
from bot.types import Paper, Source

NASTY = r"50% of {x}_1 & $y$ costs ~#3 ^ \textbf{bold} t_mix^3/ε^2 — Müller's “quoted” <b>"


def paper(pid: str, text: str, **meta: object) -> Paper:
    return Paper(
        paper_id=pid,
        text=text,
        display=text,
        label=str(meta.pop("label", "Label")),
        content_hash="h" + pid,
        sources=(Source("x.jsonl", line=1),),
        **meta,  # type: ignore[arg-type]
    )


@pytest.fixture
def papers() -> list[Paper]:
    return [
        paper(
            "p0123456789ab",
            NASTY,
            label="NastyNet",
            title="Braces {and} 100% & more_stuff",
            authors=("Yuri Fonseca", "José Müller-Lüdenscheidt"),
            year=2022,
            venue="NeurIPS 2022",
            url="https://openreview.net/forum?id=09QF_n%20x",
        ),
        paper("p0123ffffffff", "An untitled abstract. It has no metadata at all.", label="Untitled thing"),
        paper("pabcdef012345", "Seed-like abstract.", label="Cal-SPI", year=2026, venue="NeurIPS"),
    ]


def _decode(value: str) -> str:
    # pylatexenc reads \textasciicircum{} as the modifier letter U+02C6; as text it is a caret.
    return value.replace("ˆ", "^")


def _parse(text: str) -> bibtexparser.Library:
    library = bibtexparser.parse_string(text, append_middleware=[middlewares.LatexDecodingMiddleware()])
    assert library.failed_blocks == []
    return library


def test_bibtex_parses_back_to_the_same_fields(papers: list[Paper]) -> None:
    library = _parse(export.to_bibtex(papers))
    assert [e.key for e in library.entries] == ["fonseca2022-0123", "untitledthing-0123", "calspi2026-abcd"]
    nasty, untitled, seed = (e.fields_dict for e in library.entries)
    assert library.entries[0].entry_type == "inproceedings"
    assert library.entries[1].entry_type == "misc"
    assert _decode(nasty["abstract"].value) == NASTY
    assert nasty["title"].value.strip("{}") == "Braces {and} 100% & more_stuff"
    assert nasty["author"].value == "Yuri Fonseca and José Müller-Lüdenscheidt"
    assert (nasty["booktitle"].value, nasty["year"].value) == ("NeurIPS 2022", "2022")
    # URLs are verbatim fields (biblatex, Zotero); LaTeX decoding would read '%' as a comment.
    raw = bibtexparser.parse_string(export.to_bibtex(papers)).entries[0].fields_dict
    assert raw["url"].value == "https://openreview.net/forum?id=09QF_n%20x"
    assert untitled["title"].value.strip("{}") == "Untitled thing"
    assert "author" not in untitled and "year" not in untitled
    assert (seed["booktitle"].value, seed["year"].value) == ("NeurIPS", "2026")


def test_bibtex_braces_balance_in_every_field(papers: list[Paper]) -> None:
    text = export.to_bibtex(papers)
    depth = 0
    for ch in re.sub(r"\\[{}]", "", text):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        assert depth >= 0
    assert depth == 0


def test_bibtex_keys_are_stable_and_unique() -> None:
    first = paper("p0123aaaaaaaa", "One.", label="Same", year=2026)
    twin = paper("p0123bbbbbbbb", "Two.", label="Same", year=2026)  # same stem, year and first 4 digits
    alone = export.bibtex_keys([first])
    both = export.bibtex_keys([first, twin])
    assert alone[first.paper_id] == both[first.paper_id] == "same2026-0123"
    assert both[twin.paper_id] == "same2026-0123bb"
    assert export.bibtex_keys([twin, first])[twin.paper_id] == "same2026-0123"


def test_ris_uses_two_letter_tags_and_closes_every_record(papers: list[Paper]) -> None:
    text = export.to_ris(papers)
    assert "\r\n" in text and "\n" not in text.replace("\r\n", "")
    lines = [line for line in text.split("\r\n") if line]
    assert all(re.fullmatch(r"[A-Z][A-Z0-9]  - .*", line) for line in lines), lines
    records = text.split("ER  - ")[:-1]
    assert len(records) == 3
    assert [r.strip().splitlines()[0] for r in records] == ["TY  - CPAPER", "TY  - GEN", "TY  - CPAPER"]
    first = records[0]
    assert "AU  - Fonseca, Yuri" in first and "AU  - Müller-Lüdenscheidt, José" in first
    assert "PY  - 2022" in first and "T2  - NeurIPS 2022" in first and "TI  - Braces {and} 100% & more_stuff" in first
    assert f"AB  - {NASTY}" in first


def test_bibtex_layout_is_what_reference_managers_were_given_before_the_writer_swap() -> None:
    """bibtexparser writes the entries; the bytes are those of the hand-made writer it replaced."""
    seed = paper("pabcdef012345", "Seed-like  abstract\nwith 5% & more.", label="Cal-SPI", year=2026, venue="NeurIPS")
    untitled = paper("p0123ffffffff", "Plain.", label="Untitled thing", url="https://x.org/{a}")
    assert export.to_bibtex([seed, untitled]) == (
        "@inproceedings{calspi2026-abcd,\n"
        "  title = {{Cal-SPI}},\n"
        "  booktitle = {NeurIPS},\n"
        "  year = {2026},\n"
        "  abstract = {Seed-like abstract with 5\\% \\& more.},\n"
        "  note = {paperbot id pabcdef012345; untitled in the source, title is the label paperbot generated}\n"
        "}\n"
        "\n"
        "@misc{untitledthing-0123,\n"
        "  title = {{Untitled thing}},\n"
        "  url = {https://x.org/%7Ba%7D},\n"
        "  abstract = {Plain.},\n"
        "  note = {paperbot id p0123ffffffff; untitled in the source, title is the label paperbot generated}\n"
        "}\n"
    )
    assert export.to_bibtex([]) == ""


def test_ris_reads_back_with_rispy_to_the_same_fields(papers: list[Paper]) -> None:
    text = export.to_ris(papers)
    keys = export.bibtex_keys(papers)
    assert rispy.loads(text) == [export.ris_record(p, keys[p.paper_id]) for p in papers]
    first = rispy.loads(text)[0]
    assert first["authors"] == ["Fonseca, Yuri", "Müller-Lüdenscheidt, José"]
    assert (first["type_of_reference"], first["year"], first["secondary_title"]) == ("CPAPER", "2022", "NeurIPS 2022")
    assert first["abstract"] == NASTY and first["urls"] == ["https://openreview.net/forum?id=09QF_n%20x"]
    assert text.endswith("ER  - \r\n") and "\r\n\r\nTY  - GEN\r\n" in text  # one blank line between records
    assert export.to_ris([]) == ""


def test_csv_round_trips_with_every_field_quoted(papers: list[Paper]) -> None:
    text = export.to_csv(papers)
    assert not text.startswith("\ufeff")
    assert text.startswith('"key","paper_id"')
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    assert [r["paper_id"] for r in rows] == [p.paper_id for p in papers]
    assert rows[0]["abstract"] == NASTY
    assert rows[0]["authors"] == "Yuri Fonseca; José Müller-Lüdenscheidt"
    assert rows[1]["title"] == "Untitled thing" and rows[1]["year"] == ""
    assert rows[2]["venue"] == "NeurIPS" and rows[2]["year"] == "2026"


def test_markdown_is_a_numbered_list(papers: list[Paper]) -> None:
    text = export.to_markdown(papers, "Reading list: to read")
    assert text.startswith("# Reading list: to read\n\n3 papers.")
    assert "1. **Braces {and} 100% & more\\_stuff** — Yuri Fonseca, José Müller-Lüdenscheidt. *NeurIPS 2022*." in text
    assert "2. **Untitled thing**\n   `p0123ffffffff` · label Untitled thing" in text
    assert "3. **Cal-SPI** — *NeurIPS 2026*" in text


def test_unknown_format_says_which_exist(papers: list[Paper]) -> None:
    with pytest.raises(QueryError, match="bibtex, ris, csv, markdown"):
        export.render(papers, "endnote")


@pytest.mark.slow
def test_seed_exports_carry_venue_year_and_label(
    seeded_store: Settings, tmp_path: Path, run_cli: Callable[..., object]
) -> None:
    out = tmp_path / "grpo.bib"
    run = run_cli("export", "--topic", "GRPO", "--format", "bibtex", "-o", out, "--store", seeded_store.store)
    assert run.code == 0, run.err  # type: ignore[attr-defined]
    library = _parse(out.read_text(encoding="utf-8"))
    assert len(library.entries) == 8
    assert {e.fields_dict["booktitle"].value for e in library.entries} == {"NeurIPS"}
    assert {e.fields_dict["year"].value for e in library.entries} == {"2026"}
    assert "SSPO" in {e.fields_dict["title"].value.strip("{}") for e in library.entries}

    every = run_cli("export", "--topic", "reinforcement learning", "--format", "csv", "--store", seeded_store.store)
    rows = list(csv.DictReader(io.StringIO(every.out, newline="")))  # type: ignore[attr-defined]
    assert len(rows) > 20 and len({r["key"] for r in rows}) == len(rows)


def test_csv_cells_a_spreadsheet_would_run_as_formulas_are_written_as_text(papers: list[Paper]) -> None:
    from dataclasses import replace

    evil = replace(papers[0], title='=HYPERLINK("http://evil.example","Click")', label="@SUM(A1)")
    row = next(csv.DictReader(io.StringIO(export.to_csv([evil]), newline="")))
    assert row["title"] == '\'=HYPERLINK("http://evil.example","Click")'
    assert row["label"] == "'@SUM(A1)"
    assert row["abstract"] == evil.display  # ordinary text is unchanged
