"""The pure functions the chat UI shows: citation panel, chat bubble, status and error lines.

Answers and papers are built by hand, so each test states exactly what it expects.
"""

from __future__ import annotations

import re
from dataclasses import replace

from bot.render.html import chat_markdown, citations_html, highlight
from bot.render.messages import EMPTY_QUESTION_REPLY, error_reply, seed_progress, store_status
from bot.render.text import ingest_line, printable
from bot.types import Answer, AnswerSentence, Citation, IngestReport, Paper, Source

SAFE = Paper(
    paper_id="p1",
    text="Safety matters in RL. We propose ASCPO for state-wise constraints. It works well.",
    display="Safety matters in RL. We propose ASCPO for state-wise constraints. It works well.",
    label="ASCPO",
    content_hash="h1",
    sources=(Source(file="/data/seeds/000_a.txt", line=31, record=4),),
)
GRID = Paper(
    paper_id="p2",
    text="Grids are changing. Risk must be controlled in the tail.",
    display="Grids are changing. Risk must be controlled in the tail.",
    label="Deep decarbonization",
    content_hash="h2",
    sources=(Source(file="/data/seeds/004_b.txt", line=27, record=9),),
    title="Risk-constrained RL for grids",
)


def _answer(*sentences: AnswerSentence, papers: tuple[Paper, ...] = (SAFE, GRID)) -> Answer:
    return Answer(
        question="How can RL be safe?",
        markdown=" ".join(f"{s.text} [{s.citations[0]}]" for s in sentences),
        abstained=False,
        citations=tuple(Citation(n, p) for n, p in enumerate(papers, start=1)),
        sentences=sentences,
    )


ANSWER = _answer(
    AnswerSentence(
        "The authors propose ASCPO for state-wise constraints.",
        (1,),
        paper_sentence="We propose ASCPO for state-wise constraints.",
    ),
    AnswerSentence("Risk must be controlled in the tail.", (2,)),
)


def test_citation_panel_lists_each_cited_paper_in_order_with_its_number() -> None:
    panel = citations_html(ANSWER)
    assert panel.index("[1] ASCPO") < panel.index("[2] Deep decarbonization")
    assert "id='cite-1'" in panel and "id='cite-2'" in panel
    assert "Risk-constrained RL for grids" in panel  # the title, when known
    assert "000_a.txt:31" in panel and "004_b.txt:27" in panel  # where each abstract came from


def test_citation_panel_shows_the_full_abstract() -> None:
    panel = citations_html(ANSWER)
    for sentence in ("Safety matters in RL.", "It works well.", "Grids are changing."):
        assert sentence in panel


def test_panel_marks_the_abstract_sentence_used_not_the_rephrased_answer_sentence() -> None:
    panel = citations_html(ANSWER)
    assert "<mark>We propose ASCPO for state-wise constraints.</mark>" in panel
    assert "<mark>Risk must be controlled in the tail.</mark>" in panel
    assert panel.count("<mark>") == 2  # unused sentences stay plain
    assert "<mark>Safety matters in RL.</mark>" not in panel


def test_highlight_marks_only_sentences_found_in_the_abstract() -> None:
    marked = highlight(SAFE, ["It works well.", "A sentence from another paper."])
    assert marked.endswith("<mark>It works well.</mark>")
    assert marked.count("<mark>") == 1


def test_panel_escapes_html_in_abstracts_and_labels() -> None:
    evil = Paper(
        paper_id="p3",
        text="x",
        display="We study <script>alert('x')</script> injection & friends. It is bad.",
        label="<img src=x onerror=alert(1)>",
        content_hash="h3",
        sources=(Source(file="evil<b>.txt", record=1),),
    )
    panel = citations_html(_answer(AnswerSentence("It is bad.", (1,)), papers=(evil,)))
    assert "<script>" not in panel and "<img" not in panel and "evil<b>" not in panel
    assert "&lt;img src=x onerror=alert(1)&gt;" in panel and "evil&lt;b&gt;.txt" in panel
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in panel
    assert "injection &amp; friends." in panel
    assert "<mark>It is bad.</mark>" in panel  # escaping does not stop the highlight


def test_highlight_finds_sentences_containing_characters_that_get_escaped() -> None:
    paper = Paper("p4", "x", "Trees & graphs < 5 nodes. Done.", "Trees", "h4", (Source("f.txt"),))
    assert "<mark>Trees &amp; graphs &lt; 5 nodes.</mark>" in highlight(paper, ["Trees & graphs < 5 nodes."])


def test_panel_without_citations_says_so() -> None:
    abstained = Answer("q", "Nothing in the corpus is about this.", True, (), ())
    assert "No abstracts cited" in citations_html(abstained)
    assert chat_markdown(abstained) == "Nothing in the corpus is about this."


def test_chat_bubble_is_the_answer_then_numbered_labels() -> None:
    bubble = chat_markdown(ANSWER)
    assert bubble.startswith(ANSWER.markdown)
    assert bubble.endswith("[1] **ASCPO**\n[2] **Deep decarbonization**")


def test_store_status_counts_papers_and_mentions_a_seed_load() -> None:
    assert store_status(53) == "**53** papers in the store."
    assert store_status(1) == "**1** paper in the store."
    assert "paperbot ingest" in store_status(0)  # an empty store says how to fill it
    assert "loading the bundled abstracts" in store_status(0, loading=True)
    report = IngestReport(papers=53, added=53, updated=0, removed=0, unchanged=0, seconds=21.04)
    assert store_status(53, report=report).endswith("(53 added in 21.0 s).")


def test_seed_progress_caption() -> None:
    assert seed_progress(12, 53) == "Embedding the bundled abstracts: 12 of 53"
    assert "loading the embedding model" in seed_progress(0, 0)


def test_error_reply_keeps_the_core_message() -> None:
    message = "the store is empty; run `paperbot ingest` first"
    assert error_reply(message) == f"Sorry, I could not answer that: {message}"


def test_empty_question_reply_is_polite_and_gives_an_example() -> None:
    assert re.match(r"Please type a question", EMPTY_QUESTION_REPLY)
    assert "?" in EMPTY_QUESTION_REPLY


def test_ingest_line_says_one_paper_not_one_papers() -> None:
    one = IngestReport(papers=1, added=1, updated=0, removed=0, unchanged=0, seconds=2.04)
    assert ingest_line(one) == "1 paper: 1 added, 0 updated, 0 removed, 0 unchanged (2.0 s)"
    assert ingest_line(replace(one, papers=2)).startswith("2 papers: ")


def test_printable_shows_terminal_controls_as_codes_and_keeps_layout_characters() -> None:
    assert printable("a\x1b[2Jb\x07c\x85d\u202ee\x7f") == "a\\u001b[2Jb\\u0007c\\u0085d\\u202ee\\u007f"
    assert printable("line\n\tindented\rprogress") == "line\n\tindented\rprogress"
    assert printable("χ-Bench — 5% “quoted”") == "χ-Bench — 5% “quoted”"
