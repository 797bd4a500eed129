"""`paperbot ingest --sentences`: every stored abstract's sentences embedded once and kept, so answers need not.

An answer embeds every sentence of the papers it weighs (bot.answer.picks) and, to check itself, the
title of each paper it cites (bot.answer.check), most of its time on a large store. After the ingest,
this embeds the sentences and titles that have no kept vector yet, in float32 as answers do, a slice at
a time, and keeps each slice's vectors in one transaction (bot.store.sentences): a run that is stopped
keeps what it finished, and the next run embeds only the rest. Answers are the same with or without the
kept vectors, only sooner.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

import numpy as np

from bot.progress import Progress
from bot.store.sentences import SentenceVectors
from bot.text import sentences
from bot.types import Paper, SentenceReport

Embed = Callable[[list[str]], np.ndarray]

# Sentences embedded and kept per step: each step is one transaction (a stopped run loses at most one),
# and texts of about one length embed together (bot.encoder sorts each call's texts by length).
SLICE = 1024


def keep(
    papers: Mapping[str, Paper], kept: SentenceVectors, embed: Embed, progress: Progress | None = None
) -> SentenceReport:
    """Embed and keep the sentences (and titles) of `papers` that `kept` lacks; report how many there are
    and how long it took.

    Example: keep(store.papers(), store.sentences(), embedder.exact) on the seeds
        -> SentenceReport(sentences=420, embedded=420, seconds=...); run again -> embedded=0
    """
    started = time.perf_counter()
    texts = list(dict.fromkeys(s for paper in papers.values() for s in sentences.compared(paper)))
    todo = kept.missing(texts)
    if progress:
        progress(0, len(todo))
    for start in range(0, len(todo), SLICE):
        part = todo[start : start + SLICE]
        kept.add(part, embed(part))
        if progress:
            progress(start + len(part), len(todo))
    return SentenceReport(len(texts), len(todo), round(time.perf_counter() - started, 2))
