"""`paperbot search`, `ask` and `chat`: one query or a batch file, a cited answer, a conversation.

Reads query files and --history files and prints what bot.render makes of the results; the
searching and answering are the app's. Opening the app goes through bot.cli.wiring.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from bot.cli import parsing, wiring
from bot.cli.output import print_json, print_notices
from bot.errors import QueryError

if TYPE_CHECKING:
    from bot.cli.wiring import App
    from bot.types import Answer

_HISTORY_HELP = (
    "earlier turns for follow-up questions: a JSON list (or JSON lines) of `ask --json` outputs, "
    'oldest first, or of {"question": ..., "answer": <ask --json output>}; the last one is followed up'
)
_QUERIES_HELP = 'JSONL file of {"id", "text"} to run as a batch; prints one JSON object a line'


def _read_queries(path: Path) -> Iterator[tuple[Any, str]]:
    """(id, text) of each line of a queries file; a line without an id is named by its number."""
    from bot.text import jsonl

    for number, obj in jsonl.read(path, QueryError, 'write {"id": ..., "text": ...}'):
        if not isinstance(obj, dict) or not isinstance(obj.get("text"), str) or not obj["text"].strip():
            raise QueryError(
                f'{path} line {number}: needs a non-empty "text" field, like {{"id": "q1", "text": "..."}}'
            )
        yield obj.get("id", number), obj["text"]


def _previous(path: Path | None, app: App) -> Answer | None:
    """The last answer of a --history file, for follow-up questions (None without one)."""
    from bot.search import followup
    from bot.text import jsonl

    if path is None:
        return None
    turns = jsonl.read_document(path, QueryError, f"--history {path}", "`ask --json` outputs")
    if not turns:
        raise QueryError(
            f"--history {path}: holds no earlier turn; give a list of `ask --json` outputs, or leave it out"
        )
    try:
        return followup.previous_answer(turns, wiring.stored_papers(app))
    except QueryError as exc:
        raise QueryError(f"--history {path}: {exc}") from exc


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
    settings = wiring.load_settings(options.store, options.chroma_url)
    wiring.require_store(settings)
    app = wiring.open_app(settings)
    previous = _previous(history, app) if asking else None
    if (query is None) == (queries is None):
        raise QueryError(f"give either a {'question' if asking else 'query'} or --queries FILE.jsonl")
    if queries is not None:
        batch = list(_read_queries(queries))
        texts = [t for _, t in batch]
        if asking:
            answers = app.ask_many(texts, generator, previous)
            print_notices(answers)
            outputs = [answer_json(a) for a in answers]
        else:
            outputs = [search_json(r) for r in app.search_many(texts, k)]
        for (qid, _), out in zip(batch, outputs, strict=True):
            print_json({"id": qid, **out})
        return 0
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
        line = sys.stdin.readline()
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
