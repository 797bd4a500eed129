"""The ingest job: read, deduplicate, label, chunk, embed and write papers, incrementally.

Every input file is read and checked before anything is written, so a bad file changes
nothing. Papers are then written in batches: vectors first, registry second, so a crash
leaves at most one batch of orphan vectors, which the next run overwrites. Unchanged
content (by content hash) is never embedded again.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

import numpy as np

from bot import storelock
from bot.errors import FingerprintError
from bot.lexical import LexicalIndex
from bot.progress import Progress
from bot.registry import Registry
from bot.settings import Settings, describe_fingerprint, index_fingerprint
from bot.store import VectorStore
from bot.types import IngestReport, Paper
from ingest import labels
from ingest.chunking import paper_chunks
from ingest.normalise import content_hash, display, normalised, paper_id
from ingest.readers import RawRecord, ReadResult, read_paths

log = logging.getLogger(__name__)

Embed = Callable[[list[str]], np.ndarray]
# Texts per call to the embedder: a few model batches, so the progress bar moves every second or two.
_SLICE = 128


@dataclass
class _Plan:
    embed: list[Paper]  # new or changed content
    keep: list[Paper]  # unchanged content, metadata or sources refreshed
    remove: list[str]
    removed: int  # papers gone, not counting those replaced by their edited version
    added: int
    updated: int
    unchanged: int
    stale: int


def merge_records(records: Iterable[RawRecord]) -> dict[str, Paper]:
    """Distinct papers from records: one per normalised abstract, all sources kept.

    Example: the same abstract in two seed files -> one Paper with two sources.
    """
    papers: dict[str, Paper] = {}
    for rec in records:
        pid = paper_id(rec.text)
        old = papers.get(pid)
        if old is None:
            papers[pid] = Paper(
                paper_id=pid,
                text=rec.text,
                display=display(rec.text),
                label="",
                content_hash="",
                sources=(rec.source,),
                title=rec.title,
                authors=rec.authors,
                year=rec.year,
                venue=rec.venue,
                url=rec.url,
            )
            continue
        papers[pid] = replace(
            old,
            sources=(*old.sources, rec.source),
            title=old.title or rec.title,
            authors=old.authors or rec.authors,
            year=old.year or rec.year,
            venue=old.venue or rec.venue,
            url=old.url or rec.url,
        )
    return {pid: replace(p, content_hash=content_hash(normalised(p.text), p.title)) for pid, p in papers.items()}


def _plan(found: dict[str, Paper], stored: dict[str, Paper], files: set[str], prune: bool) -> _Plan:
    slots_now = {s.slot(): pid for pid, p in found.items() for s in p.sources}
    embed: list[Paper] = []
    keep: list[Paper] = []
    remove: list[str] = []
    added = updated = unchanged = stale = edited = 0
    replaced: set[str] = set()

    for pid, old in stored.items():
        if pid in found:
            continue
        outside = [s for s in old.sources if s.file not in files]
        if prune:
            outside = [s for s in outside if Path(s.file).exists()]
        took_slot = [s for s in old.sources if s.file in files and s.slot() in slots_now]
        if took_slot and not outside:
            replaced.update(slots_now[s.slot()] for s in took_slot)
            remove.append(pid)
        elif len(outside) == len(old.sources):
            # Not in the files read this time: untouched, but say so if its files are gone.
            if not prune and not any(Path(s.file).exists() for s in old.sources):
                stale += 1
            continue
        elif prune and not outside:
            remove.append(pid)
        elif prune:
            keep.append(replace(old, sources=tuple(outside)))
        else:
            stale += 1

    for pid, new in found.items():
        if pid not in stored:
            embed.append(new)
            if pid in replaced:
                updated += 1
                edited += 1
            else:
                added += 1
            continue
        old = stored[pid]
        others = tuple(s for s in old.sources if s.file not in files and (not prune or Path(s.file).exists()))
        merged = replace(new, label=old.label, sources=(*new.sources, *others))
        if old.content_hash != new.content_hash:
            embed.append(merged)
            updated += 1
        else:
            unchanged += 1
            if merged != old:
                keep.append(merged)
    # e.g. one abstract edited: its old id is removed, yet the report says 1 updated, 0 removed
    return _Plan(embed, keep, remove, len(remove) - edited, added, updated, unchanged, stale)


def _label(plan: _Plan, stored: dict[str, Paper]) -> list[Paper]:
    removed = set(plan.remove)
    taken = {p.label for pid, p in stored.items() if pid not in removed and p.label}
    need = {p.paper_id: p.display for p in plan.embed if not p.label}
    titles = {p.paper_id: p.title for p in plan.embed if p.title}
    fresh = labels.assign(need, taken, titles)
    return [replace(p, label=p.label or fresh[p.paper_id]) for p in plan.embed]


def run(
    paths: list[Path],
    settings: Settings,
    registry: Registry,
    store: VectorStore,
    embed: Embed,
    prune: bool = False,
    rebuild: bool = False,
    skip_bad: bool = False,
    encoding: str = "utf-8",
    progress: Progress | None = None,
) -> IngestReport:
    """Bring the store in line with `paths`; returns what changed.

    Holds the store's write lock throughout: a second ingest into the same store fails at once
    with a message instead of corrupting it.
    """
    started = time.perf_counter()
    with storelock.writing(registry.folder):
        read = read_paths(paths, encoding=encoding, skip_bad=skip_bad)
        return _write(read, started, settings, registry, store, embed, prune, rebuild, progress)


def _write(
    read: ReadResult,
    started: float,
    settings: Settings,
    registry: Registry,
    store: VectorStore,
    embed: Embed,
    prune: bool,
    rebuild: bool,
    progress: Progress | None,
) -> IngestReport:
    found = merge_records(read.records)
    fingerprint = index_fingerprint(settings.embed, settings.chunk)
    stored_print = registry.get_meta("fingerprint")
    if rebuild:
        store.reset()
        registry.write(delete=list(registry.papers()))
    elif stored_print not in (None, fingerprint) and registry.papers():
        raise FingerprintError(
            f"the store was built with other settings (fingerprint {stored_print}, now "
            f"{fingerprint}: {describe_fingerprint(settings.embed, settings.chunk)}); rebuild "
            "it with `paperbot ingest --rebuild`"
        )
    registry.set_meta("fingerprint", fingerprint)
    stored = registry.papers()
    files = {str(f) for f in read.files}
    plan = _plan(found, stored, files, prune)
    warnings = list(read.warnings)

    # Papers the registry has but the vector store lost (a crash, a wiped server): re-embed.
    have_vectors = store.paper_ids() if stored else set()
    planned = {p.paper_id for p in plan.embed} | set(plan.remove)
    lost = [p for pid, p in stored.items() if pid not in have_vectors and pid not in planned]
    if lost:
        warnings.append(f"re-embedded {_papers(len(lost))} missing from the vector store")
        # Re-embed the refreshed version (new sources, metadata) where this run made one.
        fresh_lost = {p.paper_id: p for p in plan.keep}
        plan.keep = [p for p in plan.keep if p.paper_id not in {q.paper_id for q in lost}]
        plan.embed.extend(fresh_lost.get(p.paper_id, p) for p in lost)

    if plan.remove:
        registry.write(delete=plan.remove)
        store.delete_papers(plan.remove)
    to_embed = _label(plan, stored)
    _embed_and_write(to_embed, settings, registry, store, embed, progress)
    if plan.keep:
        registry.write(upsert=plan.keep)
    if plan.embed or plan.remove or plan.keep or rebuild:
        refresh_lexical(registry)
    if plan.stale:
        warnings.append(_stale_warning(plan.stale))
    return IngestReport(
        papers=len(registry.papers()),
        added=plan.added,
        updated=plan.updated,
        removed=plan.removed,
        unchanged=plan.unchanged,
        seconds=round(time.perf_counter() - started, 3),
        stale=plan.stale,
        warnings=tuple(warnings),
    )


def _papers(n: int) -> str:
    """Example: _papers(1) -> '1 paper'; _papers(3) -> '3 papers'"""
    return f"{n} paper" if n == 1 else f"{n} papers"


def _stale_warning(stale: int) -> str:
    if stale == 1:
        return "1 stored paper is no longer in the file it came from; `paperbot ingest --prune` removes it"
    return f"{stale} stored papers are no longer in the files they came from; `paperbot ingest --prune` removes them"


def _embed_and_write(
    papers: list[Paper],
    settings: Settings,
    registry: Registry,
    store: VectorStore,
    embed: Embed,
    progress: Progress | None,
) -> None:
    """Embed `papers` a window at a time, then commit each window `write_batch` papers at a time.

    A window's chunks are embedded longest first, so each model batch holds texts of about the
    same length and pads little: with windows of 16 papers, ingest embedded 8% slower than the
    model's own limit (docs/ingest.md). Vectors go to the store before papers go to the registry,
    so a crash leaves at most one group of orphan vectors, which the next run overwrites.
    """
    window = settings.storage.embed_window
    batch = settings.storage.write_batch
    done = shown = 0

    def show(papers_done: int) -> None:
        nonlocal shown
        shown = max(shown, papers_done)  # never backwards
        if progress:
            progress(shown, len(papers))

    show(0)
    for start in range(0, len(papers), window):
        part = papers[start : start + window]
        chunked = [paper_chunks(p, settings.chunk) for p in part]
        texts = [c.text for chunks in chunked for c in chunks]
        vectors = _embed_longest_first(texts, embed, _SLICE, partial(_share_done, show, done, len(part)))
        row = 0
        for first in range(0, len(part), batch):
            group = part[first : first + batch]
            chunks = [c for cs in chunked[first : first + batch] for c in cs]
            # An updated paper may have had more chunks before: clear them first.
            store.delete_papers([p.paper_id for p in group])
            store.upsert(chunks, vectors[row : row + len(chunks)], {p.paper_id: p.label for p in group})
            row += len(chunks)
            registry.write(upsert=group)
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


def lexical_index(papers: dict[str, Paper]) -> LexicalIndex:
    """The BM25 index of `papers` (title and abstract of each), as ingest saves it."""
    return LexicalIndex.build({pid: p.searchable_text() for pid, p in papers.items()})


def refresh_lexical(registry: Registry) -> None:
    """Rebuild and save the lexical index for the registry's current content."""
    index = lexical_index(registry.papers())
    index.save(registry.folder / "lexical", registry.version())
