"""The README's shell commands work as written, so the README cannot drift from the product.

Every `paperbot ...` line of the README's code blocks runs in this process, in README order, from a
folder laid out like the checkout (the repository's top-level entries linked in) whose default
store `.paperbot` is a fresh copy of the seeded store: it must exit 0, and print valid JSON when
given --json. The few lines that cannot run here are in SKIP, each with its reason; their command
lines are still parsed, up to the point where the command would open its settings. The README's
test command must be the one `.ci/run` runs.
"""

from __future__ import annotations

import json
import shlex
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

from bot.cli import wiring
from bot.errors import StoreError
from bot.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
SERVER = "needs a server running until interrupted"

# README commands not run here, exactly as the README writes them (comments off), and why.
SKIP: dict[str, str] = {
    "paperbot serve": f"{SERVER}; tests/bot/ui serves the UI over HTTP and in a browser",
    "paperbot serve --host 127.0.0.1 --port 7860": f"{SERVER}; tests/bot/ui serves the UI",
    "paperbot chat": "reads questions until Ctrl+D; tests/test_cli.py pipes questions into it",
    "paperbot ingest papers.jsonl more/": "names example files of the user's; tests/ingest reads every format",
    "paperbot search --queries queries.jsonl": "names an example file; tests/test_cli.py runs batches",
    "paperbot ask --queries questions.jsonl": "names an example file; tests/test_cli.py runs batches",
    'paperbot ask "compare [1] and [3]" --history turns.json': "names an example file; tests/test_cli.py follows up",
    "paperbot eval scifact --split train": "needs BEIR's SciFact downloaded (not in the repository) and minutes "
    "of embedding; tests/bot/eval runs the BEIR path on a small folder",
    'paperbot ask "How does Cal-SPI stay safe?" --generator openai': "needs a model server; "
    "tests/bot/answer/test_generate.py starts one",
    'paperbot ask "How does Cal-SPI stay safe?" --generator llamacpp': "needs the llm extra and a model load; "
    "tests/bot/answer/test_generate.py runs it",
    "paperbot --chroma-url http://127.0.0.1:8000 ingest papers.jsonl": "needs a Chroma server (`chroma run`) and "
    "an example file; tests/bot/store starts one",
    "paperbot --chroma-url http://127.0.0.1:8000 serve": f"needs a Chroma server and {SERVER}",
    'paperbot --store ~/paperbot-mine --chroma-url http://127.0.0.1:8000 search "off-policy evaluation"': "needs a "
    "Chroma server; tests/bot/store/test_shared_server.py has two clients share one",
}


def _without_comment(line: str) -> str:
    """The command of a shell line, its trailing comment taken off (a '#' inside quotes stays).

    Example: 'paperbot ingest --json   # {"papers", ...}' -> 'paperbot ingest --json'
    """
    words = shlex.split(line, comments=True)
    at = line.find("#")
    while at != -1:
        try:
            if shlex.split(line[:at]) == words:
                return line[:at].strip()
        except ValueError:  # cut inside quotes: that '#' is not a comment
            pass
        at = line.find("#", at + 1)
    return line.strip()


def readme_commands(text: str) -> list[str]:
    """Each shell command of the README's indented and fenced code blocks, in order, comments off.

    Example: readme_commands("Run:\\n\\n    bash .ci/setup   # once\\n") -> ["bash .ci/setup"]
    """
    commands = []
    for token in MarkdownIt("commonmark").parse(text):
        if token.type not in ("code_block", "fence") or token.info.strip() not in ("", "sh", "bash", "shell"):
            continue
        for line in token.content.replace("\\\n", " ").splitlines():
            if command := _without_comment(line):
                commands.append(command)
    return commands


def paperbot_commands() -> list[str]:
    return [c for c in readme_commands(README.read_text(encoding="utf-8")) if c.split()[0] == "paperbot"]


@pytest.fixture
def checkout(seeded_store: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder like the checkout: every top-level entry linked in, `.paperbot` a copy of the seeds' store.

    Files the commands write (`-o to-read.bib`) land here, not in the repository.
    """
    for entry in ROOT.iterdir():
        if not entry.name.startswith("."):
            (tmp_path / entry.name).symlink_to(entry)
    shutil.copytree(seeded_store.store, tmp_path / ".paperbot")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_extractor_finds_commands_and_drops_comments() -> None:
    text = (
        "Text `paperbot inline` is not a block.\n\n"
        '    paperbot ask "a # b" --json      # a comment\n'
        "    files -> ingest\n\n"
        "```bash\npaperbot list add 'to read' X\n```\n"
    )
    assert readme_commands(text) == ['paperbot ask "a # b" --json', "files -> ingest", "paperbot list add 'to read' X"]


@pytest.mark.slow
def test_every_runnable_readme_command_works_as_written(checkout: Path, run_cli: Callable[..., Any]) -> None:
    commands = paperbot_commands()
    stale = sorted(set(SKIP) - set(commands))
    assert not stale, f"SKIP names commands the README no longer has: {stale}"
    ran, failures = [], []
    for command in commands:
        if command in SKIP:
            continue
        args = shlex.split(command)[1:]
        run = run_cli(*args)
        ran.append(command)
        if run.code != 0:
            failures.append(f"{command}\n    exit code {run.code}: {run.messages.strip()[-600:]}")
        elif "--json" in args:
            try:
                run.json_lines() if "--queries" in args else run.json()
            except json.JSONDecodeError as exc:
                failures.append(f"{command}\n    --json printed no valid JSON ({exc}): {run.out[:300]!r}")
    assert not failures, "README commands that fail as written:\n" + "\n".join(failures)
    # The README's command line sections are all here: a parsing slip would show as a short list.
    assert len(ran) >= 15 and {c.split()[1] for c in ran} >= {"ingest", "search", "ask", "triage", "list", "export"}
    assert (checkout / "to-read.bib").read_text(encoding="utf-8").startswith("@")


class _Stop(StoreError):
    """Raised where a command would open its settings: its command line has been read by then."""


def test_the_skipped_commands_still_parse(monkeypatch: pytest.MonkeyPatch, run_cli: Callable[..., Any]) -> None:
    def stop(store: Path | None, chroma_url: str | None) -> Settings:
        raise _Stop("command line read")

    monkeypatch.setattr(wiring, "load_settings", stop)
    for command in SKIP:
        run = run_cli(*shlex.split(command)[1:])
        assert (run.code, run.err) == (3, "paperbot: error: command line read\n"), command


def test_ci_runs_the_readme_test_command() -> None:
    tests = [c for c in readme_commands(README.read_text(encoding="utf-8")) if "pytest" in c and "setup" in c]
    assert len(tests) == 1, f"the README should have one test command (setup, then pytest): {tests}"
    lines = [ln.strip() for ln in (ROOT / ".ci" / "run").read_text().splitlines()]
    commands = [ln for ln in lines if ln and not ln.startswith("#") and not ln.startswith(("set ", "cd "))]
    assert commands == tests, ".ci/run must run exactly the README's test command"
