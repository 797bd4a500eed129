"""Fuzzed questions: whatever is typed, search and ask answer or say what is wrong; nothing crashes."""

from __future__ import annotations

import random

import pytest

from bot.errors import QueryError

ODD = [
    "?", "What", "Which papers use", "e.g. i.e. et al.", "(", "\\", "$", "[1]", "compare [1] and [9]", "*" * 1000,
    "GRPO " * 3000, "a" * 50_000, "\u202e\u202e", "🙂" * 50, "Is\u200b", "-------\n", "\r?\r?&\n\x0c\ufeff",
]  # fmt: skip
BASE = ["Which papers use GRPO?", "What is CausalBind?", "safe RL with OPD (on-policy distillation)", "χ-Bench?"]


def _questions(mangle) -> list[str]:
    rng = random.Random(3)
    return ODD + [mangle(rng, rng.choice(BASE)) for _ in range(60)]


@pytest.mark.parametrize("how", ["search", "ask"])
def test_any_text_is_answered_or_refused_with_a_query_error(seeded_bot, mangle, how: str) -> None:
    run = getattr(seeded_bot, how)
    answered = 0
    questions = _questions(mangle)
    for question in questions:
        try:
            run(question)
            answered += 1
        except QueryError as exc:  # e.g. an empty question: a message saying what to type
            assert str(exc)
    assert answered >= len(questions) - 5


def test_a_question_with_no_index_word_is_searched_by_meaning_and_abstains(seeded_bot) -> None:
    """'What?' has no word BM25 knows (it crashed search before the fuzzer found it)."""
    result = seeded_bot.search("What?", k=3)
    assert len(result.hits) == 3 and result.abstained
    assert all(h.coverage == 0 and h.matched_terms == () for h in result.hits)
