"""`paperbot ingest` (files into the store) and `paperbot serve` (the chat UI over it).

The two commands that may create a store. What ingest prints is rendered by bot.render; the
work itself is reached through bot.cli.wiring.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from bot.cli import parsing, wiring
from bot.cli.output import print_json, print_warnings


@click.command(cls=parsing.Command, short_help="add abstract files to the store")
@parsing.argument("paths", "files or folders (default: the bundled seeds)", nargs=-1, type=parsing.PATH)
@click.option("--json", "as_json", is_flag=True, help="print the summary as JSON")
@click.option("--prune", is_flag=True, help="remove papers whose sources are gone")
@click.option(
    "--rebuild",
    is_flag=True,
    help="drop every vector and embed every stored paper again (after changing the model or chunk settings)",
)
@click.option("--skip-bad", is_flag=True, help="skip bad records with a warning instead of failing the file")
@click.option("--encoding", default="utf-8", metavar="NAME", help="text encoding of the input files (default utf-8)")
@click.option(
    "--follow-symlinks",
    is_flag=True,
    help="in a folder, also read links to files and folders outside it (skipped with a warning otherwise)",
)
@click.option(
    "--where",
    "where",
    multiple=True,
    metavar="EXPR",
    help="keep only records that meet EXPR, e.g. 'categories~cs.LG' (contains), 'year>=2023', "
    "'venue=ICLR 2024' (equals); repeat it: all must hold",
)
@click.option(
    "--sentences",
    is_flag=True,
    help="also embed every abstract's sentences once and keep them, so answers need not: about as long "
    "again as the ingest, then answers on a large store are several times faster",
)
@click.pass_context
def ingest(
    ctx: click.Context,
    paths: tuple[Path, ...],
    as_json: bool,
    prune: bool,
    rebuild: bool,
    skip_bad: bool,
    encoding: str,
    follow_symlinks: bool,
    where: tuple[str, ...],
    sentences: bool,
) -> int:
    """Add abstract files (.txt, .md, .jsonl, .json, .csv) and folders to the store; unchanged
    papers are skipped, so running it again is cheap."""
    from bot.render.json import ingest_json
    from bot.render.text import ingest_line, sentences_line

    options = parsing.given(ctx)
    try:
        wiring.check_where(where)  # before anything is opened or read
    except ValueError as exc:
        raise click.UsageError(str(exc), ctx) from exc
    app = wiring.open_app(wiring.load_settings(options.store, options.chroma_url))
    report = wiring.ingest(
        app,
        list(paths) or None,
        prune=prune,
        rebuild=rebuild,
        skip_bad=skip_bad,
        encoding=encoding,
        follow_symlinks=follow_symlinks,
        where=where,
        say=lambda line: print(line, file=sys.stderr, flush=True),
    )
    kept = wiring.keep_sentences(app) if sentences else None
    print_warnings(report.warnings)
    if as_json:
        print_json(ingest_json(report, kept))
    else:
        print(ingest_line(report))
        if kept is not None:
            print(sentences_line(kept))
    return 0


@click.command(cls=parsing.Command, short_help="start the chat UI")
@click.option("--host", default=None, metavar="HOST", help="interface to bind (default 127.0.0.1)")
@click.option("--port", type=int, default=None, metavar="PORT", help="port (default 7860)")
@click.pass_context
def serve(ctx: click.Context, host: str | None, port: int | None) -> int:
    """Start the chat UI in the browser (chat, triage, reading lists) on this machine; an empty
    store is filled with the bundled seeds first."""
    options = parsing.given(ctx)
    settings = wiring.load_settings(options.store, options.chroma_url)
    wiring.serve(settings, host=host or settings.ui.host, port=port if port is not None else settings.ui.port)
    return 0
