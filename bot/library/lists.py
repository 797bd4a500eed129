"""Naming papers the way people do (by paper id, id prefix, source id, label or title), and the
reading-list operations that take such names.

Reading lists, export and "more like this" take papers named on a command line or in the UI;
`resolve` turns those names into stored papers, or says which names match nothing or several.
The list operations check their arguments and match names; the rows are kept by bot.store.lists.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from bot.errors import QueryError, UnknownPaperError
from bot.store import Store
from bot.store.lists import not_on_list
from bot.types import Paper, ReadingList

# A paper id prefix this long is specific enough to type (ids are 'p' and 12 hex digits).
_MIN_PREFIX = 6


def resolve(papers: Mapping[str, Paper], refs: Iterable[str]) -> list[Paper]:
    """The papers named by `refs`, each a paper id, an id prefix, a source id, a label or a title.

    Raises UnknownPaperError naming every ref that matches no paper or several.
    Example: resolve(papers, ["Cal-SPI", "3f9a2c"]) -> [Paper(label='Cal-SPI'), Paper(paper_id='3f9a2c...')]
    """
    by_source: dict[str, list[Paper]] = {}
    for p in papers.values():
        if p.source_id:
            by_source.setdefault(p.source_id, []).append(p)
    by_name: dict[str, list[Paper]] = {}
    for p in papers.values():
        for name in {p.label.casefold(), (p.title or "").casefold()} - {""}:
            by_name.setdefault(name, []).append(p)
    found: list[Paper] = []
    unknown: list[str] = []
    ambiguous: list[str] = []
    for ref in refs:
        key = ref.strip()
        if key in papers:
            found.append(papers[key])
            continue
        # a source id two records share (one file's "id" given twice) names both: ambiguous, as a shared title is
        exact = [p for p in by_name.get(key.casefold(), []) if key in (p.label, p.title)]
        matches = by_source.get(key) or exact or by_name.get(key.casefold(), [])
        if not matches and len(key) >= _MIN_PREFIX:
            matches = [p for pid, p in papers.items() if pid.startswith(key.lower())]
        if len(matches) == 1:
            found.append(matches[0])
        elif matches:
            ambiguous.append(f"{key!r} ({', '.join(sorted(p.paper_id[:10] for p in matches)[:5])})")
        else:
            unknown.append(repr(key))
    problems = []
    if unknown:
        short = any(len(ref) < _MIN_PREFIX + 2 and ref.strip("'").startswith("p") for ref in unknown)
        hint = f" (an id prefix needs at least {_MIN_PREFIX} characters)" if short else ""
        problems.append(f"no paper has the id or label {', '.join(unknown)}{hint}")
    if ambiguous:
        problems.append(f"several papers match {'; '.join(ambiguous)}")
    if problems:
        raise UnknownPaperError(
            "; ".join(problems) + "; use a paper_id, a label or a source id as shown by "
            "`paperbot search --json` or `paperbot triage --json`"
        )
    return list(dict.fromkeys(found))


def reading_list(store: Store, name: str) -> ReadingList:
    """A list's papers in the order added; ids whose papers left the store are reported as missing.

    Example: reading_list(store, "to read") -> ReadingList("to read", (Paper(label='Cal-SPI'),), ("p0123... (Old)",))
    """
    papers = store.papers()
    entries = store.lists.entries(name)
    return ReadingList(
        name,
        tuple(papers[pid] for pid, _ in entries if pid in papers),
        tuple(f"{pid} ({label})" for pid, label in entries if pid not in papers),
    )


def add_to_list(store: Store, name: str, refs: list[str]) -> int:
    """Add papers (ids or labels) to a list, creating it; returns how many were new to it."""
    if not refs:
        raise QueryError("name at least one paper to add (a paper_id or label)")
    return store.lists.add(name, resolve(store.papers(), refs))


def remove_from_list(store: Store, name: str, refs: list[str]) -> int:
    """Take papers (ids or labels, also of papers since removed from the store) off a list."""
    if not refs:
        raise QueryError("name at least one paper to remove (a paper_id or label)")
    # Entries are matched by id or by the label they were added under first, so papers since
    # removed from the store can still be taken off; anything else is resolved against the store.
    known: dict[str, str] = {}
    for pid, label in store.lists.entries(name):
        known[pid] = pid
        known.setdefault(label.casefold(), pid)
    ids = [known.get(r.strip(), known.get(r.strip().casefold(), "")) for r in refs]
    rest = [r for r, pid in zip(refs, ids, strict=True) if not pid]
    if not rest:
        return store.lists.remove(name, list(dict.fromkeys(ids)))
    stored = resolve(store.papers(), rest)
    absent = [f"{r.strip()} ({p.paper_id})" for r, p in zip(rest, stored, strict=True) if p.paper_id not in known]
    if absent:  # named as the user named them, not only by id
        raise not_on_list(name, absent)
    return store.lists.remove(name, list(dict.fromkeys([pid for pid in ids if pid] + [p.paper_id for p in stored])))
