"""Prompt templates load with exactly the fields the code passes."""

import pytest

from bot.answer.prompts import EXPECTED_FIELDS, PromptError, load, shared_values
from bot.text import citations


def test_every_template_loads_and_renders():
    system = load("answer_system").render(**shared_values(4))
    assert citations.ABSTAIN_MESSAGE in system and "[1]" in system
    for name in EXPECTED_FIELDS:
        assert load(name).fields == EXPECTED_FIELDS[name]


def test_a_typo_in_a_template_fails_at_load(tmp_path):
    (tmp_path / "answer_user.txt").write_text("Abstracts: {abstract}\nQuestion: {question}\n")
    with pytest.raises(PromptError, match="abstracts"):
        load("answer_user", tmp_path)


def test_render_rejects_missing_fields():
    with pytest.raises(PromptError):
        load("abstract_entry").render(n=1, label="X")
