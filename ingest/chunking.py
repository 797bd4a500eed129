"""Cut an abstract into chunks the embedder sees whole.

Chunks are runs of whole sentences of at most `max_tokens` tiktoken tokens, adjacent chunks
sharing `overlap_sentences` sentences; a single sentence longer than the budget is cut by
tokens. This module does not embed or store anything.
"""

from __future__ import annotations

from bot import sentences, tokens
from bot.settings import ChunkSettings
from bot.types import Chunk


def chunk_texts(text: str, settings: ChunkSettings, budget: int | None = None) -> list[str]:
    """The chunk texts of `text`, in order.

    Example: with max_tokens=120, a 300-token abstract of 10 sentences -> 3 or 4 chunks.
    """
    limit = budget if budget is not None else settings.max_tokens
    pieces: list[tuple[str, int]] = []
    for sentence in sentences.split(text):
        n = tokens.count(sentence, settings.encoding)
        if n <= limit:
            pieces.append((sentence, n))
            continue
        # e.g. a 300-token sentence with limit 120 -> pieces of 120, 120, 60 tokens
        rest = sentence
        while rest:
            head = _whole_chars(rest, tokens.truncate(rest, limit, settings.encoding))
            pieces.append((head, tokens.count(head, settings.encoding)))
            rest = rest[len(head) :].strip()
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


def _whole_chars(text: str, head: str) -> str:
    """`head` (a token-truncated start of `text`) without a character cut in half.

    A token limit can fall inside a multi-byte character ("χ", "图"): the decoded head then
    ends in U+FFFD, which would replace a real character and shift the rest by one.
    Example: _whole_chars("ab图", "ab\ufffd") -> 'ab'
    """
    while head and not text.startswith(head):
        head = head[:-1]
    return head or text[:1]


def chunk_paper(paper_id: str, text: str, title: str | None, settings: ChunkSettings) -> list[Chunk]:
    """Chunks of one paper; a title, when known, leads every chunk to give it context."""
    prefix = f"{title}. " if title else ""
    budget = max(16, settings.max_tokens - tokens.count(prefix, settings.encoding))
    return [
        Chunk(chunk_id=f"{paper_id}-{i}", paper_id=paper_id, position=i, text=prefix + body)
        for i, body in enumerate(chunk_texts(text, settings, budget))
    ]
