"""The Gradio app: a chat whose answers cite abstracts as they are written, plus the Triage and
Reading list tabs.

With bot.ui_triage (those two tabs), the only module that imports gradio. It receives plain
callables (ask, its streaming form, ingest the seeds, count papers, and a `Library` of triage,
list and export calls) and renders what they return with `bot.render` and `bot.ui_views` (which
also turns a streamed answer into chat turns); it has no retrieval or answering logic of its own
and never sees the Paperbot object except in `serve`.
"""

from __future__ import annotations

import errno
import logging
import os
import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from bot import render
from bot import ui_views as views
from bot.errors import PaperbotError
from bot.progress import Progress
from bot.types import Answer, IngestReport, ReadingList, TriageResult
from bot.ui_views import Ask, AskStream, Message, chat_stream

if TYPE_CHECKING:
    import gradio as gr

    from bot.settings import Settings
    from bot.ui_triage import CiteWidgets

log = logging.getLogger(__name__)

IngestSeeds = Callable[[Progress], IngestReport]
PaperCount = Callable[[], int]


class Core(Protocol):
    """What `serve` needs of bot.app.Paperbot; structural, so the UI never imports the app
    (which imports ingest)."""

    @property
    def settings(self) -> Settings: ...

    def ask(self, question: str, generator: str | None = None, previous: Answer | None = None) -> Answer: ...

    def ask_stream(
        self, question: str, generator: str | None = None, previous: Answer | None = None
    ) -> Iterator[str | Answer]: ...

    def ingest(self, *, progress: Progress | None = None) -> IngestReport: ...

    def paper_count(self) -> int: ...

    def triage(self, topic: str) -> TriageResult: ...

    def reading_list(self, name: str) -> ReadingList: ...

    def list_names(self) -> list[tuple[str, int]]: ...

    def add_to_list(self, name: str, refs: list[str]) -> int: ...

    def remove_from_list(self, name: str, refs: list[str]) -> int: ...

    def export(
        self, fmt: str, list_name: str | None = None, topic: str | None = None, refs: list[str] | None = None
    ) -> str: ...


def library_of(core: Core) -> views.Library:
    """The core's triage, reading-list and export calls as the callables the tabs take."""
    return views.Library(
        triage=core.triage,
        reading_list=core.reading_list,
        list_names=core.list_names,
        add_to_list=core.add_to_list,
        remove_from_list=core.remove_from_list,
        export_papers=lambda fmt, ids: core.export(fmt, refs=ids),
        export_list=lambda fmt, name: core.export(fmt, list_name=name),
    )


EXAMPLES = (
    "How can reinforcement learning enforce safety constraints at every state?",
    "Which papers study single-cell perturbation prediction?",
    "What does Cal-SPI do?",
)

# Scoped to the citation panel by gr.HTML's css_template; classes come from render.citations_html.
PANEL_CSS = """
.pb-citation { border: 1px solid var(--border-color-primary); border-radius: 8px;
  padding: 10px 12px; margin-bottom: 10px; background: var(--background-fill-secondary); }
.pb-head { margin-bottom: 4px; }
.pb-where { color: var(--body-text-color-subdued); font-size: 0.85em; }
.pb-title { font-style: italic; margin-bottom: 4px; }
.pb-abstract { font-size: 0.92em; line-height: 1.5; }
.pb-abstract mark { background: #fde68a; color: #111; padding: 0 2px; border-radius: 3px; }
.pb-empty { color: var(--body-text-color-subdued); }
.pb-why { margin-top: 6px; font-size: 0.82em; color: var(--body-text-color-subdued); }
"""


def _quiet_gradio() -> None:
    # Gradio reads this when first imported; set it first so nothing is sent home.
    os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"


class SeedLoader:
    """Ingests the bundled seeds once when the store is empty, however many pages load at once.

    The first caller runs the ingest in its own thread; callers arriving meanwhile wait for it
    and relay its progress to their own page, instead of embedding the seeds a second time.
    """

    def __init__(self, ingest_seeds: IngestSeeds | None, paper_count: PaperCount) -> None:
        self._ingest = ingest_seeds
        self._count = paper_count
        self._lock = threading.Lock()
        self._finished: threading.Event | None = None  # set while an ingest runs
        self._progress = (0, 0)
        self._error: PaperbotError | None = None
        self.report: IngestReport | None = None  # the seed load this process did, if any

    def needed(self) -> bool:
        """Whether `ensure` would ingest (or wait for an ingest) right now."""
        with self._lock:
            return self._finished is not None or (self._ingest is not None and self._count() == 0)

    def ensure(self, progress: Progress) -> IngestReport | None:
        """Make sure the store holds papers, reporting progress; returns the seed load's report."""
        with self._lock:
            finished = self._finished
            if finished is None:
                # Checked under the lock so two first visitors cannot both start an ingest.
                if self._ingest is None or self._count() > 0:
                    return self.report
                self._finished = threading.Event()
                self._progress = (0, 0)
                self._error = None
        if finished is not None:
            while not finished.wait(0.5):
                progress(*self._progress)
            if self._error is not None:
                raise self._error
            return self.report
        return self._run(progress)

    def _run(self, progress: Progress) -> IngestReport:
        assert self._ingest is not None and self._finished is not None

        def relay(done: int, total: int) -> None:
            self._progress = (done, total)
            progress(done, total)

        relay(0, 0)  # reading files and loading the model come before the first batch
        try:
            self.report = self._ingest(relay)
            return self.report
        except PaperbotError as exc:
            self._error = exc
            raise
        finally:
            with self._lock:
                self._finished.set()
                self._finished = None


def seeded(ask: Ask, loader: SeedLoader, progress: Progress) -> Ask:
    """`ask`, preceded by loading the seeds into an empty store.

    API callers never load the page, so their first question may be what fills the store.
    """

    def ask_after_seeds(question: str, **options: Any) -> Answer:
        loader.ensure(progress)
        return ask(question, **options)

    return ask_after_seeds


def seeded_stream(ask_stream: AskStream, loader: SeedLoader, progress: Progress) -> AskStream:
    """`ask_stream`, preceded by loading the seeds into an empty store (when iteration starts)."""

    def stream_after_seeds(question: str, **options: Any) -> Iterator[str | Answer]:
        loader.ensure(progress)
        yield from ask_stream(question, **options)

    return stream_after_seeds


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

    from bot.ui_triage import build_cite_widgets

    gr.Markdown("## paperbot: ask the abstracts\nEvery sentence of an answer cites its paper.")
    status = gr.Markdown("Checking the store…")
    with gr.Tab("Chat", id="chat", elem_id="pb-tab-chat"), gr.Row(equal_height=False):
        with gr.Column(scale=3):
            chatbot = gr.Chatbot(
                label="Conversation",
                height=560,
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
                choices=list(views.GENERATORS),
                value=generator,
                label="Answer with",
                info="extractive: sentences of the abstracts; openai / llamacpp: a language model (as configured)",
                elem_id="pb-generator",
                filterable=False,
            )
            gr.Examples(examples=[[q] for q in EXAMPLES], inputs=[question], label="Try")
        with gr.Column(scale=2):
            gr.Markdown("#### Cited abstracts")
            panel = gr.HTML(render.citations_placeholder(), css_template=PANEL_CSS, max_height=640)
            cite = build_cite_widgets()
    return Widgets(status=status, chatbot=chatbot, question=question, generator=choice, panel=panel, cite=cite)


def _register_events(
    demo: gr.Blocks, widgets: Widgets, ask: Ask, ask_stream: AskStream, loader: SeedLoader, paper_count: PaperCount
) -> None:
    """Wire the widgets to the callables; must run inside the same `gr.Blocks` context."""
    import gradio as gr

    def gradio_progress(tracker: gr.Progress) -> Progress:
        def update(done: int, total: int) -> None:
            if total > 0:
                tracker((done, total), desc=render.seed_progress(done, total), unit="papers")
            else:
                tracker(0, desc=render.seed_progress(0, 0))

        return update

    def status() -> str:
        return render.store_status(paper_count(), report=loader.report)

    # Gradio finds a handler's progress tracker by this default value, hence the noqa.
    def on_load(progress: gr.Progress = gr.Progress()) -> Iterator[tuple[Any, Any]]:  # noqa: B008
        if loader.needed():
            yield render.store_status(0, loading=True), gr.skip()
        try:
            loader.ensure(gradio_progress(progress))
            line = status()
        except PaperbotError as exc:
            line = f"**Could not load the bundled abstracts:** {exc}"
        # Enabled even after a failure, so the reader can still ask and see the error.
        yield line, gr.update(interactive=True, placeholder="Ask about the abstracts…")

    # The latest answer of this browser session, which a follow-up question refers to.
    last_answer = gr.State(None)
    # The "Answer with" choice, mirrored in a State so the /chat API takes (question, history) as
    # before: API callers get the menu's starting value, the page whatever the reader picked.
    generator = gr.State(widgets.generator.value)

    def on_ask(
        question: str,
        history: list[Message],
        previous: Answer | None,
        generator: str | None,
        progress: gr.Progress = gr.Progress(),  # noqa: B008
    ) -> Iterator[tuple[Any, Any, Any, Any, Any, Any]]:
        # Echo the question at once; retrieval takes a second or two on a CPU before the first piece.
        shown = [*history, views.user_message(question.strip())] if question and question.strip() else history
        yield shown, "", gr.skip(), gr.skip(), gr.skip(), gr.skip()

        stream = seeded_stream(ask_stream, loader, gradio_progress(progress))
        turn = None
        for turn in chat_stream(question, history, stream, previous, generator or None):
            if turn.answer is None and turn.panel is None:  # the reply so far (or, last, an error)
                yield turn.history, gr.skip(), gr.skip(), gr.skip(), gr.skip(), gr.skip()
        assert turn is not None, "chat_stream always ends with a Turn"
        panel = turn.panel if turn.panel is not None else gr.skip()
        # The tick boxes offer the papers the panel shows, so they change together.
        cited = gr.update(choices=views.citation_choices(turn.answer), value=[]) if turn.answer else gr.skip()
        yield turn.history, "", panel, status(), cited, turn.answer if turn.answer else gr.skip()

    def ask_markdown(question: str) -> str:
        """The answer to `question` as markdown with [n] citations and its reference list."""
        # A question paperbot declines is the caller's to fix: one log line, not a traceback.
        if not question or not question.strip():
            raise gr.Error(render.EMPTY_QUESTION_REPLY, print_exception=False)
        try:
            answer = seeded(ask, loader, lambda done, total: None)(question.strip())
            return render.chat_markdown(answer)
        except PaperbotError as exc:
            log.warning("/ask: %s", exc)
            raise gr.Error(render.error_reply(str(exc)), print_exception=False) from exc

    w = widgets
    demo.load(
        on_load,
        outputs=[w.status, w.question],
        show_progress_on=[w.chatbot],  # the big chat area, where the bar is seen
        api_visibility="private",
        concurrency_limit=None,  # every page waits on the one ingest, showing its progress
    )
    # Answers share one slot: the core embeds on a small CPU, and serialising keeps
    # concurrent questions from competing for it or racing inside Chroma.
    w.question.submit(
        on_ask,
        inputs=[w.question, w.chatbot, last_answer, generator],
        outputs=[w.chatbot, w.question, w.panel, w.status, w.cite.cited, last_answer],
        api_name="chat",
        api_visibility="undocumented",
        concurrency_id="core",
        concurrency_limit=1,
    )
    w.generator.change(lambda choice: choice, inputs=[w.generator], outputs=[generator], api_visibility="private")
    # The chat's own trash icon empties the conversation; the panel and tick boxes must follow it.
    w.chatbot.clear(
        lambda: (render.citations_placeholder(), gr.update(choices=[], value=[]), None),
        outputs=[w.panel, w.cite.cited, last_answer],
        api_visibility="private",
        queue=False,
    )
    gr.api(ask_markdown, api_name="ask", concurrency_id="core", concurrency_limit=1)


def _after_seeds(library: views.Library, loader: SeedLoader) -> views.Library:
    """`library` whose triage first loads the seeds into an empty store, as a question does."""

    def triage(topic: str) -> TriageResult:
        loader.ensure(lambda done, total: None)
        return library.triage(topic)

    return replace(library, triage=triage)


def build(
    ask: Ask,
    ingest_seeds: IngestSeeds | None,
    paper_count: PaperCount,
    library: views.Library,
    exports: Path | None = None,
    ask_stream: AskStream | None = None,
    generator: str = "extractive",
) -> gr.Blocks:
    """The app over plain callables; `ingest_seeds(progress)` fills an empty store.

    The chat shows `ask_stream`'s pieces as they come (without it, each answer appears whole);
    its "Answer with" menu starts at `generator`. The /ask API endpoint calls `ask`. Export files
    for the download buttons go under `exports` (default: a new temporary folder).
    Example: build(bot.ask, lambda p: bot.ingest(progress=p), bot.paper_count, library_of(bot),
    ask_stream=bot.ask_stream).launch()
    """
    _quiet_gradio()
    import gradio as gr

    from bot import ui_triage  # imports gradio, so only after _quiet_gradio

    loader = SeedLoader(ingest_seeds, paper_count)
    library = _after_seeds(library, loader)
    files = views.ExportFiles(exports)
    # Gradio copies each download into its cache; an hour-old copy is no longer needed.
    with gr.Blocks(title="paperbot", analytics_enabled=False, delete_cache=(1800, 3600)) as demo:
        widgets = _build_widgets(generator)
        triage_tab = ui_triage.build_triage_tab()
        list_tab = ui_triage.build_list_tab()
        _register_events(demo, widgets, ask, ask_stream or views.whole_answer(ask), loader, paper_count)
        ui_triage.register_cite_events(widgets.cite, library, list_tab.last_list)
        ui_triage.register_triage_events(triage_tab, library, files, list_tab.last_list)
        ui_triage.register_list_events(list_tab, library, files)
    demo.queue(default_concurrency_limit=1)
    return demo


def _check_address(host: str, port: int) -> None:
    """Fail early, saying which of host and port is wrong, before Gradio tries (and says less)."""
    if not 1 <= port <= 65535:
        raise PaperbotError(f"--port {port}: give a port from 1 to 65535 (default 7860)")
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0][0]
        with socket.create_server((host, port), family=family):  # ::1 and :: are IPv6
            pass
    except OSError as exc:
        if exc.errno is not None and exc.errno < 0:  # the resolver's codes are negative
            raise PaperbotError(f"--host {host}: not a known host name or address; try --host 127.0.0.1") from exc
        if exc.errno == errno.EADDRINUSE:
            why = "the port is in use; pass --port with a free port"
        elif exc.errno == errno.EADDRNOTAVAIL:
            why = "that address is not one of this machine's; pass --host 127.0.0.1 (or 0.0.0.0 for every interface)"
        elif exc.errno == errno.EACCES:
            why = "not allowed (ports below 1024 need root); pass --port 7860 or another above 1023"
        else:
            why = f"{exc.strerror or exc}; pass another --host or --port"
        raise PaperbotError(f"cannot serve the chat UI on {host}:{port}: {why}") from exc


def serve(bot: Core, host: str = "127.0.0.1", port: int = 7860) -> None:
    """Run the UI on host:port until interrupted; never creates a public share link."""
    _check_address(host, port)
    _quiet_gradio()
    demo = build(
        bot.ask,
        lambda progress: bot.ingest(progress=progress),
        bot.paper_count,
        library_of(bot),
        ask_stream=bot.ask_stream,
        generator=bot.settings.generator.backend,
    )
    try:
        _, local_url, _ = demo.launch(
            server_name=host,
            server_port=port,
            share=False,
            inbrowser=False,
            prevent_thread_lock=True,  # so the URL is printed once the port is bound
            quiet=True,
            ssr_mode=False,  # server-side rendering needs Node; plain serving does not
            mcp_server=False,
            footer_links=["api"],  # gradio_client users find the /ask endpoint here
        )
    except OSError as exc:
        # Gradio's own message suggests GRADIO_SERVER_PORT; paperbot users pass --port.
        raise PaperbotError(
            f"cannot serve the chat UI on {host}:{port}: the port is in use or not allowed; "
            "pass --port with a free port"
        ) from exc
    print(f"paperbot: chat UI running at {local_url} (Ctrl+C to stop)", flush=True)
    demo.block_thread()
