"""`paperbot triage`, `similar`, `list` (show, add, remove, delete) and `export`: working with the
whole library rather than one question.

Parses and prints; the triage, the similarity, the reading lists and the export formats are the
app's. Opening the app goes through bot.cli.wiring.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from bot.cli import parsing, wiring
from bot.errors import QueryError

if TYPE_CHECKING:
    from bot.cli.wiring import App


def _open(ctx: click.Context) -> App:
    """The app over the store the global options name, which must already exist (these only read)."""
    options = parsing.given(ctx)
    settings = wiring.load_settings(options.store, options.chroma_url)
    wiring.require_store(settings)
    return wiring.open_app(settings)


@click.command(cls=parsing.Command, short_help="find every paper about a topic, grouped into themes")
@parsing.argument("topic", 'the topic, e.g. "safe reinforcement learning"')
@click.option("--json", "as_json", is_flag=True, help="print JSON")
@click.pass_context
def triage(ctx: click.Context, topic: str, as_json: bool) -> int:
    """Find every paper about a topic, however many, grouped into themes."""
    from bot.render.json import triage_json
    from bot.render.text import triage_text

    result = _open(ctx).triage(topic)
    print(json.dumps(triage_json(result), ensure_ascii=False) if as_json else triage_text(result))
    return 0


@click.command(cls=parsing.Command, short_help="papers like a stored paper or a pasted abstract")
@parsing.argument(
    "paper", "a stored paper: its paper_id, an id prefix (6+ characters), label, title or source id", required=False
)
@click.option("--text", metavar="TEXT", help="an abstract to compare instead of a stored paper ('-' reads stdin)")
@click.option("--k", type=int, default=None, metavar="N", help="number of papers (default 10)")
@click.option("--json", "as_json", is_flag=True, help="print JSON")
@click.pass_context
def similar(ctx: click.Context, paper: str | None, text: str | None, k: int | None, as_json: bool) -> int:
    """Papers like a stored paper, or like an abstract given with --text, most similar first."""
    from bot.render.json import similar_json
    from bot.render.text import similar_text

    app = _open(ctx)
    found = app.similar(paper, parsing.read_stdin(whole=True) if text == "-" else text, k)
    print(json.dumps(similar_json(found), ensure_ascii=False) if as_json else similar_text(found))
    return 0


@click.group(
    "list",
    cls=parsing.Group,
    invoke_without_command=True,
    subcommand_metavar="[ACTION [ARGS]...]",
    short_help="show and edit reading lists kept in the store",
)
@click.option("--json", "as_json", is_flag=True, help="print JSON")
@click.pass_context
def reading_list(ctx: click.Context, as_json: bool) -> int:
    """Reading lists kept in the store. With no ACTION, shows every list and its size."""
    if ctx.invoked_subcommand is not None:
        return 0  # the action does the work, once its own options are read
    from bot.render.text import list_names_text

    names = _open(ctx).reading_lists().names()
    if as_json:
        print(json.dumps({"lists": [{"name": n, "papers": c} for n, c in names]}, ensure_ascii=False))
    else:
        print(list_names_text(names))
    return 0


def _list_action(
    ctx: click.Context, name: str, as_json: bool, papers: tuple[str, ...] = (), topic: str | None = None
) -> int:
    """show, add, remove or delete (the action is ctx's command); --json before or after the action."""
    from bot.render.json import reading_list_json
    from bot.render.text import reading_list_text
    from bot.text.wording import plural

    action = ctx.command.name
    as_json = as_json or bool(ctx.parent and ctx.parent.params.get("as_json"))
    app = _open(ctx)
    if action == "delete":
        app.reading_lists().delete(name)
        print(json.dumps({"name": name, "deleted": True}) if as_json else f"deleted the list {name!r}")
        return 0
    changed = 0
    if action == "add":
        refs = list(papers)
        if topic:
            refs += [p.paper.paper_id for p in app.triage(topic).papers]
        if not refs and topic:
            raise QueryError(
                f"no paper is about {topic.strip()!r}, so nothing was added; "
                "`paperbot triage TOPIC` shows the papers that came nearest"
            )
        if not refs:
            raise QueryError("name papers to add, or --topic TOPIC to add a triage's papers")
        changed = app.add_to_list(name, refs)
    elif action == "remove":
        changed = app.remove_from_list(name, list(papers))
    reading = app.reading_list(name.strip())
    verb = "added" if action == "add" else "removed"
    if as_json:
        data = reading_list_json(reading)
        if action != "show":
            data[verb] = changed
        print(json.dumps(data, ensure_ascii=False))
    else:
        if action != "show":
            print(f"{verb} {plural(changed)}")
        print(reading_list_text(reading))
    return 0


_JSON = click.option("--json", "as_json", is_flag=True, help="print JSON")


@reading_list.command(short_help="the papers of a list")
@parsing.argument("name", "the list")
@_JSON
@click.pass_context
def show(ctx: click.Context, name: str, as_json: bool) -> int:
    """The papers of a reading list."""
    return _list_action(ctx, name, as_json)


@reading_list.command(short_help="add papers to a list (created if new)")
@parsing.argument("name", "the list")
@parsing.argument("papers", "paper_ids, labels or source ids", nargs=-1)
@click.option("--topic", metavar="TOPIC", help="also add every paper `paperbot triage TOPIC` finds")
@_JSON
@click.pass_context
def add(ctx: click.Context, name: str, papers: tuple[str, ...], topic: str | None, as_json: bool) -> int:
    """Add papers to a reading list, which is created if new."""
    return _list_action(ctx, name, as_json, papers, topic)


@reading_list.command(short_help="take papers off a list")
@parsing.argument("name", "the list")
@parsing.argument("papers", "paper_ids or labels", nargs=-1, required=True)
@_JSON
@click.pass_context
def remove(ctx: click.Context, name: str, papers: tuple[str, ...], as_json: bool) -> int:
    """Take papers off a reading list."""
    return _list_action(ctx, name, as_json, papers)


@reading_list.command(short_help="delete a list (its papers stay in the store)")
@parsing.argument("name", "the list")
@_JSON
@click.pass_context
def delete(ctx: click.Context, name: str, as_json: bool) -> int:
    """Delete a reading list; its papers stay in the store."""
    return _list_action(ctx, name, as_json)


@click.command(cls=parsing.Command, short_help="write papers as BibTeX, RIS, CSV or Markdown")
@click.option("--list", "list_name", metavar="NAME", help="the papers of this reading list")
@click.option("--topic", metavar="TOPIC", help="the papers `paperbot triage TOPIC` finds")
@click.option("--papers", metavar="IDS", help="comma-separated paper_ids or labels")
@click.option(
    "--format", "fmt", required=True, type=click.Choice(["bibtex", "ris", "csv", "markdown"]), help="output format"
)
@click.option(
    "-o", "--output", type=parsing.PATH, default=None, metavar="FILE", help="write to this file (default: print)"
)
@click.pass_context
def export(
    ctx: click.Context, list_name: str | None, topic: str | None, papers: str | None, fmt: str, output: Path | None
) -> int:
    """Write the papers of a reading list, a topic or a set of ids as BibTeX, RIS, CSV or Markdown;
    give exactly one of --list, --topic and --papers."""
    sources = [f"--{n}" for n, v in (("list", list_name), ("topic", topic), ("papers", papers)) if v is not None]
    if len(sources) != 1:
        problem = "give one of" if not sources else f"{' and '.join(sources)} exclude each other; give only one of"
        raise click.UsageError(f"{problem} --list NAME, --topic TOPIC or --papers IDS", ctx)
    app = _open(ctx)
    refs = [r for r in papers.split(",") if r.strip()] if papers is not None else None
    if refs is not None and not refs:
        raise QueryError("--papers needs at least one paper_id or label, e.g. --papers Cal-SPI,p041add1ca86b")
    text = app.export(fmt, list_name=list_name, topic=topic, refs=refs)
    if output is None:
        sys.stdout.write(text)
        return 0
    try:
        # newline="" keeps the CRLF line ends that RIS and CSV call for
        with output.open("w", encoding="utf-8", newline="") as out:
            out.write(text)
    except OSError as exc:
        raise QueryError(f"-o {output}: cannot write ({exc.strerror}); choose another path") from exc
    print(f"wrote {output} ({fmt})", file=sys.stderr)
    return 0
