"""Prompt templates from the `prompts/` folder, with their `{fields}` checked at load.

A template whose fields differ from what the code passes fails here (and in the tests),
not in a user's chat. This module renders text; it calls no model.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from bot import bundled
from bot.errors import PaperbotError
from bot.text import citations

# Every template and the fields its text must use, exactly.
EXPECTED_FIELDS: dict[str, frozenset[str]] = {
    "answer_system": frozenset({"citation_example", "max_sentences", "abstain_message"}),
    "answer_user": frozenset({"abstracts", "question"}),
    "abstract_entry": frozenset({"n", "label", "text"}),
}


class PromptError(PaperbotError):
    """A prompt template is missing or its fields do not match the code."""


@dataclass(frozen=True)
class Template:
    """A loaded template and the fields it uses."""

    name: str
    text: str
    fields: frozenset[str]

    def render(self, **values: object) -> str:
        """The template filled in; every field must be given, and no other."""
        given = frozenset(values)
        if given != self.fields:
            raise PromptError(f"prompt {self.name!r} takes fields {sorted(self.fields)}, got {sorted(given)}")
        return self.text.format(**values)


def fields_of(text: str) -> frozenset[str]:
    """Example: fields_of("Hi {name}, {{literal}}") -> frozenset({'name'})"""
    return frozenset(f for _, f, _, _ in string.Formatter().parse(text) if f)


@cache
def load(name: str, folder: Path | None = None) -> Template:
    """Template `name` from `folder` (default: the bundled prompts/), checked against EXPECTED_FIELDS."""
    path = (folder or bundled.folder("prompts")) / f"{name}.txt"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PromptError(f"prompt template {path} is missing; restore it from the repository") from exc
    found = fields_of(text)
    expected = EXPECTED_FIELDS.get(name)
    if expected is not None and found != expected:
        raise PromptError(
            f"prompt template {path} uses fields {sorted(found)} but the code passes "
            f"{sorted(expected)}; fix the template"
        )
    return Template(name, text, found)


def shared_values(max_sentences: int) -> dict[str, object]:
    """The values every answer path shares: the citation format and the abstention sentence."""
    return {
        "citation_example": citations.marker([1]),
        "max_sentences": max_sentences,
        "abstain_message": citations.ABSTAIN_MESSAGE,
    }
