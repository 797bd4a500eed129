"""The chat UI's words: its status line, progress captions and polite replies to errors. Pure
functions, kept out of the UI modules so they are tested without a browser.
"""

from __future__ import annotations

from bot.types import IngestReport

EMPTY_QUESTION_REPLY = (
    "Please type a question about the abstracts first, for example: "
    "*How can reinforcement learning enforce safety constraints at every state?*"
)


def error_reply(message: str) -> str:
    """A core error as a chat message, never a traceback.

    Example: error_reply("the store is empty")
        -> 'Sorry, I could not answer that: the store is empty'
    """
    return f"Sorry, I could not answer that: {message}"


def store_status(count: int, loading: bool = False, report: IngestReport | None = None) -> str:
    """The UI's one-line status of the store, as markdown.

    Example: store_status(53) -> '**53** papers in the store.'
    """
    if loading:
        return "The store is empty: loading the bundled abstracts (first run only)…"
    noun = "paper" if count == 1 else "papers"
    line = f"**{count}** {noun} in the store."
    if count == 0:
        line += " Run `paperbot ingest FILES` to add abstracts."
    if report is not None:
        # Only the seed load reports here, so say where the papers came from.
        added, seconds = report.added, report.seconds
        line += f" The bundled abstracts were just loaded ({added} added in {seconds:.1f} s)."
    return line


def seed_progress(done: int, total: int) -> str:
    """The progress bar's caption while the seeds are embedded.

    Example: seed_progress(12, 53) -> 'Embedding the bundled abstracts: 12 of 53'
    """
    if total <= 0:
        return "Reading the bundled abstracts and loading the embedding model…"
    return f"Embedding the bundled abstracts: {done} of {total}"
