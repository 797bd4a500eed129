"""What the Triage and Reading list tabs and the chat reply show (bot.ui_views), without a browser or a store.

Triage results, lists and answers are built by hand, so each test states exactly what it
expects; the export files are written for real in `tmp_path`.
"""

from __future__ import annotations

from pathlib import Path

import bibtexparser

from bot.answer import generate
from bot.library import export
from bot.render.html import chat_markdown
from bot.types import (
    Answer,
    Citation,
    Cut,
    Paper,
    ReadingList,
    Source,
    Theme,
    TriagedPaper,
    TriageResult,
)
from bot.ui.chat import GENERATORS, citation_choices, reply_markdown
from bot.ui.files import ExportFiles, slug
from bot.ui.views import (
    LIST_HEADERS,
    LIST_TYPES,
    SELECT_HINT,
    TRIAGE_HEADERS,
    TRIAGE_TYPES,
    added_message,
    all_ids,
    excerpt,
    list_choices,
    list_rows,
    list_summary,
    pick_list,
    problem,
    removed_message,
    selected_ids,
    selection_line,
    triage_rows,
    triage_summary,
)

SORT = Paper(
    paper_id="pe8eb34f59027",
    text="We propose SORT, which leaves GRPO rollouts unchanged. It helps.",
    display="We propose SORT, which leaves GRPO rollouts unchanged. It helps.",
    label="SORT",
    content_hash="h1",
    sources=(Source(file="/seeds/a.txt", line=3),),
    venue="NeurIPS",
    year=2026,
)
CARD = Paper(
    paper_id="p31ae027863bf",
    text="x",
    display="CARD amplifies the learning signal within the GRPO objective.",
    label="CARD",
    content_hash="h2",
    sources=(Source(file="/seeds/b.txt", line=9),),
    title="Critique-Augmented Reinforcement Distillation",
)


def _triaged(paper: Paper, score: float, theme: str, sentence: str) -> TriagedPaper:
    return TriagedPaper(paper, score, 0.6, 0.8, 1.0, ("grpo",), sentence, ("grpo",), theme)


RESULT = TriageResult(
    topic="GRPO",
    considered=53,
    papers=(
        _triaged(
            CARD, 0.76249, "student · token-level", "CARD amplifies the learning signal within the GRPO objective."
        ),
        _triaged(SORT, 0.7331, "plan · repair", "We propose SORT, which leaves GRPO rollouts unchanged."),
    ),
    themes=(Theme("student · token-level", (CARD.paper_id,)), Theme("plan · repair", (SORT.paper_id,))),
    cut=Cut("gap", 0.35, "scores drop from 0.52 to 0.19 after paper 2"),
)


def test_triage_rows_are_unticked_best_first_and_end_with_the_paper_id() -> None:
    rows = triage_rows(RESULT)
    assert rows == [
        [
            False,
            "CARD",
            "student · token-level",
            0.762,
            '"CARD amplifies the learning signal within the GRPO objective." (matches: grpo)',
            "p31ae027863bf",
        ],
        [
            False,
            "SORT",
            "plan · repair",
            0.733,
            '"We propose SORT, which leaves GRPO rollouts unchanged." (matches: grpo)',
            "pe8eb34f59027",
        ],
    ]
    assert len(TRIAGE_HEADERS) == len(TRIAGE_TYPES) == len(rows[0])
    assert TRIAGE_TYPES[0] == "bool" and TRIAGE_HEADERS[-1] == "paper_id"


def test_triage_summary_gives_the_count_considered_the_cut_and_the_themes() -> None:
    summary = triage_summary(RESULT)
    lines = summary.split("\n\n")
    assert lines[0] == "**2** of **53** papers are about *GRPO*."
    assert lines[1] == "Cut (gap): scores drop from 0.52 to 0.19 after paper 2"
    assert lines[2] == "Themes: student · token-level (1); plan · repair (1)"
    assert lines[3] == SELECT_HINT


def test_an_empty_triage_says_so_without_the_tick_hint_and_escapes_the_topic() -> None:
    empty = TriageResult("cats *and* dogs", 53, (), (), Cut("empty", 0.5, "the best paper scores 0.31, below 0.5"))
    summary = triage_summary(empty)
    assert summary.startswith("**0** of **53** papers are about *cats \\*and\\* dogs*.")
    assert "Themes" not in summary and SELECT_HINT not in summary


def test_ticked_rows_are_read_back_by_paper_id_whatever_the_row_order() -> None:
    rows = triage_rows(RESULT)
    assert selected_ids(rows) == []
    rows[1][0] = True
    assert selected_ids(rows) == ["pe8eb34f59027"]
    assert selected_ids(list(reversed(rows))) == ["pe8eb34f59027"]  # a sorted table
    assert all_ids(rows) == ["p31ae027863bf", "pe8eb34f59027"]
    # An empty table comes back from the browser as one blank row; a truthy non-bool is no tick.
    assert selected_ids([["", "", "", "", "", ""]]) == []
    assert all_ids([["", "", "", "", "", ""]]) == []
    assert selected_ids([["true", "X", "p1"]]) == []
    assert selected_ids(None) == []


def test_selection_line_says_what_the_downloads_hold() -> None:
    rows = triage_rows(RESULT)
    assert selection_line(rows) == "Nothing ticked: the downloads hold all 2 papers."
    rows[0][0] = rows[1][0] = True
    assert selection_line(rows) == "**2** ticked (CARD, SORT): the downloads and *Add* use these."
    assert selection_line([]) == ""


def test_list_rows_show_the_title_or_the_abstract_start() -> None:
    long = Paper("p9", "x", "word " * 100, "Long", "h9", (Source("c.txt"),))
    rows = list_rows(ReadingList("to read", (SORT, CARD, long)))
    assert rows[0] == [False, "SORT", SORT.display, "NeurIPS", "2026", "pe8eb34f59027"]
    assert rows[1] == [False, "CARD", "Critique-Augmented Reinforcement Distillation", "", "", "p31ae027863bf"]
    assert rows[2][2].endswith("word…") and len(rows[2][2]) <= 161
    assert len(LIST_HEADERS) == len(LIST_TYPES) == len(rows[0])


def test_list_summary_counts_papers_and_names_those_gone_from_the_store() -> None:
    assert list_summary(ReadingList("to read", (SORT,))) == "**to read**: 1 paper"
    gone = ReadingList("to_read", (SORT, CARD), ("pdead (Old)",))
    assert list_summary(gone) == "**to\\_read**: 2 papers (1 more no longer in the store: pdead (Old))"


def test_list_choices_and_which_list_to_show() -> None:
    names = [("from-chat", 1), ("reading-list", 2)]
    assert list_choices(names) == [("from-chat (1)", "from-chat"), ("reading-list (2)", "reading-list")]
    assert pick_list(names, None) == "from-chat"  # the first by name
    assert pick_list(names, "reading-list") == "reading-list"  # the one already shown
    assert pick_list(names, "from-chat", preferred="reading-list") == "reading-list"  # just added to
    assert pick_list(names, "deleted") == "from-chat"
    assert pick_list([], "x", preferred="y") is None


def test_citation_choices_name_each_cited_paper_by_number_and_label() -> None:
    answer = Answer("q", "a [1] b [2]", False, (Citation(1, SORT), Citation(2, CARD)), ())
    assert citation_choices(answer) == [("[1] SORT", "pe8eb34f59027"), ("[2] CARD", "p31ae027863bf")]
    assert citation_choices(Answer("q", "nothing", True, (), ())) == []


def test_a_reply_leads_with_why_the_requested_model_did_not_write_it() -> None:
    answer = Answer("q", "SORT leaves rollouts unchanged [1].", False, (Citation(1, SORT),), ())
    assert reply_markdown(answer) == chat_markdown(answer)  # no notice, nothing added
    down = Answer(
        "q", answer.markdown, False, answer.citations, (), notice="The openai model did not answer: 404 *not_found*."
    )
    assert reply_markdown(down) == (
        "*⚠ The openai model did not answer: 404 \\*not\\_found\\*.*\n\n" + chat_markdown(down)
    )


def test_the_answer_menu_offers_every_generation_backend() -> None:
    assert GENERATORS == generate.BACKENDS


def test_messages() -> None:
    assert added_message(2, 2, "reading-list") == "Added 2 papers to **reading-list**."
    assert added_message(1, 2, "to read") == "Added 1 paper to **to read** (1 was already on it)."
    assert added_message(0, 3, "x") == "Added 0 papers to **x** (3 were already on it)."
    assert removed_message(1, "x") == "Removed 1 paper from **x**."
    assert problem("no paper <b>x</b>") == "**Could not do that:** no paper &lt;b&gt;x&lt;/b&gt;"


def test_slug_and_excerpt() -> None:
    assert slug("Safe RL / 2026!") == "safe-rl-2026"
    assert slug("χ-Bench") == "bench"
    assert slug("???") == "papers"
    assert excerpt("Deep nets learn fast.", 12) == "Deep nets…"
    assert excerpt("Short.", 12) == "Short."


def test_export_files_are_written_per_format_and_never_overwrite_each_other(tmp_path: Path) -> None:
    files = ExportFiles(tmp_path / "exports")
    papers = [SORT, CARD]
    written = files.write_all(lambda fmt: export.render(papers, fmt), "GRPO")
    assert sorted(written) == sorted(export.FORMATS)
    assert {p.name for p in written.values()} == {
        "paperbot-grpo.bib",
        "paperbot-grpo.ris",
        "paperbot-grpo.csv",
        "paperbot-grpo.md",
    }
    assert all(p.is_relative_to(tmp_path / "exports") for p in written.values())
    entries = bibtexparser.parse_string(written["bibtex"].read_text(encoding="utf-8")).entries
    assert [e.fields_dict["title"].value for e in entries] == [
        "{SORT}",
        "{Critique-Augmented Reinforcement Distillation}",
    ]
    assert b"\r\n" in written["ris"].read_bytes()  # RIS keeps its CRLF line ends
    again = files.write("other", "GRPO", "bibtex")
    assert again.name == "paperbot-grpo.bib" and again != written["bibtex"]
    assert written["bibtex"].read_text(encoding="utf-8").startswith("@inproceedings")  # untouched
