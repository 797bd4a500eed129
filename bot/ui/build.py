"""The Gradio app: a chat whose answers cite abstracts as they are written, plus the Triage and
Reading list tabs, built over plain callables.

It receives ask, its streaming form, ingest the seeds, count papers and a `Library` of triage,
list and export calls, lays out the widgets and hands them to the event wiring (bot.ui.events,
bot.ui.tab_events); it has no retrieval or answering logic of its own and never sees the app.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bot.render import html as markup
from bot.settings import UISettings
from bot.ui import views
from bot.ui.chat import GENERATORS, Ask, AskStream, whole_answer
from bot.ui.css import FONT, FONT_FALLBACKS, FONT_MONO, FONT_MONO_FALLBACKS, FONT_WEIGHTS, PANEL_CSS
from bot.ui.files import ExportFiles
from bot.ui.seeds import IngestSeeds, PaperCount, SeedLoader, after_seeds

if TYPE_CHECKING:
    import gradio as gr

    from bot.ui.tabs import CiteWidgets


EXAMPLES = (
    "How can reinforcement learning enforce safety constraints at every state?",
    "Which papers study single-cell perturbation prediction?",
    "What does Cal-SPI do?",
)


def quiet_gradio() -> None:
    # Gradio reads this when first imported; set it first so nothing is sent home.
    os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"


@dataclass(frozen=True)
class Widgets:
    """The chat tab's components events are wired to."""

    status: gr.Markdown
    chatbot: gr.Chatbot
    question: gr.Textbox
    generator: gr.Dropdown  # who writes the answer: extractive or a language model
    panel: gr.HTML
    cite: CiteWidgets  # under the panel: add cited papers to a reading list


def _build_widgets(generator: str) -> Widgets:
    """Lay out the heading and the chat tab, `generator` chosen in its menu; must run inside a
    `gr.Blocks` context. Wires no events."""
    import gradio as gr

    from bot.ui.tabs import build_cite_widgets

    gr.Markdown("## paperbot: ask the abstracts\nEvery sentence of an answer cites its paper.")
    status = gr.Markdown("Checking the store…")
    with gr.Tab("Chat", id="chat", elem_id="pb-tab-chat"), gr.Row(equal_height=False):
        with gr.Column(scale=3):
            chatbot = gr.Chatbot(
                label="Conversation",
                height=560,
                elem_id="pb-chat",  # bot.ui.css.PAGE_CSS keeps its messages below the toolbar
                feedback_options=None,
                buttons=["copy", "copy_all"],  # no "share": answers stay on this machine
            )
            # Disabled until the page load has made sure the store holds papers.
            question = gr.Textbox(
                show_label=False,
                placeholder="Loading the store…",
                submit_btn="Ask",
                interactive=False,
                autofocus=True,
            )
            choice = gr.Dropdown(
                choices=list(GENERATORS),
                value=generator,
                label="Answer with",
                info="extractive: sentences of the abstracts; openai / llamacpp: a language model (as configured)",
                elem_id="pb-generator",
                filterable=False,
            )
            gr.Examples(examples=[[q] for q in EXAMPLES], inputs=[question], label="Try")
        with gr.Column(scale=2):
            gr.Markdown("#### Cited abstracts")
            panel = gr.HTML(markup.citations_placeholder(), css_template=PANEL_CSS, max_height=640)
            cite = build_cite_widgets()
    return Widgets(status=status, chatbot=chatbot, question=question, generator=choice, panel=panel, cite=cite)


def theme() -> gr.themes.Base:
    """Gradio's default theme over bot.ui.css's fonts: files bundled with Gradio, whole at every weight
    declared, so bold capitals come from the same font as the rest of the word.
    Example: build(...).launch(theme=theme(), css=PAGE_CSS)
    """
    quiet_gradio()
    import gradio as gr

    return gr.themes.Default(
        font=[gr.themes.LocalFont(FONT, weights=FONT_WEIGHTS), *FONT_FALLBACKS],
        font_mono=[gr.themes.LocalFont(FONT_MONO, weights=FONT_WEIGHTS), *FONT_MONO_FALLBACKS],
    )


def build(
    ask: Ask,
    ingest_seeds: IngestSeeds | None,
    paper_count: PaperCount,
    library: views.Library,
    exports: Path | None = None,
    ask_stream: AskStream | None = None,
    generator: str = "extractive",
    ui: UISettings | None = None,
) -> gr.Blocks:
    """The app over plain callables; `ingest_seeds(progress)` fills an empty store.

    The chat shows `ask_stream`'s pieces as they come (without it, each answer appears whole);
    its "Answer with" menu starts at `generator`. The /ask API endpoint calls `ask`. Export files
    for the download buttons go under `exports` (default: a new temporary folder). `ui` gives the
    queue its slots and its size (default: UISettings()); beyond the size a request is refused at once.
    Example: build(bot.ask, ingest_seeds, bot.paper_count, library_of(bot), ask_stream=bot.ask_stream)
    .launch(theme=theme(), css=PAGE_CSS), with `ingest_seeds` as the CLI builds it (the UI never
    imports ingest); Gradio 6 takes the theme and style sheet at launch, not in `gr.Blocks`
    """
    quiet_gradio()
    import gradio as gr

    from bot.ui import events, tab_events, tabs  # they import gradio: only after quiet_gradio

    ui = ui or UISettings()  # type: ignore[call-arg]  # pydantic fills the defaults; mypy runs without its plugin
    loader = SeedLoader(ingest_seeds, paper_count)
    library = after_seeds(library, loader)
    files = ExportFiles(exports)
    # Gradio copies each download into its cache; an hour-old copy is no longer needed.
    with gr.Blocks(title="paperbot", analytics_enabled=False, delete_cache=(1800, 3600)) as demo:
        widgets = _build_widgets(generator)
        triage_tab = tabs.build_triage_tab()
        list_tab = tabs.build_list_tab()
        events.register_chat_events(
            demo, widgets, ask, ask_stream or whole_answer(ask), loader, paper_count, slots=ui.answer_slots
        )
        tab_events.register_cite_events(widgets.cite, library, list_tab.last_list)
        tab_events.register_triage_events(triage_tab, library, files, list_tab.last_list)
        tab_events.register_list_events(list_tab, library, files)
    # Answers have their own slots (events.py); every other kind of request has `task_slots` of its own.
    demo.queue(default_concurrency_limit=ui.task_slots, max_size=ui.queue_size)
    return demo
