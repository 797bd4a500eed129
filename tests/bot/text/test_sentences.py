"""Sentence splitting on abstract-style text."""

import pytest

from bot.text.sentences import pieces, split


def test_abbreviations_and_decimals_do_not_split():
    text = "We reach 3.5 points, e.g. on MMLU (Fig. 2). Smith et al. agree. It works!"
    assert split(text) == [
        "We reach 3.5 points, e.g. on MMLU (Fig. 2).",
        "Smith et al. agree.",
        "It works!",
    ]


def test_question_marks_and_greek_starts_split():
    assert split("Can we trust it? χ-Bench says yes.") == ["Can we trust it?", "χ-Bench says yes."]


def test_empty_text_has_no_sentences():
    assert split("   \n ") == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("A [1]. B [2].", ["A [1].", " B [2]."]),
        ("We use e.g. GRPO [1]. It works [2].", ["We use e.g. GRPO [1].", " It works [2]."]),
        ("It reaches 3.5 points.  Then\nit stops.", ["It reaches 3.5 points.", "  Then\nit stops."]),
        ("**X**\n- Problem: a [1].\n- Method: b [1].", ["**X**\n- Problem: a [1].", "\n- Method: b [1]."]),
        ("No stop at the end", ["No stop at the end"]),
        ("", []),
    ],
)
def test_pieces_cut_where_sentences_end_and_join_back_exactly(text: str, expected: list[str]) -> None:
    assert pieces(text) == expected
    assert "".join(pieces(text)) == text
