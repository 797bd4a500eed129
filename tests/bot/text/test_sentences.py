"""Sentence splitting on abstract-style text."""

from bot.text.sentences import split


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
