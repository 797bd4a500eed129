"""Acronyms learned from the corpus and spelled out in queries (bot.acronyms)."""

from __future__ import annotations

import pytest

from bot.text import acronyms


@pytest.mark.parametrize(
    ("before", "acronym", "expected"),
    [
        ("we train the student with on-policy distillation", "OPD", "on-policy distillation"),
        ("baselines such as proximal policy optimization", "PPO", "proximal policy optimization"),
        ("reinforcement learning with verifiable rewards", "RLVR", "reinforcement learning with verifiable rewards"),
        ("many large language models", "LLMs", "large language models"),
        ("the method", "e.g.", None),  # not an acronym: fewer than two capitals
        ("a completely unrelated phrase", "XYZ", None),
    ],
)
def test_long_form_finds_the_words_that_spell_the_acronym(before, acronym, expected):
    assert acronyms.long_form(before, acronym) == expected


def test_learn_keeps_the_most_frequent_long_form():
    texts = [
        "Training with on-policy distillation (OPD) helps.",
        "We revisit on-policy distillation (OPD) for reasoning.",
        "Offline policy design (OPD) is different.",
        "Results hold for supervised fine-tuning (SFT) too.",
    ]
    assert acronyms.learn(texts) == {"OPD": "on-policy distillation", "SFT": "supervised fine-tuning"}


def test_expand_spells_out_known_acronyms_once():
    known = {"OPD": "on-policy distillation", "SFT": "supervised fine-tuning"}
    assert (
        acronyms.expand("Is OPD better than SFT?", known)
        == "Is OPD (on-policy distillation) better than SFT (supervised fine-tuning)?"
    )
    # Already spelled out, unknown, or part of a longer token: left alone.
    assert acronyms.expand("on-policy distillation (OPD) vs GRPO", known) == "on-policy distillation (OPD) vs GRPO"
    assert acronyms.expand("OPD-style training", known) == "OPD-style training"
    assert acronyms.expand("two SFTs", known) == "two SFTs (supervised fine-tuning)"


def test_the_seed_index_learns_acronyms_and_expands_questions(seeded_bot):
    index = seeded_bot.retriever()._lexical
    assert index.acronyms.get("OPD") == "on-policy distillation"
    assert "(on-policy distillation)" in index.expand("theory for OPD with a noisy teacher")


@pytest.mark.parametrize(
    ("acronym", "text", "expected"),
    [
        ("CPA", "we propose Cross-Precision Alignment (CPA), a simple regularizer", "cross-precision alignment"),
        ("STAR", "we propose STAR (Staleness-Aware Replay), a data-centric framework", "staleness-aware replay"),
        ("STAR", "STAR (see Section 3) improves replay", None),  # a parenthesis that does not spell it
        ("CURE", "CURE improves unlearning", None),  # never spelled out
    ],
)
def test_spelled_out_reads_a_definition_either_way_round(acronym, text, expected):
    assert acronyms.spelled_out(acronym, text) == expected
