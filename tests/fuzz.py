"""Fuzz the command line in this process: mangled questions and malformed files, counting tracebacks.

Not a test (pytest does not collect it): a command anyone can rerun, from the repository root:

    .venv/bin/python -m tests.fuzz                      # 1,000 questions, 200 files, seed 1
    .venv/bin/python -m tests.fuzz --questions 100 --files 20 --seed 7 --store .paperbot

Questions go through `search`, `ask` (text and --json, with and without --history), `chat`,
`triage`, `similar --text -` and `--queries` batches of them; files through `ingest` (half with
--skip-bad) into a store of their own. Without --store the bundled seeds are ingested into a
temporary store first (20-40 s). Output is written as to a UTF-8 terminal, which refuses lone
surrogates. A traceback is any exception that escapes `paperbot`'s main, which turns paperbot's
own errors into `paperbot: error:` lines and exit codes. Prints the exit codes seen, the number of
tracebacks (the goal is 0) and the first few; exits 1 when there was one.
"""

from __future__ import annotations

import argparse
import collections
import csv
import io
import json
import os
import random
import sys
import tempfile
import time
import traceback
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path

from bot import bundled
from bot.cli import main as cli_main

BASE = [
    "Which papers use GRPO?",
    "What is CausalBind?",
    "safe RL with OPD (on-policy distillation)",
    "χ-Bench?",
    "How does Cal-SPI certify model error?",
    "compare [1] and [2]",
    "tell me more about the second one",
    "summarize [3]",
]
# Pieces that have broken text tools: lone surrogates (a Latin-1 byte in argv, a JSON escape),
# terminal escapes, bidi overrides, byte-order marks, line separators, citations out of range,
# LaTeX and markdown, long runs.
ODD = [
    "\udce9", "\ud800", "\udfff", "\ud83d\ude00", "\x00", "\x1b[2J", "\x1b]0;pwned\x07", "\u202e", "\ufeff",
    "\u2028", "\r", "\n", "\t", "\x0c", "[99]", "[0]", "[-1]", "[1][2][3]", "$x^{2", "\\frac{", "**", "```",
    '"', "\\", "{", "}", "?", "...", "GRPO " * 200, "a" * 5000, "🙂" * 30, " ",
]  # fmt: skip


SOURCES = Path(__file__).resolve().parent / "data" / "sources"


def mangle(rng: random.Random, text: str) -> str:
    """`text` with up to 12 random insertions, deletions and random characters (surrogates included)."""
    chars = list(text)
    for _ in range(rng.randint(1, 12)):
        at, roll = rng.randint(0, len(chars)), rng.random()
        if roll < 0.5:
            chars[at:at] = rng.choice(ODD)
        elif roll < 0.7:
            del chars[at : at + rng.randint(1, 20)]
        else:
            chars[at:at] = [chr(rng.randint(1, 0x2FFFF)) for _ in range(rng.randint(1, 6))]
    return "".join(chars)


@dataclass
class Tally:
    runs: int = 0
    codes: collections.Counter[int] = field(default_factory=collections.Counter)
    tracebacks: list[str] = field(default_factory=list)


def run(args: list[str], tally: Tally, stdin: bytes | None = None) -> tuple[int, str]:
    """`paperbot ARGS` here, as a UTF-8 terminal would see it; an exception escaping main is a traceback."""
    out = io.BytesIO()
    out_text = io.TextIOWrapper(out, encoding="utf-8", errors="strict", write_through=True)
    err_text = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict", write_through=True)
    saved = sys.stdin
    if stdin is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8", errors="strict")
    tally.runs += 1
    code = -1
    try:
        with redirect_stdout(out_text), redirect_stderr(err_text):
            code = cli_main(args)
    except BaseException:  # counting exactly what would reach a user as a traceback
        tally.tracebacks.append(f"paperbot {' '.join(map(ascii, args))}\n{traceback.format_exc()}")
    finally:
        sys.stdin = saved
    tally.codes[code] += 1
    return code, out.getvalue().decode("utf-8", "replace")


def fuzz_questions(count: int, store: Path, folder: Path, rng: random.Random) -> Tally:
    tally = Tally()
    where = ["--store", str(store)]
    first = run(["ask", "Which papers use GRPO?", "--json", *where], tally)[1]
    history = folder / "history.jsonl"
    history.write_text(first, encoding="utf-8")
    batch: list[str] = []
    for number in range(count):
        question = mangle(rng, rng.choice(BASE))
        how = rng.choice(["search", "search-json", "ask", "ask-json", "follow-up", "chat", "triage", "similar"])
        if how.startswith(("search", "ask")):
            run([how.split("-")[0], question, *where, *(["--json"] if how.endswith("json") else [])], tally)
        elif how == "follow-up":
            run(["ask", question, "--history", str(history), *where], tally)
        elif how == "chat":
            run(["chat", "--json", *where], tally, stdin=question.encode("utf-8", "surrogatepass") + b"\n")
        elif how == "triage":
            run(["triage", question, *where], tally)
        else:
            run(["similar", "--text", "-", *where], tally, stdin=question.encode("utf-8", "surrogatepass"))
        line = json.dumps({"id": number, "text": question}) if rng.random() < 0.8 else mangle(rng, '{"text": "x"}')
        batch.append(line)
        if len(batch) == 25:
            path = folder / f"queries-{number}.jsonl"
            path.write_bytes("\n".join(batch).encode("utf-8", "surrogatepass"))
            run([rng.choice(["search", "ask"]), "--queries", str(path), *where], tally)
            batch = []
    return tally


def _seed_text(rng: random.Random) -> str:
    seeds = sorted(bundled.folder("seeds").glob("*.txt"))
    return rng.choice(seeds).read_text(encoding="utf-8")


def _record(rng: random.Random, paragraph: str) -> str:
    """One JSON line, often with something odd in it."""
    record: dict[str, object] = {"abstract": mangle(rng, paragraph) if rng.random() < 0.5 else paragraph}
    for name in rng.sample(["title", "authors", "year", "id", "venue", "url"], rng.randint(0, 4)):
        record[name] = rng.choice([None, 1, 2.5, True, [], {}, "", mangle(rng, "A Title"), ["A", None], "2021"])
    line = json.dumps(record, ensure_ascii=rng.random() < 0.5)
    roll = rng.random()
    if roll < 0.1:
        return line[:-1] + ', "year": ' + "9" * rng.choice([50, 5000]) + "}"
    if roll < 0.2:
        depth = rng.choice([50, 150, 5000, 100_000])
        return line[:-1] + ', "x": ' + "[" * depth + "]" * depth + "}"
    if roll < 0.3:
        return line.replace("e", "\\ud800", 1)
    if roll < 0.4:
        return line[: rng.randint(0, len(line))]
    return line


def malformed(rng: random.Random, folder: Path, number: int) -> Path:
    """One file (or folder) of the kind a user or an attacker might hand to ingest."""
    paragraphs = [p for p in _seed_text(rng).split("\n\n") if p.strip()][:6]
    kind = rng.choice(
        ["bytes", "txt", "jsonl", "json", "csv", "utf16", "huge", "fifo", "folder", "latin1-name", "empty", "suffix"]
        + ["export"] * 3
    )
    path = folder / f"case-{number:03d}"
    if kind == "bytes":
        path = path.with_suffix(rng.choice([".txt", ".jsonl", ".csv", ".json"]))
        path.write_bytes(rng.randbytes(rng.randint(1, 2000)))
    elif kind == "txt":
        path = path.with_suffix(".txt")
        path.write_bytes(mangle(rng, "\n\n".join(paragraphs)).encode("utf-8", "surrogatepass"))
    elif kind == "jsonl":
        path = path.with_suffix(".jsonl")
        path.write_bytes("\n".join(_record(rng, p) for p in paragraphs).encode("utf-8", "surrogatepass"))
    elif kind == "json":
        path = path.with_suffix(".json")
        items = ",\n".join(_record(rng, p) for p in paragraphs)
        text = rng.choice([f"[{items}]", f"[{items}", items, "{" + items, "[" * 100_000])
        path.write_bytes(text.encode("utf-8", "surrogatepass"))
    elif kind == "csv":
        path = path.with_suffix(".csv")
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(rng.sample(["abstract", "title", "year", "authors", "id"], rng.randint(1, 5)))
        for p in paragraphs:
            writer.writerow([mangle(rng, p) if rng.random() < 0.3 else p for _ in range(rng.randint(0, 6))])
        path.write_bytes(mangle(rng, out.getvalue()).encode("utf-8", "surrogatepass"))
    elif kind == "export":
        # A reference-manager or service export (BibTeX, RIS, arXiv, OpenReview, Semantic Scholar), mangled.
        source = rng.choice(sorted(SOURCES.iterdir()))
        path = path.with_suffix(source.suffix)
        path.write_bytes(mangle(rng, source.read_text(encoding="utf-8")).encode("utf-8", "surrogatepass"))
    elif kind == "utf16":
        path = path.with_suffix(".txt")
        path.write_bytes("\n\n".join(paragraphs).encode(rng.choice(["utf-16", "utf-16-le", "utf-32"])))
    elif kind == "huge":
        path = path.with_suffix(".jsonl")
        path.write_text(json.dumps({"abstract": "word " * rng.choice([20_000, 400_000])}), encoding="utf-8")
    elif kind == "fifo":
        path = path.with_suffix(".jsonl")
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
        (path / "a.txt").write_text("\n\n".join(paragraphs[:2]), encoding="utf-8")
        (path / "passwd.txt").symlink_to("/etc/passwd")
        (path / "loop").symlink_to(path)
        (path / "gone.csv").symlink_to(path / "nothing")
        os.mkfifo(path / "pipe.txt")
    elif kind == "latin1-name":
        path = Path(os.fsdecode(bytes(path) + b"-caf\xe9.txt"))
        path.write_text(paragraphs[0], encoding="utf-8")
    elif kind == "empty":
        path = path.with_suffix(rng.choice([".txt", ".jsonl", ".csv", ".json"]))
        path.write_bytes(rng.choice([b"", b"\n\n", b"\xef\xbb\xbf", b"[]", b"{}"]))
    else:
        path = path.with_suffix(rng.choice([".pdf", ".xml", "", ".tsv"]))
        path.write_text(paragraphs[0], encoding="utf-8")
    return path


def fuzz_files(count: int, folder: Path, rng: random.Random) -> Tally:
    tally = Tally()
    store = folder / "files-store"
    files = folder / "files"
    files.mkdir()
    for number in range(count):
        path = malformed(rng, files, number)
        skip = ["--skip-bad"] if number % 2 else []
        encoding = ["--encoding", rng.choice(["latin-1", "utf-7", "utf-16"])] if rng.random() < 0.1 else []
        run(["ingest", str(path), "--json", "--store", str(store), *skip, *encoding], tally)
    return tally


def _report(name: str, tally: Tally, seconds: float) -> None:
    codes = ", ".join(f"{code}: {n}" for code, n in sorted(tally.codes.items()))
    print(f"{name}: {tally.runs} runs in {seconds:.0f} s; exit codes {codes}; tracebacks: {len(tally.tracebacks)}")
    for shown in tally.tracebacks[:3]:
        print(shown.encode("ascii", "backslashreplace").decode())


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__.split("\n")[0])
    parser.add_argument("--questions", type=int, default=1000, help="mangled questions to run (default 1000)")
    parser.add_argument("--files", type=int, default=200, help="malformed files to ingest (default 200)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--store", type=Path, default=None, help="a store to question (default: the seeds, fresh)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="paperbot-fuzz-") as temp:
        folder = Path(temp)
        store = args.store
        if store is None:
            store = folder / "seeded"
            setup = Tally()
            run(["ingest", "--store", str(store)], setup)
            if setup.codes[0] != 1:
                _report("ingest of the seeds", setup, 0)
                return 1
        started = time.perf_counter()
        asked = fuzz_questions(args.questions, store, folder, rng)
        _report(f"{args.questions} questions", asked, time.perf_counter() - started)
        started = time.perf_counter()
        ingested = fuzz_files(args.files, folder, rng)
        _report(f"{args.files} malformed files", ingested, time.perf_counter() - started)
    return 1 if asked.tracebacks or ingested.tracebacks else 0


if __name__ == "__main__":
    sys.exit(main())
