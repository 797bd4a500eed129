"""Sentence roles (bot.answer.roles) and the choice of sentences for an intent (bot.answer.picks)."""

from __future__ import annotations

import pytest

from bot.answer import picks, roles
from bot.query import parse

ABSTRACT = [
    "Virtual screening is hard because binding depends on sparse contacts.",
    "This problem is further amplified when targets are new.",
    "To bridge this gap, we propose CausalBind, a causal model of binding.",
    "It then learns sparse interaction maps between concepts.",
    "Experiments on DUD-E show gains of 4.2% over strong baselines.",
]


def test_the_contribution_is_the_sentence_that_proposes_and_earlier_ones_state_the_problem() -> None:
    read = roles.read(ABSTRACT, "CausalBind")
    assert [s.role for s in read] == ["problem", "problem", "contribution", "method", "finding"]
    assert read[2].text == "We propose CausalBind, a causal model of binding."  # linking opener dropped
    assert read[2].source == ABSTRACT[2]
    assert [s.leans_back for s in read] == [False, True, False, True, False]
    assert read[4].numbers == 1  # "4.2%"


def test_a_sentence_naming_the_paper_wins_among_several_that_propose() -> None:
    texts = ["We propose to study binding at scale.", "We introduce CausalBind for it.", "It wins."]
    # before the contribution, a "we" sentence is already part of the method, not the problem
    assert [s.role for s in roles.read(texts, "CausalBind")][:2] == ["method", "contribution"]
    assert [s.role for s in roles.read(texts, None)][:2] == ["contribution", "method"]


@pytest.mark.parametrize(
    ("sentence", "alone"),
    [
        (
            "To accomplish this goal, we propose ASCPO, a policy search method.",
            "We propose ASCPO, a policy search method.",
        ),
        ("However, to address this, we design a sampler for long rollouts.", "We design a sampler for long rollouts."),
        ("Motivated by this observation, we build an agent for browsing.", "We build an agent for browsing."),
        ("However, short.", "However, short."),  # what would be left is too short to stand alone
        ("Reinforcement learning is widely used.", "Reinforcement learning is widely used."),
    ],
)
def test_linking_openers_are_dropped_only_when_the_rest_stands_alone(sentence: str, alone: str) -> None:
    assert roles.stand_alone(sentence) == alone


def test_leaning_sentences_point_back_but_self_references_do_not() -> None:
    assert roles.leans_back("These findings underscore the need for care.")
    assert roles.leans_back("It then submits the plan.")
    assert not roles.leans_back("This paper proposes X.")
    assert not roles.leans_back("Thermal noise is a problem.")  # "This" only as a whole word


@pytest.mark.slow
def test_an_answer_names_the_contribution_and_keeps_the_abstracts_order(seeded_bot) -> None:
    hit = seeded_bot.search("What is CausalBind?", k=1).hits[0]
    settings = seeded_bot.settings.answer
    query = parse("What results does CausalBind report?")
    chosen = picks.choose(picks.scored(seeded_bot.embed, query, hit, settings), query.intent, 3, settings)
    assert [p.sentence.role for p in chosen].count("contribution") == 1
    assert "CausalBind" in " ".join(p.sentence.text for p in chosen)
    positions = [p.sentence.position for p in chosen]
    assert positions == sorted(positions)
    for pick in chosen:  # a leaning sentence only comes with the one it leans on
        assert not pick.sentence.leans_back or pick.sentence.position - 1 in positions
    why = parse("Why is virtual screening with sparse contacts hard?")
    reasons = picks.choose(picks.scored(seeded_bot.embed, why, hit, settings), why.intent, 3, settings)
    assert any(p.sentence.role == "problem" for p in reasons)  # the problem statement only when asked why
    assert not any(p.sentence.role == "problem" for p in chosen)
