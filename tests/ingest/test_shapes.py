"""ingest.shapes through read_file: the arXiv snapshot, OpenReview notes (v1 and v2) and Semantic
Scholar papers land in the right fields without flags, records of those shapes without an abstract
are skipped and counted, and flat records (with `doi` and `keywords` now read) are as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.errors import BadRecordError, FormatError
from ingest import shapes
from ingest.readers import RawRecord, read_file

SOURCES = Path(__file__).resolve().parent.parent / "data" / "sources"


def _by_id(name: str) -> tuple[dict[str, RawRecord], list[str]]:
    warnings: list[str] = []
    records = read_file(SOURCES / name, warnings=warnings)
    return {r.source.source_id or "": r for r in records}, warnings


def _fields(record: RawRecord) -> dict[str, object]:
    return {
        "title": record.title,
        "authors": record.authors,
        "year": record.year,
        "venue": record.venue,
        "url": record.url,
        "doi": record.doi,
        "keywords": record.keywords,
    }


def test_arxiv_snapshot_records_land_in_every_field() -> None:
    records, warnings = _by_id("arxiv_snapshot.jsonl")
    assert warnings == []
    assert list(records) == [
        "2301.01234", "cs/9905014", "2310.04567", "2402.00999", "2207.05555", "2405.11111", "2311.07777",
    ]  # fmt: skip
    first = records["2301.01234"]
    assert _fields(first) == {
        "title": "Sharpness-Aware Curriculum Learning for Noisy Label Classification",  # hard break collapsed
        "authors": ("Mira Castellanos", "Tobias J. Lindqvist", "Priya Raghunathan"),  # "A, B and C"
        "year": 2023,
        "venue": None,
        "url": "https://arxiv.org/abs/2301.01234",
        "doi": None,
        "keywords": ("cs.LG", "stat.ML"),
    }
    assert first.text.startswith("Deep networks trained on crowd-sourced labels memorise the noisy examples late in")
    assert "\n" not in first.text and "  " not in first.text
    assert first.source.record == 1 and first.source.file == str((SOURCES / "arxiv_snapshot.jsonl").resolve())


def test_an_old_style_arxiv_id_with_a_journal_ref_and_doi() -> None:
    records, _ = _by_id("arxiv_snapshot.jsonl")
    assert _fields(records["cs/9905014"]) == {
        "title": "Margin Bounds for Voting Classifiers Built from Decision Stumps",
        "authors": ("Helmut Baerwald", "Anne-Sophie Marchetti"),  # affiliations in parentheses dropped
        "year": 1999,  # its first version; update_date says 2007
        "venue": "Machine Learning 41(2):155-176, 2000",
        "url": "https://arxiv.org/abs/cs/9905014",
        "doi": "10.1023/a:1007641513279",
        "keywords": ("cs.LG", "cs.AI"),
    }


def test_arxiv_authors_parsed_and_nested_affiliations() -> None:
    records, _ = _by_id("arxiv_snapshot.jsonl")
    acl = records["2310.04567"]
    assert acl.authors == ("Kwame Boateng", "Lucia Ferrer-Santos", "Daniel Okonkwo", "Yuki Tanabe")
    assert acl.venue == "Transactions of the Association for Computational Linguistics 12 (2024) 301-318"
    assert (acl.year, acl.doi) == (2023, "10.1162/tacl_a_00648")  # first version Oct 2023, v2 in 2024
    assert records["2405.11111"].authors == ("Jonas Whitfield", "Amara Nwosu", "Chen Wei")


@pytest.mark.parametrize(
    ("record", "year"),
    [
        # the first version's date wins over update_date (a later revision, or a bulk metadata update)
        ({"versions": [{"created": "Tue, 12 Jul 2022 14:20:00 GMT"}], "update_date": "2023-01-15"}, 2022),
        ({"id": "2311.07777", "update_date": "2024-01-02"}, 2023),  # no versions: the id's yymm
        ({"id": "hep-th/9901001", "update_date": "2008-11-13"}, 1999),
        ({"id": "solv-int/9112001", "update_date": "2008-11-13"}, 1991),
        ({"id": "not an arxiv id", "update_date": "2008-11-13"}, 2008),  # last: update_date
    ],
)
def test_the_arxiv_year_is_when_the_paper_first_appeared(record: dict[str, object], year: int) -> None:
    flat, shape = shapes.flatten({"categories": "cs.LG", "abstract": "A.", "update_date": "x", **record})
    assert (shape, flat["year"]) == (shapes.ARXIV, year)


def test_openreview_v1_notes_and_a_review_without_abstract() -> None:
    records, warnings = _by_id("openreview_v1.jsonl")
    assert list(records) == ["HkgTkhRcKQ", "SyxZOsA9tX", "rJx4p3NYDB"]
    assert _fields(records["HkgTkhRcKQ"]) == {
        "title": "Learning to Prune Filters with Differentiable Gates",
        "authors": ("Natalia Ivanova", "Oren Ben-David", "Grace Kimura"),
        "year": 2019,
        "venue": "ICLR 2019 Conference Poster",
        "url": "https://openreview.net/forum?id=HkgTkhRcKQ",
        "doi": None,
        "keywords": ("network pruning", "model compression", "differentiable gates"),
    }
    assert records["HkgTkhRcKQ"].text.startswith("Structured pruning removes whole convolution filters")
    # no venue: the year of the conference in its invitation (created in 2018), and no venue claimed
    assert (records["SyxZOsA9tX"].year, records["SyxZOsA9tX"].venue) == (2019, None)
    # nothing but the creation date (ms since 1970: 2019-09-25), and keywords as one "a; b" string
    calibrating = records["rJx4p3NYDB"]
    assert (calibrating.year, calibrating.keywords) == (2019, ("uncertainty", "regression", "calibration"))
    assert warnings == [
        f"{SOURCES / 'openreview_v1.jsonl'}: skipped 1 OpenReview record without an abstract (Bkl9Xq0cFm)"
    ]


def test_openreview_v2_notes_in_a_json_array() -> None:
    records, warnings = _by_id("openreview_v2.json")
    assert warnings == []
    assert _fields(records["Zx3qP9aB1c"]) == {
        "title": "Scaling Laws for Sparse Mixture-of-Experts Fine-Tuning",
        "authors": ("Ananya Krishnan", "Felix Obermaier", "Sun-Hee Park"),
        "year": 2024,  # the venue's year; the note was created in September 2023
        "venue": "ICLR 2024 poster",
        "url": "https://openreview.net/forum?id=Zx3qP9aB1c",
        "doi": None,
        "keywords": ("mixture of experts", "scaling laws", "fine-tuning"),
    }
    assert records["Zx3qP9aB1c"].text.startswith("Fine-tuning a sparse mixture-of-experts model")
    assert (records["Qm7Rt2LkVw"].venue, records["Qm7Rt2LkVw"].year) == ("NeurIPS 2023 oral", 2023)
    assert (records["Hh8Jk3NmPq"].venue, records["Hh8Jk3NmPq"].year) == (None, 2024)  # domain ICML.cc/2024
    assert records["Wn5Cd1XyZa"].year == 2025  # "Submitted to ICLR 2025", created in 2024
    assert [r.source.record for r in records.values()] == [1, 2, 3, 4]


def test_an_openreview_url_points_at_the_forum() -> None:
    note = {"id": "reply1", "forum": "Forum42", "content": {"title": "T", "abstract": {"value": "We study X."}}}
    flat, shape = shapes.flatten(note)
    assert (shape, flat["url"], flat["id"], flat["abstract"]) == (
        shapes.OPENREVIEW,
        "https://openreview.net/forum?id=Forum42",
        "reply1",
        "We study X.",
    )


def test_semantic_scholar_papers_and_the_ones_without_abstract() -> None:
    records, warnings = _by_id("semantic_scholar.jsonl")
    first, equivariant, federated = (
        "3f2a9c1e7b4d6a8f0e2c5b7d9a1f3e5c7b9d0a2e",
        "0b1d3f5a7c9e1b3d5f7a9c0e2b4d6f8a1c3e5b70",
        "e9a1c3e5b7d9f0a2c4e6b8d0f2a4c6e8b0d2f4a6",
    )
    assert list(records) == [first, equivariant, federated]
    assert _fields(records[first]) == {
        "title": "Contrastive Pretraining of Sentence Encoders from Citation Contexts",
        "authors": ("Laila Rahimi", "Peter Gustafsson"),
        "year": 2023,
        "venue": "Annual Meeting of the Association for Computational Linguistics",
        "url": "https://arxiv.org/abs/2305.14002",  # its arXiv page, which the snapshot's copy shares
        "doi": "10.18653/v1/2023.acl-long.412",  # lower case
        "keywords": ("Computer Science",),
    }
    assert records[equivariant].venue == "IEEE Transactions on Pattern Analysis and Machine Intelligence"  # journal
    assert records[equivariant].url == f"https://www.semanticscholar.org/paper/{equivariant}"  # no arXiv id
    assert records[equivariant].authors == ("Ayesha Siddiqui", "Bruno Carvalho", "Jin Ho Lee")
    assert (records[federated].year, records[federated].keywords) == (2024, ("Computer Science",))  # publicationDate
    assert warnings == [
        f"{SOURCES / 'semantic_scholar.jsonl'}: skipped 3 Semantic Scholar records without an abstract "
        "(a7c4e1f09b3d5e7a9c1b3d5f7e9a0c2b4d6f8e01, c5e7a9b1d3f5e7a9c1b3d5f7e9a1c3e5b7d9f0a2, "
        "f0a2c4e6b8d0f2a4c6e8b0d2f4a6c8e0b2d4f6a8)"
    ]


def test_a_dump_full_of_missing_abstracts_is_one_warning_naming_the_first_few(tmp_path: Path) -> None:
    path = tmp_path / "s2.jsonl"
    rows = [{"paperId": f"p{n}", "title": f"T{n}", "abstract": None} for n in range(1, 1001)]
    rows.insert(500, {"paperId": "kept", "title": "Kept", "abstract": "We keep this one."})
    rows.append({"externalIds": {}, "title": "No id either", "abstract": " "})
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    warnings: list[str] = []
    (record,) = read_file(path, warnings=warnings)
    assert record.source.source_id == "kept" and record.source.record == 501
    assert warnings == [f"{path}: skipped 1,001 Semantic Scholar records without an abstract (p1, p2, p3 and 998 more)"]


def test_a_file_of_known_shapes_with_no_abstract_at_all_fails(tmp_path: Path) -> None:
    path = tmp_path / "s2.jsonl"
    path.write_text(json.dumps({"paperId": "p1", "abstract": None}) + "\n", encoding="utf-8")
    with pytest.raises(FormatError, match="no abstracts found"):
        read_file(path)


@pytest.mark.parametrize(
    "obj",
    [
        {"id": "2301.01234", "abstract": "A."},  # an arXiv-like id alone: no categories
        {"categories": ["cs.LG"], "update_date": "2023-01-01", "abstract": "A."},  # categories not a string
        {"content": "A.", "title": "T"},  # content that is not a note's
        {"content": {"body": "A."}, "abstract": "A."},  # a dict without title or abstract
        {"_id": "d1", "title": "T", "text": "A."},  # BEIR
    ],
)
def test_flat_records_are_not_taken_for_a_shape(obj: dict[str, object]) -> None:
    flat, shape = shapes.flatten(obj)
    assert (shape, flat) == (shapes.FLAT, obj)


def test_a_flat_record_without_abstract_still_fails_its_file(tmp_path: Path) -> None:
    path = tmp_path / "flat.jsonl"
    path.write_text('{"abstract": "We study X."}\n{"title": "No abstract"}\n', encoding="utf-8")
    with pytest.raises(BadRecordError, match=r"line 2: no 'abstract' or 'text' field"):
        read_file(path)


def test_flat_doi_and_keywords_in_jsonl_and_csv(tmp_path: Path) -> None:
    jsonl = tmp_path / "flat.jsonl"
    rows = [
        {
            "abstract": "A.",
            "doi": "https://doi.org/10.1145/3580305.3599256",
            "keywords": ["bandits", " causal  inference"],
        },
        {"abstract": "B.", "doi": "doi:10.48550/arXiv.2301.01234", "keywords": "bandits; causal inference, online"},
        {"abstract": "C.", "doi": "not a doi", "keywords": "bandits, causal inference"},
        {"abstract": "D.", "doi": 7, "keywords": [1, 2]},
    ]
    jsonl.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    warnings: list[str] = []
    records = read_file(jsonl, warnings=warnings)
    assert [(r.doi, r.keywords) for r in records] == [
        ("10.1145/3580305.3599256", ("bandits", "causal inference")),  # spacing made single
        ("10.48550/arxiv.2301.01234", ("bandits", "causal inference, online")),  # ';' first: commas stay
        (None, ("bandits", "causal inference")),
        (None, ()),
    ]
    assert [w.split(": ", 1)[1] for w in warnings] == [
        "'doi' is 'not a doi', not a DOI like 10.1145/3580305.3599256; stored without it",
        "'doi' is 7, not a DOI like 10.1145/3580305.3599256; stored without it",
        "'keywords' is [1, 2], not a list of keywords or 'a; b'; stored without it",
    ]
    csv = tmp_path / "flat.csv"
    csv.write_text('abstract,doi,keywords\nA.,10.1000/XYZ,"transformers; attention"\n', encoding="utf-8")
    (record,) = read_file(csv)
    assert (record.doi, record.keywords) == ("10.1000/xyz", ("transformers", "attention"))
