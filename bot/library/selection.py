"""Which papers an export holds: a reading list's, those a triage topic finds, or papers named one
by one, with the heading that says so. It checks the request and picks the papers; writing them
in a format is bot.library.export's job.
"""

from __future__ import annotations

import logging
import shlex
from collections.abc import Callable

from bot.errors import QueryError
from bot.library import export as formats
from bot.library.lists import reading_list, resolve
from bot.store import Store
from bot.types import Paper, TriageResult

log = logging.getLogger(__name__)

Triage = Callable[[str], TriageResult]


def export(
    store: Store,
    triage: Triage,
    fmt: str,
    list_name: str | None = None,
    topic: str | None = None,
    refs: list[str] | None = None,
) -> str:
    """Papers of a reading list, a triage topic, or named papers, rendered in `fmt`.

    Example: export(store, triage, "bibtex", list_name="to read") -> "@article{...}"
    """
    if sum(x is not None for x in (list_name, topic, refs)) != 1:
        raise QueryError("export needs exactly one of --list NAME, --topic TOPIC or --papers ID,...")
    if fmt not in formats.FORMATS:
        raise QueryError(f"unknown export format {fmt!r}; choose one of {', '.join(formats.FORMATS)}")
    papers, heading = select(store, triage, list_name, topic, refs)
    return formats.render(papers, fmt, heading)


def select(
    store: Store, triage: Triage, list_name: str | None, topic: str | None, refs: list[str] | None
) -> tuple[list[Paper], str]:
    """(papers, heading) of one of: a reading list, a triage topic, named papers (the first given).

    Example: select(store, triage, None, "safe RL", None) -> ([Paper(...), ...], "Papers about safe RL")
    """
    if list_name is not None:
        reading = reading_list(store, list_name)
        if reading.missing:
            log.warning(
                "%d papers of %r are no longer in the store: %s",
                len(reading.missing),
                list_name,
                ", ".join(reading.missing),
            )
        if not reading.papers:
            raise QueryError(
                f"the list {list_name!r} is empty; add papers with `paperbot list add {shlex.quote(list_name)} ID...`"
            )
        return list(reading.papers), f"Reading list: {list_name}"
    if topic is not None:
        found = triage(topic)
        if not found.papers:
            raise QueryError(f"nothing to export: no paper is about {topic!r} ({found.cut.explanation})")
        return [p.paper for p in found.papers], f"Papers about {topic}"
    return resolve(store.papers(), refs or []), "Papers"
