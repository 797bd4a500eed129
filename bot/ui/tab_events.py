"""The Triage and Reading list tabs' events: triage, tick, add to a list, remove, download. Imports
gradio; what is shown comes from bot.ui.views and what is done goes through the `Library`
callables.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

import gradio as gr

from bot.errors import PaperbotError
from bot.library.export import FORMATS
from bot.ui import views
from bot.ui.files import ExportFiles
from bot.ui.tabs import CiteWidgets, ListWidgets, TriageWidgets

log = logging.getLogger(__name__)

Rows = list[list[Any]]
# Every tab handler: hidden from the API, and one at a time on the core, like the chat.
_PRIVATE: dict[str, Any] = {"api_visibility": "private", "concurrency_id": "core", "concurrency_limit": 1}


def _guard(action: Callable[[], str], what: str) -> str:
    """Run a core call for a message; core errors become the message, bugs a pointer to the log."""
    try:
        return action()
    except PaperbotError as exc:
        return views.problem(str(exc))
    except Exception:  # the UI boundary: a bug must not show a traceback to the reader
        log.exception("%s failed", what)
        return views.problem("something went wrong in paperbot; the server log has details")


def _downloads(render: Callable[[str], str], stem: str, files: ExportFiles) -> list[Any]:
    """Updates for the four download buttons: fresh files, or disabled when there is nothing to export."""
    try:
        paths = files.write_all(render, stem)
    except PaperbotError as exc:
        log.info("nothing to export: %s", exc)
        return [gr.update(value=None, interactive=False) for _ in FORMATS]
    return [gr.update(value=str(paths[fmt]), interactive=True) for fmt in FORMATS]


def _add(library: views.Library, name: str, chosen: list[str], hint: str) -> tuple[str, Any]:
    """(message, the list added to for the Reading list tab to open, or a skip)."""
    if not chosen:
        return hint, gr.skip()
    name = (name or "").strip()
    done: list[str] = []

    def run() -> str:
        new = library.add_to_list(name, chosen)
        done.append(name)
        return views.added_message(new, len(chosen), name)

    message = _guard(run, "adding")
    return message, done[0] if done else gr.skip()


def register_cite_events(w: CiteWidgets, library: views.Library, last_list: gr.State) -> None:
    """Wire the add-cited-papers controls; must run inside the same `gr.Blocks` context."""

    def on_add(chosen: list[str] | None, name: str) -> tuple[str, Any]:
        return _add(library, name, list(chosen or []), "Tick the cited papers to add first.")

    w.add.click(
        on_add,
        inputs=[w.cited, w.list_name],
        outputs=[w.added, last_list],
        api_visibility="private",
        concurrency_id="core",
        concurrency_limit=1,
    )
    # A new answer brings new citations; an old confirmation would mislead.
    w.cited.change(lambda: "", outputs=[w.added], api_visibility="private", queue=False)


def register_triage_events(w: TriageWidgets, library: views.Library, files: ExportFiles, last_list: gr.State) -> None:
    """Wire the Triage tab; must run inside the same `gr.Blocks` context."""

    def on_triage(topic: str) -> tuple[str, Rows, str]:
        topic = (topic or "").strip()
        if not topic:
            return views.triage_placeholder(), [], ""
        rows: Rows = []

        def run() -> str:
            result = library.triage(topic)
            rows.extend(views.triage_rows(result))
            return views.triage_summary(result)

        return _guard(run, f"triage of {topic!r}"), rows, ""

    def on_table(rows: Rows, topic: str) -> list[Any]:
        chosen = views.selected_ids(rows) or views.all_ids(rows)
        if not chosen:
            return [views.selection_line(rows), *[gr.update(value=None, interactive=False) for _ in FORMATS]]
        stem = (topic or "").strip() or "triage"
        return [views.selection_line(rows), *_downloads(lambda fmt: library.export_papers(fmt, chosen), stem, files)]

    def on_add(rows: Rows, name: str) -> tuple[str, Any]:
        hint = "Tick the papers to add first (the box in each row's first column)."
        return _add(library, name, views.selected_ids(rows), hint)

    exports: dict[str, Any] = {
        "fn": on_table,
        "inputs": [w.table, w.topic],
        "outputs": [w.selection, *w.downloads.values()],
        "show_progress": "hidden",
        **_PRIVATE,
    }
    # A new table and every tick refresh the downloads: `.then` after the handlers that fill
    # the table, `.input` for ticks (a table filled by a handler fires no reliable `.change`).
    w.topic.submit(
        on_triage, inputs=[w.topic], outputs=[w.summary, w.table, w.added], show_progress_on=[w.table], **_PRIVATE
    ).then(**exports)
    w.table.input(**exports, trigger_mode="always_last")  # quick ticks: the last one counts, none is lost
    w.add.click(on_add, inputs=[w.table, w.list_name], outputs=[w.added, last_list], **_PRIVATE)


def register_list_events(w: ListWidgets, library: views.Library, files: ExportFiles) -> None:
    """Wire the Reading list tab; must run inside the same `gr.Blocks` context."""

    def shown(name: str | None) -> tuple[str, Rows]:
        if not name:
            return views.NO_LISTS, []
        rows: Rows = []

        def run() -> str:
            reading = library.reading_list(name)
            rows.extend(views.list_rows(reading))
            return views.list_summary(reading)

        return _guard(run, f"showing list {name!r}"), rows

    def on_refresh(current: str | None, last: str | None = None) -> tuple[Any, str, Rows, None]:
        try:
            names = library.list_names()
        except PaperbotError as exc:
            return gr.skip(), views.problem(str(exc)), [], None
        # The list just added to in another tab is the one the reader comes here to see.
        name = views.pick_list(names, current, preferred=last)
        return gr.update(choices=views.list_choices(names), value=name), *shown(name), None

    def on_choose(name: str | None) -> tuple[str, Rows, str]:
        return *shown(name), ""

    def on_table(rows: Rows, name: str | None) -> list[Any]:
        chosen = views.selected_ids(rows)
        if not name or not views.all_ids(rows):
            return ["", *[gr.update(value=None, interactive=False) for _ in FORMATS]]
        if chosen:
            downloads = _downloads(lambda fmt: library.export_papers(fmt, chosen), name, files)
        else:
            downloads = _downloads(lambda fmt: library.export_list(fmt, name), name, files)
        return [views.selection_line(rows), *downloads]

    def on_remove(rows: Rows, name: str | None) -> tuple[Any, str, Rows, None, str]:
        chosen = views.selected_ids(rows)
        if not name or not chosen:
            return gr.skip(), gr.skip(), gr.skip(), None, "Tick the papers to remove first."
        message = _guard(lambda: views.removed_message(library.remove_from_list(name, chosen), name), "removing")
        return *on_refresh(name), message

    refreshed: Sequence[Any] = [w.choose, w.summary, w.table, w.last_list]
    exports: dict[str, Any] = {
        "fn": on_table,
        "inputs": [w.table, w.choose],
        "outputs": [w.selection, *w.downloads.values()],
        "show_progress": "hidden",
        **_PRIVATE,
    }
    # Lists change from the other tabs, so they are read afresh whenever this tab is opened.
    w.tab.select(on_refresh, inputs=[w.choose, w.last_list], outputs=refreshed, **_PRIVATE).then(**exports)
    w.refresh.click(on_refresh, inputs=[w.choose], outputs=refreshed, **_PRIVATE).then(**exports)
    w.choose.input(on_choose, inputs=[w.choose], outputs=[w.summary, w.table, w.removed], **_PRIVATE).then(**exports)
    w.remove.click(on_remove, inputs=[w.table, w.choose], outputs=[*refreshed, w.removed], **_PRIVATE).then(**exports)
    w.table.input(**exports, trigger_mode="always_last")  # quick ticks: the last one counts, none is lost
