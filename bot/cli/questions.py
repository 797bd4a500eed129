"""`paperbot search`, `ask` and `chat`: one query or a batch file, a cited answer, a conversation.

Reads query files and --history files and prints what bot.render makes of the results; the
searching and answering are the app's. Opening the app goes through bot.cli.wiring. In a batch,
a line that cannot be run gets its own {"id", "error"} line and the others go on; the command
then exits 2 (QueryError's code) saying how many failed.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from bot.cli import parsing, wiring
from bot.cli.output import print_json, print_notices, print_warnings
from bot.errors import QueryError

if TYPE_CHECKING:
    from bot.cli.wiring import App
    from bot.types import Answer

_HISTORY_HELP = (
    "earlier turns for follow-up questions: a JSON list (or JSON lines) of `ask --json` outputs, "
    'oldest first, or of {"question": ..., "answer": <ask --json output>}; the last one is followed up'
)
_QUERIES_HELP = (
    'JSONL file of {"id", "text"} ("-": standard input) to run as a batch; prints one JSON object a line, '
    '{"id", "error"} for a line that cannot be run (then exits 2)'
)


@dataclass(frozen=True)
class _Line:
    """One line of a queries file: its id and text, or why it cannot be asked."""

    qid: Any
    text: str = ""
    error: str | None = None


def _read_queries(path: Path) -> list[_Line]:
    """Every non-blank line of a queries file; a line without an id is named by its number.

    A bad line is kept with its error (the batch goes on); only a file that cannot be read raises.
    Example: '{"id": "q1", "text": "GRPO"}\\n{not json' -> [_Line('q1', 'GRPO'), _Line(2, error='not valid JSON ...')]
    """
    from bot.text import jsonl
    from bot.text.clean import replaced_note

    lines = []
    for entry in jsonl.entries(path, QueryError):
        obj = entry.value
        qid = obj.get("id", entry.number) if isinstance(obj, dict) else entry.number
        if entry.replaced:
            print_warnings([f"{path} line {entry.number}: {replaced_note(entry.replaced)}"])
        # "question" too: what `ask --json` prints and the evaluation files hold
        text = (
            next((obj[k] for k in _TEXT_KEYS if isinstance(obj.get(k), str)), None) if isinstance(obj, dict) else None
        )
        if entry.problem is not None:
            lines.append(_Line(qid, error=f"line {entry.number}: {entry.problem}; write it like {_WRITE}"))
        elif text is None or not text.strip():
            lines.append(_Line(qid, error=f'line {entry.number}: needs a non-empty "text" field, like {_WRITE}'))
        else:
            lines.append(_Line(qid, text))
    return lines


_WRITE = '{"id": "q1", "text": "..."}'
_TEXT_KEYS = ("text", "question")


def _previous(path: Path | None, app: App) -> Answer | None:
    """The last answer of a --history file, for follow-up questions (None without one)."""
    from bot.search import followup
    from bot.text import jsonl

    if path is None:
        return None
    notes: list[str] = []
    turns = jsonl.read_document(path, QueryError, f"--history {path}", "`ask --json` outputs", notes)
    print_warnings(notes)
    if not turns:
        raise QueryError(
            f"--history {path}: holds no earlier turn; give a list of `ask --json` outputs, or leave it out"
        )
    try:
        return followup.previous_answer(turns, wiring.stored_papers(app))
    except QueryError as exc:
        raise QueryError(f"--history {path}: {exc}") from exc


def _batch(app: App, asking: bool, path: Path, k: int | None, generator: str | None, previous: Answer | None) -> int:
    """Each line of a --queries file searched or answered, one JSON line out per line in, in order.

    A line that cannot be asked gets {"id", "error"} instead, and the others go on; then the
    command ends with a QueryError (exit 2) saying how many lines failed.
    """
    from bot.render.json import answer_json, search_json

    lines = _read_queries(path)
    if not lines:  # an empty file said nothing and exited 0, as if every query had been answered
        raise QueryError(f'{path}: no queries in it; write one JSON object a line, like {{"id": "q1", "text": "..."}}')
    # An empty batch raises what is wrong with the command itself (--k 0, an unknown generator), before
    # any line: said once, not on every line.
    if asking:
        app.ask_many([], generator, previous)
    else:
        app.search_many([], k)

    def run(texts: list[str]) -> list[Any]:
        return app.ask_many(texts, generator, previous) if asking else app.search_many(texts, k)

    good = [at for at, line in enumerate(lines) if line.error is None]
    try:
        done: dict[int, Any] = dict(zip(good, run([lines[at].text for at in good]), strict=True))
    except QueryError:
        # Some line the app refuses ('summarize [99]' with no [99]): ask each alone to find which.
        done = {}
        for at in good:
            try:
                (done[at],) = run([lines[at].text])
            except QueryError as exc:
                done[at] = exc
    if asking:
        print_notices(a for a in done.values() if not isinstance(a, QueryError))
    failed = 0
    for at, line in enumerate(lines):
        result: Any = done.get(at)
        if line.error is not None or isinstance(result, QueryError):
            failed += 1
            print_json({"id": line.qid, "error": line.error or str(result)})
        else:
            print_json({"id": line.qid, **(answer_json(result) if asking else search_json(result))})
    if failed:
        raise QueryError(
            f"{path}: {failed} of {len(lines)} lines could not be {'answered' if asking else 'searched'}; "
            'their output lines hold an "error" saying why'
        )
    return 0


def _run(
    ctx: click.Context,
    query: str | None,
    queries: Path | None,
    as_json: bool,
    k: int | None = None,
    generator: str | None = None,
    history: Path | None = None,
) -> int:
    """search or ask (ctx names which): one query, or a batch file with one JSON line out per query."""
    from bot.render.json import answer_json, search_json
    from bot.render.text import answer_text, search_text

    asking = ctx.command.name == "ask"
    options = parsing.given(ctx)
    if (query is None) == (queries is None):
        raise QueryError(f"give either a {'question' if asking else 'query'} or --queries FILE.jsonl")
    settings = wiring.load_settings(options.store, options.chroma_url)
    wiring.require_store(settings)
    app = wiring.open_app(settings)
    previous = _previous(history, app) if asking else None
    if queries is not None:
        return _batch(app, asking, queries, k, generator, previous)
    assert query is not None
    if asking:
        answer = app.ask(query, generator, previous)
        print_notices([answer])
        print(json.dumps(answer_json(answer), ensure_ascii=False) if as_json else answer_text(answer))
    else:
        result = app.search(query, k)
        print(json.dumps(search_json(result), ensure_ascii=False) if as_json else search_text(result))
    return 0


@click.command(cls=parsing.Command, short_help="find the papers about a query")
@parsing.argument("query", "the query (or give --queries FILE)", required=False)
@click.option("--queries", type=parsing.PATH, metavar="FILE", help=_QUERIES_HELP)
@click.option("--json", "as_json", is_flag=True, help="print JSON")
@click.option("--k", type=int, default=None, metavar="N", help="number of papers (default 10)")
@click.pass_context
def search(ctx: click.Context, query: str | None, queries: Path | None, as_json: bool, k: int | None) -> int:
    """Find the papers about a query, best first, each with why it was found."""
    return _run(ctx, query, queries, as_json, k=k)


@click.command(cls=parsing.Command, short_help="get a cited answer")
@parsing.argument("query", "the question (or give --queries FILE)", required=False)
@click.option("--queries", type=parsing.PATH, metavar="FILE", help=_QUERIES_HELP)
@click.option("--json", "as_json", is_flag=True, help="print JSON")
@click.option(
    "--generator",
    type=click.Choice(["extractive", "openai", "llamacpp"]),
    default=None,
    help="who writes the answer: the extractive composer (default), an OpenAI-compatible endpoint "
    "or a local GGUF model (env PAPERBOT_GENERATOR__BACKEND; needs the llm extra)",
)
@click.option("--history", type=parsing.PATH, default=None, metavar="FILE", help=_HISTORY_HELP)
@click.pass_context
def ask(
    ctx: click.Context,
    query: str | None,
    queries: Path | None,
    as_json: bool,
    generator: str | None,
    history: Path | None,
) -> int:
    """Answer a question from the abstracts, every sentence citing the papers it comes from; a
    follow-up ('compare [1] and [3]') refers to the last answer of --history."""
    return _run(ctx, query, queries, as_json, generator=generator, history=history)


@click.command(
    cls=parsing.Command,
    short_help="an interactive session: ask, then follow up ('compare [1] and [3]'); quit or Ctrl+D ends it",
)
@click.option("--history", type=parsing.PATH, default=None, metavar="FILE", help=_HISTORY_HELP)
@click.option("--json", "as_json", is_flag=True, help="print each answer as one `ask --json` line")
@click.pass_context
def chat(ctx: click.Context, history: Path | None, as_json: bool) -> int:
    """Read questions from stdin, one a line, answering each as a follow-up of the one before;
    quit, exit or Ctrl+D ends the session."""
    from bot.render.json import answer_json
    from bot.render.text import answer_text

    options = parsing.given(ctx)
    settings = wiring.load_settings(options.store, options.chroma_url)
    wiring.require_store(settings)
    app = wiring.open_app(settings)
    previous = _previous(history, app)
    interactive = sys.stdin.isatty()
    if interactive:
        print("Ask about the abstracts; follow up with 'compare [1] and [2]', 'tell me more about [3]'. quit ends.")
    while True:
        if interactive:
            print("> ", end="", flush=True)
        line = parsing.read_stdin()
        if not line or line.strip().lower() in ("quit", "exit", ":q"):
            return 0
        if not line.strip():
            continue
        try:
            answer = app.ask(line.strip(), None, previous)
        except QueryError as exc:  # a bad question ends the turn, not the session
            print(f"paperbot: error: {exc}", file=sys.stderr)
            continue
        print_notices([answer])
        if as_json:
            print_json(answer_json(answer))
        else:
            print(answer_text(answer) + "\n", flush=True)
        previous = answer
