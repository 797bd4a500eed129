"""The ingest job: read, deduplicate, label, chunk, embed and write papers, incrementally.

Every input file is read and checked before anything is written, so a bad file changes
nothing. Papers are then written in batches: vectors first, registry second, so a crash
leaves at most one batch of orphan vectors, which the next run overwrites. Unchanged
content (by content hash) is never embedded again.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path

import numpy as np

from bot.progress import Progress
from bot.settings import ChunkSettings, Settings, StoreSettings
from bot.store import Store
from bot.text import tokens
from bot.text.chunking import paper_chunks
from bot.text.wording import plural
from bot.types import IngestReport, Paper
from ingest.plan import align, group_records, label_new, plan_changes, stale_warning
from ingest.readers import Limits, ReadResult, read_paths
from ingest.structured import Say
from ingest.where import RecordFilter, WhereError

__all__ = ["Embed", "RecordFilter", "WhereError", "run"]  # the CLI parses --where through here

log = logging.getLogger(__name__)

Embed = Callable[[list[str]], np.ndarray]


def run(
    paths: list[Path],
    settings: Settings,
    store: Store,
    embed: Embed,
    prune: bool = False,
    rebuild: bool = False,
    skip_bad: bool = False,
    encoding: str = "utf-8",
    progress: Progress | None = None,
    follow_symlinks: bool = False,
    where: RecordFilter | None = None,
    say: Say | None = None,
) -> IngestReport:
    """Bring the store in line with `paths`; returns what changed.

    Of `settings`, ingest reads the storage section (reading limits, windows, batches) and the chunk
    section, and hands each part of the job only its own. `embed` should be the model itself, not a
    cache of recent vectors (thousands of chunks would only churn through it). Holds the store's
    write lock throughout: a second ingest into the same store fails at once with a message instead
    of corrupting it.

    `where` (`ingest --where`) keeps only the records that meet its conditions, and the report counts
    the others (`filtered_out`); the papers already stored from the files read that this run does not find
    again are then left as they are (not counted stale, not pruned): the filter left them out, they
    did not leave their files. `say` takes lines of progress while a large JSON-lines file is read.
    """
    started = time.perf_counter()
    with store.writing():
        read = read_paths(paths, encoding, skip_bad, Limits.of(settings.storage), follow_symlinks, where, say)
        return _write(read, started, settings.storage, settings.chunk, store, embed, prune, rebuild, progress, where)


def _write(
    read: ReadResult,
    started: float,
    storage: StoreSettings,
    chunk: ChunkSettings,
    store: Store,
    embed: Embed,
    prune: bool,
    rebuild: bool,
    progress: Progress | None,
    where: RecordFilter | None = None,
) -> IngestReport:
    found, folded = group_records(read.records, storage.same_paper_similarity)
    if rebuild:
        # A model or token encoding that cannot load fails now, before any vector is dropped.
        embed([])
        tokens.count("a", chunk.encoding)
    # A store built with other settings is refused here, unless rebuilt; what it repairs is reported. A rebuild
    # drops every vector and keeps the registry: each stored paper is embedded again below, as one whose
    # vectors are missing is, and one this run does not stop is embedded by the next ingest.
    repaired = store.prepare_write(rebuild)
    stored = store.papers()
    found, merged = align(found, stored, folded, storage.same_paper_similarity)
    files = {str(f) for f in read.files}
    plan = plan_changes(
        found, stored if where is None else _outside_filter(stored, found, files), files, prune, read.partial
    )
    warnings = [*read.warnings, *repaired]
    if plan.unread:
        warnings.append(
            f"kept {plural(plan.unread)} --prune would have removed: not found in files with records skipped as "
            "bad, they may be among them; fix those records, then ingest with --prune again"
        )

    # Papers the registry has but the vector store lost (a crash, a wiped server): re-embed. (An empty
    # store's answer is quick, and says which papers a run killed before its first commit left vectors of.)
    have_vectors = store.vector_paper_ids()
    planned = {p.paper_id for p in plan.embed} | set(plan.remove)
    # By id first: a large store reads a paper from its registry only when asked (bot.store.rows).
    lost = [stored[pid] for pid in stored if pid not in have_vectors and pid not in planned]
    if lost:
        if rebuild:
            log.info("embedding again the %d stored papers this run does not replace", len(lost))
        else:
            warnings.append(f"re-embedded {plural(len(lost))} missing from the vector store")
        # Re-embed the refreshed version (new sources, metadata) where this run made one.
        fresh_lost = {p.paper_id: p for p in plan.keep}
        plan.keep = [p for p in plan.keep if p.paper_id not in {q.paper_id for q in lost}]
        plan.embed.extend(fresh_lost.get(p.paper_id, p) for p in lost)

    if plan.remove:
        store.remove_papers(plan.remove)
    to_embed = label_new(plan, store.labels())
    _embed_and_write(to_embed, storage, chunk, store, embed, progress, set(stored) | have_vectors)
    if plan.keep:
        store.update_papers(plan.keep)
    store.finish_rebuild()  # every stored paper has its vectors now
    # Reading lists follow a paper whose id changed (an edited abstract, two stored versions joined).
    store.follow_moved(plan.moved)
    if plan.embed or plan.remove or plan.keep or rebuild:
        store.refresh_lexical()
        store.cache_vectors()
    if plan.stale:
        warnings.append(stale_warning(plan.stale))
    return IngestReport(
        papers=len(store.papers()),
        added=plan.added,
        updated=plan.updated,
        removed=plan.removed,
        unchanged=plan.unchanged,
        seconds=round(time.perf_counter() - started, 3),
        stale=plan.stale,
        warnings=tuple(warnings),
        merged=merged,
        filtered_out=where.left_out if where is not None else 0,
    )


def _outside_filter(stored: Mapping[str, Paper], found: dict[str, Paper], files: set[str]) -> dict[str, Paper]:
    """The stored papers a filtered run may change: those it found again, those with no source in the
    files it read, and those whose place in a file (`Source.slot`) a found paper now holds (an edit).

    Example: a store of 300 snapshot papers from `--where "year>=2023"`, ingested again with `--where
    "categories~cs.CL"` -> the papers outside cs.CL stay, neither stale nor pruned.
    """
    slots = {s.slot() for p in found.values() for s in p.sources}
    return {
        pid: p
        for pid, p in stored.items()
        if pid in found or all(s.file not in files for s in p.sources) or any(s.slot() in slots for s in p.sources)
    }


def _embed_and_write(
    papers: list[Paper],
    storage: StoreSettings,
    chunk: ChunkSettings,
    store: Store,
    embed: Embed,
    progress: Progress | None,
    had_vectors: set[str],
) -> None:
    """Embed `papers` a window at a time (`embed_slice` chunk texts per call), then commit each window
    `write_batch` papers at a time; the old chunks of those in `had_vectors` (stored, or with vectors
    left by a killed run) are deleted first, and no other paper's are looked for.

    A window's chunks are embedded longest first, so each model batch holds texts of about the
    same length and pads little: with windows of 16 papers, ingest embedded 8% slower than the
    model's own limit (docs/ingest.md). Vectors go to the store before papers go to the registry,
    so a crash leaves at most one group of orphan vectors, which the next run overwrites.
    """
    window, batch = storage.embed_window, storage.write_batch
    done = shown = 0

    def show(papers_done: int) -> None:
        nonlocal shown
        shown = max(shown, papers_done)  # never backwards
        if progress:
            progress(shown, len(papers))

    show(0)
    for start in range(0, len(papers), window):
        part = papers[start : start + window]
        chunked = [paper_chunks(p, chunk) for p in part]
        texts = [c.text for chunks in chunked for c in chunks]
        tick = partial(_share_done, show, done, len(part))
        vectors = _embed_longest_first(texts, embed, storage.embed_slice, tick)
        row = 0
        for first in range(0, len(part), batch):
            group = part[first : first + batch]
            chunks = [c for cs in chunked[first : first + batch] for c in cs]
            replacing = [p.paper_id for p in group if p.paper_id in had_vectors]
            store.write_papers(group, chunks, vectors[row : row + len(chunks)], replacing)
            row += len(chunks)
            done += len(group)
            show(done)


def _share_done(show: Callable[[int], None], before: int, size: int, embedded: int, total: int) -> None:
    """While a window of `size` papers embeds, count them done in proportion to its chunks embedded."""
    show(before + size * embedded // max(total, 1))


def _embed_longest_first(
    texts: list[str], embed: Embed, slice_size: int, tick: Callable[[int, int], None]
) -> np.ndarray:
    """Vectors of `texts` in their order, embedded longest first in slices of `slice_size`.

    Example: texts of 900, 40 and 880 characters are embedded as [900, 880], [40], so the two long
    ones share a batch instead of padding the short one to their length.
    """
    order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
    parts: list[np.ndarray] = []
    for first in range(0, len(order), slice_size):
        parts.append(embed([texts[i] for i in order[first : first + slice_size]]))
        tick(min(first + slice_size, len(order)), len(order))
    if not parts:
        return embed([])
    vectors = np.empty((len(texts), parts[0].shape[1]), dtype=np.float32)
    vectors[order] = np.concatenate(parts)
    return vectors
