"""How chosen sentences are cut and worded (bot.answer.wording), alone and in "which papers" lists."""

from bot.answer.wording import clause, shorten
from bot.text.terms import tokenize

HARD = (
    "Offline learning from noisy trajectories is fundamentally hard: to compete with the clean expert, "
    "the sample complexity must grow exponentially, in contradistinction to the clean expert setting"
)


def test_a_long_sentence_ends_at_its_first_clause_after_eight_words() -> None:
    assert clause(HARD, 10) == "Offline learning from noisy trajectories is fundamentally hard."


def test_the_cut_off_part_stays_when_it_says_what_was_asked_and_the_start_does_not() -> None:
    asked = set(tokenize("lower bounds on sample complexity"))
    assert shorten(HARD, 10, asked) == HARD
    assert shorten(HARD, 10, set(tokenize("noisy trajectories"))) == clause(HARD, 10)  # the start says it


def test_the_cut_off_part_stays_only_within_the_longest_line() -> None:
    asked = set(tokenize("sample complexity"))
    words = len(HARD.split())
    assert shorten(HARD, 10, asked, longest=words) == HARD
    assert shorten(HARD, 10, asked, longest=words - 1) == clause(HARD, 10)


def test_a_list_line_keeps_the_clause_that_answers_the_question(seeded_bot) -> None:
    answer = seeded_bot.ask(
        "Which papers prove lower bounds showing that some rate or sample complexity cannot be improved?"
    )
    lines = [line for line in answer.markdown.splitlines() if "noisy trajectories" in line]
    assert len(lines) == 1
    assert "the sample complexity must grow exponentially" in lines[0]
    limit = seeded_bot.settings.answer.list_line_words
    assert all(len(line.split()) <= limit + 6 for line in answer.markdown.splitlines() if line.startswith("- "))
