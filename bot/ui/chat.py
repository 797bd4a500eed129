"""One chat exchange as the chat shows it: a streamed answer turned into the growing history, core
errors into polite replies, and the finished answer into its bubble and citation panel. No
gradio here; it takes the core's ask callables and is tested without a browser.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from bot.errors import PaperbotError
from bot.render import html as markup
from bot.render import messages
from bot.render.markdown import escape, inert
from bot.types import Answer

log = logging.getLogger(__name__)


Ask = Callable[..., Answer]  # ask(question) or, for a follow-up, ask(question, previous=last answer)


# ask_stream(question, generator=..., previous=...): text pieces as written, then the checked Answer
AskStream = Callable[..., Iterator[str | Answer]]


Message = dict[str, Any]  # one Gradio chat message: {"role": ..., "content": ...}


# The answer paths the chat's "Answer with" menu offers; bot.answer.generate.BACKENDS (a test keeps them equal).
GENERATORS = ("extractive", "openai", "llamacpp")


@dataclass(frozen=True)
class Turn:
    """One exchange's outcome: the new chat history and the citation panel to show."""

    history: list[Message]
    panel: str | None  # None keeps the panel of the latest real answer
    answer: Answer | None = None  # the answer shown; None when the turn made none


BUG_REPLY = messages.error_reply("something went wrong in paperbot; the server log has details")


def chat_stream(
    question: str,
    history: list[Message],
    ask_stream: AskStream,
    previous: Answer | None = None,
    generator: str | None = None,
) -> Iterator[Turn]:
    """Append `question` and its reply to `history`, yielding the reply as it grows.

    Each streamed piece yields the plain text so far (panel None); the last Turn holds the checked
    answer's markdown, which replaces that text, with its citation panel. Core errors, before or
    mid-stream, end it with a polite reply instead. `previous`, the last answer shown, lets
    "compare [1] and [3]" follow it up (see bot.search.followup); `generator` picks who writes the answer.
    Example: pieces 'A [1].', ' B [2].' -> Turns showing 'A [1].', 'A [1]. B [2].', then the answer
    """
    question = (question or "").strip()
    if not question:
        yield Turn([*history, assistant_message(messages.EMPTY_QUESTION_REPLY)], None)
        return
    asked = [*history, user_message(question)]
    options: dict[str, Any] = {"previous": previous} if previous is not None else {}
    if generator is not None:
        options["generator"] = generator
    written, answer = "", None
    try:
        for item in ask_stream(question, **options):
            if isinstance(item, Answer):
                answer = item
                break
            written += item
            yield Turn([*asked, assistant_message(inert(written))], None)
    except PaperbotError as exc:
        yield Turn([*asked, assistant_message(messages.error_reply(str(exc)))], None)
        return
    except Exception:  # the UI boundary: a bug must not show a traceback to the reader
        log.exception("answering %r failed", question)
        yield Turn([*asked, assistant_message(BUG_REPLY)], None)
        return
    if answer is None:  # a stream must end with its Answer; the reader is not left with unchecked text
        log.error("answering %r ended without an Answer", question)
        yield Turn([*asked, assistant_message(BUG_REPLY)], None)
        return
    yield Turn([*asked, assistant_message(reply_markdown(answer))], markup.citations_html(answer), answer)


def throttled(
    turns: Iterator[Turn], every: float, clock: Callable[[], float] = time.monotonic
) -> Iterator[tuple[Turn, bool]]:
    """`turns` paired with whether each is the last, with the reply so far at most once per `every`
    seconds, counted from the first piece: each update goes to the browser whole, so the pieces of
    an extractive answer, all written before the first one arrives, show once, as the finished
    answer, and a model's tokens a few at a time. The last Turn always comes.
    Example: pieces at 0.00, 0.01, 0.02 s, the answer at 0.03 s, every 0.1 -> only (answer Turn, True)
    """
    since, latest = None, None
    for turn in turns:
        now = clock()
        if since is None:
            since = now
        elif turn.answer is None and turn.panel is None and now - since >= every:
            yield turn, False
            since = now
        latest = turn
    if latest is not None:
        yield latest, True


def chat_turn(question: str, history: list[Message], ask: Ask, previous: Answer | None = None) -> Turn:
    """Append `question` and its finished reply to `history`; core errors become polite replies."""
    *_, turn = chat_stream(question, history, whole_answer(ask), previous)
    return turn


def whole_answer(ask: Ask) -> AskStream:
    """`ask` as an answer stream of one item: the finished Answer, with no pieces before it."""

    def stream(question: str, **options: Any) -> Iterator[str | Answer]:
        yield ask(question, **options)

    return stream


def user_message(text: str) -> Message:
    """Example: user_message("Why?") -> {'role': 'user', 'content': 'Why?'}"""
    return {"role": "user", "content": text}


def assistant_message(text: str) -> Message:
    """Example: assistant_message("Because [1].") -> {'role': 'assistant', 'content': 'Because [1].'}"""
    return {"role": "assistant", "content": text}


def reply_markdown(answer: Answer) -> str:
    """The finished chat reply: why a requested model did not write it, if it did not, then the answer.

    Example: notice "The openai language model did not answer: ..." -> '*⚠ The openai ...*\n\n' + the answer
    """
    body = markup.chat_markdown(answer)
    return f"*⚠ {escape(answer.notice)}*\n\n{body}" if answer.notice else body


def citation_choices(answer: Answer) -> list[tuple[str, str]]:
    """The cited papers of an answer as checkbox choices. Example: -> [('[1] ASCPO', 'p3f9a...')]"""
    return [(f"[{c.n}] {c.paper.label}", c.paper.paper_id) for c in answer.citations]
