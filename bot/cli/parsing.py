"""How `paperbot` reads its command line, on top of click: global options, help and usage errors.

- `--store`, `--chroma-url` and `-v` are accepted before the command or after it (every command
  carries them; the one nearest the end of the line wins, as argparse's parents did);
- an unambiguous prefix of a long option works (`--rebuil`), as it did with argparse;
- a misspelt command or option is named with the nearest ones ("did you mean ...");
- usage lines start `usage:` and usage errors read `paperbot: error: ...` like every other error.

It knows no command and never touches the core; the commands live in the sibling modules.
"""

from __future__ import annotations

import io
import logging
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

# Where the global options given on the line are kept; ctx.meta is shared by every context of a run.
_GIVEN = "paperbot.global_options"
# Path arguments are taken as given: existence and readability are checked by the core, with its messages.
PATH = click.Path(path_type=Path, readable=False)


@dataclass(frozen=True)
class GlobalOptions:
    """The global options as given (None: not given, so the settings' environment or default holds)."""

    store: Path | None = None
    chroma_url: str | None = None
    verbose: bool = False


def _remember(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """Keep a global option that was given; one given later on the line replaces it."""
    if value is not None and value is not False and param.name:
        ctx.meta.setdefault(_GIVEN, {})[param.name] = _clean(value, param)
    return value


def _clean(value: Any, param: click.Parameter) -> Any:
    """A text argument (or each of several) as clean Unicode, saying on stderr what was replaced.

    A byte that is not UTF-8 in an argument (a terminal set to Latin-1) reaches Python as a lone
    surrogate, which the tokenizer and SQLite refuse. Paths are left alone: a file name may hold
    any bytes, and the file is opened by that name.
    Example: "caf\\udce9 learning" -> 'caf\ufffd learning', and a warning naming the argument
    """
    from bot.text.clean import clean, replaced_note

    if isinstance(value, tuple):
        return tuple(_clean(item, param) for item in value)
    if not isinstance(value, str):
        return value
    fixed, replaced = clean(value)
    if replaced:
        name = param.opts[0] if isinstance(param, click.Option) else (param.name or "argument").upper()
        print(f"paperbot: warning: {name}: {replaced_note(replaced)}; is the terminal set to UTF-8?", file=sys.stderr)
    return fixed


class GlobalOption(click.Option):
    """An option every command accepts, before or after its name (not passed to the callbacks)."""

    def __init__(self, *decls: str, **attrs: Any) -> None:
        super().__init__(list(decls), expose_value=False, callback=_remember, **attrs)


def _global_options() -> list[click.Parameter]:
    return [
        GlobalOption(
            "--store",
            type=PATH,
            metavar="DIR",
            help="folder of the local store (env PAPERBOT_STORE; default .paperbot/)",
        ),
        GlobalOption(
            "--chroma-url",
            metavar="URL",
            help="use the Chroma server at this URL, e.g. http://127.0.0.1:8000 (env PAPERBOT_CHROMA_URL)",
        ),
        GlobalOption("-v", "--verbose", is_flag=True, default=False, help="also log each step with its timing"),
    ]


def given(ctx: click.Context) -> GlobalOptions:
    """The global options given anywhere on the line, with logging set up for -v (call once, first).

    Example: `paperbot --store a search x --store b` -> GlobalOptions(store=Path("b"), ...)
    """
    options = GlobalOptions(**ctx.meta.get(_GIVEN, {}))
    logging.basicConfig(
        level=logging.INFO if options.verbose else logging.WARNING,
        format="paperbot: %(levelname)s: %(message)s",
    )
    for noisy in ("bm25s", "chromadb", "httpx", "sentence_transformers", "transformers"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    return options


def read_stdin(whole: bool = False) -> str:
    """The next line of stdin (all of it with `whole`), clean Unicode: what is not UTF-8 becomes U+FFFD,
    with a warning. '' at the end of input."""
    from bot.text.clean import clean, replaced_note

    stream = sys.stdin
    if isinstance(stream, io.TextIOWrapper) and stream.errors == "strict":
        stream.reconfigure(errors="surrogateescape")  # a stray byte is then replaced, not a UnicodeDecodeError
    text, replaced = clean(stream.read() if whole else stream.readline())
    if replaced:
        print(f"paperbot: warning: stdin: {replaced_note(replaced)}", file=sys.stderr)
    return text


class Arg(click.Argument):
    """A positional argument with a line of help (click before 8.5 has no help for arguments)."""

    def __init__(self, decls: list[str], doc: str = "", **attrs: Any) -> None:
        super().__init__(decls, **attrs)
        self.doc = doc


def argument(name: str, doc: str, **attrs: Any) -> Callable[[Any], Any]:
    """click.argument with a help line shown under "Arguments"."""
    return click.argument(name, cls=Arg, doc=doc, **attrs)


class _Paperbot(click.Command):
    """What every paperbot command and group shares; mixed in before click's own class."""

    def __init__(self, *args: Any, **attrs: Any) -> None:
        attrs["params"] = [*(attrs.get("params") or []), *_global_options()]
        super().__init__(*args, **attrs)

    def get_help_option(self, ctx: click.Context) -> click.Option | None:
        option = super().get_help_option(ctx)
        if option is not None:
            option.help = "show this help and exit"
        return option

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        formatter.write_usage(ctx.command_path, " ".join(self.collect_usage_pieces(ctx)), prefix="usage: ")

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        params = self.get_params(ctx)
        arguments = [(" ".join(p.get_usage_pieces(ctx)), p.doc) for p in params if isinstance(p, Arg)]
        own = [r for p in params if not isinstance(p, GlobalOption | click.Argument) and (r := p.get_help_record(ctx))]
        shared = [r for p in params if isinstance(p, GlobalOption) and (r := p.get_help_record(ctx))]
        sections = (
            ("Arguments", arguments),
            ("Options", own),
            ("Global options (before or after the command)", shared),
        )
        for title, rows in sections:
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)
        if isinstance(self, click.Group):
            self.format_commands(ctx, formatter)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            rest = super().parse_args(ctx, self._expand_prefixes(ctx, args))
        except click.UsageError as exc:
            exc.ctx = exc.ctx or ctx  # click's parser leaves it out of some errors ('--k' with no value)
            raise
        by_name = {p.name: p for p in self.get_params(ctx)}
        for name, value in ctx.params.items():
            if name in by_name:
                ctx.params[name] = _clean(value, by_name[name])
        return rest

    def _expand_prefixes(self, ctx: click.Context, args: list[str]) -> list[str]:
        """`args` with each unambiguous prefix of a long option written in full, as argparse allowed.

        Example: ["--rebuil", "--enc=latin-1", "x"] -> ["--rebuild", "--encoding=latin-1", "x"]
        """
        takes_value: dict[str, bool] = {}
        for param in self.get_params(ctx):
            if isinstance(param, click.Option):
                for name in (*param.opts, *param.secondary_opts):
                    takes_value[name] = not param.is_flag and not param.count
        out: list[str] = []
        rest = iter(args)
        for token in rest:
            if token == "--" or not token.startswith("-") or token == "-":
                out.append(token)
                if token == "--" or not ctx.allow_interspersed_args:  # a group stops at its command
                    out.extend(rest)
                continue
            name, equals, value = token.partition("=") if token.startswith("--") else (token, "", "")
            if name.startswith("--") and name not in takes_value:
                matches = sorted(o for o in takes_value if o.startswith(name))
                if len(matches) > 1 and not ctx.resilient_parsing:
                    raise click.UsageError(f"option {name} is ambiguous: it could be {' or '.join(matches)}", ctx)
                name = matches[0] if len(matches) == 1 else name
            out.append(name + equals + value)
            following = next(rest, None) if takes_value.get(name) and not equals else None
            if following is not None:  # the option's value, taken as is even when it starts with '-'
                out.append(following)
        return out


class Command(_Paperbot):
    """A paperbot command: global options, `usage:` line, prefixes of long options."""


class Group(_Paperbot, click.Group):
    """A group of paperbot commands, listed in the order they were added; misspelt names get suggestions."""

    command_class = Command

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0]
        if self.get_command(ctx, name) is None and not ctx.resilient_parsing and not name.startswith("-"):
            names = self.list_commands(ctx)
            near = _nearest(name, names)
            where = "" if ctx.parent is None else f" in `{ctx.command_path}`"
            hint = f"did you mean {_either(near)}?" if near else f"choose from {', '.join(names)}"
            raise click.UsageError(f"no command {name!r}{where}; {hint}", ctx)
        return super().resolve_command(ctx, args)


def _nearest(name: str, choices: list[str]) -> list[str]:
    """Up to three of `choices` that look like a misspelling of `name`, closest first.

    Example: _nearest("serach", ["ingest", "search", "ask"]) -> ["search"]
    """
    import difflib  # only on a usage error: it costs `paperbot --help` a few ms

    return difflib.get_close_matches(name, choices, n=3, cutoff=0.6)


def _either(names: list[str]) -> str:
    """Example: _either(["--json", "--store"]) -> "'--json' or '--store'" """
    quoted = [repr(n) for n in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]


def _option_names(params: list[click.Parameter]) -> list[str]:
    return [n for p in params if isinstance(p, click.Option) for n in (*p.opts, *p.secondary_opts)]


def _owners(option: str, command: click.Command, path: str = "paperbot") -> list[str]:
    """The commands under `command` (itself included) that take `option`, as typed.

    Example: _owners("--generator", paperbot) -> ["paperbot ask"]
    """
    # .params, not get_params(): that would make and cache a help option for a context without -h
    found = [path] if option in _option_names(command.params) else []
    if isinstance(command, click.Group):
        ctx = click.Context(command)
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            found += _owners(option, sub, f"{path} {name}") if sub is not None else []
    return found


# An "option" that is a number or a word with a space after it: text meant as a question ("-1 reward in RLVR?")
_QUESTION_LIKE = re.compile(r"-\d|-\S*\s")


def _no_such_option(option: str, ctx: click.Context) -> str:
    """Example: ("--jsno", search's ctx) -> "no option '--jsno' in `paperbot search`; did you mean '--json'?" """
    bare = {n.lstrip("-"): n for n in _option_names(ctx.command.get_params(ctx))}
    # compared without their dashes, which would make every long option look alike
    near = [bare[n] for n in _nearest(option.lstrip("-"), list(bare))]
    owners = [f"`{o}`" for o in _owners(option, ctx.find_root().command)]
    if near:
        hint = f"did you mean {_either(near)}?"
    elif owners:  # the right option in the wrong place: `paperbot --json search x`, `search x --generator openai`
        others = f", {len(owners) - 3} more" if len(owners) > 3 else ""
        where = "; a command's options go after its name" if isinstance(ctx.command, click.Group) else ""
        hint = f"it is an option of {', '.join(owners[:3])}{others}{where}"
    elif _QUESTION_LIKE.match(option):  # `paperbot ask "-1 reward in RLVR?"`: a question, not an option
        example = f'`{ctx.command_path} -- "{option} ..."`'
        hint = f"to ask or search for text starting with '-', put `--` before it: {example}"
    else:
        hint = f"`{ctx.command_path} --help` lists them"
    return f"no option {option!r} in `{ctx.command_path}`; {hint}"


def usage_error(exc: click.UsageError) -> str:
    """What stderr shows for a usage error: the usage line, then `paperbot: error: ...` with a way on.

    Example: `paperbot search --jsno x` -> "usage: paperbot search [OPTIONS] [QUERY]\\n
    paperbot: error: no option '--jsno' in `paperbot search`; did you mean '--json'?"
    """
    ctx = exc.ctx
    usage = ctx.get_usage() + "\n" if ctx is not None else ""
    if isinstance(exc, click.NoSuchOption) and ctx is not None:
        message = _no_such_option(exc.option_name, ctx)
    else:
        # click's sentences ("Missing argument 'PATH'.") read as paperbot's ("missing argument 'PATH'"), on one line
        message = " ".join(exc.format_message().split()).replace(". Choose from:", "; choose from")
        if message[:2].istitle():
            message = message[0].lower() + message[1:]
        message = message.removesuffix(".")
        if message.startswith("got unexpected extra argument") and ctx is not None:
            # `paperbot ask What is GRPO`: the shell split the question into words
            message += f'; put a question of several words in quotes: `{ctx.command_path} "What is GRPO?"`'
    return f"{usage}paperbot: error: {message}"
