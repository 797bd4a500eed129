"""The `paperbot` command: its commands in the order `--help` lists them, and `main`, the one place
that turns errors into messages and exit codes.

Exit codes: 0 done; PaperbotError.exit_code for paperbot's own errors (bot/errors.py); 2 for a
command line that cannot be read; 130 when interrupted. A closed stdout (`| head`) ends quietly.
The commands are in the sibling modules; this module runs none of the core itself. Everything
the command writes goes through `printable`, so stored text cannot drive the terminal, and lone
surrogates are written as JSON escapes, so that writing one never fails.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

import click

from bot.cli import evaluate, ingest_serve, library, parsing, questions
from bot.errors import PaperbotError
from bot.render.text import printable
from bot.text.clean import json_escaped


@click.group(
    "paperbot",
    cls=parsing.Group,
    invoke_without_command=True,  # so that no command at all is a usage error in paperbot's words
    subcommand_metavar="COMMAND [ARGS]...",
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.pass_context
def paperbot(ctx: click.Context) -> None:
    """Ask questions of a corpus of paper abstracts and get cited answers.

    The global options may come before or after the command, e.g. `paperbot search "GRPO" --store DIR`.
    """
    if ctx.invoked_subcommand is None:
        names = ", ".join(paperbot.list_commands(ctx))
        raise click.UsageError(f"give a command: {names} (`paperbot --help` says what each does)", ctx)


for _command in (
    ingest_serve.ingest,
    questions.search,
    questions.ask,
    evaluate.evaluate,
    questions.chat,
    ingest_serve.serve,
    library.triage,
    library.similar,
    library.reading_list,
    library.export,
):
    paperbot.add_command(_command)


class _Printable:
    """A text stream that writes `printable` text to `stream`: the one way out to the terminal."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        # A file name that is not UTF-8 holds lone surrogates, which a UTF-8 stream refuses to write.
        return self._stream.write(printable(json_escaped(text)))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `paperbot` console script and `python -m bot`; returns the exit code."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Printable(out), _Printable(err)  # type: ignore[assignment]
    try:
        return _run(sys.argv[1:] if argv is None else list(argv))
    finally:
        sys.stdout, sys.stderr = out, err


def _run(args: list[str]) -> int:
    try:
        # Not click's standalone main: it would print "Aborted!" on Ctrl+C and exit 1 on a closed pipe.
        with paperbot.make_context("paperbot", args) as ctx:
            code = paperbot.invoke(ctx)
        return code if isinstance(code, int) else 0
    except click.exceptions.Exit as done:  # --help
        return done.exit_code
    except click.UsageError as exc:
        print(parsing.usage_error(exc), file=sys.stderr)
        return exc.exit_code
    except PaperbotError as exc:
        print(f"paperbot: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): nothing left to say, and not an error.
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("paperbot: interrupted; what was already written is kept", file=sys.stderr)
        return 130
