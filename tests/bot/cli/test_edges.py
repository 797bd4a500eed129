"""What reaches `paperbot` from outside is clean Unicode by the time the core sees it, and every
odd input ends in an answer or a `paperbot: error:` line, never a traceback: arguments with bytes
that are not UTF-8, --queries lines and --history files with lone surrogates or deep nesting, stdin,
and files handed to `ingest` (named pipes, links out of a folder).

The property tests run the command line in this process on the seeded store, with a fixed seed and
a small budget; `python -m tests.fuzz` runs the same kind of input at length.
"""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.cli import main as cli_main
from bot.settings import Settings
from bot.text.clean import replaced_note

pytestmark = pytest.mark.slow

LATIN1_QUERY = "caf\udce9 reinforcement learning"  # what Python makes of b"caf\xe9 ..." in argv
REPLACED = "1 character that is not valid Unicode"


def test_a_byte_that_is_not_utf8_in_the_query_is_replaced_with_a_warning(
    seeded_store: Settings, run_cli: Callable[..., Any]
) -> None:
    """Found by the issue-16 audit: `paperbot search $'caf\\xe9 ...'` ended in a tokenizer TypeError."""
    for command in ("search", "ask"):
        run = run_cli(command, LATIN1_QUERY, "--json", "--store", seeded_store.store)
        assert run.code == 0, run.err
        assert run.messages.startswith(f"paperbot: warning: QUERY: {REPLACED}")
        assert run.messages.endswith("replaced by U+FFFD; is the terminal set to UTF-8?\n")
        out = run.json()
        assert out.get("query", out.get("question")) == "caf\ufffd reinforcement learning"


def test_options_and_list_names_are_cleaned_too(seeded_store: Settings, run_cli: Callable[..., Any]) -> None:
    run = run_cli("triage", "safe \udcff RL", "--json", "--store", seeded_store.store)
    assert run.code == 0 and "TOPIC: 1 character" in run.messages


def test_a_lone_surrogate_escape_in_a_queries_line_is_replaced_with_a_warning(
    seeded_store: Settings, run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    """Found by the issue-16 audit: '\\ud800' in a --queries line ended in a tokenizer TypeError."""
    path = tmp_path / "q.jsonl"
    path.write_bytes(b'{"id": "s", "text": "safe RL \\ud800"}\n{"id": "b", "text": "caf\xe9 GRPO"}\n')
    for command in ("search", "ask"):
        run = run_cli(command, "--queries", path, "--store", seeded_store.store)
        assert run.code == 0, run.err
        assert [line.split(": ")[2] for line in run.messages.splitlines()] == [f"{path} line 1", f"{path} line 2"]
        first, second = run.json_lines()
        key = "question" if command == "ask" else "query"
        assert (first[key], second[key]) == ("safe RL \ufffd", "caf\ufffd GRPO")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[" * 50_000, "lists or objects nested more than 100 levels deep"),
        ('[{"citations": [{"n": "one", "paper_id": "p1"}]}]', "a citation's \"n\" is 'one'; give its number"),
        ('[{"citations": [{"n": 1, "paper_id": ["p1"]}]}]', "a citation's \"paper_id\" is ['p1']; give the id"),
        ('[{"citations": [{"n": 1e400, "paper_id": "p1"}]}]', 'a citation\'s "n" is inf; give its number'),
    ],
    ids=["deep", "n-not-a-number", "id-not-text", "n-infinite"],
)
def test_a_history_file_beyond_what_ask_writes_is_a_clear_error(
    content: str, message: str, seeded_store: Settings, run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    """Found by the issue-16 audit (deep nesting: RecursionError) and while fixing it (a citation
    number that is not a number: ValueError; a list for a paper id: TypeError)."""
    history = tmp_path / "turns.json"
    history.write_text(content)
    run = run_cli("ask", "compare [1] and [2]", "--history", history, "--store", seeded_store.store)
    assert (run.code, run.out) == (2, "")
    assert run.err.startswith(f"paperbot: error: --history {history}: {message}")


def _strict_stdin(data: bytes) -> io.TextIOWrapper:
    """stdin as a UTF-8 terminal gives it: a byte that is not UTF-8 is an error unless paperbot says otherwise."""
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="strict")


def test_chat_and_similar_read_stdin_bytes_that_are_not_utf8_with_a_warning(
    seeded_store: Settings, run_cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", _strict_stdin(b"caf\xe9 and safe RL?\n\xff\xfe\nquit\n"))
    run = run_cli("chat", "--json", "--store", seeded_store.store)
    assert run.code == 0, run.err
    assert [a["question"] for a in run.json_lines()] == ["caf\ufffd and safe RL?", "\ufffd\ufffd"]
    assert run.messages.count("paperbot: warning: stdin: ") == 2
    abstract = b"We certify model error for safe policy improvement in continuous control caf\xe9.\n"
    monkeypatch.setattr(sys, "stdin", _strict_stdin(abstract))
    similar = run_cli("similar", "--text", "-", "--json", "--store", seeded_store.store)
    assert similar.code == 0 and "stdin: 1 character" in similar.messages


def test_ingest_reads_surrogates_and_huge_numbers_and_refuses_deep_nesting_and_pipes(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    """Found by the issue-16 audit: each of these ended in a traceback (UnicodeEncodeError in
    normalise.paper_id, ValueError for the 5,000-digit year, RecursionError), or hung (the pipe)."""
    store = ("--store", tmp_path / "store")
    odd = tmp_path / "odd.jsonl"
    abstract = "We propose TideNet, which forecasts harbour tides from sparse gauges \\ud800 and wins."
    odd.write_text('{"abstract": "' + abstract + '", "title": "Tide\\udc00Net", "year": ' + "9" * 5000 + "}\n")
    run = run_cli("ingest", odd, *store, "--json")
    assert run.code == 0, run.err
    assert run.json()["added"] == 1
    assert [w.split(": ")[2:] for w in run.messages.splitlines()] == [
        [f"{odd} line 1", f"'abstract' held {replaced_note(1)}"],
        [f"{odd} line 1", f"'title' held {replaced_note(1)}"],
        [f"{odd} line 1", f"'year' is '{'9' * 17}...{'9' * 18}', not a year; stored without it"],
    ]
    found = run_cli("search", "harbour tides", "--json", *store).json()["results"][0]
    assert found["text"] == abstract.replace("\\ud800", "\ufffd") and found["label"] == "Tide\ufffdNet"

    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000)
    pipe = tmp_path / "pipe.jsonl"
    os.mkfifo(pipe)
    for bad, message in ((deep, f"{deep} line 1: lists or objects nested more than 100"), (pipe, f"{pipe}: a named")):
        run = run_cli("ingest", bad, *store)
        assert (run.code, run.out) == (2, "")
        assert run.err.startswith(f"paperbot: error: {message}")


def test_ingest_follows_links_out_of_a_folder_only_when_asked(run_cli: Callable[..., Any], tmp_path: Path) -> None:
    """Found by the issue-16 audit: a link to /etc/passwd inside an ingested folder became a paper."""
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "a.txt").write_text("We propose PenguinCount, which counts penguins in drone images of colonies.\n")
    outside = tmp_path / "notes.txt"
    outside.write_text("We propose QuillNet, which restores damaged medieval manuscripts from ink traces.\n")
    (folder / "notes.txt").symlink_to(outside)
    store = ("--store", tmp_path / "store")
    run = run_cli("ingest", folder, *store, "--json")
    assert (run.code, run.json()["added"]) == (0, 1)
    assert run.messages == (
        f"paperbot: warning: skipped {folder}/notes.txt: a link to {outside}, outside {folder}; "
        "pass --follow-symlinks to read it\n"
    )
    run = run_cli("ingest", folder, *store, "--json", "--follow-symlinks")
    assert (run.code, run.json()["added"], run.messages) == (0, 1, "")


def _in_process(args: list[str]) -> tuple[int, str, str]:
    """`paperbot ARGS` run here, its output written as to a UTF-8 terminal, which refuses lone surrogates."""
    out, err = io.BytesIO(), io.BytesIO()
    out_text = io.TextIOWrapper(out, encoding="utf-8", errors="strict", write_through=True)
    err_text = io.TextIOWrapper(err, encoding="utf-8", errors="strict", write_through=True)
    with redirect_stdout(out_text), redirect_stderr(err_text):
        code = cli_main(args)
    return code, out.getvalue().decode(), err.getvalue().decode()


# Questions as anyone might type or paste them: any character, lone surrogates, controls, brackets
# that look like citations, and words the seeds use.
WORDS = st.sampled_from(["GRPO", "safe", "RL", "[1]", "[99]", "compare", "which papers", "χ-Bench", "?", "$x^2$"])
CHARS = st.one_of(
    st.sampled_from(["\udce9", "\ud800", "\udfff", "\x00", "\x1b", "\u202e", "\ufeff", "\r", "\n", "\\", '"']),
    st.characters(codec=None),
)
# Lists joined, not st.text: text() leaves surrogates out of any alphabet.
PIECES = st.lists(CHARS, max_size=12).map("".join)
QUESTIONS = st.lists(st.one_of(WORDS, PIECES), max_size=8).map(" ".join)
BUDGET = settings(
    derandomize=True,
    max_examples=50,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@BUDGET
@given(command=st.sampled_from(["search", "ask"]), question=QUESTIONS, as_json=st.booleans())
def test_any_question_is_answered_or_refused_with_a_message(
    seeded_store: Settings, command: str, question: str, as_json: bool
) -> None:
    args = [command, question, "--store", str(seeded_store.store), *(["--json"] if as_json else [])]
    code, out, err = _in_process(args)  # an exception here is the traceback a user would see
    assert code in (0, 2), err
    if code == 2:
        assert out == "" and err.rstrip().splitlines()[-1].startswith("paperbot: error: ")
    elif as_json:
        json.loads(out)
    assert "\x1b" not in out + err


@BUDGET
@given(lines=st.lists(st.one_of(QUESTIONS.map(lambda q: json.dumps({"text": q})), PIECES), max_size=4))
def test_any_queries_file_gives_one_output_line_per_line(
    seeded_store: Settings, tmp_path_factory: pytest.TempPathFactory, lines: list[str]
) -> None:
    path = tmp_path_factory.mktemp("queries") / "q.jsonl"
    path.write_bytes("\n".join(lines).encode("utf-8", "surrogatepass"))
    code, out, err = _in_process(["search", "--queries", str(path), "--k", "2", "--store", str(seeded_store.store)])
    outputs = [json.loads(line) for line in out.splitlines()]
    if not any(line.strip() for line in path.read_text("utf-8", "replace").splitlines()):  # no query: said so
        assert (code, out) == (2, "") and "no queries in it" in err
        return
    assert all(("error" in o) != ("results" in o) for o in outputs)
    assert code == (2 if any("error" in o for o in outputs) else 0), err
