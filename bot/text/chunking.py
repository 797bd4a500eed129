"""Cut an abstract into chunks the embedder sees whole.

Chunks are runs of whole sentences of at most `max_tokens` tokens (tiktoken, plus the word
pieces MiniLM adds for punctuation runs and CJK), adjacent chunks sharing
`overlap_sentences` sentences; a sentence longer than the budget is cut between words.
This module does not embed or store anything.
"""

from __future__ import annotations

import re

from bot.settings import ChunkSettings
from bot.text import sentences, tokens
from bot.types import Chunk, Paper

# Where the embedder's word pieces outnumber tiktoken tokens: every character of a
# punctuation run ("....") and every CJK character is its own word piece.
_EXTRA_PIECES = re.compile(r"(?<=[^\w\s])[^\w\s]|[\u3000-\u9fff\uac00-\ud7af]")


def size(text: str, settings: ChunkSettings) -> int:
    """Tiktoken tokens of `text`, plus what the embedder's word pieces add on top.

    Example: size("Accuracy....", s) -> 2 + 3 = 5 (tiktoken merges the dots, BERT does not)
    """
    return tokens.count(text, settings.encoding) + len(_EXTRA_PIECES.findall(text))


def _split_long(sentence: str, limit: int, settings: ChunkSettings) -> list[str]:
    """A sentence over the budget, cut at spaces (or inside an over-long word) to fit."""
    words: list[str] = []
    for word in sentence.split():
        # e.g. a 400-character word with limit 120 -> pieces of 60 characters each
        step = max(1, limit // 2)
        words.extend(word[i : i + step] for i in range(0, len(word), step))
    pieces: list[str] = []
    current: list[str] = []
    for word in words:
        if current and size(" ".join([*current, word]), settings) > limit:
            pieces.append(" ".join(current))
            current = []
        current.append(word)
    if current:
        pieces.append(" ".join(current))
    return pieces


def chunk_texts(text: str, settings: ChunkSettings, budget: int | None = None) -> list[str]:
    """The chunk texts of `text`, in order.

    Example: with max_tokens=120, a 300-token abstract of 10 sentences -> 3 or 4 chunks.
    """
    limit = budget if budget is not None else settings.max_tokens
    pieces: list[tuple[str, int]] = []
    for sentence in sentences.split(text):
        n = size(sentence, settings)
        if n <= limit:
            pieces.append((sentence, n))
            continue
        pieces.extend((part, size(part, settings)) for part in _split_long(sentence, limit, settings))
    chunks: list[str] = []
    start = 0
    while start < len(pieces):
        end, used = start, 0
        while end < len(pieces) and (end == start or used + pieces[end][1] <= limit):
            used += pieces[end][1]
            end += 1
        chunks.append(" ".join(p for p, _ in pieces[start:end]))
        if end >= len(pieces):
            break
        # step back for overlap, but always move forward by at least one sentence
        start = max(start + 1, end - settings.overlap_sentences)
    return chunks


def chunk_paper(paper_id: str, text: str, title: str | None, settings: ChunkSettings) -> list[Chunk]:
    """Chunks of one paper; a title, when known, leads every chunk to give it context."""
    prefix = f"{title}. " if title else ""
    budget = max(16, settings.max_tokens - size(prefix, settings))
    return [
        Chunk(chunk_id=chunk_id(paper_id, i), paper_id=paper_id, position=i, text=prefix + body)
        for i, body in enumerate(chunk_texts(text, settings, budget))
    ]


def chunk_id(paper_id: str, position: int) -> str:
    """The id of a paper's chunk at `position` (0 first). Example: chunk_id("p346e74853fce", 1) -> 'p346e74853fce-1'"""
    return f"{paper_id}-{position}"


def parse_chunk_id(chunk_id: str) -> tuple[str, int] | None:
    """The paper id and position a chunk id names (as `chunk_paper` makes them), or None for another shape.

    Example: parse_chunk_id("p346e74853fce-1") -> ('p346e74853fce', 1)
    """
    paper_id, _, position = chunk_id.rpartition("-")
    return (paper_id, int(position)) if position.isdigit() else None


def paper_chunks(paper: Paper, settings: ChunkSettings) -> list[Chunk]:
    """The chunks ingest embeds for a stored paper: its display text, led by its title.

    The one place that says which of a paper's texts are chunked, so that chunks cut again later
    (for triage's evidence) are the chunks that were embedded.
    """
    return chunk_paper(paper.paper_id, paper.display, paper.title, settings)
