"""The command line as a user types it: global options before or after the command, prefixes of long
options, "did you mean" for misspellings, usage errors and every command's --help.

Nothing here opens a store: `wiring.load_settings` is replaced by a spy that records what the command
line asked for and stops the command there.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import pytest

from bot.cli import parsing, program, wiring
from bot.errors import StoreError

# Every command and the options and arguments it had under argparse: none may go missing.
CONTRACT: dict[tuple[str, ...], list[str]] = {
    ("ingest",): ["[PATHS]...", "--json", "--prune", "--rebuild", "--skip-bad", "--encoding"],
    ("search",): ["[QUERY]", "--queries", "--json", "--k"],
    ("ask",): ["[QUERY]", "--queries", "--json", "--generator", "--history"],
    ("eval",): [
        "PATH",
        "--split",
        "--eval-store",
        "--offtopic",
        "--answers",
        "--judged",
        "--limit",
        "--json",
        "--report",
    ],
    ("chat",): ["--history", "--json"],
    ("serve",): ["--host", "--port"],
    ("triage",): ["TOPIC", "--json"],
    ("similar",): ["[PAPER]", "--text", "--k", "--json"],
    ("list",): ["--json", "show", "add", "remove", "delete"],
    ("list", "show"): ["NAME", "--json"],
    ("list", "add"): ["NAME", "[PAPERS]...", "--topic", "--json"],
    ("list", "remove"): ["NAME", "PAPERS...", "--json"],
    ("list", "delete"): ["NAME", "--json"],
    ("export",): ["--list", "--topic", "--papers", "--format", "-o, --output"],
}
GLOBAL = ["--store DIR", "--chroma-url URL", "-v, --verbose", "-h, --help"]


class Stop(StoreError):
    """Raised by the spy once the command has said which settings it wants."""


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Path | None, str | None, bool]]:
    """(store, chroma_url, verbose) of each command run, which then stops with exit code 3."""
    seen: list[tuple[Path | None, str | None, bool]] = []
    levels: list[int] = []
    monkeypatch.setattr("logging.basicConfig", lambda **kw: levels.append(kw["level"]))

    def spy(store: Path | None, chroma_url: str | None) -> Any:
        seen.append((store, chroma_url, levels[-1] == 20))  # logging.INFO: -v was given
        raise Stop("stopped by the test")

    monkeypatch.setattr(wiring, "load_settings", spy)
    return seen


@pytest.mark.parametrize(
    "line",
    [
        ["--store", "A", "--chroma-url", "http://h:1", "-v", "search", "x"],
        ["search", "x", "--store", "A", "--chroma-url", "http://h:1", "-v"],
        ["search", "--store", "A", "x", "--verbose", "--chroma-url", "http://h:1"],
        ["--store", "A", "list", "--chroma-url", "http://h:1", "show", "to read", "-v"],
        ["list", "add", "to read", "p1", "--store", "A", "-v", "--chroma-url", "http://h:1"],
        ["export", "--list", "x", "--format", "ris", "--store", "A", "-v", "--chroma-url", "http://h:1"],
        ["ingest", "seeds/", "--store", "A", "-v", "--chroma-url", "http://h:1"],
        ["eval", "nowhere.jsonl", "--chroma-url", "http://h:1", "-v", "--store", "A"],
    ],
    ids=["before", "after", "between", "list-three-levels", "list-action", "export", "ingest", "eval"],
)
def test_global_options_before_or_after_the_command(
    line: list[str], asked: list[Any], run_cli: Callable[..., Any]
) -> None:
    run = run_cli(*line)
    assert (run.code, run.out, run.err) == (3, "", "paperbot: error: stopped by the test\n")
    assert asked == [(Path("A"), "http://h:1", True)]


def test_the_global_option_given_last_wins_and_unset_ones_leave_the_settings_alone(
    asked: list[Any], run_cli: Callable[..., Any]
) -> None:
    run_cli("--store", "first", "search", "x", "--store", "second")
    run_cli("list", "--store", "first", "show", "n", "--store", "second")
    run_cli("search", "x")  # neither given: PAPERBOT_STORE or the default decide, in the settings
    assert asked == [(Path("second"), None, False), (Path("second"), None, False), (None, None, False)]


def test_the_environment_store_holds_unless_the_option_is_given(
    tmp_path: Path, run_cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """PAPERBOT_STORE is read by the settings, not by click, so --store (before or after) overrides it."""
    monkeypatch.setenv("PAPERBOT_STORE", str(tmp_path / "from-env"))
    run = run_cli("search", "x")
    assert run.code == 3 and run.err.startswith(f"paperbot: error: no store at {tmp_path / 'from-env'}:")
    run = run_cli("search", "x", "--store", tmp_path / "from-option")
    assert run.code == 3 and run.err.startswith(f"paperbot: error: no store at {tmp_path / 'from-option'}:")


@pytest.mark.parametrize(
    ("line", "store"),
    [
        (["search", "x", "--sto", "A"], "A"),
        (["search", "x", "--st=A"], "A"),
        (["--sto", "A", "triage", "x"], "A"),
        (["similar", "--tex", "--store", "--store", "A"], "A"),  # --text's value is taken as is, not expanded
    ],
)
def test_an_unambiguous_prefix_of_a_long_option_works_as_with_argparse(
    line: list[str], store: str, asked: list[Any], run_cli: Callable[..., Any]
) -> None:
    assert run_cli(*line).code == 3
    assert asked[0][0] == Path(store)


def _usage_error(run: Any, command: str) -> str:
    """The error line of a usage error, after checking what surrounds it."""
    assert (run.code, run.out) == (2, ""), run.err
    usage, error, *rest = run.err.splitlines()
    assert usage.startswith(f"usage: {command} ")
    assert error.startswith("paperbot: error: ")
    assert rest == []
    return error.removeprefix("paperbot: error: ")


@pytest.mark.parametrize(
    ("line", "command", "message"),
    [
        (["serach", "x"], "paperbot", "no command 'serach'; did you mean 'search'?"),
        (["injest"], "paperbot", "no command 'injest'; did you mean 'ingest' or 'list'?"),
        (["list", "shwo", "x"], "paperbot list", "no command 'shwo' in `paperbot list`; did you mean 'show'?"),
        (
            ["frobnicate"],
            "paperbot",
            "no command 'frobnicate'; choose from ingest, search, ask, eval, chat, serve, triage, similar, list, "
            "export",
        ),
    ],
)
def test_a_misspelt_command_is_named_with_the_nearest(
    line: list[str], command: str, message: str, asked: list[Any], run_cli: Callable[..., Any]
) -> None:
    assert _usage_error(run_cli(*line), command) == message
    assert asked == []


@pytest.mark.parametrize(
    ("line", "command", "message"),
    [
        (
            ["search", "--jsno", "x"],
            "paperbot search",
            "no option '--jsno' in `paperbot search`; did you mean '--json'?",
        ),
        (["ask", "x", "--histroy", "h.json"], "paperbot ask", "did you mean '--history'?"),
        (["search", "--kk", "3", "x"], "paperbot search", "no option '--kk' in `paperbot search`; did you mean '--k'?"),
        (["ingest", "--stroe", "A"], "paperbot ingest", "did you mean '--store'?"),
        (["list", "add", "l", "p", "--topci", "t"], "paperbot list add", "did you mean '--topic'?"),
        (
            ["search", "--zzz", "x"],
            "paperbot search",
            "no option '--zzz' in `paperbot search`; `paperbot search --help`",
        ),
        (  # found by a new user: a question starting with a minus sign
            ["ask", "-1 reward in RLVR?"],
            "paperbot ask",
            "no option '-1' in `paperbot ask`; to ask or search for text starting with '-', put `--` before it: "
            '`paperbot ask -- "-1 ..."`',
        ),
        (  # and one the shell split into words
            ["ask", "What", "is", "GRPO"],
            "paperbot ask",
            "got unexpected extra arguments (is GRPO); put a question of several words in quotes: "
            '`paperbot ask "What is GRPO?"`',
        ),
        (
            ["search", "x", "--generator", "openai"],
            "paperbot search",
            "no option '--generator' in `paperbot search`; it is an option of `paperbot ask`",
        ),
        (
            ["--json", "search", "x"],
            "paperbot",
            "it is an option of `paperbot ingest`, `paperbot search`, `paperbot ask`, 9 more; "
            "a command's options go after its name",
        ),
    ],
)
def test_a_misspelt_option_is_named_with_the_nearest(
    line: list[str], command: str, message: str, asked: list[Any], run_cli: Callable[..., Any]
) -> None:
    assert message in _usage_error(run_cli(*line), command)
    assert asked == []


@pytest.mark.parametrize(
    ("line", "command", "message"),
    [
        ([], "paperbot", "give a command: ingest, search, ask, eval, chat, serve, triage, similar, list, export"),
        (["-v"], "paperbot", "give a command: "),
        (["search", "x", "--k", "abc"], "paperbot search", "invalid value for '--k': 'abc' is not a valid integer"),
        (["serve", "--port", "high"], "paperbot serve", "invalid value for '--port'"),
        (["ask", "x", "--generator", "gpt"], "paperbot ask", "invalid value for '--generator': 'gpt' is not one of"),
        (["eval"], "paperbot eval", "missing argument 'PATH'"),
        (["triage"], "paperbot triage", "missing argument 'TOPIC'"),
        (["list", "remove", "to read"], "paperbot list remove", "missing argument 'PAPERS...'"),
        (["search", "x", "y"], "paperbot search", "got unexpected extra argument (y)"),
        (["search", "x", "--json=yes"], "paperbot search", "option '--json' does not take a value"),
        (["search", "x", "--k"], "paperbot search", "option '--k' requires an argument"),
        (
            ["ingest", "--s"],
            "paperbot ingest",
            "option --s is ambiguous: it could be --sentences or --skip-bad or --store",
        ),
        (
            ["export", "--list", "l"],
            "paperbot export",
            "missing option '--format'; choose from bibtex, ris, csv, markdown",
        ),
        (["export", "--format", "ris"], "paperbot export", "give one of --list NAME, --topic TOPIC or --papers IDS"),
        (
            ["export", "--list", "l", "--papers", "p", "--format", "ris"],
            "paperbot export",
            "--list and --papers exclude each other; give only one of --list NAME, --topic TOPIC or --papers IDS",
        ),
        (["export", "--list", "l", "--format", "xml"], "paperbot export", "invalid value for '--format': 'xml'"),
    ],
)
def test_a_usage_error_exits_2_with_the_usage_line_and_a_message(
    line: list[str], command: str, message: str, asked: list[Any], run_cli: Callable[..., Any]
) -> None:
    assert _usage_error(run_cli(*line), command).startswith(message)
    assert asked == []


def _commands(group: click.Group, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    ctx = click.Context(group)
    found = []
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        found.append((*path, name))
        if isinstance(command, click.Group):
            found += _commands(command, (*path, name))
    return found


def test_every_command_of_the_contract_is_there() -> None:
    assert _commands(program.paperbot) == list(CONTRACT)


@pytest.mark.parametrize("path", list(CONTRACT), ids=" ".join)
def test_the_help_of_every_command_lists_its_options(path: tuple[str, ...], run_cli: Callable[..., Any]) -> None:
    run = run_cli(*path, "--help")
    assert (run.code, run.err) == (0, "")
    assert run.out.startswith(f"usage: paperbot {' '.join(path)} ")
    documented = [line.strip() for line in run.out.splitlines() if line.startswith("  ")]
    for name in [*CONTRACT[path], *GLOBAL]:
        assert any(line.startswith(name) for line in documented), f"{name} is not in `{' '.join(path)} --help`"
    # and each with a line of help, not a bare name
    command: Any = program.paperbot
    for name in path:
        command = command.get_command(click.Context(command), name)
    ctx = click.Context(command)
    for param in command.params:  # get_params() would cache a help option made without -h
        text = param.doc if isinstance(param, parsing.Arg) else param.get_help_record(ctx)[1]
        assert text.strip(), f"{param.name} of `{' '.join(path)}` has no help"


def test_the_top_help_names_the_commands_and_the_global_options(run_cli: Callable[..., Any]) -> None:
    for line in (["--help"], ["-h"]):
        run = run_cli(*line)
        assert run.code == 0 and run.out.startswith("usage: paperbot [OPTIONS] COMMAND [ARGS]...")
        rows = run.out.split("Commands:")[1].splitlines()
        listed = [row.split()[0] for row in rows if row.startswith("  ") and not row.startswith("   ")]
        assert listed == [path[0] for path in CONTRACT if len(path) == 1]
        assert "before or after the command" in run.out
