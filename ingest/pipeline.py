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
from pathlib import Path

import numpy as np

from bot.errors import FingerprintError
from bot.lexical import LexicalIndex
from bot.progress import Progress
from bot.registry import Registry
from bot.settings import Settings, describe_fingerprint, index_fingerprint
from bot.store import VectorStore
from bot.types import IngestReport, Paper
from ingest import labels
from ingest.chunking import chunk_paper
from ingest.normalise import content_hash, display, normalised, paper_id
from ingest.readers import RawRecord, read_paths

log = logging.getLogger(__name__)

Embed = Callable[[list[str]], np.ndarray]


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
    """Bring the store in line with `paths`; returns what changed."""
    started = time.perf_counter()
    read = read_paths(paths, encoding=encoding, skip_bad=skip_bad)
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
        warnings.append(f"re-embedded {len(lost)} papers missing from the vector store")
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
        warnings.append(
            f"{plan.stale} stored papers are no longer in the files they came from; "
            "`paperbot ingest --prune` removes them"
        )
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


def _embed_and_write(
    papers: list[Paper],
    settings: Settings,
    registry: Registry,
    store: VectorStore,
    embed: Embed,
    progress: Progress | None,
) -> None:
    batch = settings.storage.write_batch
    done = 0
    if progress:
        progress(0, len(papers))
    for start in range(0, len(papers), batch):
        group = papers[start : start + batch]
        chunks = [c for p in group for c in chunk_paper(p.paper_id, p.display, p.title, settings.chunk)]
        vectors = embed([c.text for c in chunks])
        # An updated paper may have had more chunks before: clear them first.
        store.delete_papers([p.paper_id for p in group])
        store.upsert(chunks, vectors, {p.paper_id: p.label for p in group})
        registry.write(upsert=group)
        done += len(group)
        if progress:
            progress(done, len(papers))


def refresh_lexical(registry: Registry) -> None:
    """Rebuild and save the lexical index for the registry's current content."""
    index = LexicalIndex.build({pid: p.searchable_text() for pid, p in registry.papers().items()})
    index.save(registry.folder / "lexical", registry.version())
