"""What an ingest run will do, decided before anything is written: the distinct papers in the files
read (one per normalised abstract, every source kept), which of them are new, edited, unchanged
or gone compared with the store, and labels for the new ones. It writes nothing and embeds
nothing (ingest.pipeline does).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Set
from dataclasses import dataclass, field, replace
from pathlib import Path

from bot.text.normalise import display, normalised, paper_id
from bot.types import Paper, Source
from ingest import identity, labels
from ingest.readers import RawRecord


@dataclass
class Plan:
    embed: list[Paper]  # new or changed content
    keep: list[Paper]  # unchanged content, metadata or sources refreshed
    remove: list[str]
    removed: int  # papers gone, not counting those whose place another id took (`moved`)
    added: int
    updated: int
    unchanged: int
    stale: int
    moved: dict[str, str] = field(default_factory=dict)  # a stored id whose place a new id took -> the new id
    unread: int = 0  # papers --prune kept: their file had records --skip-bad could not read, one may be theirs


def merge_records(records: Iterable[RawRecord]) -> dict[str, Paper]:
    """Distinct papers from records; see group_records."""
    return group_records(records)[0]


def group_records(
    records: Iterable[RawRecord], similarity: float = identity.NEAR_IDENTICAL
) -> tuple[dict[str, Paper], dict[str, int]]:
    """Distinct papers from records, and for each how many other versions of it were folded in.

    One paper per normalised abstract, all sources kept; then versions of one paper (same DOI or
    arXiv id, same title with a near-identical abstract) become one (ingest.identity.combine).
    Example: the same abstract in two seed files -> one Paper with two sources, 0 folded; an arXiv
    v1 and its Zotero copy with a revised sentence -> one Paper, 1 folded.
    """
    texts: dict[str, Paper] = {}
    for rec in records:
        pid = paper_id(rec.text)
        old = texts.get(pid)
        if old is None:
            texts[pid] = Paper(
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
                doi=rec.doi,
                keywords=rec.keywords,
            )
            continue
        texts[pid] = replace(
            old,
            sources=(*old.sources, rec.source),
            title=old.title or rec.title,
            authors=old.authors or rec.authors,
            year=old.year or rec.year,
            venue=old.venue or rec.venue,
            url=old.url or rec.url,
            doi=old.doi or rec.doi,
            keywords=old.keywords or rec.keywords,
        )
    groups: dict[str, list[Paper]] = {}  # first version's id -> the versions, in the order read
    first_of: dict[str, str] = {}
    index = identity.Index(similarity=similarity)
    for pid, paper in texts.items():
        match = index.place(paper)
        first = first_of[match.paper_id] if match else pid
        groups.setdefault(first, []).append(paper)
        first_of[pid] = first
    papers = {}
    folded = {}
    for versions in groups.values():
        paper = identity.combine(versions)
        papers[paper.paper_id] = paper
        folded[paper.paper_id] = len(versions) - 1
    return papers, folded


def align(
    found: dict[str, Paper],
    stored: Mapping[str, Paper],
    folded: dict[str, int] | None = None,
    similarity: float = identity.NEAR_IDENTICAL,
) -> tuple[dict[str, Paper], int]:
    """`found` with each paper that is a version of a stored one under the stored paper's id (so
    reading lists keep it), and how many versions this run joined to a paper from another source.

    `folded` (from group_records) says how many versions each found paper already holds. A stored
    paper whose every source was read again now reads as found (an edit in place); one with other
    sources too is combined with what was read (ingest.identity.combine). The stored paper's
    sources are left to plan_changes, which keeps those outside the files read. Reading the same
    files again merges nothing and changes nothing.
    """
    folded = folded or {}
    index: identity.Index | None = None
    out: dict[str, Paper] = {}
    merged = 0
    for pid, paper in found.items():
        if pid in stored:
            # A stored paper keeps its id when a newer version replaces its text; the old version
            # read again is still a version of it.
            match = stored[pid] if normalised(stored[pid].text) != normalised(paper.text) else None
        else:
            index = index or identity.Index(stored.values(), similarity)
            match = index.match(paper)
        target = match.paper_id if match else pid
        slots = {s.slot() for s in paper.sources}
        had = {s.slot() for s in stored[target].sources} if target in stored else set()
        if not slots <= had:  # a source the stored paper did not have: its versions are merges
            merged += folded.get(pid, 0) + (match is not None and match.paper_id != pid)
        if target in out:
            out[target] = identity.combine([out[target], paper], keep_id=target)
        elif match and had <= slots:
            out[target] = replace(paper, paper_id=target, label=match.label)
        elif match:
            out[target] = identity.combine([replace(match, sources=()), paper], keep_id=target)
        else:
            out[target] = paper
    return out, merged


def plan_changes(
    found: dict[str, Paper],
    stored: Mapping[str, Paper],
    files: set[str],
    prune: bool,
    partial: Set[str] = frozenset(),
) -> Plan:
    """What a run changes: the papers `found` in `files` against those `stored`. With `prune`, a stored paper
    none of whose files holds it any more is removed, unless a file of it is among `partial` (records in it
    were skipped as bad: the paper may be one of them, its line broken by a typo)."""
    unread = 0
    slots_now = {s.slot(): pid for pid, p in found.items() for s in p.sources}
    embed: list[Paper] = []
    keep: list[Paper] = []
    remove: list[str] = []
    added = updated = unchanged = stale = 0
    replaced: set[str] = set()
    moved: dict[str, str] = {}

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
            moved[pid] = slots_now[took_slot[0].slot()]
        elif len(outside) == len(old.sources):
            # Not in the files read this time: untouched, but say so if its files are gone.
            if not prune and not any(Path(s.file).exists() for s in old.sources):
                stale += 1
            continue
        elif prune and not outside and any(s.file in partial for s in old.sources):
            unread += 1
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
            else:
                added += 1
            continue
        old = stored[pid]
        others = tuple(s for s in old.sources if s.file not in files and (not prune or Path(s.file).exists()))
        merged = replace(new, label=old.label, sources=_in_stored_order(old.sources, new.sources, others))
        if old.content_hash != new.content_hash:
            embed.append(merged)
            updated += 1
        else:
            unchanged += 1
            if merged != old:
                keep.append(merged)
    # e.g. one abstract edited, or two stored versions of a paper joined: the old id is removed, and
    # the report says 0 removed (the paper is still there, under the id that took its place)
    return Plan(embed, keep, remove, len(remove) - len(moved), added, updated, unchanged, stale, moved, unread)


def _in_stored_order(
    stored: tuple[Source, ...], read: tuple[Source, ...], kept: tuple[Source, ...]
) -> tuple[Source, ...]:
    """A paper's sources after a run: the stored ones still there in their order (as read now),
    then the new ones, so that reading its files in another order changes nothing.

    Example: stored (b, a), read (a,), kept (b,) -> (b, a)
    """
    now = {s.slot(): s for s in read}
    ordered = [now.pop(s.slot(), s) for s in stored if s.slot() in now or s in kept]
    return (*ordered, *now.values())


def label_new(plan: Plan, stored_labels: Mapping[str, str]) -> list[Paper]:
    """The papers to embed, each new one with a label no stored paper (but those removed) has.
    `stored_labels` is {paper id: label} of the stored papers (Store.labels: no paper read whole)."""
    removed = set(plan.remove)
    taken = {label for pid, label in stored_labels.items() if pid not in removed and label}
    need = {p.paper_id: p.display for p in plan.embed if not p.label}
    titles = {p.paper_id: p.title for p in plan.embed if p.title}
    fresh = labels.assign(need, taken, titles)
    return [replace(p, label=p.label or fresh[p.paper_id]) for p in plan.embed]


def stale_warning(stale: int) -> str:
    if stale == 1:
        return "1 stored paper is no longer in the file it came from; `paperbot ingest --prune` removes it"
    return f"{stale} stored papers are no longer in the files they came from; `paperbot ingest --prune` removes them"
