"""ingest.bibliography through read_file and the CLI: BibTeX and RIS fields, skipped entries,
malformed input, and paperbot's own exports read back."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.errors import BadRecordError, FormatError
from bot.library import export
from bot.settings import Settings
from bot.store.registry import Registry
from bot.text.normalise import display, paper_id
from bot.types import Paper, Source
from ingest.plan import merge_records
from ingest.readers import RawRecord, read_file, read_paths

SOURCES = Path(__file__).parent.parent / "data" / "sources"


def read(path: Path, skip_bad: bool = False) -> tuple[dict[str | None, RawRecord], list[str]]:
    """{source_id: record} of a file, and its warnings."""
    warnings: list[str] = []
    records = read_file(path, skip_bad=skip_bad, warnings=warnings)
    return {r.source.source_id: r for r in records}, warnings


def test_zotero_bibtex_fields_land_where_they_should() -> None:
    records, _ = read(SOURCES / "zotero.bib")
    assert list(records) == ["muller2023sparse", "okafor2022calibrated", "lindqvist2024graph", "dubois2023federated"]

    moe = records["muller2023sparse"]
    assert moe.title == "Sparse Mixture-of-Experts Routing without Load-Balancing Losses"  # nested braces gone
    assert moe.authors == ("Jörg Müller", "María García", "Pieter van der Berg")  # {\"u}, {\'\i}, "von Last, First"
    assert moe.venue == "International Conference on Machine Learning 2023"  # @string macro # " 2023"
    assert moe.year == 2023
    assert moe.doi == "10.48550/arxiv.2306.01234"  # https://doi.org/ prefix gone, lower case
    assert moe.url == "https://arxiv.org/abs/2306.01234"
    assert moe.keywords == ("mixture of experts", "routing", "load balancing")  # split on , and ;
    assert moe.text.startswith("Sparse mixture-of-experts models rely on auxiliary load-balancing losses that trade")
    assert "a naïve top-k router with a capacity-aware eviction rule, à la cuckoo hashing," in moe.text
    # \% is a per cent sign, and a typed -- stays two hyphens (paperbot's own exports read back as written)
    assert "with 40% fewer active parameters and removes the 2--3 hyperparameters" in moe.text
    src = moe.source
    assert (src.file, src.line, src.record) == (str((SOURCES / "zotero.bib").resolve()), 7, 1)

    crossref = records["okafor2022calibrated"]
    assert crossref.venue == "Advances in Neural Information Processing Systems 35"  # the proceedings' title
    assert crossref.year == 2022
    assert crossref.authors == ("Chidi Okafor", "Google DeepMind")  # a braced name is one name
    assert (crossref.doi, crossref.url, crossref.keywords) == (None, None, ())

    biblatex = records["lindqvist2024graph"]
    assert (biblatex.venue, biblatex.year) == ("Transactions on Machine Learning Research", 2024)  # journaltitle, date
    assert biblatex.doi == "10.5555/tmlr.2024.0042"  # "DOI:" prefix gone
    # A bare % is text in BibTeX, not a LaTeX comment that would drop the rest of the line.
    assert "reducing node classification error by 12% on co-authorship benchmarks while keeping" in biblatex.text
    assert biblatex.text.endswith("linear in the number of edges.")

    macro = records["dubois2023federated"]
    assert (macro.venue, macro.year, macro.doi) == (
        "International Conference on Machine Learning",
        2023,
        "10.1145/3580305.3599256",
    )
    assert macro.authors == ("Amélie Dubois", "Priya Ramanathan")
    assert "closes most of the gap to centralised training & cuts communication" in macro.text


def test_zotero_entries_without_an_abstract_are_one_warning() -> None:
    _, warnings = read(SOURCES / "zotero.bib")
    # The @proceedings that okafor2022calibrated cross-references is a volume, not a paper missing its abstract.
    assert warnings == [
        f"{SOURCES / 'zotero.bib'}: 2 entries without an abstract skipped (goodfellow2016deep, "
        "vaswani2017attention); paperbot needs the abstract to search a paper"
    ]


def test_mendeley_ris_fields_land_where_they_should() -> None:
    records, warnings = read(SOURCES / "mendeley.ris")
    assert list(records) == ["nakamura2023contrastive", "haddad2024preference", "ferreira2022energy"]

    journal = records["nakamura2023contrastive"]  # AU, TI, JO, PY, DO, UR, KW, AB over several lines
    assert journal.title == "Contrastive Pretraining for Tabular Data with Missing Values"
    assert journal.authors == ("Kenji Nakamura", "Abena Osei")
    assert (journal.venue, journal.year) == ("Journal of Machine Learning Research", 2023)
    assert journal.doi == "10.5555/jmlr.2023.0117"
    assert journal.url == "https://jmlr.org/papers/v24/nakamura23a.html"
    assert journal.keywords == ("contrastive learning", "tabular data", "missing values")
    assert journal.text.startswith(
        "Tabular datasets routinely contain missing entries, yet contrastive pretraining methods"
    )
    assert journal.text.endswith("when fewer than a thousand labels are available.")
    assert (journal.source.line, journal.source.record) == (1, 1)

    conference = records["haddad2024preference"]  # A1, T1, T2, Y1 "2024///", N2, KW "a; b"
    assert conference.title == "Sample-Efficient Preference Learning from Pairwise Comparisons"
    assert conference.authors == ("Yasmin Haddad", "Tomasz Kowalski")
    assert conference.venue == "Proceedings of the 41st International Conference on Machine Learning"
    assert conference.year == 2024
    assert conference.keywords == ("preference learning", "active learning")
    assert conference.text.startswith("Preference-based reinforcement learning asks humans to compare pairs")
    assert conference.source.line == 21

    chapter = records["ferreira2022energy"]  # BT as the venue, the year from DA alone
    assert (chapter.venue, chapter.year, chapter.authors) == ("Machine Learning for Health", 2022, ("Lucas Ferreira",))

    assert warnings == [
        f"{SOURCES / 'mendeley.ris'}: 1 record without an abstract skipped (sutton2019bitter); "
        "paperbot needs the abstract to search a paper"
    ]


def test_math_in_a_bibtex_abstract_is_kept_for_display_to_render(tmp_path: Path) -> None:
    path = tmp_path / "math.bib"
    path.write_text(r"@article{a, abstract = {We bound the $\ell_1$ error of Sch{\"o}dinger bridges.}}" + "\n")
    (record,) = read_file(path)
    # As an abstract with math read from JSON lines keeps it: display renders it, and the id matches.
    assert record.text == r"We bound the $\ell_1$ error of Schödinger bridges."
    assert display(record.text) == "We bound the ℓ_1 error of Schödinger bridges."


def test_the_skip_warning_names_only_the_first_few_keys(tmp_path: Path) -> None:
    path = tmp_path / "refs.bib"
    bare = "".join(f"@book{{key{n}, title = {{Book {n}}}}}\n" for n in range(1, 6))
    path.write_text(bare + "@article{paper, abstract = {We study things.}}\n")
    records, warnings = read(path)
    assert list(records) == ["paper"]
    assert warnings == [
        f"{path}: 5 entries without an abstract skipped (key1, key2, key3, ...); "
        "paperbot needs the abstract to search a paper"
    ]


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        (
            "refs.bib",
            "@book{knuth1984, title = {The TeXbook}}\n@article{lamport1994, title = {LaTeX}}\n",
            "{path}: none of its 2 entries has an abstract (knuth1984, lamport1994); paperbot needs the abstract "
            "to search a paper: export the library again with abstracts, or add them to the file",
        ),
        (
            "refs.ris",
            "TY  - BOOK\nTI  - The TeXbook\nID  - knuth1984\nER  - \n",
            "{path}: its one record has no abstract (knuth1984); paperbot needs the abstract to search a "
            "paper: export the library again with abstracts, or add them to the file",
        ),
        ("notes.bib", "Just some notes, no entries.\n", "{path}: no BibTeX entries (@article{key, ...}) found"),
        ("notes.ris", "Just some notes, no records.\n", "{path}: no RIS records (TY  - JOUR ... ER  -) found"),
    ],
)
def test_a_file_without_abstracts_fails_saying_so(tmp_path: Path, name: str, content: str, message: str) -> None:
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(FormatError) as info:
        read_file(path, skip_bad=True, warnings=[])
    assert str(info.value).startswith(message.replace("{path}", str(path)))


BAD_BIB = """@article{good1, abstract = {A fine abstract.}}

@article{broken,
  title = {Unclosed {brace,
  abstract = {Never read.}
}

@article{good2, abstract = {Another fine abstract.}}
@article{good2, abstract = {Same key again.}}
@misc{twice, title = {x}, title = {y}, abstract = {Title given twice.}}
"""


def test_malformed_bibtex_names_file_line_and_key_or_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "bad.bib"
    path.write_text(BAD_BIB)
    with pytest.raises(BadRecordError) as info:
        read_file(path)
    assert str(info.value).startswith(f"{path} line 3 (entry broken): not valid BibTeX (Unexpected block start")
    assert str(info.value).endswith("close its braces and quotes, or remove the entry (or pass --skip-bad)")
    records, warnings = read(path, skip_bad=True)
    assert [r.text for r in records.values()] == ["A fine abstract.", "Another fine abstract."]
    assert len(warnings) == 3
    assert warnings[0].startswith(f"skipped: {path} line 3 (entry broken): not valid BibTeX (Unexpected block start")
    assert warnings[1:] == [
        f"skipped: {path} line 9 (entry good2): the key is also used by the entry on line 8; "
        "give each entry its own key",
        f"skipped: {path} line 10 (entry twice): the field 'title' is given twice; keep one of them",
    ]


BAD_RIS = """TY  - JOUR
AB  - A fine abstract.
ER  -

TI  - Lost its type line
AB  - Never read.
ER  -

TY  - JOUR
AB  - Not closed.
TY  - JOUR
AB  - Another fine abstract.
ER  -
"""


def test_malformed_ris_names_file_and_line_or_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "bad.ris"
    path.write_text(BAD_RIS)
    with pytest.raises(BadRecordError, match=rf"^{path} line 5: a record without its 'TY  -' line"):
        read_file(path)
    warnings: list[str] = []
    records = read_file(path, skip_bad=True, warnings=warnings)  # records without an ID: no source_id
    assert [(r.text, r.source.line, r.source.source_id) for r in records] == [
        ("A fine abstract.", 1, None),
        ("Another fine abstract.", 11, None),
    ]
    assert len(warnings) == 2
    assert warnings[1].startswith(
        f"skipped: {path} line 9: the record is not closed by 'ER  -' before the next 'TY  -' on line 11"
    )
    path.write_text(BAD_RIS + "TY  - JOUR\nAB  - The file ends here.\n")
    read_file(path, skip_bad=True, warnings=warnings)
    assert warnings[-1] == (
        f"skipped: {path} line 14: the record is not closed: the file ends before its 'ER  -' line; "
        "fix the record or remove it"
    )


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("bad.bib", BAD_BIB),
        ("deep.bib", "@misc{deep, abstract = {" + "{" * 5000 + "x" + "}" * 5000 + "}}\n"),
        ("open.bib", "@article{open, abstract = {never closed\n"),
        ("stray.bib", "@@@{{{}}}\\\\\\ @string{x = y # z # } @misc{, }\n"),
        ("bad.ris", BAD_RIS),
        ("cut.ris", "TY  - JOUR\nAB  - the file ends"),
    ],
)
def test_malformed_input_is_an_input_error_at_the_cli_never_a_traceback(
    run_cli: Callable[..., Any], tmp_path: Path, name: str, content: str
) -> None:
    path = tmp_path / name
    path.write_text(content)
    run = run_cli("ingest", "--json", path, "--store", tmp_path / "store")
    assert run.code in (0, 2), run.err
    assert "Traceback" not in run.err
    if run.code == 2:
        assert run.err.startswith(f"paperbot: error: {path}")


def _paper(pid: str, text: str, **meta: Any) -> Paper:
    return Paper(pid, text, display(text), label="Label", content_hash="h", sources=(Source("x"),), **meta)


EXPORTED = [
    _paper(
        "p0123456789ab",
        r"50% of {x}_1 & costs ~#3 ^ a\b — Müller's “quoted” <b> -- ``quotes'' $5 and $10",
        title="Braces {and} 100% & more_stuff",
        authors=("Yuri Fonseca", "José Müller-Lüdenscheidt", "Pieter van der Berg"),
        year=2022,
        venue="NeurIPS 2022",
        url="https://openreview.net/forum?id=09QF_n%20x",
        doi="10.1145/3580305.3599256",
        keywords=("deep learning", "Müller–Lüdenscheidt effect"),
    ),
    _paper("p0123ffffffff", "An untitled abstract. It has no metadata at all."),
]


@pytest.mark.parametrize("fmt", ["bibtex", "ris"])
def test_a_paperbot_export_reads_back_field_for_field(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / f"out{export.EXTENSIONS[fmt]}"
    path.write_text(export.render(EXPORTED, fmt), encoding="utf-8")
    back, warnings = read(path)
    assert warnings == []
    keys = export.bibtex_keys(EXPORTED)
    for paper in EXPORTED:
        record = back[keys[paper.paper_id]]
        assert record.text == paper.display
        assert record.title == paper.title  # the untitled paper's generated label is read as no title
        assert (record.authors, record.year, record.venue, record.url) == (
            paper.authors,
            paper.year,
            paper.venue,
            paper.url,
        )
        assert (record.doi, record.keywords) == (paper.doi, paper.keywords)


def test_export_writes_doi_and_keywords() -> None:
    bibtex, ris = export.to_bibtex(EXPORTED[:1]), export.to_ris(EXPORTED[:1])
    assert "  doi = {10.1145/3580305.3599256},\n  keywords = {deep learning, Müller–Lüdenscheidt effect},\n" in bibtex
    assert "DO  - 10.1145/3580305.3599256\r\nKW  - deep learning\r\nKW  - Müller–Lüdenscheidt effect\r\n" in ris
    assert "doi" not in export.to_bibtex(EXPORTED[1:]) and "DO  -" not in export.to_ris(EXPORTED[1:])


def test_exported_seed_abstracts_read_back_as_their_display_text(seeds_dir: Path, tmp_path: Path) -> None:
    # Ids come from `text` and the export writes `display`: for seed abstracts with markdown or LaTeX
    # the two differ, so the read-back ids differ too and ingest must match these papers by their
    # rendered text (ingest.identity). The readers give `display` back exactly.
    papers = list(merge_records(read_paths([seeds_dir]).records).values())
    differ = {p.paper_id for p in papers if paper_id(p.display) != p.paper_id}
    assert 0 < len(differ) < len(papers)
    keys = export.bibtex_keys(papers)
    for fmt in ("bibtex", "ris"):
        path = tmp_path / f"seeds{export.EXTENSIONS[fmt]}"
        path.write_text(export.render(papers, fmt), encoding="utf-8")
        records, _ = read(path)
        assert [records[keys[p.paper_id]].text for p in papers] == [p.display for p in papers]
        assert {p.paper_id for p in papers if paper_id(records[keys[p.paper_id]].text) != p.paper_id} == differ


def _ids(settings_for: Callable[..., Settings], store: Path) -> list[str]:
    registry = Registry(settings_for(store).store)
    try:
        return sorted(dict(registry.papers()))
    finally:
        registry.close()


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["bibtex", "ris"])
def test_reference_manager_files_round_trip_through_the_cli_adding_nothing(
    run_cli: Callable[..., Any], settings_for: Callable[..., Settings], tmp_path: Path, fmt: str
) -> None:
    store = tmp_path / "store"
    first = run_cli("ingest", "--json", SOURCES / "zotero.bib", SOURCES / "mendeley.ris", "--store", store)
    assert first.code == 0, first.err
    assert first.json()["added"] == 7
    ids = _ids(settings_for, store)
    out = tmp_path / f"out{export.EXTENSIONS[fmt]}"
    exported = run_cli("export", "--papers", ",".join(ids), "--format", fmt, "-o", out, "--store", store)
    assert exported.code == 0, exported.err
    again = run_cli("ingest", "--json", out, "--store", store)
    assert again.code == 0, again.err
    assert (again.json()["added"], again.json()["updated"]) == (0, 0)
    assert _ids(settings_for, store) == ids


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["bibtex", "ris"])
def test_the_seeds_round_trip_through_the_cli_adding_nothing(
    run_cli: Callable[..., Any], settings_for: Callable[..., Settings], store_copy: Settings, tmp_path: Path, fmt: str
) -> None:
    ids = _ids(settings_for, store_copy.store)
    out = tmp_path / f"out{export.EXTENSIONS[fmt]}"
    exported = run_cli("export", "--papers", ",".join(ids), "--format", fmt, "-o", out, "--store", store_copy.store)
    assert exported.code == 0, exported.err
    again = run_cli("ingest", "--json", out, "--store", store_copy.store)
    assert again.code == 0, again.err
    # The 26 seed abstracts whose display differs from their text are matched by their rendered text.
    assert (again.json()["added"], again.json()["updated"]) == (0, 0)
    assert _ids(settings_for, store_copy.store) == ids
