"""Fits the retrieved abstracts into a language model's prompt by tiktoken count, most relevant first.

Each abstract becomes a numbered entry `[n] label: text` (prompts/abstract_entry.txt) whose
number is the citation the model must use. This module counts and cuts text; it calls no
model and does not search.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.answer import prompts
from bot.settings import GeneratorSettings
from bot.text import tokens
from bot.types import Hit, Paper

SEPARATOR = "\n\n"


@dataclass(frozen=True)
class Entry:
    """One abstract in the prompt: its citation number, paper, the text given and whether it was cut."""

    n: int
    paper: Paper
    text: str
    truncated: bool


@dataclass(frozen=True)
class Packed:
    """The numbered abstracts block of a prompt and what it holds."""

    entries: tuple[Entry, ...]
    text: str
    tokens: int
    budget: int

    def paper(self, n: int) -> Paper | None:
        """The paper numbered `n` in the prompt, or None if no such number was given."""
        return next((e.paper for e in self.entries if e.n == n), None)


def render_entry(n: int, paper: Paper, text: str | None = None) -> str:
    """Example: render_entry(1, paper) -> '[1] Cal-SPI: Safe policy improvement ...'"""
    body = " ".join((paper.display if text is None else text).split())
    return prompts.load("abstract_entry").render(n=n, label=paper.label, text=body).strip()


def pack(hits: Sequence[Hit], budget: int, settings: GeneratorSettings, encoding: str = "cl100k_base") -> Packed:
    """The best `hits` (at most `settings.max_abstracts`), in order, numbered from 1, in at most `budget`
    tiktoken tokens.

    Whole abstracts are added while they fit; the first that does not is cut to the room
    left (if at least `settings.min_partial_tokens` remain, or if it is the only one) and packing stops.
    Example: pack(hits, 300, settings) -> Packed with entries [1] and [2] whole and [3] cut, ~300 tokens
    """
    entries: list[Entry] = []
    blocks: list[str] = []
    for hit in hits[: settings.max_abstracts]:
        n = len(entries) + 1
        whole = render_entry(n, hit.paper)
        if _count([*blocks, whole], encoding) <= budget:
            entries.append(Entry(n, hit.paper, hit.paper.display, False))
            blocks.append(whole)
            continue
        cut = _cut_to_fit(n, hit.paper, blocks, budget, settings.min_partial_tokens, encoding)
        if cut is not None:
            text, rendered = cut
            entries.append(Entry(n, hit.paper, text, True))
            blocks.append(rendered)
        break
    return Packed(tuple(entries), SEPARATOR.join(blocks), _count(blocks, encoding), budget)


def _count(blocks: list[str], encoding: str) -> int:
    return tokens.count(SEPARATOR.join(blocks), encoding) if blocks else 0


def _cut_to_fit(
    n: int, paper: Paper, blocks: list[str], budget: int, least: int, encoding: str
) -> tuple[str, str] | None:
    """(cut text, rendered entry) of the longest start of `paper` that fits, or None if fewer than `least`
    tokens fit after other abstracts."""
    header = _count([*blocks, render_entry(n, paper, "")], encoding)
    room = budget - header
    if room < (1 if not blocks else least):
        return None
    body = " ".join(paper.display.split())
    # Joining can merge tokens across the seam, so shrink until the whole block really fits.
    while room > 0:
        text = tokens.truncate(body, room, encoding).rstrip() + "…"
        rendered = render_entry(n, paper, text)
        if _count([*blocks, rendered], encoding) <= budget:
            return text, rendered
        room -= 2
    return None


def abstract_budget(settings: GeneratorSettings, instructions: str, encoding: str = "cl100k_base") -> int:
    """Tokens left for abstracts once the instructions and the answer have their room.

    Only `settings.tokenizer_margin` of the window is planned, as tiktoken undercounts the model's tokens.
    Example: n_ctx 2048, max_tokens 256 -> (2048 - 256) * 0.75 = 1344, less ~190 of instructions -> ~1150
    """
    if settings.context_budget is not None:
        return settings.context_budget
    planned = int((settings.n_ctx - settings.max_tokens) * settings.tokenizer_margin)
    return max(settings.min_partial_tokens, planned - tokens.count(instructions, encoding))
