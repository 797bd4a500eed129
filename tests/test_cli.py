"""The `paperbot` command line end to end on the seeded store: JSON shapes, batches, errors."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.settings import Settings

SEARCH_KEYS = {"query", "abstained", "results"}
RESULT_KEYS = {"rank", "paper_id", "source_id", "label", "score", "text", "sources"}
ASK_KEYS = {
    "question",
    "answer",
    "abstained",
    "citations",
    "sentences",
    "generator",
    "notice",
    "standalone_question",
    "restricted_to",
}
SENTENCE_KEYS = {"text", "citations", "supported", "support", "reason"}
DATA = Path(__file__).resolve().parent / "data"


def _paperbot(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERBOT_")}
    return subprocess.run(
        [sys.executable, "-m", "bot", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env=env,
    )


def _citation_numbers(markdown: str) -> set[int]:
    """Example: _citation_numbers("A [1]. B [2][3].") -> {1, 2, 3}"""
    return {int(n) for n in re.findall(r"\[(\d+)\]", markdown)}


def _queries_file(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return path


def test_help_lists_the_commands(tmp_path: Path) -> None:
    run = _paperbot("--help", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("usage: paperbot")
    for command in ("ingest", "search", "ask", "serve"):
        assert command in run.stdout
    sub = _paperbot("ingest", "--help", cwd=tmp_path)
    assert sub.returncode == 0 and "--prune" in sub.stdout and "--skip-bad" in sub.stdout


def test_error_exits_non_zero_with_a_message(tmp_path: Path) -> None:
    run = _paperbot("ingest", "no-such-file.txt", "--store", tmp_path / "store", cwd=tmp_path)
    assert run.returncode == 2
    assert run.stdout == ""
    assert run.stderr.startswith("paperbot: error: no-such-file.txt: no such file or folder")
    assert "Traceback" not in run.stderr


@pytest.mark.slow
def test_search_json_shape_and_ranking(seeded_store: Settings, run_cli: Callable[..., Any], seeded_bot: Any) -> None:
    query = "calibrated model trust for safe policy improvement in continuous control"
    run = run_cli("search", query, "--json", "--store", seeded_store.store)
    assert (run.code, run.messages) == (0, "")
    result = run.json()
    assert set(result) == SEARCH_KEYS
    assert (result["query"], result["abstained"]) == (query, False)
    hits = result["results"]
    assert len(hits) == 10
    for rank, hit in enumerate(hits, start=1):
        assert set(hit) >= RESULT_KEYS
        assert hit["rank"] == rank
        paper = seeded_bot.papers()[hit["paper_id"]]
        assert (hit["label"], hit["text"], hit["source_id"]) == (paper.label, paper.text, None)
        assert {Path(s["file"]).name for s in hit["sources"]} == {Path(s.file).name for s in paper.sources}
    assert hits[0]["label"] == "Cal-SPI"
    assert len(hits[0]["sources"]) == 2  # Cal-SPI is in two seed files
    scores = [h["score"] for h in hits]
    assert scores == sorted(scores, reverse=True)


@pytest.mark.slow
def test_search_k_and_text_output(seeded_store: Settings, run_cli: Callable[..., Any]) -> None:
    run = run_cli("search", "benchmark of healthcare workflows", "--k", "3", "--json", "--store", seeded_store.store)
    assert [h["rank"] for h in run.json()["results"]] == [1, 2, 3]
    assert run.json()["results"][0]["label"] == "χ-Bench"
    text = run_cli("search", "benchmark of healthcare workflows", "--k", "3", "--store", seeded_store.store)
    assert text.code == 0
    assert text.out.splitlines()[0].startswith(" 1. χ-Bench  score ")


@pytest.mark.slow
def test_search_batch_prints_one_object_per_line_with_its_id(
    seeded_store: Settings, run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    rows = [
        {"id": "a", "text": "calibrated safe policy improvement"},
        {"text": "binding affinity for unseen protein targets"},  # no id: its line number
        {"id": 7, "text": "benchmark of long-horizon healthcare workflows"},
    ]
    path = _queries_file(tmp_path / "q.jsonl", rows[:2])
    with path.open("a") as f:
        f.write("\n" + json.dumps(rows[2]) + "\n")  # a blank line is skipped, not an error
    run = run_cli("search", "--queries", path, "--k", "2", "--store", seeded_store.store)
    assert (run.code, run.messages) == (0, "")
    out = run.json_lines()
    assert [o["id"] for o in out] == ["a", 2, 7]
    assert [o["query"] for o in out] == [r["text"] for r in rows]
    assert [o["results"][0]["label"] for o in out] == ["Cal-SPI", "CausalBind", "χ-Bench"]
    assert all(set(o) == {"id"} | SEARCH_KEYS and len(o["results"]) == 2 for o in out)


@pytest.mark.slow
def test_ask_json_cites_only_retrieved_papers(
    seeded_store: Settings, run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    questions = [json.loads(line) for line in (DATA / "questions.jsonl").read_text().splitlines()]
    offtopic = json.loads((DATA / "offtopic.jsonl").read_text().splitlines()[0])
    rows = [{"id": q["id"], "text": q["question"]} for q in questions[:3]]
    rows.append({"id": offtopic["id"], "text": offtopic["question"]})
    path = _queries_file(tmp_path / "q.jsonl", rows)
    store = ("--store", seeded_store.store)

    asked = run_cli("ask", "--queries", path, *store)
    searched = run_cli("search", "--queries", path, *store)
    assert (asked.code, searched.code) == (0, 0)
    answers, results = asked.json_lines(), searched.json_lines()
    assert [a["id"] for a in answers] == [r["id"] for r in rows]
    for answer, result in zip(answers, results, strict=True):
        assert set(answer) == {"id"} | ASK_KEYS
        assert answer["question"] == result["query"]
        numbers = [c["n"] for c in answer["citations"]]
        assert numbers == list(range(1, len(numbers) + 1))
        assert _citation_numbers(answer["answer"]) <= set(numbers)
        assert answer["standalone_question"] == answer["question"] and answer["restricted_to"] == []
        for sentence in answer["sentences"]:
            assert set(sentence) == SENTENCE_KEYS
            assert isinstance(sentence["supported"], bool)
            assert set(sentence["citations"]) <= set(numbers)
            # the answer holds each sentence, its [n] markers before the final stop
            assert sentence["text"].rstrip(".?!") in answer["answer"]
        retrieved = {r["paper_id"] for r in result["results"]}
        assert {c["paper_id"] for c in answer["citations"]} <= retrieved
    assert [a["abstained"] for a in answers] == [False, False, False, True]
    assert all(_citation_numbers(a["answer"]) for a in answers[:3])

    single = run_cli("ask", rows[0]["text"], "--json", *store)
    assert single.code == 0
    assert set(single.json()) == ASK_KEYS
    assert single.json() == {k: v for k, v in answers[0].items() if k != "id"}


@pytest.mark.slow
def test_ask_text_output_lists_references(seeded_store: Settings, run_cli: Callable[..., Any]) -> None:
    run = run_cli("ask", "How does Cal-SPI certify model error?", "--store", seeded_store.store)
    assert run.code == 0
    answer, _, references = run.out.partition("\n\n")
    assert "[1]" in answer
    assert references.startswith("[1] Cal-SPI: ")


EXAMPLE = '{"id": "q1", "text": "..."}'
WRITE = "write it like " + EXAMPLE
BAD_LINES = [
    ("{not json", "line {n}: not valid JSON (Expecting property name enclosed in double quotes, column 2); " + WRITE),
    ('{"id": "no-text", "query": "wrong field"}', 'line {n}: needs a non-empty "text" field, like ' + EXAMPLE),
    ('{"id": "blank", "text": "   "}', 'line {n}: needs a non-empty "text" field, like ' + EXAMPLE),
    ('["a", "list"]', 'line {n}: needs a non-empty "text" field, like ' + EXAMPLE),
    ("[" * 5000, "line {n}: lists or objects nested more than 100 levels deep, more than paperbot reads; " + WRITE),
]


@pytest.mark.slow
@pytest.mark.parametrize("command", ["search", "ask"])
def test_a_bad_line_of_a_batch_gets_its_own_error_line_and_the_batch_goes_on(
    command: str, seeded_store: Settings, run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    """Found by the issue-16 audit: one bad line exited 2 with no output for the good lines."""
    good = [{"id": "a", "text": "calibrated safe policy improvement"}, {"id": 7, "text": "binding affinity"}]
    path = tmp_path / "q.jsonl"
    path.write_text("\n".join([json.dumps(good[0]), *(line for line, _ in BAD_LINES), json.dumps(good[1])]) + "\n")
    run = run_cli(command, "--queries", path, "--store", seeded_store.store)
    assert run.code == 2
    assert run.messages == (
        f"paperbot: error: {path}: 5 of 7 lines could not be {'answered' if command == 'ask' else 'searched'}; "
        'their output lines hold an "error" saying why\n'
    )
    out = run.json_lines()
    ids = ["a", 2, "no-text", "blank", 5, 6, 7]
    assert [o["id"] for o in out] == ids
    assert [o["error"] for o in out[1:-1]] == [m.replace("{n}", str(n)) for n, (_, m) in enumerate(BAD_LINES, start=2)]
    alone = _queries_file(tmp_path / "good.jsonl", good)
    assert [out[0], out[-1]] == run_cli(command, "--queries", alone, "--store", seeded_store.store).json_lines()


def test_a_batch_reads_question_lines_as_ask_json_writes_them(
    seeded_store: Settings, run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    """Found by a new user: `ask --queries tests/data/questions.jsonl` failed every line, whose key is "question"."""
    path = _queries_file(tmp_path / "q.jsonl", [{"id": "a", "question": "calibrated safe policy improvement"}])
    run = run_cli("search", "--queries", path, "--store", seeded_store.store)
    assert run.code == 0 and [o["id"] for o in run.json_lines()] == ["a"]
    assert "Cal-SPI" in [h["label"] for h in run.json_lines()[0]["results"]]


@pytest.mark.slow
def test_a_follow_up_with_no_earlier_answer_fails_its_own_line_only(
    seeded_store: Settings, run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    """Found by the issue-16 audit: `summarize [99]` in a batch exited 2 with no output for 265 good lines."""
    rows = [{"id": "a", "text": "summarize [99]"}, {"id": "b", "text": "How does Cal-SPI certify model error?"}]
    path = _queries_file(tmp_path / "q.jsonl", rows)
    run = run_cli("ask", "--queries", path, "--store", seeded_store.store)
    assert run.code == 2
    failed, answered = run.json_lines()
    assert failed == {
        "id": "a",
        "error": "'summarize [99]' refers to citation [99] of an earlier answer, but there is no earlier answer "
        "with citations to refer to; ask a question first, then follow it up",
    }
    assert answered["id"] == "b" and answered["citations"][0]["label"] == "Cal-SPI"
    single = run_cli("ask", rows[1]["text"], "--json", "--store", seeded_store.store).json()
    assert answered == {"id": "b", **single}


@pytest.mark.slow
def test_a_problem_of_the_command_is_said_once_not_on_every_line(
    seeded_store: Settings, run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    path = _queries_file(tmp_path / "q.jsonl", [{"text": "GRPO"}, {"text": "safe RL"}])
    run = run_cli("search", "--queries", path, "--k", "0", "--store", seeded_store.store)
    assert (run.code, run.out, run.err) == (2, "", "paperbot: error: --k 0: give a positive number of papers\n")


@pytest.mark.parametrize("command", ["search", "ask"])
def test_query_and_queries_file_are_exclusive(command: str, tmp_path: Path, run_cli: Callable[..., Any]) -> None:
    path = _queries_file(tmp_path / "q.jsonl", [{"text": "x"}])
    for args in ([], ["some text", "--queries", path]):
        run = run_cli(command, *args, "--store", tmp_path)
        assert run.code == 2
        assert run.err.startswith("paperbot: error: give either a ")


@pytest.mark.parametrize("command", ["search", "ask"])
def test_an_empty_queries_file_is_an_error(
    command: str, tmp_path: Path, run_cli: Callable[..., Any], seeded_store: Settings
) -> None:
    """It printed nothing and exited 0, as if every query had been answered (a fuzzing helper's find)."""
    path = tmp_path / "q.jsonl"
    path.write_text("\n  \n")
    run = run_cli(command, "--queries", path, "--store", seeded_store.store)
    assert (run.code, run.out) == (2, "")
    assert run.err.startswith(f"paperbot: error: {path}: no queries in it")


def test_missing_queries_file(tmp_path: Path, run_cli: Callable[..., Any], seeded_store: Settings) -> None:
    run = run_cli("search", "--queries", tmp_path / "nope.jsonl", "--store", seeded_store.store)
    assert run.code == 2
    assert run.err.startswith(f"paperbot: error: {tmp_path / 'nope.jsonl'}: cannot read")


def test_search_of_an_empty_folder_says_to_ingest_and_writes_nothing_there(
    tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    """Reading an empty folder left a store's files in it (a fuzzing helper's find); a folder holding other
    files is named as holding no store."""
    (tmp_path / "store").mkdir()
    run = run_cli("search", "anything", "--store", tmp_path / "store")
    assert run.code == 3
    assert run.err.startswith(f"paperbot: error: no store at {tmp_path / 'store'}: nothing was ingested there")
    assert list((tmp_path / "store").iterdir()) == []
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "todo.txt").write_text("read papers")
    run = run_cli("ask", "anything", "--store", tmp_path / "notes")
    assert run.code == 3 and "holds no paperbot store (no papers.sqlite in it)" in run.err
    assert [p.name for p in (tmp_path / "notes").iterdir()] == ["todo.txt"]


def test_an_empty_store_setting_is_refused_by_name(
    run_cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """PAPERBOT_STORE= (a variable a script left empty) meant the working folder."""
    monkeypatch.setenv("PAPERBOT_STORE", "")
    run = run_cli("search", "anything")
    assert run.code == 2 and run.err.startswith("paperbot: error: PAPERBOT_STORE='': ") and "names no folder" in run.err


@pytest.mark.parametrize("command", [["search", "x"], ["ask", "x"], ["list"], ["triage", "x"], ["similar", "x"]])
def test_reading_a_store_that_does_not_exist_creates_nothing(
    command: list[str], tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    """A mistyped --store is named as such, and no empty store is left behind at that path."""
    missing = tmp_path / "typo"
    run = run_cli(*command, "--store", missing)
    assert (run.code, run.out) == (3, "")
    assert run.err.startswith(f"paperbot: error: no store at {missing}: nothing was ingested there")
    assert not missing.exists()


@pytest.mark.parametrize("command", [["ingest"], ["search", "x"], ["list"]])
def test_a_store_that_is_a_file_is_named_as_one(
    command: list[str], tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    """Found by a new user: `--store afile` said "[Errno 17] File exists ...; check the folder is writable"."""
    file = tmp_path / "afile"
    file.write_text("notes")
    run = run_cli(*command, "--store", file)
    assert (run.code, run.out) == (3, "")
    assert run.err.startswith(f"paperbot: error: the store {file} is a file, not a folder; give --store")
    assert file.read_text() == "notes"


def test_a_missing_store_names_the_command_that_makes_it(
    tmp_path: Path, run_cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The default store is made by a plain `paperbot ingest`; a given folder is repeated, shell-quoted."""
    monkeypatch.chdir(tmp_path)
    default = run_cli("search", "x")
    assert default.code == 3 and "run `paperbot ingest` first" in default.err
    assert "--store .paperbot" not in default.err
    spaced = tmp_path / "my store"
    given = run_cli("search", "x", "--store", spaced)
    assert given.code == 3 and f"run `paperbot --store '{spaced}' ingest` first" in given.err
    assert not (tmp_path / ".paperbot").exists() and not spaced.exists()


SAFE_RL = "How can reinforcement learning keep an agent safe in every state it visits?"


@pytest.mark.slow
def test_ask_follows_up_a_history_file(seeded_store: Settings, run_cli: Callable[..., Any], tmp_path: Path) -> None:
    store = ("--store", seeded_store.store)
    first = run_cli("ask", SAFE_RL, "--json", *store).json()
    one, two = first["citations"][0], first["citations"][1]
    as_list = tmp_path / "history.json"
    as_list.write_text(json.dumps([{"question": "earlier", "answer": {"citations": []}}, first]))
    as_lines = tmp_path / "history.jsonl"
    as_lines.write_text(json.dumps(first) + "\n")
    for history in (as_list, as_lines):
        run = run_cli("ask", "compare [1] and [2]", "--history", history, "--json", *store)
        assert (run.code, run.messages) == (0, "")
        out = run.json()
        assert out["question"] == "compare [1] and [2]"
        assert out["standalone_question"] == f"Compare {one['label']} and {two['label']}"
        assert out["restricted_to"] == [one["paper_id"], two["paper_id"]]
        assert [c["paper_id"] for c in out["citations"]] == [one["paper_id"], two["paper_id"]]
    bad = tmp_path / "bad.json"
    bad.write_text('[{"citations": [{"label": "x"}]}]')
    run = run_cli("ask", "compare [1] and [2]", "--history", bad, *store)
    assert run.code == 2 and run.err.startswith(f"paperbot: error: --history {bad}: each history citation needs")


@pytest.mark.slow
def test_chat_reads_piped_questions_and_keeps_the_conversation(
    seeded_store: Settings, run_cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = f"{SAFE_RL}\n\ntell me more about [2]\nquit\nnever asked\n"
    monkeypatch.setattr(sys, "stdin", io.StringIO(lines))
    run = run_cli("chat", "--json", "--store", seeded_store.store)
    assert (run.code, run.messages) == (0, "")
    first, second = run.json_lines()  # the blank line is skipped and nothing after quit is asked
    assert first["question"] == SAFE_RL and first["restricted_to"] == []
    picked = first["citations"][1]
    assert second["standalone_question"] == f"Tell me more about {picked['label']}"
    assert [c["paper_id"] for c in second["citations"]] == [picked["paper_id"]]

    monkeypatch.setattr(sys, "stdin", io.StringIO(f"{SAFE_RL}\nwhat about the first one?\n"))  # ends at EOF
    text = run_cli("chat", "--store", seeded_store.store)
    assert text.code == 0
    assert "[1] " in text.out and f"Searched: What about {first['citations'][0]['label']}?" in text.out


@pytest.mark.parametrize("k", ["0", "-1"])
def test_search_k_must_be_positive(k: str, seeded_store: Settings, run_cli: Callable[..., Any]) -> None:
    run = run_cli("search", "GRPO", "--k", k, "--store", seeded_store.store)
    assert (run.code, run.out) == (2, "")
    assert run.err.startswith(f"paperbot: error: --k {k}: give a positive number")


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("PAPERBOT_RETRIEVAL__K", "abc", "PAPERBOT_RETRIEVAL__K='abc': Input should be a valid integer"),
        ("PAPERBOT_RETRIEVAL", "notjson", "PAPERBOT_RETRIEVAL is not a JSON object of settings"),
    ],
)
def test_a_bad_settings_variable_names_itself_without_a_traceback(
    variable: str, value: str, message: str, tmp_path: Path
) -> None:
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("PAPERBOT_")}, variable: value}
    run = subprocess.run(
        [sys.executable, "-m", "bot", "search", "GRPO", "--store", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert run.returncode == 2
    assert run.stderr.startswith(f"paperbot: error: {message}")
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--port", "99999"], "--port 99999: give a port from 1 to 65535"),
        (["--port", "0"], "--port 0: give a port from 1 to 65535"),
        (["--host", "no-such-host.invalid", "--port", "7861"], "--host no-such-host.invalid: not a known host"),
    ],
)
def test_serve_says_which_address_is_wrong(
    args: list[str], message: str, tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    run = run_cli("serve", *args, "--store", tmp_path)
    assert run.code == 1
    assert run.err.startswith(f"paperbot: error: {message}")


@pytest.mark.parametrize("content", ["", "[]", '{"foo": 1}', '[{"score": 3}]'])
def test_a_history_file_without_an_earlier_answer_is_an_error(
    content: str, seeded_store: Settings, run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    history = tmp_path / "history.json"
    history.write_text(content)
    run = run_cli("ask", "what about [1]?", "--history", history, "--store", seeded_store.store)
    assert (run.code, run.out) == (2, "")
    assert run.err.startswith(f"paperbot: error: --history {history}: ")
    assert "no earlier turn" in run.err or "each history turn must be" in run.err


def test_a_citation_number_with_no_earlier_answer_says_so(seeded_store: Settings, run_cli: Callable[..., Any]) -> None:
    run = run_cli("ask", "compare [1] and [3]", "--store", seeded_store.store)
    assert (run.code, run.out) == (2, "")
    assert "no earlier answer with citations to refer to" in run.err


@pytest.mark.slow
def test_verbose_logs_each_step_of_a_search_and_an_answer_with_its_time(seeded_store: Settings, tmp_path: Path) -> None:
    """`-v` says "also log each step with its timing": a search's and an answer's steps, not one line."""
    run = _paperbot("-v", "--store", seeded_store.store, "ask", "How does Cal-SPI certify model error?", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    steps = [
        r"searched 1: question vectors [0-9.]+ s, BM25 [0-9.]+ s, dense [0-9.]+ s, fused and ranked [0-9.]+ s",
        r"1 question\(s\): searched in [0-9.]+ s, relevance cut and lists in [0-9.]+ s",
        r"composed the extractive answer in [0-9.]+ s",
        r"checked its [0-9]+ sentences in [0-9.]+ s",
    ]
    for step in steps:
        assert re.search(step, run.stderr), (step, run.stderr)
    quiet = _paperbot("--store", seeded_store.store, "search", "Cal-SPI", cwd=tmp_path)
    assert quiet.returncode == 0 and "searched" not in quiet.stderr


def test_a_misspelt_settings_variable_is_warned_about(
    seeded_store: Settings, run_cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAPERBOT_RETREIVAL__K", "1")
    run = run_cli("search", "GRPO", "--store", seeded_store.store, "--json")
    assert run.code == 0 and len(run.json()["results"]) > 1  # ignored, as the warning says
    assert (
        "paperbot: warning: PAPERBOT_RETREIVAL__K names no setting and is ignored; did you mean "
        "PAPERBOT_RETRIEVAL__K?" in run.err
    )


def test_a_queries_file_of_dash_is_standard_input(seeded_store: Settings, tmp_path: Path) -> None:
    """`--queries -` said "-: cannot read the file", while `similar --text -` reads standard input."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERBOT_")}
    run = subprocess.run(
        [sys.executable, "-m", "bot", "search", "--queries", "-", "--k", "1", "--store", str(seeded_store.store)],
        input='{"id": "a", "text": "GRPO"}\n{"id": "b", "text": "safe reinforcement learning"}\n',
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env=env,
    )
    assert run.returncode == 0, run.stderr
    assert [json.loads(line)["id"] for line in run.stdout.splitlines()] == ["a", "b"]
