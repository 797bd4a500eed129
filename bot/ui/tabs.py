"""The Triage and Reading list tabs' widgets, and the controls under the chat's citation panel.

Imports gradio (with bot.ui.build, bot.ui.events and bot.ui.tab_events, the only modules that
do). It lays out components and wires no events (bot.ui.tab_events does); no triage, list or
export logic lives here.
"""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from bot.library.export import FORMATS
from bot.ui import views


@dataclass(frozen=True)
class CiteWidgets:
    """Under the chat's citation panel: tick cited papers and add them to a reading list."""

    cited: gr.CheckboxGroup
    list_name: gr.Textbox
    add: gr.Button
    added: gr.Markdown


@dataclass(frozen=True)
class TriageWidgets:
    """The Triage tab's components that events are wired to."""

    topic: gr.Textbox
    summary: gr.Markdown
    table: gr.Dataframe
    selection: gr.Markdown
    list_name: gr.Textbox
    add: gr.Button
    added: gr.Markdown
    downloads: dict[str, gr.DownloadButton]  # by export format


@dataclass(frozen=True)
class ListWidgets:
    """The Reading list tab's components that events are wired to."""

    tab: gr.Tab
    choose: gr.Dropdown
    refresh: gr.Button
    summary: gr.Markdown
    table: gr.Dataframe
    selection: gr.Markdown
    remove: gr.Button
    removed: gr.Markdown
    downloads: dict[str, gr.DownloadButton]
    last_list: gr.State  # the list the other tabs last added to; shown when this tab opens


def _download_row(prefix: str) -> dict[str, gr.DownloadButton]:
    with gr.Row():
        return {
            fmt: gr.DownloadButton(
                f"Download {views.FORMAT_NAMES[fmt]}",
                interactive=False,  # enabled once there are papers to export
                size="sm",
                elem_id=f"{prefix}-{fmt}",
            )
            for fmt in FORMATS
        }


def _add_row(prefix: str, text: str) -> tuple[gr.Textbox, gr.Button]:
    """A reading-list name box and an add button, side by side at the same height."""
    with gr.Row(equal_height=True):
        name = gr.Textbox(
            value=views.DEFAULT_LIST,
            placeholder="reading list name",
            show_label=False,
            container=False,
            scale=2,
            elem_id=f"{prefix}-list",
        )
        add = gr.Button(text, scale=1, elem_id=f"{prefix}-add")
    return name, add


def _table(headers: list[str], types: list[str], elem_id: str, widths: list[str | int]) -> gr.Dataframe:
    """A table of papers whose only input is the tick box in each row; rows come from the server."""
    table = gr.Dataframe(
        value=[],
        headers=headers,
        datatype=types,  # type: ignore[arg-type]  # gradio's Literal list
        type="array",
        interactive=True,  # only for the tick boxes: every other column is static
        static_columns=list(range(1, len(headers))),
        column_widths=widths,
        wrap=True,
        max_height=520,
        show_label=False,
        buttons=["copy", "fullscreen"],
        elem_id=elem_id,
    )
    # No adding rows: an interactive table with a "dynamic" row count shows a "+" bar when empty
    # and add-row items in its cell menu. Gradio 6 marks the tuple form of `row_count` deprecated
    # and its replacement `row_limits` as not yet implemented (it warns and does nothing), so the
    # count is set as the frontend reads it; the browser test checks the bar is gone.
    table.row_count = (0, "fixed")
    return table


def build_cite_widgets() -> CiteWidgets:
    """Lay out the add-cited-papers controls (inside the chat tab's layout). Wires no events."""
    cited = gr.CheckboxGroup(choices=[], label="Cited papers of the latest answer", elem_id="pb-cited")
    list_name, add = _add_row("pb-cited", "Add to list")
    added = gr.Markdown(elem_id="pb-cited-added")
    return CiteWidgets(cited, list_name, add, added)


def build_triage_tab() -> TriageWidgets:
    """Lay out the Triage tab; must run inside a `gr.Blocks` context. Wires no events."""
    with gr.Tab("Triage", id="triage", elem_id="pb-tab-triage"):
        topic = gr.Textbox(
            label="Topic",
            placeholder="e.g. GRPO, safe reinforcement learning, single-cell perturbation",
            submit_btn="Triage",
            elem_id="pb-topic",
        )
        summary = gr.Markdown(views.triage_placeholder(), elem_id="pb-triage-summary")
        table = _table(
            views.TRIAGE_HEADERS,
            views.TRIAGE_TYPES,
            "pb-triage-table",
            ["90px", "150px", "150px", "95px", "50%", "140px"],
        )
        selection = gr.Markdown(elem_id="pb-triage-selection")
        list_name, add = _add_row("pb-triage", "Add ticked papers to this reading list")
        added = gr.Markdown(elem_id="pb-triage-added")
        downloads = _download_row("pb-triage")
    return TriageWidgets(topic, summary, table, selection, list_name, add, added, downloads)


def build_list_tab() -> ListWidgets:
    """Lay out the Reading list tab; must run inside a `gr.Blocks` context. Wires no events."""
    with gr.Tab("Reading list", id="lists", elem_id="pb-tab-lists") as tab:
        with gr.Row(equal_height=False):
            choose = gr.Dropdown(choices=[], label="Reading list", scale=4, elem_id="pb-list-choose")
            refresh = gr.Button("Refresh", scale=0, min_width=120, size="sm", elem_id="pb-list-refresh")
        summary = gr.Markdown(views.NO_LISTS, elem_id="pb-list-summary")
        table = _table(
            views.LIST_HEADERS, views.LIST_TYPES, "pb-list-table", ["90px", "150px", "50%", "100px", "70px", "140px"]
        )
        selection = gr.Markdown(elem_id="pb-list-selection")
        with gr.Row():
            # One line, as wide as its words (bot.ui.css.PAGE_CSS): Gradio's 160 px minimum wrapped it.
            remove = gr.Button(
                "Remove ticked papers from the list", variant="stop", size="sm", scale=0, elem_id="pb-list-remove"
            )
        removed = gr.Markdown(elem_id="pb-list-removed")
        downloads = _download_row("pb-list")
    last_list = gr.State(None)
    return ListWidgets(tab, choose, refresh, summary, table, selection, remove, removed, downloads, last_list)
