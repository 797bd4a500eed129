"""The chat tab's events: the page load that fills an empty store, asking (streamed into the chat),
clearing, and the /ask API endpoint. Imports gradio (only inside the functions, after the
analytics switch is off); shows what bot.ui.chat and bot.render return.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from bot.errors import PaperbotError
from bot.progress import Progress
from bot.render import html as markup
from bot.render import messages
from bot.text.clean import clean
from bot.types import Answer
from bot.ui.chat import Ask, AskStream, Message, chat_stream, citation_choices, throttled, user_message
from bot.ui.seeds import PaperCount, SeedLoader, seeded, seeded_stream

if TYPE_CHECKING:
    import gradio as gr

    from bot.ui.build import Widgets

log = logging.getLogger(__name__)

# Seconds between updates of a reply being written (bot.ui.chat.throttled): a model's tokens arrive a
# few at a time; an extractive answer's sentences all at once, after it is composed and checked.
STREAM_EVERY = 0.1


def _asked(question: object) -> str:
    """A question as sent, clean text: a script may send anything JSON holds (none or a number reads as
    empty, for the empty-question reply) and lone surrogates (JSON's "\ud800"), which the tokenizer refuses."""
    return clean(question)[0] if isinstance(question, str) else ""


def register_chat_events(
    demo: gr.Blocks,
    widgets: Widgets,
    ask: Ask,
    ask_stream: AskStream,
    loader: SeedLoader,
    paper_count: PaperCount,
    slots: int = 1,
) -> None:
    """Wire the widgets to the callables, answering `slots` questions at once; must run inside the
    same `gr.Blocks` context."""
    import gradio as gr

    def gradio_progress(tracker: gr.Progress) -> Progress:
        def update(done: int, total: int) -> None:
            if total > 0:
                tracker((done, total), desc=messages.seed_progress(done, total), unit="papers")
            else:
                tracker(0, desc=messages.seed_progress(0, 0))

        return update

    def status() -> str:
        # A store deleted or replaced under the server (bot.ui.watch) says so here too.
        try:
            return messages.store_status(paper_count(), report=loader.report)
        except PaperbotError as exc:
            return f"**The store cannot be read:** {exc}"

    # Gradio finds a handler's progress tracker by this default value, hence the noqa.
    def on_load(progress: gr.Progress = gr.Progress()) -> Iterator[tuple[Any, Any]]:  # noqa: B008
        try:
            if loader.needed():
                yield messages.store_status(0, loading=True), gr.skip()
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
        question = _asked(question)
        # Echo the question at once; retrieval takes a second or two on a CPU before the first piece.
        shown = [*history, user_message(question.strip())] if question and question.strip() else history
        yield shown, "", gr.skip(), gr.skip(), gr.skip(), gr.skip()

        stream = seeded_stream(ask_stream, loader, gradio_progress(progress))
        turn = None
        # The reply so far at most every STREAM_EVERY seconds (see `throttled`), then the last Turn.
        for turn, last in throttled(chat_stream(question, history, stream, previous, generator or None), STREAM_EVERY):
            if not last:
                yield turn.history, gr.skip(), gr.skip(), gr.skip(), gr.skip(), gr.skip()
        assert turn is not None, "chat_stream always ends with a Turn"
        panel = turn.panel if turn.panel is not None else gr.skip()
        # The tick boxes offer the papers the panel shows, so they change together.
        cited = gr.update(choices=citation_choices(turn.answer), value=[]) if turn.answer else gr.skip()
        yield turn.history, "", panel, status(), cited, turn.answer if turn.answer else gr.skip()

    def ask_markdown(question: str) -> str:
        """The answer to `question` as markdown with [n] citations and its reference list."""
        # A question paperbot declines is the caller's to fix: one log line, not a traceback.
        question = _asked(question)
        if not question.strip():
            raise gr.Error(messages.EMPTY_QUESTION_REPLY, print_exception=False)
        try:
            answer = seeded(ask, loader, lambda done, total: None)(question.strip())
            return markup.chat_markdown(answer)
        except PaperbotError as exc:
            log.warning("/ask: %s", exc)
            raise gr.Error(messages.error_reply(str(exc)), print_exception=False) from exc

    w = widgets
    demo.load(
        on_load,
        outputs=[w.status, w.question],
        show_progress_on=[w.chatbot],  # the big chat area, where the bar is seen
        api_visibility="private",
        concurrency_limit=None,  # every page waits on the one ingest, showing its progress
    )
    # The chat and /ask share the answer slots (UISettings.answer_slots, 1 by default): the core embeds
    # on a small CPU, where answers worked on together only compete for it.
    w.question.submit(
        on_ask,
        inputs=[w.question, w.chatbot, last_answer, generator],
        outputs=[w.chatbot, w.question, w.panel, w.status, w.cite.cited, last_answer],
        api_name="chat",
        api_visibility="undocumented",
        concurrency_id="core",
        concurrency_limit=slots,
    )
    w.generator.change(lambda choice: choice, inputs=[w.generator], outputs=[generator], api_visibility="private")
    # The chat's own trash icon empties the conversation; the panel and tick boxes must follow it.
    w.chatbot.clear(
        lambda: (markup.citations_placeholder(), gr.update(choices=[], value=[]), None),
        outputs=[w.panel, w.cite.cited, last_answer],
        api_visibility="private",
        queue=False,
    )
    gr.api(ask_markdown, api_name="ask", concurrency_id="core", concurrency_limit=slots)
