"""The `paperbot` command line (click), the only place besides the UI that turns errors into
messages and exit codes. One module per group of commands:

    program.py       the `paperbot` group, its commands in order, errors -> messages and exit codes
    parsing.py       global options before or after the command, `usage:` lines, "did you mean"
    wiring.py        the only calls that build or open the core (settings, app, ingest, eval, serve)
    output.py        JSON on stdout; notices and warnings on stderr
    ingest_serve.py  ingest, serve
    questions.py     search, ask, chat
    library.py       triage, similar, list (show, add, remove, delete), export
    evaluate.py      eval

Importing it loads click and these modules only: the core (torch, chromadb, gradio) is imported
when a command runs, so `paperbot --help` stays quick.
"""

from bot.cli.program import main

__all__ = ["main"]
