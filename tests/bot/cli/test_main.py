"""`paperbot`'s exits that no command decides: Ctrl+C, a closed pipe, and a --help that loads no
heavy library."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.cli import wiring

ROOT = Path(__file__).resolve().parents[3]


def _python(code: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERBOT_")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT, env=env)


def test_ctrl_c_exits_130_saying_what_is_kept(monkeypatch: pytest.MonkeyPatch, run_cli: Callable[..., Any]) -> None:
    def interrupted(*args: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(wiring, "load_settings", interrupted)
    run = run_cli("ingest", "papers.jsonl")
    assert (run.code, run.out, run.err) == (130, "", "paperbot: interrupted; what was already written is kept\n")


def test_a_closed_pipe_ends_quietly_with_0() -> None:
    run = _python(
        "import sys\n"
        "from bot.cli import main, wiring\n"
        "def closed(*args):\n"
        "    raise BrokenPipeError\n"
        "wiring.load_settings = closed\n"
        "sys.exit(main(['search', 'x']))\n"
    )
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")


HEAVY = ("torch", "chromadb", "gradio", "sentence_transformers", "transformers", "numpy", "pydantic", "bot.app")


@pytest.mark.parametrize("line", [["--help"], ["search", "--help"], ["list", "add", "-h"], ["serach"]])
def test_help_and_usage_errors_load_no_heavy_library(line: list[str]) -> None:
    run = _python(
        "import json, sys\n"
        "from bot.cli import main\n"
        f"code = main({line!r})\n"
        f"print(json.dumps([code, sorted(m for m in {HEAVY!r} if m in sys.modules)]))\n"
    )
    code, loaded = json.loads(run.stdout.splitlines()[-1])
    assert code == (2 if line == ["serach"] else 0)
    assert loaded == []


def test_python_dash_m_bot_cli_runs_the_command_line() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "bot.cli", "serach"], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert run.returncode == 2
    assert "paperbot: error: no command 'serach'; did you mean 'search'?" in run.stderr


@pytest.mark.slow
def test_stored_control_characters_reach_the_terminal_only_as_visible_codes(
    tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    """An abstract holding a terminal escape shows it as its code in text output, JSON keeps the text
    exactly, and the label built from a title holding one is made of its printable text only."""
    data = tmp_path / "evil.jsonl"
    title = "Evil\x1b[31mRed\u202e: a title"
    abstract = (
        "We propose EvilNet\x1b]0;pwned\x07, a method for safe reinforcement learning in robots. EvilNet wins by 5%."
    )
    data.write_text(json.dumps({"title": title, "abstract": abstract}) + "\n", encoding="utf-8")
    store = ["--store", str(tmp_path / "store")]
    assert run_cli("ingest", data, *store).code == 0
    for run in (run_cli("ask", "safe reinforcement learning", *store), run_cli("search", "safe robots", *store)):
        assert run.code == 0, run.err
        assert "\x1b" not in run.out + run.err and "\u202e" not in run.out + run.err
        assert "EvilRed" in run.out  # the label, from the title's printable text
    shown = run_cli("search", "safe robots", *store).out
    assert "EvilNet\\u001b]0;pwned\\u0007, a method" in shown  # the abstract's codes, made visible
    followup = run_cli("ask", "safe reinforcement learning", *store, "--json")
    history = tmp_path / "turns.jsonl"
    history.write_text(followup.out, encoding="utf-8")
    error = run_cli("ask", "what about the second one?", "--history", history, *store)
    assert error.code != 0 and "there is no second one" in error.err and "\x1b" not in error.err
    found = json.loads(run_cli("search", "safe robots", *store, "--json").out)
    assert found["results"][0]["label"] == "EvilRed"
    assert found["results"][0]["text"] == abstract  # JSON escapes say the same text
